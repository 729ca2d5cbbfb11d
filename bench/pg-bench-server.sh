#!/usr/bin/env bash
# Start a PostgreSQL server for the benchmarks on 127.0.0.1 with production durability
# (fsync and synchronous_commit on, unlike the test server) and print its URL.
# Usage: eval "$(bash bench/pg-bench-server.sh)"   (idempotent: reuses a running server)
set -euo pipefail
PORT=${COMVE_BENCH_PG_PORT:-54331}
COMVE_PG_PORT=$PORT COMVE_PG_DATA=${COMVE_BENCH_PG_DATA:-/tmp/comve-pgbench-$PORT} COMVE_PG_DURABLE=1 \
  COMVE_PG_URL_VAR=COMVE_BENCH_POSTGRES_URL exec bash "$(dirname "$0")/../scripts/pg-test-server.sh"
