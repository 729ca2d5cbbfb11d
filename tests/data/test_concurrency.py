"""Concurrent uploads of one system (PostgreSQL): all succeed, one after the other."""

import threading

import pytest
from django.db import connection, connections

from core.models import System, SystemOutput
from evalapp.models import Submission
from evalapp.services.imports import import_submission
from tests.data.helpers import SUBMISSION, import_mini, source

UPLOADERS = 4


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_uploads_of_one_system_are_serialised():
    if connection.vendor != "postgresql":
        pytest.skip("needs concurrent writers: runs in the PostgreSQL pass")
    dataset = import_mini()
    # A partial first upload: every later upload adds outputs for ids 2 and 3, and without the
    # row lock on the system two of them would insert the same outputs at once.
    import_submission(dataset, "Team", source("v0.csv", b"1,x\n"), allow_partial=True)
    barrier, errors = threading.Barrier(UPLOADERS), []

    def upload(n):
        try:
            barrier.wait()
            import_submission(dataset, "Team", source(f"v{n}.csv", SUBMISSION.replace(b"Cats", f"Cats{n}".encode())))
        except Exception as exc:  # reported below with the thread's number
            errors.append((n, exc))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=upload, args=(n,)) for n in range(UPLOADERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    system = System.objects.get(dataset=dataset, name="Team")
    assert Submission.objects.filter(system=system).count() == UPLOADERS + 1
    assert SystemOutput.objects.filter(system=system).count() == 3
    last = Submission.objects.filter(system=system).first().filename  # newest first
    assert SystemOutput.objects.get(system=system, instance__external_id="3").text.startswith(f"Cats{last[1]}")
