"""A small campaign and the URL parameters that Mechanical Turk and Prolific send."""

import pytest
from django.urls import reverse

from tests.screens.conftest import make_campaign

SANDBOX = "https://workersandbox.mturk.com"
COMPLETION_URL = "https://app.prolific.com/submissions/complete"
COMPLETION_CODE = "C0MPL3TE"
SCREENING_CODE = "SCR33N3D"


def mturk_params(worker="A1WORKERTEST", assignment="3ASSIGNMENTTEST1", hit="3HITTEST1", submit_to=SANDBOX):
    return {"workerId": worker, "assignmentId": assignment, "hitId": hit, "turkSubmitTo": submit_to}


def prolific_params(
    pid="5f0c0ffee0c0ffee0c0ffee0", study="60a1study0000000000000001", session="60b2session00000000000001"
):
    return {"PROLIFIC_PID": pid, "STUDY_ID": study, "SESSION_ID": session}


def entry(platform, campaign, key=None):
    """The campaign's entry page for ``platform``, with its crowd key (or ``key``)."""
    return reverse(
        f"annotators:{platform}", kwargs={"campaign_id": campaign.pk, "key": campaign.crowd_key if key is None else key}
    )


def screen(name, campaign, **kwargs):
    """A page of the rater screens, or (crowd, quality and their downloads) of the organizer's campaign pages."""
    namespace = "campaigns" if name.startswith(("crowd", "quality")) else "annotators"
    return reverse(f"{namespace}:{name}", kwargs={"campaign_id": campaign.pk, **kwargs})


@pytest.fixture
def campaign(db):
    """6 instances x 2 systems, one rater per item, 3 control items: 15 items in all; open to both platforms."""
    return make_campaign(name="Crowd", raters_per_item=1, mturk_enabled=True, prolific_enabled=True)


def crowd_state():
    """Every row a crowd entry could write."""
    from django.contrib.auth import get_user_model

    from core.models import Assignment, CrowdSession, Rater, Rating

    return (
        get_user_model().objects.count(),
        Rater.objects.count(),
        CrowdSession.objects.count(),
        Assignment.objects.count(),
        Rating.objects.count(),
    )
