"""The crowd campaign of tests/crowd (open to both platforms), for the trust tests."""

from tests.crowd.conftest import campaign  # noqa: F401  (a fixture)
