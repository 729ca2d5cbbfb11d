"""Fixtures of the API tests: the world of :mod:`tests.api.world`."""

import pytest

from tests.api.world import build_world

# Password hashing is deliberately slow; the API tests log in with tokens and need no strength.
FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = FAST_HASHERS


@pytest.fixture
def world(db):
    return build_world()
