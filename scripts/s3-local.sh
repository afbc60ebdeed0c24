#!/usr/bin/env bash
# Installs, starts and stops the local S3 server of `make run` and `make test`:
# the Versity S3 Gateway (versitygw, Apache-2.0) over a directory, built from
# source with `go install` into .local/versitygw/ (docs/receipts.md#storage).
#
#   scripts/s3-local.sh install
#   scripts/s3-local.sh start-persistent PORT DATA_DIR BUCKET [ORIGIN...]  # reuses one already answering on PORT;
#                                                                          # creates BUCKET, CORS for the ORIGINs
#   scripts/s3-local.sh start-memory PIDFILE    # a fresh data dir under .local/, a free port; prints the port
#   scripts/s3-local.sh stop PIDFILE            # stops it; a start-memory server's data dir goes with it
#
# Its credentials are fixed: S3_ACCESS_KEY_ID=fracti-local, S3_SECRET_ACCESS_KEY=fracti-local-secret.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="$ROOT/.local/versitygw"
BIN="$PREFIX/versitygw"
MODULE="github.com/versity/versitygw"
VERSION="v1.8.0"
ACCESS_KEY="fracti-local"
SECRET_KEY="fracti-local-secret"

# installed: the binary is there and built from versitygw at VERSION (its
# --version says "git" when built by go install: the build info says the
# module's version).
installed() {
  [ -x "$BIN" ] && go version -m "$BIN" 2>/dev/null | grep -qE "^\s+mod\s+$MODULE\s+$VERSION\s"
}

install() {
  installed && return 0
  command -v go >/dev/null || { echo "Go is needed to build the local S3 server (versitygw)" >&2; exit 1; }
  echo "Installing the local S3 server (versitygw $VERSION) into .local/versitygw with go install (about 100 s the first time) ..." >&2
  mkdir -p "$PREFIX"
  GOBIN="$PREFIX" GOFLAGS=-buildvcs=false go install "$MODULE/cmd/versitygw@$VERSION" >&2
  installed || { echo "go install left no versitygw $VERSION in .local/versitygw" >&2; exit 1; }
}

# s3 METHOD PORT PATH [CURL ARGS...]: one request signed with the local
# credentials; prints the HTTP status.
s3() {
  local method=$1 port=$2 path=$3; shift 3
  curl -s -m 2 -o /dev/null -w '%{http_code}' -X "$method" "http://127.0.0.1:$port$path" \
    --aws-sigv4 "aws:amz:us-east-1:s3" -u "$ACCESS_KEY:$SECRET_KEY" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$@" 2>/dev/null || true
}

# answers PORT: is an S3 server that takes the local credentials listening there?
answers() { [ "$(s3 GET "$1" /)" = 200 ]; }

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_ready() { # PORT PID LOG
  for _ in $(seq 1 150); do
    if answers "$1"; then return 0; fi
    if ! kill -0 "$2" 2>/dev/null; then echo "versitygw exited:" >&2; cat "$3" >&2; return 1; fi
    sleep 0.1
  done
  echo "versitygw did not answer on port $1 within 15s" >&2; cat "$3" >&2; return 1
}

launch() { # PORT DATA_DIR LOG: the gateway over DATA_DIR (each directory in it a bucket); prints its pid
  nohup "$BIN" --access "$ACCESS_KEY" --secret "$SECRET_KEY" --port "127.0.0.1:$1" --quiet posix "$2" >"$3" 2>&1 &
  echo $!
}

# create_bucket PORT BUCKET ORIGIN...: the bucket, and CORS for the ORIGINs
# (browsers PUT and GET presigned URLs from them).
create_bucket() {
  local port=$1 bucket=$2; shift 2
  case "$(s3 PUT "$port" "/$bucket")" in
    200) echo "Created the bucket $bucket" >&2 ;;
    409) ;; # it is there already
    *) echo "Could not create the bucket $bucket on port $port" >&2; exit 1 ;;
  esac
  [ $# -gt 0 ] || return 0
  local rule="" origin body md5
  for origin in "$@"; do rule+="<AllowedOrigin>$origin</AllowedOrigin>"; done
  body="<CORSConfiguration><CORSRule>$rule<AllowedMethod>PUT</AllowedMethod><AllowedMethod>GET</AllowedMethod><AllowedMethod>HEAD</AllowedMethod><AllowedHeader>Content-Type</AllowedHeader><AllowedHeader>x-amz-tagging</AllowedHeader><ExposeHeader>ETag</ExposeHeader><MaxAgeSeconds>3000</MaxAgeSeconds></CORSRule></CORSConfiguration>"
  md5=$(printf '%s' "$body" | openssl md5 -binary | base64)
  # "?cors=": curl signs the query as written, and the server reads "cors" as "cors=".
  [ "$(s3 PUT "$port" "/$bucket?cors=" -H "Content-MD5: $md5" --data-binary "$body")" = 200 ] ||
    { echo "Could not set CORS on the bucket $bucket" >&2; exit 1; }
}

case "${1:-}" in
  install) install ;;
  start-persistent)
    port=$2 data=$3 bucket=$4; shift 4
    if answers "$port"; then
      echo "The local S3 server already runs on port $port: reusing it" >&2
    else
      install
      mkdir -p "$data"
      log="$ROOT/.local/s3-local.log"
      pid=$(launch "$port" "$data" "$log")
      echo "$pid" >"$ROOT/.local/s3-local.pid"
      wait_ready "$port" "$pid" "$log"
      echo "Local S3 server (versitygw) started on port $port (pid $pid, data in ${data#$ROOT/})" >&2
    fi
    create_bucket "$port" "$bucket" "$@" ;;
  start-memory)
    pidfile=$2
    install
    # Not in memory: versitygw keeps objects in files. A directory of its
    # own, which stop removes.
    dir="${pidfile%.pid}.s3"
    rm -rf "$dir"
    mkdir -p "$dir/data"
    log="$dir/versitygw.log"
    # Ports below Linux's ephemeral range (32768 up), where outgoing
    # connections take theirs; another process may still take the port
    # between the check and the bind: then try another.
    for attempt in 1 2 3 4 5; do
      for _ in $(seq 1 50); do
        port=$(( 20000 + RANDOM % 12000 ))
        port_free "$port" && break
      done
      pid=$(launch "$port" "$dir/data" "$log")
      echo "$pid" >"$pidfile"
      if wait_ready "$port" "$pid" "$log" 2>/dev/null; then
        echo "$port"
        exit 0
      fi
      kill "$pid" 2>/dev/null || true
      grep -q 'address already in use' "$log" || break
    done
    cat "$log" >&2
    echo "The local S3 server did not start" >&2
    exit 1 ;;
  stop)
    pidfile=$2
    if [ -f "$pidfile" ]; then
      pid=$(cat "$pidfile")
      kill "$pid" 2>/dev/null || true
      # Its files are removed once it has let go of them.
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      rm -f "$pidfile"
    fi
    rm -rf "${pidfile%.pid}.s3" ;;
  *) echo "usage: $0 install|start-persistent PORT DIR BUCKET [ORIGIN...]|start-memory PIDFILE|stop PIDFILE" >&2; exit 2 ;;
esac
