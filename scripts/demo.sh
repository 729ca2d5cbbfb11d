#!/usr/bin/env bash
# Install everything, load the demo campaign into SQLite and serve it on http://127.0.0.1:8000/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
# The demo is the one place DEBUG is on (detailed error pages); everywhere else it is off unless set.
export DJANGO_DEBUG=${DJANGO_DEBUG:-1}
.venv/bin/python manage.py migrate --noinput >/dev/null
.venv/bin/python manage.py demo
exec .venv/bin/python manage.py runserver "${COMVE_DEMO_ADDR:-127.0.0.1:8000}"
