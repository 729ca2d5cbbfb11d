"""Settings of the benchmarks' server: the production settings plus the bench-only baseline app.

``bench/server.py`` runs gunicorn with ``DJANGO_SETTINGS_MODULE=bench.settings``; no product
deployment installs ``bench.baseline``, so no benchmark table, migration or URL exists there.
"""

from config.settings_production import *  # noqa: F403
from config.settings_production import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "bench.baseline.apps.BaselineConfig"]
ROOT_URLCONF = "bench.baseline.urls"
