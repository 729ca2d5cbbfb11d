#!/usr/bin/env bash
# Run ComVE-Eval in production (settings: config.settings_production; see docs/deploy.md).
#   bash scripts/serve-production.sh web      migrate (unless COMVE_MIGRATE=0), collectstatic, then gunicorn
#   bash scripts/serve-production.sh worker   the background-job worker (metric runs); run one or more
# Needs DJANGO_SECRET_KEY (or DJANGO_SECRET_KEY_FILE), DJANGO_ALLOWED_HOSTS and DATABASE_URL in the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
export DJANGO_SETTINGS_MODULE=config.settings_production
PY=${COMVE_PYTHON:-.venv/bin/python}
role=${1:-web}
shift || true
case "$role" in
  web)
    # On a scaled-out site, migrate from one machine only (COMVE_MIGRATE=0 on the others).
    if [ "${COMVE_MIGRATE:-1}" != 0 ]; then
      "$PY" manage.py migrate --noinput
    fi
    "$PY" manage.py collectstatic --noinput --verbosity 0
    "$PY" manage.py check --deploy
    exec "$PY" -m gunicorn -c gunicorn.conf.py "$@" config.wsgi
    ;;
  worker)
    exec "$PY" manage.py db_worker --queue-name '*' --no-reload "$@"
    ;;
  *)
    echo "usage: $0 web|worker [extra gunicorn or db_worker options]" >&2
    exit 2
    ;;
esac
