#!/usr/bin/env bash
# Start a throw-away PostgreSQL server on 127.0.0.1 and print its URL as a shell export.
# Usage: eval "$(bash scripts/pg-test-server.sh)"   (idempotent: reuses a running server)
# The tests' server trades durability for speed (fsync off); COMVE_PG_DURABLE=1 keeps
# production durability for benchmarks (bench/pg-bench-server.sh).
set -euo pipefail
PORT=${COMVE_PG_PORT:-54329}
DATA=${COMVE_PG_DATA:-/tmp/comve-pgtest-$PORT}
URL_VAR=${COMVE_PG_URL_VAR:-COMVE_TEST_POSTGRES_URL}
# random_page_cost 1.1: the data sit on SSD or in memory, where an index probe costs little
# more than a sequential read (PostgreSQL's default of 4 assumes spinning disks); docs/deploy.md
# recommends the same for production.
if [ "${COMVE_PG_DURABLE:-0}" = 1 ]; then
  TUNING="-c shared_buffers=512MB -c random_page_cost=1.1"
else
  TUNING="-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c random_page_cost=1.1"
fi
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if ! "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT"; then
  rm -rf "$DATA"; mkdir -p "$DATA"
  [ "$(id -u)" -eq 0 ] && chown postgres "$DATA"
  as_pg "$BIN/initdb" -D "$DATA" -A trust -U comve -E UTF8 --no-sync >/dev/null
  as_pg "$BIN/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w -o \
    "-h 127.0.0.1 -p $PORT -k $DATA -c max_connections=300 $TUNING" start >/dev/null
  as_pg "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U comve comve
fi
echo "export $URL_VAR=postgres://comve@127.0.0.1:$PORT/comve"
