"""Retrying a short transaction that lost a race for a lock.

Concurrent writers are expected in the rater workflow (S7). PostgreSQL resolves a deadlock
or a serialisation conflict by aborting one transaction; SQLite reports "database is
locked" when its busy timeout runs out. Both are transient: the whole transaction is run
again after a short randomised backoff, so no caller ever sees them.
"""
import random
import threading
import time
from contextlib import contextmanager

from django.db import OperationalError, connection

MAX_ATTEMPTS = 8
FIRST_BACKOFF_SECONDS = 0.005
MAX_BACKOFF_SECONDS = 0.5
# PostgreSQL SQLSTATEs worth a retry: serialization_failure, deadlock_detected, lock_not_available.
TRANSIENT_SQLSTATES = {"40001", "40P01", "55P03"}
TRANSIENT_SQLITE_MESSAGES = ("database is locked", "database table is locked")


def is_transient(exc):
    """True for an error that running the same transaction again can cure."""
    sqlstate = getattr(exc.__cause__, "sqlstate", None)
    if sqlstate in TRANSIENT_SQLSTATES:
        return True
    return any(message in str(exc) for message in TRANSIENT_SQLITE_MESSAGES)


_SQLITE_WRITERS = threading.RLock()


@contextmanager
def _sqlite_writer_queue():
    """On SQLite, let this process's threads take turns at writing.

    SQLite admits one writer at a time and makes the others poll; with dozens of threads the
    polling starves some of them past the busy timeout. Queueing on a lock in the process
    first leaves SQLite's own waiting to writers of other processes. PostgreSQL needs nothing.
    """
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        yield
        return
    with _SQLITE_WRITERS:
        yield


def retry_on_contention(operation, retry_also=()):
    """Run ``operation()`` (which opens its own transaction) until it beats the contention.

    ``retry_also`` names further exception types to retry (e.g. an IntegrityError that only a
    concurrent writer can cause). Inside an enclosing transaction nothing can be retried, since
    the failed statement has spoiled it, so the error goes up to whoever owns that transaction.
    """
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            with _sqlite_writer_queue():
                return operation()
        except (OperationalError, *retry_also) as exc:
            retryable = isinstance(exc, retry_also) or is_transient(exc)
            if not retryable or connection.in_atomic_block or attempt == MAX_ATTEMPTS:
                raise
        backoff = min(MAX_BACKOFF_SECONDS, FIRST_BACKOFF_SECONDS * 2 ** attempt)
        time.sleep(random.uniform(0, backoff))
