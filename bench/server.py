"""Start the production stack (gunicorn, production settings) on a free loopback port.

Used by the benchmarks and by the fault tests: a fresh database (SQLite file or a new
PostgreSQL database on a given server), migrated and with collected static files, served by
gunicorn with the checked-in ``gunicorn.conf.py`` over plain HTTP on 127.0.0.1.
"""

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

REPO = Path(__file__).resolve().parent.parent
LOOPBACK = "127.0.0.1"
READY_TIMEOUT_SECONDS = 60
STOP_TIMEOUT_SECONDS = 30
POLL_SECONDS = 0.1
SECRET_KEY_BYTES = 48
MANAGE_TIMEOUT_SECONDS = 600


def production_env(database_url, var_dir, baseline=False, **overrides):
    """The environment of a production process over plain HTTP on loopback (no TLS proxy here)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "COMVE_", "DB_", "GUNICORN_", "WEB_CONCURRENCY"))
    }
    env.update(
        {
            # The production settings, plus the bench-only baseline app when asked for.
            "DJANGO_SETTINGS_MODULE": "bench.settings" if baseline else "config.settings_production",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(SECRET_KEY_BYTES),
            "DJANGO_ALLOWED_HOSTS": f"{LOOPBACK},localhost",
            "DATABASE_URL": database_url,
            "COMVE_VAR_DIR": str(var_dir),
            "DJANGO_STATIC_ROOT": str(Path(var_dir) / "static"),
            "DJANGO_SECURE_SSL_REDIRECT": "0",
            "DJANGO_SECURE_COOKIES": "0",
            "DJANGO_HSTS_SECONDS": "0",
            "COMVE_LOG_LEVEL": "WARNING",
        }
    )
    env.update({key: str(value) for key, value in overrides.items()})
    return env


def manage(env, *args):
    """Run ``manage.py`` with ``env``; raises with its output when it fails."""
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=MANAGE_TIMEOUT_SECONDS,
    )
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def prepare(env):
    """Migrate the database and collect the static files (whitenoise's manifest needs them)."""
    manage(env, "migrate", "--noinput")
    manage(env, "collectstatic", "--noinput", "--verbosity", "0")


def free_port():
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return sock.getsockname()[1]


def fresh_postgres_database(server_url, name):
    """Create (or re-create) database ``name`` on the PostgreSQL server of ``server_url``; returns its URL."""
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(urlsplit(server_url)._replace(path="/" + name))


def drop_postgres_database(server_url, name):
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Gunicorn:
    """gunicorn with the checked-in configuration, on a free port; a context manager."""

    def __init__(self, env, log_path, workers=None, threads=None, extra_args=()):
        self.env = dict(env)
        if workers:
            self.env["WEB_CONCURRENCY"] = str(workers)
        if threads:
            self.env["GUNICORN_THREADS"] = str(threads)
        self.log_path = Path(log_path)
        self.extra_args = list(extra_args)
        self.port = None
        self.process = None

    @property
    def url(self):
        return f"http://{LOOPBACK}:{self.port}"

    def start(self):
        self.port = free_port()
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "-c",
                    "gunicorn.conf.py",
                    "--bind",
                    f"{LOOPBACK}:{self.port}",
                    *self.extra_args,
                    "config.wsgi",
                ],
                cwd=REPO,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.wait_ready()
        return self

    def wait_ready(self, path="/accounts/login/"):
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.process.returncode}; see {self.log_path}")
            try:
                with urllib.request.urlopen(self.url + path, timeout=READY_TIMEOUT_SECONDS) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(POLL_SECONDS)
        raise RuntimeError(f"gunicorn did not answer on {self.url}{path} within {READY_TIMEOUT_SECONDS} s")

    def worker_pids(self):
        """Process ids of the master's live worker processes."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(pid) for pid in children.read_text().split()] if children.exists() else []

    def stop(self):
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(STOP_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


POSTGRES_URL_VARIABLES = ("COMVE_BENCH_POSTGRES_URL", "COMVE_TEST_POSTGRES_URL")


def postgres_server_url(given=None):
    """The PostgreSQL server to benchmark on: ``given``, else one of :data:`POSTGRES_URL_VARIABLES`."""
    url = given or next((os.environ[name] for name in POSTGRES_URL_VARIABLES if os.environ.get(name)), None)
    if not url:
        raise SystemExit(
            "PostgreSQL: pass --postgres-url or set COMVE_BENCH_POSTGRES_URL "
            '(e.g. eval "$(bash bench/pg-bench-server.sh)")'
        )
    return url


class BenchDatabase:
    """A fresh database for one benchmark run: a SQLite file in ``workdir``, or a new PostgreSQL
    database on the given server (dropped again by :meth:`drop`)."""

    def __init__(self, kind, workdir, name, postgres_url=None):
        self.kind = kind
        self.name = name
        if kind == "sqlite":
            self.server_url = None
            self.url = f"sqlite:///{Path(workdir) / (name + '.sqlite3')}"
        elif kind == "postgres":
            self.server_url = postgres_server_url(postgres_url)
            self.url = fresh_postgres_database(self.server_url, name)
        else:
            raise ValueError(f"unknown database kind {kind!r}; use sqlite or postgres")

    def drop(self):
        if self.server_url:
            from django.db import connections

            connections.close_all()
            drop_postgres_database(self.server_url, self.name)


def setup_django(env):
    """Configure Django in this process with ``env`` (the same settings the server runs with)."""
    import django

    os.environ.update(env)
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    django.setup()
