"""The number of queries of the two rater requests, on both databases.

A change that adds per-request work shows up here before it shows up in ``bench/rater_load.py``.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core import engine
from tests.screens.conftest import make_campaign

pytestmark = pytest.mark.django_db

# The item page reads the session, the user with the Rater, the user's groups (navigation),
# the campaign, then the live lease and the progress in one statement. The submit reads the
# session, the user and the campaign, then in one transaction: the rater's lock and state, the
# assignment's lock, the rating's writes, the item pick (two statements) and the new lease's
# writes. PostgreSQL sends the rating's three writes as one statement and the lease's two as
# one (core.rating_sql.writes_combine).
ITEM_PAGE_QUERIES = 5
SUBMIT_QUERIES = {"sqlite": 12, "postgresql": 9}


@pytest.mark.postgres
def test_the_rater_requests_stay_within_their_query_budget(rater_client, rater_user):
    campaign = make_campaign("Budget")
    rater_client.post(f"/rate/{campaign.pk}/next/")
    item_url = f"/rate/{campaign.pk}/item/"
    with CaptureQueriesContext(connection) as page_queries:
        page = rater_client.get(item_url)
    assignment_id = engine.live_lease(campaign, rater_user.rater).pk
    with CaptureQueriesContext(connection) as submit_queries:
        response = rater_client.post(item_url, {"assignment": assignment_id, "score": 2})
    assert page.status_code == 200 and response.status_code == 302 and response["Location"] == item_url
    ignored = ("SAVEPOINT", "RELEASE SAVEPOINT")  # the submit's transaction, inside the test's own
    counted = [q["sql"] for q in submit_queries if not q["sql"].startswith(ignored)]
    assert len(page_queries) <= ITEM_PAGE_QUERIES, [q["sql"][:80] for q in page_queries]
    assert len(counted) <= SUBMIT_QUERIES[connection.vendor], [sql[:80] for sql in counted]
