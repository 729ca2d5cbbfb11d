"""Retrying a short transaction that lost a race for a lock.

Concurrent writers are expected in the rater workflow (S7). PostgreSQL resolves a deadlock
or a serialisation conflict by aborting one transaction; SQLite reports "database is
locked" when its busy timeout runs out. Both are transient: the whole transaction is run
again after a short randomised backoff, so no caller ever sees them.
"""

import fcntl
import os
import random
import threading
import time
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, cast

from django.db import OperationalError, connection

from core.defaults import FIRST_BACKOFF_SECONDS, MAX_ATTEMPTS, MAX_BACKOFF_SECONDS

if TYPE_CHECKING:
    from django.db.backends.sqlite3.base import DatabaseWrapper as SQLiteDatabaseWrapper

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
_held = threading.local()  # how deep this thread is in the writer queue
_queue_files: dict[tuple[int, str], IO[bytes]] = {}  # (process id, database file) -> the open lock file of this process
QUEUE_FILE_SUFFIX = "-writers.lock"


@contextmanager
def _sqlite_writer_queue():
    """On SQLite, let writers take turns, within this process and across processes.

    SQLite admits one writer at a time and makes the others poll, sleeping up to 100 ms
    between tries; with dozens of threads in several processes the polling starves some of
    them past the busy timeout and leaves the CPU idle. So a writer first queues on a lock of
    its process, then on an exclusive ``flock`` of a file beside the database, which the
    kernel hands over as soon as it is released. PostgreSQL needs nothing.
    """
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        yield
        return
    with _SQLITE_WRITERS:
        depth = getattr(_held, "depth", 0)
        queue_file = _queue_file() if depth == 0 else None
        if queue_file is not None:
            fcntl.flock(queue_file, fcntl.LOCK_EX)
        _held.depth = depth + 1
        try:
            yield
        finally:
            _held.depth = depth
            if queue_file is not None:
                fcntl.flock(queue_file, fcntl.LOCK_UN)


def _queue_file():
    """This process's lock file for the database's writers; None for an in-memory database."""
    if cast("SQLiteDatabaseWrapper", connection).is_in_memory_db():  # the writer queue is SQLite's only
        return None
    key = (os.getpid(), str(connection.settings_dict["NAME"]))  # a forked worker opens its own
    if key not in _queue_files:
        _queue_files[key] = open(key[1] + QUEUE_FILE_SUFFIX, "ab")
    return _queue_files[key]


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
        backoff = min(MAX_BACKOFF_SECONDS, FIRST_BACKOFF_SECONDS * 2**attempt)
        time.sleep(random.uniform(0, backoff))
