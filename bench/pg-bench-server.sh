#!/usr/bin/env bash
# Start a PostgreSQL server for the benchmarks on 127.0.0.1 with production durability
# (fsync and synchronous_commit on, unlike the test server) and print its URL.
# Usage: eval "$(bash bench/pg-bench-server.sh)"   (idempotent: reuses a running server)
set -euo pipefail
PORT=${COMVE_BENCH_PG_PORT:-54331}
DATA=${COMVE_BENCH_PG_DATA:-/tmp/comve-pgbench-$PORT}
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if ! "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT"; then
  rm -rf "$DATA"; mkdir -p "$DATA"
  [ "$(id -u)" -eq 0 ] && chown postgres "$DATA"
  as_pg "$BIN/initdb" -D "$DATA" -A trust -U comve -E UTF8 >/dev/null
  as_pg "$BIN/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w -o \
    "-h 127.0.0.1 -p $PORT -k $DATA -c max_connections=300 -c shared_buffers=512MB" start >/dev/null
  as_pg "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U comve comve
fi
echo "export COMVE_BENCH_POSTGRES_URL=postgres://comve@127.0.0.1:$PORT/comve"
