"""Running engine calls in many threads, each with its own database connection."""

import threading

import pytest
from django.db import connection, connections


def require_threadable_database():
    """Skip when the test database is SQLite in memory: threads cannot share it."""
    if connection.vendor == "sqlite" and connection.creation.is_in_memory_db(connection.settings_dict["NAME"]):
        pytest.skip(
            "threads need a file database: run with COMVE_SQLITE_TEST_FILE=1 (scripts/test.sh does) "
            "or COMVE_TEST_DB_NAME=..."
        )


def run_in_threads(targets, timeout=300):
    """Start every ``target()`` at the same instant; return their results in order.

    Each thread closes its connection when done (open connections would block the test
    database's flush and teardown). An exception in any thread fails the test with it.
    """
    barrier = threading.Barrier(len(targets))
    results = [None] * len(targets)
    errors = []

    def run(index, target):
        try:
            barrier.wait()
            results[index] = target()
        except BaseException as exc:  # re-raised in the main thread below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(index, target), daemon=True) for index, target in enumerate(targets)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    if errors:
        raise errors[0]
    return results
