"""Crowd platforms from the organizer's side: the campaign's settings, its entry addresses, its sessions."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone

from core import engine, quality
from core.crowd import CROWD_PLATFORMS, PROLIFIC, code_for
from core.defaults import RECONCILIATION_LISTED_RECORDS
from core.models import Campaign, CrowdSession, Rater, new_crowd_key
from core.problems import FormatError, Problem
from core.retry import retry_on_contention
from evalapp.formats.comve import SourceFile
from evalapp.formats.crowd_submissions import REJECTED, VERIFIED, PlatformRecord, parse_submissions
from evalapp.services.imports import as_source

PROLIFIC_URL_PARAMETERS = "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"


def entry_url(base_url: str, campaign: Campaign, platform: str) -> str:
    """The absolute address of the campaign's entry page for a platform (with the campaign's crowd
    key), under ``base_url``."""
    path = reverse(f"annotators:{platform}", kwargs={"campaign_id": campaign.pk, "key": campaign.crowd_key})
    address = base_url.rstrip("/") + path
    return f"{address}?{PROLIFIC_URL_PARAMETERS}" if platform == PROLIFIC else address


SETTINGS = (
    "mturk_enabled",
    "prolific_enabled",
    "completion_url",
    "completion_code",
    "screening_code",
    "items_per_session",
    "count_reconciled_only",
    "lab_access",
    "lab_raters",
)


def lab_rater_choices() -> QuerySet[Rater]:
    """The accounts a campaign may list for its lab door: site raters with an account (never crowd accounts)."""
    return Rater.objects.filter(platform=Rater.Platform.SITE, user__isnull=False).select_related("user")


CODE_PATTERN = re.compile(r"^[A-Za-z0-9_-]*$")
CODE_RULE = "Use letters, digits, '-' and '_' only."


def settings_problems(values: Mapping[str, Any] | None) -> dict[str, str]:
    """What is wrong with crowd settings that each pass their field's own checks, as ``{field: message}``
    (``values`` as a form's ``clean`` gives them: None is no settings)."""
    values = values or {}
    problems: dict[str, str] = {}
    for name in ("completion_code", "screening_code"):
        if values.get(name) and not CODE_PATTERN.match(values[name]):
            problems[name] = CODE_RULE
    if values.get("screening_code") and values.get("screening_code") == values.get("completion_code"):
        problems["screening_code"] = "The screening code must differ from the completion code."
    return problems


def save_settings(campaign: Campaign, **values: Any) -> None:
    """Save the campaign's crowd settings (``SETTINGS``; already validated by the caller's form or serializer)."""
    unknown = set(values) - set(SETTINGS)
    if unknown:
        raise ValueError(f"unknown crowd settings: {', '.join(sorted(unknown))}")
    listed = values.pop("lab_raters", None)
    with transaction.atomic():
        for name, value in values.items():
            setattr(campaign, name, value)
        campaign.save(update_fields=list(values))
        if listed is not None:
            campaign.lab_raters.set(listed)


def rotate_key(campaign: Campaign) -> str:
    """Give the campaign a new crowd key: the entry addresses change and the old ones stop working at once."""
    campaign.crowd_key = new_crowd_key()
    campaign.save(update_fields=["crowd_key"])
    return campaign.crowd_key


@dataclass(frozen=True)
class SessionReview:
    """One crowd session as the organizer reviews it before approving the work on the platform."""

    platform: str
    worker_id: str
    session_id: str
    task_id: str
    started_at: datetime
    ratings: int
    screened_out: bool
    code: str
    status: str
    platform_status: str

    COLUMNS = (
        "platform",
        "worker_id",
        "session_id",
        "task_id",
        "started_at",
        "ratings",
        "screened_out",
        "code",
        "status",
        "platform_status",
    )

    def row(self) -> list[object]:
        return [getattr(self, column) for column in self.COLUMNS]


def session_reviews(campaign: Campaign) -> list[SessionReview]:
    """Every crowd session of the campaign with its ratings, the code its worker is owed, and what the
    platform's records say of it (``status``: unverified, verified or rejected).

    A session's ratings are its own leases that ended in a rating; the screening figures are the
    quality page's.
    """
    sessions = (
        CrowdSession.objects.filter(campaign=campaign)
        .with_ratings()
        .select_related("rater")
        .order_by("started_at", "session_id")
    )
    figures = {record.rater_id: record for record in quality.rater_quality(campaign)}
    reviews: list[SessionReview] = []
    for crowd_session in sessions:
        record = figures.get(crowd_session.rater_id)
        screened_out = record is not None and (
            record.excluded
            or quality.fails_controls(record.control_ratings, record.control_pass_rate, campaign.min_control_pass_rate)
        )
        reviews.append(
            SessionReview(
                crowd_session.platform,
                crowd_session.rater.external_id,
                crowd_session.session_id,
                crowd_session.task_id,
                crowd_session.started_at,
                crowd_session.ratings,
                screened_out,
                code_for(campaign, screened_out) if crowd_session.platform == PROLIFIC else "",
                crowd_session.status,
                crowd_session.platform_status,
            )
        )
    return reviews


# --- reconciliation with the platform's records ------------------------------------------------


@dataclass
class Reconciliation:
    """What a platform's export said of the campaign's crowd sessions.

    ``verified``/``unverified``/``rejected``: the campaign's sessions of the platform after the file.
    ``kept_unlisted``: verified sessions the file does not list, kept verified (reconciliation is
    monotonic); ``unverified_unlisted``: with ``replace``, verified sessions the file no longer
    confirms, now unverified. The unmatched records and the sessions under another worker are listed
    up to ``RECONCILIATION_LISTED_RECORDS`` each, with their full counts.
    """

    platform: str
    replace: bool = False
    records: int = 0
    verified: int = 0
    unverified: int = 0
    rejected: int = 0
    kept_unlisted: int = 0
    unverified_unlisted: int = 0
    ratings_excluded: int = 0
    items_reopened: int = 0
    not_in_campaign_count: int = 0
    other_worker_count: int = 0
    # (line, session id) of records with no session here
    not_in_campaign: list[tuple[int, str]] = field(default_factory=list)
    # (line, session id, worker in the file, worker here)
    other_worker: list[tuple[int, str, str, str]] = field(default_factory=list)

    def notes(self) -> list[str]:
        """What the organizer should know beyond the counts, in words (page, command, API alike)."""
        notes: list[str] = []
        if self.kept_unlisted:
            notes.append(
                f"{self.kept_unlisted} verified session{'s' if self.kept_unlisted != 1 else ''} "
                "not listed in this file: kept"
            )
        if self.unverified_unlisted:
            notes.append(
                f"{self.unverified_unlisted} verified session{'s' if self.unverified_unlisted != 1 else ''} "
                "not confirmed by this file: unverified again (the file replaced the record)"
            )
        if self.not_in_campaign_count:
            notes.append(
                f"{self.not_in_campaign_count} record{'s' if self.not_in_campaign_count != 1 else ''} "
                "of the file match no session of this campaign"
            )
        if self.other_worker_count:
            notes.append(
                f"{self.other_worker_count} session{'s' if self.other_worker_count != 1 else ''} "
                "listed under another worker: rejected"
            )
        return notes

    def as_json(self) -> dict[str, Any]:
        return {
            "platform": self.platform,
            "replace": self.replace,
            "records": self.records,
            "verified": self.verified,
            "unverified": self.unverified,
            "rejected": self.rejected,
            "kept_unlisted": self.kept_unlisted,
            "unverified_unlisted": self.unverified_unlisted,
            "ratings_excluded": self.ratings_excluded,
            "items_reopened": self.items_reopened,
            "not_in_campaign_count": self.not_in_campaign_count,
            "not_in_campaign": [{"line": line, "session_id": session} for line, session in self.not_in_campaign],
            "other_worker_count": self.other_worker_count,
            "other_worker": [
                {"line": line, "session_id": session, "worker_in_file": listed, "worker_here": here}
                for line, session, listed, here in self.other_worker
            ],
            "notes": self.notes(),
        }


def import_crowd_submissions(
    campaign: Campaign, platform: str, source: SourceFile | str | Path, replace: bool = False
) -> Reconciliation:
    """Reconcile the campaign's crowd sessions of ``platform`` with the platform's own export.

    A session is verified when the export lists the same pair (worker id, assignment or session id)
    as submitted or approved; rejected when it lists the session as rejected, returned or timed
    out, or under another worker. Monotonic by default: a session the file does not list, or lists
    as still pending, keeps what earlier files said (the next MTurk batch's file does not list the
    previous batch's sessions), and the answer says how many verified sessions were kept so. With
    ``replace`` the file is the whole record: a verified session it does not confirm becomes
    unverified again. A rejection is final either way (its ratings were withdrawn and its items
    reopened by :func:`core.engine.reject_crowd_sessions`). Atomic: a file with a problem (file,
    line, column) changes nothing.
    """
    if platform not in CROWD_PLATFORMS:
        raise FormatError(
            Problem(
                "platform",
                None,
                None,
                f"'{platform}' is not a crowd platform; choose one of {', '.join(CROWD_PLATFORMS)}",
            )
        )
    file = as_source(source)
    records = parse_submissions(file.data, file.name, platform, max_bytes=settings.COMVE_MAX_UPLOAD_BYTES)
    return retry_on_contention(partial(_reconcile, campaign, platform, records, replace))


def _reconcile(
    campaign: Campaign, platform: str, records: list[PlatformRecord], replace: bool = False
) -> Reconciliation:
    listed = {record.session_id: record for record in records}
    result = Reconciliation(platform, replace=replace, records=len(records))
    now = timezone.now()
    with transaction.atomic():
        sessions = list(
            CrowdSession.objects.select_for_update()
            .filter(campaign=campaign, platform=platform)
            .select_related("rater")
            .order_by("pk")
        )
        known = {crowd_session.session_id for crowd_session in sessions}
        unmatched = [(r.line, r.session_id) for r in records if r.session_id not in known]
        result.not_in_campaign_count = len(unmatched)
        result.not_in_campaign = unmatched[:RECONCILIATION_LISTED_RECORDS]
        newly_rejected: list[CrowdSession] = []
        for crowd_session in sessions:
            record = listed.get(crowd_session.session_id)
            status = _status_from(record, crowd_session, result)
            was_verified = crowd_session.status == CrowdSession.Status.VERIFIED
            if crowd_session.status == CrowdSession.Status.REJECTED:
                status = CrowdSession.Status.REJECTED
            elif status == CrowdSession.Status.REJECTED:
                newly_rejected.append(crowd_session)
            elif was_verified and status == CrowdSession.Status.UNVERIFIED:
                if not replace:
                    status = CrowdSession.Status.VERIFIED
                    result.kept_unlisted += record is None
                else:
                    result.unverified_unlisted += 1
            setattr(result, status, getattr(result, status) + 1)
            crowd_session.status = status
            crowd_session.platform_status = record.status[:40] if record is not None else crowd_session.platform_status
            crowd_session.reconciled_at = now
        CrowdSession.objects.bulk_update(sessions, ["status", "platform_status", "reconciled_at"])
        result.ratings_excluded, result.items_reopened = engine.reject_crowd_sessions(newly_rejected)
    result.other_worker_count = len(result.other_worker)
    result.other_worker = result.other_worker[:RECONCILIATION_LISTED_RECORDS]
    return result


def _status_from(record: PlatformRecord | None, crowd_session: CrowdSession, result: Reconciliation) -> str:
    if record is None:
        return CrowdSession.Status.UNVERIFIED
    if record.worker_id != crowd_session.rater.external_id:
        result.other_worker.append((record.line, record.session_id, record.worker_id, crowd_session.rater.external_id))
        return CrowdSession.Status.REJECTED
    return {VERIFIED: CrowdSession.Status.VERIFIED, REJECTED: CrowdSession.Status.REJECTED}.get(
        record.verdict, CrowdSession.Status.UNVERIFIED
    )
