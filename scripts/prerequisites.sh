#!/usr/bin/env bash
# Makes sure the programs `make run` and `make test` need are there:
#
#   scripts/prerequisites.sh java node curl [chromium] [redis]
#
# java runs DynamoDB Local, node (with npm) installs it and runs the client
# tests, curl checks that DynamoDB Local answers, chromium runs the
# Playground's browser test, redis (redis-server) is the live updates'
# broker in the multi-instance tests and `LIVE_BROKER=local make run`. What is missing is installed through apt-get
# when this runs as root on Debian or Ubuntu (one line says what); otherwise
# the script stops and prints the command that installs it.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }

# java_ok: a Java of at least 17 (DynamoDB Local 3 needs it).
java_ok() {
  have java || return 1
  local v
  v=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)
  [ -n "$v" ] && [ "$v" -ge 17 ]
}

# apt_package NAME...: the first of the Debian packages the archive has.
apt_package() {
  for p in "$@"; do
    if apt-cache show "$p" >/dev/null 2>&1; then echo "$p"; return; fi
  done
  echo "$1"
}

missing=() # what is missing, by name
for what in "$@"; do
  case "$what" in
    java) java_ok || missing+=(java) ;;
    node) { have node && have npm; } || missing+=(node) ;;
    curl) have curl || missing+=(curl) ;;
    chromium) { have chromium || have chromium-browser; } || missing+=(chromium) ;;
    redis) have redis-server || missing+=(redis) ;;
    *) echo "prerequisites.sh: unknown prerequisite $what" >&2; exit 2 ;;
  esac
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && have apt-get; then
  apt-get update -qq >/dev/null
  packages=()
  for what in "${missing[@]}"; do
    case "$what" in
      java) packages+=("$(apt_package openjdk-17-jre-headless default-jre-headless)") ;;
      node) packages+=(nodejs npm) ;;
      curl) packages+=(curl) ;;
      chromium) packages+=("$(apt_package chromium chromium-browser)") ;;
      redis) packages+=(redis-server) ;;
    esac
  done
  echo "Installing ${missing[*]} with apt-get: ${packages[*]}" >&2
  # apt's notes on a machine without apt-utils are noise; its errors are not.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null 2> >(grep -v '^debconf: delaying' >&2)
  exit 0
fi

echo "Missing: ${missing[*]}. Install what is missing, then run this again:" >&2
for what in "${missing[@]}"; do
  case "$what" in
    java) echo "  Java 17+:  sudo apt-get install -y openjdk-17-jre-headless   (macOS: brew install openjdk@17)" >&2 ;;
    node) echo "  Node.js 20+ with npm:  sudo apt-get install -y nodejs npm   (macOS: brew install node)" >&2 ;;
    curl) echo "  curl:  sudo apt-get install -y curl" >&2 ;;
    chromium) echo "  Chromium, for the Playground's browser test:  sudo apt-get install -y chromium   (macOS: brew install --cask chromium)" >&2 ;;
    redis) echo "  Redis 7, the live updates' broker in tests:  sudo apt-get install -y redis-server   (macOS: brew install redis)" >&2 ;;
  esac
done
exit 1
