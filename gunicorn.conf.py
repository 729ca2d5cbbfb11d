"""gunicorn configuration for ComVE-Eval: ``gunicorn -c gunicorn.conf.py config.wsgi``.

Tuned for the rater loop: many raters each making two short requests per rating (fetch the
next item, submit a score), each request a few milliseconds of Python plus a few database
round trips.

- ``gthread`` workers with threads: a thread that waits on PostgreSQL (or on SQLite's write
  lock) releases the GIL, so another request runs meanwhile; keep-alive connections save a
  TCP handshake per request, which ``sync`` workers cannot keep. One process per core runs
  the Python, a few threads each cover the database waits.
- Persistent database connections (``DB_CONN_MAX_AGE`` in the production settings): each
  thread keeps its own connection, so a web machine holds WEB_CONCURRENCY x GUNICORN_THREADS
  connections; PostgreSQL's ``max_connections`` must cover every machine.
- ``preload_app``: the application is imported once in the master; a worker that dies (OOM
  killer, SIGKILL) is replaced by a fork in milliseconds, not by a second Django start-up.
- ``max_requests`` with jitter recycles workers one at a time, bounding slow memory growth.

Every value can be overridden from the environment (names below) or on the command line.
"""

import multiprocessing
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings_production")

THREADS_PER_WORKER = 4
REQUESTS_BEFORE_RECYCLE = 20_000
RECYCLE_JITTER = 2_000
# A worker silent this long (a request hogging the GIL, a deadlock) is killed and replaced.
REQUEST_TIMEOUT_SECONDS = 30
KEEPALIVE_SECONDS = 5

bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count()))
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "gthread")
threads = int(os.environ.get("GUNICORN_THREADS", THREADS_PER_WORKER))
preload_app = True
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", REQUESTS_BEFORE_RECYCLE))
max_requests_jitter = RECYCLE_JITTER
timeout = int(os.environ.get("GUNICORN_TIMEOUT", REQUEST_TIMEOUT_SECONDS))
graceful_timeout = timeout
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", KEEPALIVE_SECONDS))
# Heartbeat files in memory: a worker blocked on a slow disk is not mistaken for a hung one.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
# The TLS proxy in front logs every request; set GUNICORN_ACCESS_LOG=- to log here too.
accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or None
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
# Only the local proxy may set X-Forwarded-* headers.
forwarded_allow_ips = os.environ.get("GUNICORN_FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
pidfile = os.environ.get("GUNICORN_PIDFILE") or None
# The control socket has one default path per user, which two instances on one machine would
# share; it is on only when given its own path.
if os.environ.get("GUNICORN_CONTROL_SOCKET"):
    control_socket = os.environ["GUNICORN_CONTROL_SOCKET"]
else:
    control_socket_disable = True


def pre_fork(server, worker):
    """Close any database connection the master opened, so that no two workers share one socket."""
    from django.db import connections

    connections.close_all()
