"""The production settings: `check --deploy` is clean, and a missing secret stops start-up clearly.

Each case runs ``manage.py`` in a subprocess, because the settings module is read once per
process and these tests need it with different environments.
"""

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

SECRET = "k" * 20 + "-production-test-secret-0123456789abcdefghij"


def production_env(tmp_path, **overrides):
    env = {key: value for key, value in os.environ.items() if not key.startswith(("DJANGO_", "COMVE_", "DB_"))}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings_production",
            "DJANGO_SECRET_KEY": SECRET,
            "DJANGO_ALLOWED_HOSTS": "eval.example.org",
            "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
            "COMVE_VAR_DIR": str(tmp_path),
        }
    )
    for key, value in overrides.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def manage(tmp_path, *args, **overrides):
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=production_env(tmp_path, **overrides),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean(tmp_path):
    result = manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_warns_when_tls_is_switched_off(tmp_path):
    """The check is not vacuous: plain-HTTP settings are reported."""
    result = manage(
        tmp_path,
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_SECURE_COOKIES="0",
    )
    assert result.returncode != 0
    assert "security.W008" in result.stderr and "security.W012" in result.stderr


@pytest.mark.parametrize(
    "missing, message",
    [
        ("DJANGO_SECRET_KEY", "DJANGO_SECRET_KEY is not set"),
        ("DJANGO_ALLOWED_HOSTS", "DJANGO_ALLOWED_HOSTS is not set"),
        ("DATABASE_URL", "DATABASE_URL is not set"),
    ],
)
def test_missing_required_variable_names_it(tmp_path, missing, message):
    result = manage(tmp_path, "check", **{missing: None})
    assert result.returncode != 0
    assert message in result.stderr


def test_short_secret_is_refused(tmp_path):
    result = manage(tmp_path, "check", DJANGO_SECRET_KEY="short")
    assert result.returncode != 0
    assert "the secret key has 5 characters" in result.stderr


def test_secret_key_from_file(tmp_path):
    key_file = tmp_path / "secret"
    key_file.write_text(SECRET + "\n")
    result = manage(
        tmp_path,
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_SECRET_KEY=None,
        DJANGO_SECRET_KEY_FILE=str(key_file),
    )
    assert result.returncode == 0, result.stderr


def test_production_values(tmp_path):
    code = (
        "from django.conf import settings as s; d = s.DATABASES['default']; "
        "print(s.DEBUG, d['CONN_MAX_AGE'], d['CONN_HEALTH_CHECKS'], s.ALLOWED_HOSTS, s.ROOT_URLCONF, "
        "s.STORAGES['staticfiles']['BACKEND'])"
    )
    result = manage(tmp_path, "shell", "--no-imports", "-c", code, DJANGO_ALLOWED_HOSTS="a.example.org, b.example.org")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "False",
        "600",
        "True",
        "['a.example.org',",
        "'b.example.org']",
        "config.urls",
        "whitenoise.storage.CompressedManifestStaticFilesStorage",
    ]


def test_the_benchmark_baseline_exists_only_under_the_benchmark_settings(tmp_path):
    code = (
        "from django.apps import apps; from django.urls import resolve, Resolver404\n"
        "try:\n    print(resolve('/bench-baseline/').url_name, apps.is_installed('bench.baseline'))\n"
        "except Resolver404:\n    print('absent', apps.is_installed('bench.baseline'))"
    )
    assert manage(tmp_path, "shell", "--no-imports", "-c", code).stdout.split() == ["absent", "False"]
    bench = manage(tmp_path, "shell", "--no-imports", "-c", code, DJANGO_SETTINGS_MODULE="bench.settings")
    assert bench.stdout.split() == ["bench_baseline", "True"], bench.stderr


def test_no_product_migration_mentions_a_benchmark():
    product_migrations = [
        path for app in ("core", "evalapp", "annotators") for path in (REPO / app).glob("migrations/*.py")
    ]
    assert product_migrations
    for path in product_migrations:
        assert "bench" not in path.read_text(encoding="utf-8").lower(), path


@pytest.mark.parametrize("threshold, expected", [(None, "True 5"), ("2", "True 2"), ("off", "True None")])
def test_postgresql_statements_are_bound_and_prepared_by_the_server(tmp_path, threshold, expected):
    code = (
        "from django.conf import settings as s; o = s.DATABASES['default']['OPTIONS']; "
        "print(o['server_side_binding'], o['prepare_threshold'])"
    )
    result = manage(
        tmp_path,
        "shell",
        "--no-imports",
        "-c",
        code,
        DATABASE_URL="postgres://comve@127.0.0.1:5432/comve",
        DB_PREPARE_THRESHOLD=threshold,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected
