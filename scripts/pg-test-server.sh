#!/usr/bin/env bash
# Start a throw-away PostgreSQL server on 127.0.0.1 for the tests and print its DATABASE_URL.
# Usage: eval "$(bash scripts/pg-test-server.sh)"   (idempotent: reuses a running server)
set -euo pipefail
PORT=${COMVE_PG_PORT:-54329}
DATA=${COMVE_PG_DATA:-/tmp/comve-pgtest-$PORT}
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if ! "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT"; then
  rm -rf "$DATA"; mkdir -p "$DATA"
  [ "$(id -u)" -eq 0 ] && chown postgres "$DATA"
  as_pg "$BIN/initdb" -D "$DATA" -A trust -U comve -E UTF8 --no-sync >/dev/null
  as_pg "$BIN/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w -o \
    "-h 127.0.0.1 -p $PORT -k $DATA -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" start >/dev/null
  as_pg "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U comve comve
fi
echo "export COMVE_TEST_POSTGRES_URL=postgres://comve@127.0.0.1:$PORT/comve"
