#!/usr/bin/env bash
# Install everything, load the demo into SQLite and serve it on http://127.0.0.1:8000/ together
# with the background worker that runs metric studies (django-tasks' db_worker). One command:
# Ctrl-C (or SIGTERM) stops the server and the worker; if either ends, the other is stopped too.
#   COMVE_DEMO_ADDR  where to serve (default 127.0.0.1:8000)
#   DATABASE_URL     the database (default: the SQLite file var/db.sqlite3)
set -euo pipefail
cd "$(dirname "$0")/.."
# DEBUG stays off (unless DJANGO_DEBUG=1 is set): the demo shows the site's own error pages, as a
# deployment does, never Django's debug page with its list of every URL pattern. Static files are
# served by WhiteNoise with DEBUG off too. `demo --force`: this script is the demo, so its public
# passwords are the point (the command alone still refuses with DEBUG off).
bash scripts/bootstrap.sh
.venv/bin/python manage.py migrate --noinput >/dev/null
.venv/bin/python manage.py demo --force

pids=()
stop() {
  trap - INT TERM EXIT
  for pid in "${pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
}
trap stop INT TERM EXIT

# --no-reload / --noreload: each is one process, so the TERM above reaches the process that works
.venv/bin/python manage.py db_worker --no-reload --interval 1 &
pids+=("$!")
.venv/bin/python manage.py runserver --noreload "${COMVE_DEMO_ADDR:-127.0.0.1:8000}" &
pids+=("$!")
echo "Serving on http://${COMVE_DEMO_ADDR:-127.0.0.1:8000}/ with a metric worker; Ctrl-C stops both."
wait -n "${pids[@]}" || true
