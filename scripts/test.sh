#!/usr/bin/env bash
# `make test`: go vet, then every test with the race detector against a
# DynamoDB Local started in memory on a free port and a local S3 server
# (versitygw) on another, over a fresh directory; both stopped afterwards.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
mkdir -p .local
pidfile="$ROOT/.local/test-dynamodb-$$.pid"
s3pidfile="$ROOT/.local/test-s3-$$.pid"
trap 'scripts/dynamodb-local.sh stop "$pidfile"; scripts/s3-local.sh stop "$s3pidfile"' EXIT
# Java (DynamoDB Local), Node.js (the client tests), curl, Chromium (the
# Playground's browser test), redis-server (the live broker's tests, which
# start their own): installed when missing and possible.
scripts/prerequisites.sh java node curl chromium redis
go vet ./...
if [ ! -d e2e/node_modules/@apollo/client ] || [ ! -d e2e/node_modules/graphql-ws ] || [ ! -d e2e/node_modules/graphql-http ] || [ ! -d e2e/node_modules/graphql-sse ] || [ ! -d e2e/node_modules/pix-utils ] || [ ! -d e2e/node_modules/ibantools ]; then
  echo "Installing the JavaScript clients for e2e/ (npm ci) ..." >&2
  npm ci --silent --no-audit --no-fund --prefix e2e >&2
fi
# The local S3 server is built from source the first time (go install: a few minutes).
scripts/s3-local.sh install
port=$(scripts/dynamodb-local.sh start-memory "$pidfile")
echo "DynamoDB Local (in memory) on port $port" >&2
s3port=$(scripts/s3-local.sh start-memory "$s3pidfile")
echo "Local S3 server (versitygw) on port $s3port" >&2
# Tests make their own buckets (internal/testkit/s3test): no S3_BUCKET.
export S3_ENDPOINT="http://127.0.0.1:$s3port" S3_ACCESS_KEY_ID=fracti-local S3_SECRET_ACCESS_KEY=fracti-local-secret
# The rate providers default to the ECB's and CoinGecko's public endpoints:
# no test reaches them (tests that need rates serve them locally).
export RATES_URL=off CRYPTO_RATES_URL=off
# GOTEST_FLAGS lets `make bench` run without the race detector; PACKAGES
# narrows the run (`make fuzz` fuzzes one package at a time).
# The output is kept in .local/test-output-<pid>.log and, when a test fails, its
# failure lines are repeated last: a failing package prints every test's
# logs, and CI shows only the end of what it printed.
log="$ROOT/.local/test-output-$$.log"
status=0
DYNAMODB_ENDPOINT="http://127.0.0.1:$port" go test ${GOTEST_FLAGS--race -count=1} "$@" ${PACKAGES:-./...} 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
  echo "==== what failed (the whole output is in $log) ====" >&2
  grep -n -E -A12 -- '^\s*--- FAIL|^panic:|^fatal error:|DATA RACE|^FAIL\s|\[build failed\]|test timed out' "$log" | grep -v -E '^[0-9]+-[0-9]{4}/[0-9]{2}/[0-9]{2} [0-9:]+ (INFO|DEBUG) ' | head -150 >&2 || true
else
  rm -f "$log"
fi
exit "$status"
