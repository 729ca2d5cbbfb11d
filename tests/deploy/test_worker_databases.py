"""Parallel test runs never share a test database: each run names its own (COMVE_TEST_DB_NAME) and
each pytest-xdist worker of a run gets its own from the worker id (config/settings.py).

Each case reads the settings in a subprocess, because they are read once per process.
"""

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

CODE = "from django.conf import settings as s; print(s.DATABASES['default'].get('TEST', {}).get('NAME'))"
POSTGRES_URL = "postgres://comve@127.0.0.1:5432/comve"


def test_database_name(tmp_path, **env):
    clean = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("COMVE_", "PYTEST_XDIST", "DATABASE_URL"))
    }
    clean.update(DJANGO_SETTINGS_MODULE="config.settings", COMVE_VAR_DIR=str(tmp_path), **env)
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", CODE],
        cwd=REPO,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


test_database_name.__test__ = False  # a helper, not a test


@pytest.mark.parametrize(
    "env, expected",
    [
        ({"COMVE_TEST_DB_NAME": "test_i22"}, "test_i22"),
        ({"COMVE_TEST_DB_NAME": "test_i22", "PYTEST_XDIST_WORKER": "gw1"}, "test_i22_gw1"),
        ({"PYTEST_XDIST_WORKER": "gw0"}, "test_comve_gw0"),
        ({}, "None"),
    ],
)
def test_postgresql_test_database_per_run_and_worker(tmp_path, env, expected):
    assert test_database_name(tmp_path, DATABASE_URL=POSTGRES_URL, **env) == expected


@pytest.mark.parametrize(
    "env, expected",
    [
        ({"COMVE_TEST_DB_NAME": "test_i22"}, "test_i22.sqlite3"),
        ({"COMVE_TEST_DB_NAME": "test_i22", "PYTEST_XDIST_WORKER": "gw1"}, "test_i22_gw1.sqlite3"),
        ({"COMVE_SQLITE_TEST_FILE": "1", "PYTEST_XDIST_WORKER": "gw3"}, "test_comve_gw3.sqlite3"),
    ],
)
def test_sqlite_test_file_per_run_and_worker(tmp_path, env, expected):
    assert test_database_name(tmp_path, **env) == str(tmp_path / expected)


def test_two_workers_never_share_a_database(tmp_path):
    names = {
        test_database_name(
            tmp_path, DATABASE_URL=POSTGRES_URL, COMVE_TEST_DB_NAME="test_run", PYTEST_XDIST_WORKER=worker
        )
        for worker in ("gw0", "gw1")
    }
    assert names == {"test_run_gw0", "test_run_gw1"}
