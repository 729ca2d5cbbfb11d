"""SQLite is durable by default: WAL with synchronous=FULL, so an acknowledged rating survives a power loss."""

import os
import subprocess
import sys

import pytest
from django.db import connection

from tests.conftest import REPO

PRAGMAS = (
    "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'config.settings'; django.setup()\n"
    "from django.db import connection\n"
    "cursor = connection.cursor()\n"
    "print(cursor.execute('PRAGMA journal_mode').fetchone()[0], cursor.execute('PRAGMA synchronous').fetchone()[0])"
)
SQLITE_FULL, SQLITE_NORMAL = 2, 1


def pragmas(tmp_path, **env):
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith(("DJANGO_", "COMVE_", "DATABASE"))
    }
    environment.update(COMVE_VAR_DIR=str(tmp_path), **env)
    return subprocess.run(
        [sys.executable, "-c", PRAGMAS], cwd=REPO, env=environment, capture_output=True, text=True, timeout=60
    )


@pytest.mark.django_db
def test_the_test_database_runs_as_production_would():
    if connection.vendor != "sqlite":
        pytest.skip("SQLite only")
    with connection.cursor() as cursor:
        assert cursor.execute("PRAGMA synchronous").fetchone()[0] == SQLITE_FULL


def test_wal_and_full_by_default_normal_only_when_asked(tmp_path):
    assert pragmas(tmp_path).stdout.split() == ["wal", str(SQLITE_FULL)]
    assert pragmas(tmp_path, COMVE_SQLITE_SYNCHRONOUS="normal").stdout.split() == ["wal", str(SQLITE_NORMAL)]
    refused = pragmas(tmp_path, COMVE_SQLITE_SYNCHRONOUS="OFF")
    assert refused.returncode != 0 and "COMVE_SQLITE_SYNCHRONOUS='OFF'" in refused.stderr
