"""Rating through the screens as a crowd worker would, choosing to pass or fail the controls."""

import re

from core.models import Assignment
from tests.crowd.conftest import screen

SYSTEM_ITEM_SCORE = 2


def shown_assignment(page):
    match = re.search(r'name="assignment" value="(\d+)"', page.content.decode())
    assert match, "the item page carries the assignment id"
    return int(match.group(1))


def score_for(assignment_id, pass_controls=True):
    """A score that passes (or fails) a control item; a plain score for a system item."""
    item = Assignment.objects.select_related("item").get(pk=assignment_id).item
    if not item.is_control:
        return SYSTEM_ITEM_SCORE
    low = item.expected_min if item.expected_min is not None else 0
    high = item.expected_max if item.expected_max is not None else 3
    if pass_controls:
        return low
    return 3 if low == 0 else 0 if high == 3 else high + 1


def rate_items(client, campaign, count, failed_controls=0):
    """Rate ``count`` items from the item page on, failing the first ``failed_controls`` control
    items and passing the others; returns the last response (a redirect)."""
    response = None
    for _ in range(count):
        page = client.get(screen("item", campaign))
        assert page.status_code == 200, page
        assignment = shown_assignment(page)
        is_control = Assignment.objects.get(pk=assignment).item.is_control
        score = score_for(assignment, pass_controls=not (is_control and failed_controls > 0))
        failed_controls -= is_control
        response = client.post(screen("item", campaign), {"assignment": assignment, "score": score})
        assert response.status_code == 302
    return response


EVERY_CONTROL = 10**6
