"""Fixtures of the API tests: the world of :mod:`tests.api.world`."""

import pytest

from tests.api.world import build_world


@pytest.fixture
def world(db):
    return build_world()
