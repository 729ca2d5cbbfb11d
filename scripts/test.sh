#!/usr/bin/env bash
# Install everything the tests need and run the whole suite: the architecture contract
# (import-linter), lint (ruff check), format (ruff format --check), types (mypy) and the manual
# (MkDocs, strict), then every test on SQLite, then the tests marked `postgres` again against a
# real PostgreSQL server started here. Each check stops the run with its findings and what to do.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh
bash scripts/bootstrap.sh
# mypy (without a cache in a fresh clone, about 25 s on one core) runs in the background while the
# other checks and the manual use the second core; its findings are read after them, in the same order.
types_log=$(mktemp)
.venv/bin/mypy >"$types_log" 2>&1 &
types_pid=$!
trap 'kill "$types_pid" 2>/dev/null || true; rm -f "$types_log"' EXIT
if ! contract=$(.venv/bin/lint-imports --no-cache 2>&1); then
  echo "$contract"; echo "The architecture contract (.importlinter) is broken."; exit 1
fi
echo "Architecture contract (.importlinter): $(echo "$contract" | grep '^Contracts: ')"
# The tools' configuration is pyproject.toml ([tool.ruff], [tool.mypy]).
if ! lint=$(.venv/bin/ruff check --no-cache . 2>&1); then
  echo "$lint"; echo "Lint (ruff check .) found the problems above; .venv/bin/ruff check --fix . fixes many of them."; exit 1
fi
echo "Lint (ruff check .): clean"
if ! format=$(.venv/bin/ruff format --no-cache --check . 2>&1); then
  echo "$format"; echo "Format (ruff format --check .): the files above are not formatted; .venv/bin/ruff format . formats them."; exit 1
fi
echo "Format (ruff format --check .): $(echo "$format" | tail -1)"
echo "Manual (mkdocs build --strict):"
site=$(mktemp -d)
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet --site-dir "$site"
rm -rf "$site"
if ! wait "$types_pid"; then
  cat "$types_log"; echo "Types (mypy, files and strictness in pyproject.toml) found the errors above."; exit 1
fi
echo "Types (mypy): $(tail -1 "$types_log")"
trap 'rm -f "$types_log"' EXIT
eval "$(bash scripts/pg-test-server.sh)"
export COMVE_TEST_POSTGRES_URL
export COMVE_SQLITE_TEST_FILE=1   # the concurrency tests run threads, which need a file database
# pytest-xdist workers (COMVE_TEST_WORKERS=0: one process); each worker has its own test
# database, <name>_gw0, <name>_gw1 (config/settings.py), so runs and workers never collide.
workers=${COMVE_TEST_WORKERS:-2}
parallel=()
[ "$workers" != 0 ] && parallel=(-n "$workers" --dist worksteal)
status=0
.venv/bin/python -m pytest "${parallel[@]}" "$@" || status=$?
if [ $status -eq 0 ] || [ $status -eq 5 ]; then
  DATABASE_URL=$COMVE_TEST_POSTGRES_URL .venv/bin/python -m pytest -m postgres "${parallel[@]}" "$@" || status=$?
fi
[ $status -eq 5 ] && status=0   # pytest's "no tests collected" for a filtered run
exit $status
