#!/usr/bin/env bash
# `make run`: DynamoDB Local with data kept in .local/dynamodb-data (reusing
# one already running on DYNAMODB_LOCAL_PORT), the table, a demo user with an
# access token, and the server on :8080 with the Playground at /.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
scripts/prerequisites.sh java node curl
port="${DYNAMODB_LOCAL_PORT:-8000}"
scripts/dynamodb-local.sh start-persistent "$port" "$ROOT/.local/dynamodb-data"
export DYNAMODB_ENDPOINT="${DYNAMODB_ENDPOINT:-http://127.0.0.1:$port}"
export CORS_ALLOWED_ORIGINS="${CORS_ALLOWED_ORIGINS:-*}"
exec go run . serve --demo
