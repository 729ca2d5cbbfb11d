"""Shared fixtures: the real ComVE files (../shared/comve) and role accounts."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_COMVE = Path(os.environ.get("COMVE_SHARED_DIR", REPO.parent / "shared" / "comve"))
ARTIFACTS = REPO / "test-artifacts"


def shared_file(*parts):
    """Path to a file of the real ComVE data; skips the test with a clear reason when absent."""
    path = SHARED_COMVE.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real ComVE data not found at {path} (needs ../shared/comve beside the checkout)")
    return path


@pytest.fixture(scope="session")
def django_db_modify_db_settings_xdist_suffix():
    """Each pytest-xdist worker's test database is named in config/settings.py (``<name>_gw0``),
    from PYTEST_XDIST_WORKER, so that subprocesses and the settings agree; pytest-django's own
    suffix would add a second one."""


# Django's default password hasher (PBKDF2, 10^6 iterations: about 0.2 CPU s a hash) is deliberately slow;
# every test that makes an account or logs in paid it, hundreds of times a run. No test proves anything
# about the hash's strength (the production setting is Django's default, unchanged), so the tests hash
# with MD5. Subprocesses the tests start (the demo, gunicorn) read config.settings and keep the default.
FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(scope="session", autouse=True)
def _fast_password_hashing():
    from django.test.utils import override_settings

    with override_settings(PASSWORD_HASHERS=FAST_HASHERS):
        yield


@pytest.fixture
def comve_dir():
    return shared_file()


@pytest.fixture
def artifacts_dir():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def _user(django_user_model, username, group=None, superuser=False):
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user(username=username, password="pw-" + username)
    if superuser:
        user.is_superuser = user.is_staff = True
        user.save()
    if group:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


@pytest.fixture
def organizer(django_user_model):
    return _user(django_user_model, "org", group="organizer")


@pytest.fixture
def researcher(django_user_model):
    return _user(django_user_model, "res", group="researcher")


@pytest.fixture
def rater_user(django_user_model):
    from core.models import Rater

    user = _user(django_user_model, "rater1")
    Rater.objects.create(user=user, order_seed=12345)
    return user


def _commits(request):
    """Whether the test's writes are committed (transactional tests, the live server): they outlive it."""
    marker = request.node.get_closest_marker("django_db")
    return bool(
        {"transactional_db", "live_server"} & set(request.fixturenames)
        or (marker is not None and marker.kwargs.get("transaction"))
    )


@pytest.fixture(autouse=True)
def _no_counts_carried_over(request, django_db_blocker):
    """Rate-limit counts (crowd entry, core/throttle.py) live in the database cache: a committing test's
    counts would survive it and throttle a later test from the same client address. Clear them after."""
    yield
    if _commits(request):
        from django.core.cache import cache

        with django_db_blocker.unblock():
            cache.clear()
