"""A database connection lost in the middle of a submit: an error page, never a half-written rating.

On PostgreSQL the request's own server process is terminated (``pg_terminate_backend`` from
a second connection) just before the statement that inserts the rating, after the rater's
and the assignment's rows were locked in the same transaction (the statement also counts the
rating on the item and closes the assignment). SQLite has no server to lose, so
there the same statement fails with the error a vanished database file gives.
"""

import psycopg
import pytest
from django.db import OperationalError, connection
from django.test import Client

from core import engine
from core.models import Item, Rating
from tests.badinput.world import build_world, snapshot

RATING_INSERT = f"INSERT INTO {Rating._meta.db_table} "
SERVER_ERROR = 500
TERMINATE_WAIT_MS = 5000
FOUND = 302


class DropBeforeRatingInsert:
    """An execute wrapper: kill this connection at the statement that inserts the rating, then let it run."""

    def __init__(self):
        self.dropped = False

    def __call__(self, execute, sql, params, many, context):
        if RATING_INSERT in sql.replace('"', ""):
            self.dropped = True
            if connection.vendor == "postgresql":
                pid = context["connection"].connection.info.backend_pid
                with psycopg.connect(**connection.get_connection_params(), autocommit=True) as killer:
                    killer.execute("SELECT pg_terminate_backend(%s, %s)", [pid, TERMINATE_WAIT_MS])
            else:
                raise OperationalError("disk I/O error")
        return execute(sql, params, many, context)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_connection_dropped_mid_submit():
    campaign, rater, _ = build_world()
    assignment = engine.live_lease(campaign, rater)
    client = Client(raise_request_exception=False)
    client.force_login(rater.user)
    done_before = assignment.item.done_count
    before = snapshot()
    form = {"assignment": assignment.pk, "score": "3", "seconds": "6"}

    drop = DropBeforeRatingInsert()
    with connection.execute_wrapper(drop):
        response = client.post(f"/rate/{campaign.pk}/item/", form)

    assert drop.dropped
    assert response.status_code == SERVER_ERROR
    assert b"Server error" in response.content
    assert snapshot() == before, "nothing of the submit is left: no rating, counter or status change"

    # The next try (the rater presses Submit again) stores the rating exactly once.
    response = client.post(f"/rate/{campaign.pk}/item/", form)
    assert response.status_code == FOUND
    stored = Rating.objects.filter(assignment=assignment)
    assert list(stored.values_list("score", flat=True)) == [3]
    assert Item.objects.get(pk=assignment.item_id).done_count == done_before + 1
