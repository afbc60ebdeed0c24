#!/usr/bin/env bash
# `make run`: DynamoDB Local with data kept in .local/dynamodb-data (reusing
# one already running on DYNAMODB_LOCAL_PORT), the table, a demo user with an
# access token, the local S3 server (versitygw) with the bucket of receipts
# and its data in .local/s3-data (reusing one already running on
# S3_LOCAL_PORT), and the server on :8080 with the Playground at /.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
scripts/prerequisites.sh java node curl
port="${DYNAMODB_LOCAL_PORT:-8000}"
scripts/dynamodb-local.sh start-persistent "$port" "$ROOT/.local/dynamodb-data"
export DYNAMODB_ENDPOINT="${DYNAMODB_ENDPOINT:-http://127.0.0.1:$port}"
export CORS_ALLOWED_ORIGINS="${CORS_ALLOWED_ORIGINS:-*}"
# Receipts and avatars: the local S3 server unless S3_ENDPOINT names another
# store. Browsers PUT and GET its presigned URLs from the Playground's
# origin, which its bucket's CORS allows.
if [ -z "${S3_ENDPOINT:-}" ]; then
  s3_port="${S3_LOCAL_PORT:-9000}"
  export S3_BUCKET="${S3_BUCKET:-fracti-receipts}"
  scripts/s3-local.sh start-persistent "$s3_port" "$ROOT/.local/s3-data" "$S3_BUCKET" \
    "http://localhost:${PORT:-8080}" "http://127.0.0.1:${PORT:-8080}"
  export S3_ENDPOINT="http://127.0.0.1:$s3_port" S3_ACCESS_KEY_ID=fracti-local S3_SECRET_ACCESS_KEY=fracti-local-secret
fi
# The broker profile: LIVE_BROKER=local starts a redis-server in memory on
# REDIS_PORT (6379) unless one answers there, and uses it; any other
# LIVE_BROKER (redis://host:port/db) is used as it is.
if [ "${LIVE_BROKER:-}" = local ]; then
  scripts/prerequisites.sh redis
  redis_port="${REDIS_PORT:-6379}"
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$redis_port") 2>/dev/null; then
    redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
      --pidfile "$ROOT/.local/redis.pid" --logfile "$ROOT/.local/redis.log"
    echo "redis-server on port $redis_port (stop it: kill \$(cat .local/redis.pid))" >&2
  fi
  export LIVE_BROKER="redis://127.0.0.1:$redis_port/0"
fi
exec go run . serve --demo
