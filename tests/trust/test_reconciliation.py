"""Issue 12, deliverable 2: crowd sessions reconciled with the platforms' own records.

The files below are written by hand in the platforms' real export layouts: the MTurk batch
results CSV (one row per assignment, quoted, with the HIT's columns first) and Prolific's
submissions export. Each has a submitted or approved session, a rejected one, and (Prolific)
a returned and a timed-out one; one MTurk row names the right assignment under another worker.
"""

import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from rest_framework.test import APIClient

from annotators import crowd
from core import engine
from core.models import Assignment, Rating
from core.progress import crowd_session_counts
from evalapp.formats.comve import SourceFile
from evalapp.services.crowd import import_crowd_submissions
from evalapp.services.results import table6
from tests.crowd.conftest import mturk_params, prolific_params
from tests.crowd.helpers import score_for

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

RATINGS_PER_SESSION = 2
MTURK_HEADER = (
    '"HITId","HITTypeId","Title","Reward","CreationTime","MaxAssignments","AssignmentId","WorkerId",'
    '"AssignmentStatus","AcceptTime","SubmitTime","AutoApprovalTime","ApprovalTime","RejectionTime",'
    '"WorkTimeInSeconds","Answer.assignmentId","Approve","Reject"'
)


def mturk_row(hit, assignment, worker, status):
    return (
        f'"{hit}","3TYPE0000000000000000000000000","Why is this statement against common sense?","$0.50",'
        f'"Mon Nov 23 09:00:00 PST 2026","3","{assignment}","{worker}","{status}","Mon Nov 23 09:01:00 PST 2026",'
        f'"Mon Nov 23 09:09:00 PST 2026","Thu Nov 26 09:09:00 PST 2026","","","480","{assignment}","",""'
    )


PROLIFIC_HEADER = (
    "Submission id,Participant id,Status,Custom study tncs accepted at,Started at,Completed at,"
    "Reviewed at,Archived at,Time taken,Completion code,Total approvals"
)


def prolific_row(submission, participant, status):
    return (
        f"{submission},{participant},{status},Not applicable,2026-11-23T09:01:00.000Z,"
        f"2026-11-23T09:09:00.000Z,,2026-11-23T09:09:00.000Z,480,C0MPL3TE,112"
    )


def work(campaign, platform, **identity):
    """A crowd session that rated RATINGS_PER_SESSION items and holds a lease on one more."""
    params = mturk_params(**identity) if platform == "mturk" else prolific_params(**identity)
    session = crowd.start_session(campaign, crowd.visit_from(platform, params))
    for _ in range(RATINGS_PER_SESSION):
        assignment = engine.next_assignment(campaign, session.rater, crowd_session_id=session.pk)
        engine.submit_rating(assignment.pk, session.rater, score_for(assignment.pk), crowd_session_id=session.pk)
    engine.next_assignment(campaign, session.rater, crowd_session_id=session.pk)
    return session


@pytest.fixture
def mturk_work(campaign):
    sessions = {
        "submitted": work(campaign, "mturk", worker="A1SUBMITTED", assignment="3ASSIGNSUBMITTED", hit="3HIT1"),
        "approved": work(campaign, "mturk", worker="A2APPROVED", assignment="3ASSIGNAPPROVED", hit="3HIT1"),
        "rejected": work(campaign, "mturk", worker="A3REJECTED", assignment="3ASSIGNREJECTED", hit="3HIT1"),
        "other worker": work(campaign, "mturk", worker="A4STRANGER", assignment="3ASSIGNSTOLEN", hit="3HIT1"),
        "not listed": work(campaign, "mturk", worker="A5LATE", assignment="3ASSIGNLATE", hit="3HIT1"),
    }
    batch = (
        "\n".join(
            [
                MTURK_HEADER,
                mturk_row("3HIT1", "3ASSIGNSUBMITTED", "A1SUBMITTED", "Submitted"),
                mturk_row("3HIT1", "3ASSIGNAPPROVED", "A2APPROVED", "Approved"),
                mturk_row("3HIT1", "3ASSIGNREJECTED", "A3REJECTED", "Rejected"),
                mturk_row("3HIT1", "3ASSIGNSTOLEN", "A9REALWORKER", "Submitted"),
                mturk_row("3HIT1", "3ASSIGNELSEWHERE", "A6ELSEWHERE", "Approved"),
            ]
        )
        + "\n"
    )
    return sessions, batch.encode()


@pytest.fixture
def prolific_work(campaign):
    pid = "5f0c0ffee0c0ffee0c0ffe{:02d}".format
    sessions = {
        status: work(campaign, "prolific", pid=pid(n), session=f"60b2session{n:014d}")
        for n, status in enumerate(["APPROVED", "AWAITING REVIEW", "RETURNED", "REJECTED", "TIMED-OUT"])
    }
    export = (
        "\n".join(
            [PROLIFIC_HEADER]
            + [prolific_row(f"60b2session{n:014d}", pid(n), status) for n, status in enumerate(sessions)]
        )
        + "\n"
    )
    return sessions, export.encode()


def statuses(sessions):
    for session in sessions.values():
        session.refresh_from_db()
    return {name: session.status for name, session in sessions.items()}


def counted(session):
    return Rating.objects.filter(assignment__crowd_session=session, excluded=False).count()


def test_mturk_batch_results_verify_reject_and_withdraw(campaign, mturk_work):
    sessions, batch = mturk_work
    result = import_crowd_submissions(campaign, "mturk", SourceFile("Batch_4242_batch_results.csv", batch))
    assert statuses(sessions) == {
        "submitted": "verified",
        "approved": "verified",
        "rejected": "rejected",
        "other worker": "rejected",
        "not listed": "unverified",
    }
    assert (result.verified, result.unverified, result.rejected) == (2, 1, 2)
    assert result.ratings_excluded == 2 * RATINGS_PER_SESSION
    assert result.items_reopened == 2 * (RATINGS_PER_SESSION + 1), "their ratings' items and their leases"
    assert [counted(sessions[name]) for name in ("approved", "rejected", "other worker")] == [2, 0, 0]
    assert not Assignment.objects.filter(crowd_session=sessions["rejected"], status="leased").exists()
    assert result.not_in_campaign == [(6, "3ASSIGNELSEWHERE")]
    assert [(line, session) for line, session, _, _ in result.other_worker] == [(5, "3ASSIGNSTOLEN")]
    assert crowd_session_counts(campaign)["verified"]["sessions"] == 2


def test_prolific_export_with_returned_rejected_and_timed_out_sessions(campaign, prolific_work):
    sessions, export = prolific_work
    import_crowd_submissions(campaign, "prolific", SourceFile("prolific_export_60a1.csv", export))
    assert statuses(sessions) == {
        "APPROVED": "verified",
        "AWAITING REVIEW": "verified",
        "RETURNED": "rejected",
        "REJECTED": "rejected",
        "TIMED-OUT": "rejected",
    }
    assert sessions["RETURNED"].platform_status == "RETURNED"
    assert [counted(session) for session in sessions.values()] == [2, 2, 0, 0, 0]


def test_only_verified_crowd_ratings_count_in_table6(campaign, prolific_work):
    sessions, export = prolific_work
    assert all(row.human is None for row in table6(campaign).rows), "no session verified yet"
    import_crowd_submissions(campaign, "prolific", SourceFile("export.csv", export))
    # A participant still at work (their items are the ones the rejected sessions gave back).
    work(campaign, "prolific", pid="5f0c0ffee0c0ffee0c0ffe99", session="60b2sessionNOTLISTED")
    counted_ratings = sum(row.ratings for row in table6(campaign).rows)
    assert (
        counted_ratings
        == Rating.objects.filter(assignment__crowd_session__status="verified", assignment__item__kind="system").count()
    )
    campaign.count_reconciled_only = False
    campaign.save()
    unverified = Rating.objects.filter(
        assignment__crowd_session__status="unverified", assignment__item__kind="system"
    ).count()
    assert unverified > 0
    assert sum(row.ratings for row in table6(campaign).rows) == counted_ratings + unverified


def test_a_rejection_is_final(campaign, mturk_work):
    sessions, batch = mturk_work
    import_crowd_submissions(campaign, "mturk", SourceFile("batch.csv", batch))
    later = "\n".join([MTURK_HEADER, mturk_row("3HIT1", "3ASSIGNREJECTED", "A3REJECTED", "Approved")]) + "\n"
    import_crowd_submissions(campaign, "mturk", SourceFile("batch2.csv", later.encode()))
    assert statuses(sessions)["rejected"] == "rejected"


@pytest.mark.parametrize(
    "data, where",
    [
        (b'"HITId","WorkerId","AssignmentStatus"\n"3HIT1","A1","Submitted"\n', "AssignmentId"),
        (MTURK_HEADER.encode() + b'\n"3HIT1","x","t","r","c","3","","A1SUBMITTED","Submitted"\n', "line 2"),
        (b"\xff\xfe\x00garbage", "batch.csv"),
    ],
)
def test_a_bad_file_changes_nothing_and_says_where(campaign, mturk_work, data, where):
    sessions, _ = mturk_work
    before = statuses(sessions)
    with pytest.raises(CommandError) as refused:
        call_command(
            "import_crowd_submissions", "--campaign", campaign.name, "--platform", "mturk", "--file", _write(data)
        )
    assert where in str(refused.value) or "batch" in str(refused.value)
    assert statuses(sessions) == before


def _write(data, name="batch.csv"):
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp())
    (folder / name).write_bytes(data)
    return str(folder / name)


def test_command_web_and_api_read_the_same_file_the_same_way(campaign, mturk_work, organizer):
    _, batch = mturk_work
    out = io.StringIO()
    call_command(
        "import_crowd_submissions",
        "--campaign",
        campaign.name,
        "--platform",
        "mturk",
        "--file",
        _write(batch),
        "--json",
        stdout=out,
    )
    from_command = json.loads(out.getvalue())
    # Again through the API and the web page: a second reading of the same file changes nothing more.
    api = APIClient()
    api.force_authenticate(organizer)
    response = api.post(
        f"/api/campaigns/{campaign.pk}/crowd-submissions/",
        {"platform": "mturk", "file": SimpleUploadedFile("batch.csv", batch)},
        format="multipart",
    )
    assert response.status_code == 200
    assert {k: v for k, v in response.json().items() if k != "ratings_excluded" and k != "items_reopened"} == {
        k: v for k, v in from_command.items() if k != "ratings_excluded" and k != "items_reopened"
    }
    assert response.json()["ratings_excluded"] == 0, "already withdrawn by the command"
    from django.test import Client

    web = Client()
    web.force_login(organizer)
    page = web.post(
        reverse("campaigns:import_crowd_submissions", args=[campaign.pk]),
        {"platform": "mturk", "file": SimpleUploadedFile("batch.csv", batch)},
        follow=True,
    )
    assert page.status_code == 200
    assert " ".join(page.content.decode().split()).count("records read: 2 verified, 1 unverified, 2 rejected") == 1


# Issue 18, failure 7 and the 20 MiB file: reconciliation is monotonic, replacing is explicit, answers are bounded.


def batch_file(*rows):
    return SourceFile("batch.csv", ("\n".join([MTURK_HEADER, *rows]) + "\n").encode())


def test_a_later_file_that_omits_earlier_sessions_keeps_them_verified(campaign, mturk_work):
    """Before (commit a7b981f): the next batch's file, which does not list the previous batch's
    sessions, made them unverified again and Table 6 changed, without a word."""
    sessions, batch = mturk_work
    import_crowd_submissions(campaign, "mturk", SourceFile("batch1.csv", batch))
    before = [(row.team, row.human, row.ratings) for row in table6(campaign).rows]
    result = import_crowd_submissions(
        campaign, "mturk", batch_file(mturk_row("3HIT2", "3ASSIGNLATE", "A5LATE", "Submitted"))
    )
    assert statuses(sessions) == {
        "submitted": "verified",
        "approved": "verified",
        "rejected": "rejected",
        "other worker": "rejected",
        "not listed": "verified",
    }
    assert result.kept_unlisted == 2
    assert "2 verified sessions not listed in this file: kept" in result.notes()
    assert result.as_json()["kept_unlisted"] == 2
    after = {row.team: row.ratings for row in table6(campaign).rows}
    assert all(after[team] >= ratings for team, _, ratings in before), "no counted rating was lost"


def test_replacing_the_record_is_explicit(campaign, mturk_work):
    sessions, batch = mturk_work
    import_crowd_submissions(campaign, "mturk", SourceFile("batch1.csv", batch))
    result = import_crowd_submissions(
        campaign, "mturk", batch_file(mturk_row("3HIT1", "3ASSIGNAPPROVED", "A2APPROVED", "Approved")), replace=True
    )
    assert statuses(sessions)["submitted"] == "unverified" and statuses(sessions)["approved"] == "verified"
    assert statuses(sessions)["rejected"] == "rejected", "a rejection stays final"
    assert (result.kept_unlisted, result.unverified_unlisted) == (0, 1)
    assert any("unverified again" in note for note in result.notes())


def test_a_later_file_that_rejects_a_verified_session_rejects_it(campaign, mturk_work):
    sessions, batch = mturk_work
    import_crowd_submissions(campaign, "mturk", SourceFile("batch1.csv", batch))
    result = import_crowd_submissions(
        campaign, "mturk", batch_file(mturk_row("3HIT1", "3ASSIGNSUBMITTED", "A1SUBMITTED", "Rejected"))
    )
    assert statuses(sessions)["submitted"] == "rejected"
    assert result.ratings_excluded == RATINGS_PER_SESSION and result.kept_unlisted == 1


def test_the_answer_is_bounded_whatever_the_file(campaign, mturk_work, organizer):
    """Before: a file of unknown rows was answered with every one of them (117 MB of JSON for 20 MiB)."""
    rows = [mturk_row("3HITX", f"3UNKNOWN{n:08d}", f"A{n:08d}", "Approved") for n in range(5000)]
    api = APIClient()
    api.force_authenticate(organizer)
    response = api.post(
        f"/api/campaigns/{campaign.pk}/crowd-submissions/",
        {
            "platform": "mturk",
            "file": SimpleUploadedFile("batch.csv", ("\n".join([MTURK_HEADER, *rows]) + "\n").encode()),
        },
        format="multipart",
    )
    assert response.status_code == 200
    body = response.json()
    assert body["not_in_campaign_count"] == 5000 and len(body["not_in_campaign"]) == 50
    assert body["records"] == 5000
    assert len(response.content) < 20_000
    assert "5000 records of the file match no session of this campaign" in body["notes"]
