"""Crowd platforms (S11): the rater screens as a Mechanical Turk ExternalQuestion and a Prolific study.

A worker arrives with the platform's URL parameters (:class:`Visit`). They identify the worker
(MTurk ``workerId``, Prolific ``PROLIFIC_PID``) and the unit of paid work (MTurk
``assignmentId``/``hitId``, Prolific ``SESSION_ID``/``STUDY_ID``). Entering gets or creates the
worker's Rater with a password-less account, logs it in and records a :class:`CrowdSession`,
so that a returning worker resumes where they stopped. From there the worker uses the same
screens as every rater. No call to the platforms is ever made: MTurk receives the work when
the worker's browser posts the completion form to ``turkSubmitTo``, Prolific when the worker
follows the completion link.

Completion rule: a session is finished when the worker has rated the campaign's
``items_per_session`` items in it, or everything still open to them (at least one rating).
The worker then gets the campaign's completion code, or its screening code when they are
*screened out*: excluded by an organizer, or below the campaign's ``min_control_pass_rate``
on at least ``quality.MIN_CONTROL_RATINGS`` control ratings in the campaign (the rule that
flags a rater on the quality page). Without a screening code everyone gets the completion code.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.contrib import auth
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.http import HttpRequest

from core import engine
from core.crowd import CROWD_PLATFORMS, MTURK, PROLIFIC, code_for, is_screened_out
from core.defaults import CROWD_ACCOUNT_SUFFIX_BYTES
from core.models import Campaign, CrowdSession, Rater
from core.retry import retry_on_contention

# MTurk's preview value; the second spelling is the product spec's. Both: "not accepted yet".
PREVIEW_ASSIGNMENT_IDS = frozenset({"ASSIGNMENT_ID_NOT_AVAILABLE", "ASSIGNMENT_NOT_AVAILABLE"})
MTURK_SUBMIT_ORIGINS = ("https://www.mturk.com", "https://workersandbox.mturk.com")
# The worker website shows the HIT in its frame; the submit hosts may too (older pages).
MTURK_FRAME_ORIGINS = ("https://worker.mturk.com", *MTURK_SUBMIT_ORIGINS)
EXTERNAL_SUBMIT_PATH = "/mturk/externalSubmit"
COMPLETION_CODE_PARAMETER = "cc"  # Prolific's: https://app.prolific.com/submissions/complete?cc=CODE
# Platform ids are short ASCII tokens (MTurk: 13-30 upper-case letters and digits; Prolific: 24 hex).
PLATFORM_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
SESSION_KEY = "comve_crowd_sessions"  # in the Django session: {campaign id: CrowdSession id}

# Which URL parameter carries each part of a visit, per platform.
PARAMETERS: dict[str, dict[str, str]] = {
    MTURK: {"worker_id": "workerId", "session_id": "assignmentId", "task_id": "hitId", "submit_to": "turkSubmitTo"},
    PROLIFIC: {"worker_id": "PROLIFIC_PID", "session_id": "SESSION_ID", "task_id": "STUDY_ID"},
}


class CrowdParameterError(ValueError):
    """A platform URL parameter is missing or wrong; ``parameter`` names it."""

    def __init__(self, parameter: str, message: str) -> None:
        super().__init__(f"{parameter}: {message}")
        self.parameter = parameter
        self.message = message


class CrowdEntryRefused(Exception):
    """The visit cannot be let in (``message`` is written for the worker); nothing was changed."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Visit:
    """A worker's arrival from a platform: its checked URL parameters."""

    platform: str
    worker_id: str
    session_id: str
    task_id: str
    submit_to: str = ""  # MTurk: the allowed origin that turkSubmitTo names

    def parameters(self) -> list[tuple[str, str]]:
        """``(name, value)`` pairs under the platform's own parameter names (for the start form)."""
        return [(name, getattr(self, part)) for part, name in PARAMETERS[self.platform].items()]


def _origins(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(value.strip().rstrip("/").lower() for value in values if value.strip())


def submit_origins() -> tuple[str, ...]:
    """Origins that ``turkSubmitTo`` may name: MTurk's two, plus ``COMVE_MTURK_SUBMIT_HOSTS`` (tests)."""
    return (*MTURK_SUBMIT_ORIGINS, *_origins(settings.COMVE_MTURK_SUBMIT_HOSTS))


def frame_origins() -> tuple[str, ...]:
    """Origins allowed to show the rater screens in a frame (CSP ``frame-ancestors``)."""
    return (*MTURK_FRAME_ORIGINS, *_origins(settings.COMVE_MTURK_SUBMIT_HOSTS))


def submit_origin(value: str | None) -> str:
    """The allowed origin that ``turkSubmitTo`` names, or :class:`CrowdParameterError`.

    Only a bare origin (``https://www.mturk.com`` with at most a trailing slash) on the
    allow-list passes, so the completion form can never be sent anywhere else.
    """
    name = PARAMETERS[MTURK]["submit_to"]
    parts = urlsplit((value or "").strip())
    origin = f"{parts.scheme}://{parts.netloc}".lower()
    if (
        parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or "@" in parts.netloc
        or origin not in submit_origins()
    ):
        raise CrowdParameterError(
            name, f"{value!r} is not a Mechanical Turk submit address (allowed: {', '.join(submit_origins())})"
        )
    return origin


def is_mturk_preview(params: Mapping[str, str]) -> bool:
    """MTurk shows the HIT before the worker accepts it: no assignmentId, or the preview value."""
    assignment = params.get(PARAMETERS[MTURK]["session_id"], "").strip()
    return not assignment or assignment in PREVIEW_ASSIGNMENT_IDS


def visit_from(platform: str, params: Mapping[str, str]) -> Visit:
    """The :class:`Visit` that the URL (or form) parameters describe; CrowdParameterError otherwise."""
    values = {}
    for part, name in PARAMETERS[platform].items():
        value = (params.get(name) or "").strip()
        if part == "submit_to":
            values[part] = submit_origin(value)
            continue
        if not value:
            raise CrowdParameterError(name, "missing; open this page from the platform's task")
        if part == "session_id" and value in PREVIEW_ASSIGNMENT_IDS:
            raise CrowdParameterError(name, "the HIT is not accepted yet; accept it to start")
        if not PLATFORM_ID.fullmatch(value):
            raise CrowdParameterError(name, f"{value[:80]!r} is not a {platform} id (1-64 letters, digits, '-' or '_')")
        values[part] = value
    return Visit(platform=platform, **values)


# --- entering ------------------------------------------------------------------------------


def is_crowd_account(user: User) -> bool:
    """A password-less account with no role but rater: the only kind a URL may log in."""
    return (
        user.is_active
        and not user.has_usable_password()
        and not user.is_staff
        and not user.is_superuser
        and not user.groups.exists()
    )


def crowd_rater(platform: str, worker_id: str) -> Rater:
    """The worker's Rater, created with an account on first visit; CrowdEntryRefused if unsafe.

    A Rater made by an import of this platform's batch results (no account yet) gets one, so
    the engine never gives the worker an item they already rated in a template HIT.
    """
    rater = retry_on_contention(partial(_crowd_rater, platform, worker_id), retry_also=(IntegrityError,))
    if rater.user is None or not is_crowd_account(rater.user):
        raise CrowdEntryRefused("This worker id belongs to an account that must log in with a password.")
    return rater


def _crowd_rater(platform: str, worker_id: str) -> Rater:
    with transaction.atomic():
        rater = (
            Rater.objects.select_for_update(no_key=True, of=("self",))
            .select_related("user")
            .filter(platform=platform, external_id=worker_id)
            .first()
        )
        if rater is None:
            rater = Rater.objects.create(platform=platform, external_id=worker_id, order_seed=engine.new_order_seed())
        if rater.user_id is None:
            rater.user = _new_account(platform, worker_id)
            rater.save(update_fields=["user"])
        return rater


def _new_account(platform: str, worker_id: str) -> User:
    users = get_user_model()
    username = f"{platform}-{worker_id}"
    if users.objects.filter(username=username).exists():
        username = f"{username}-{secrets.token_hex(CROWD_ACCOUNT_SUFFIX_BYTES)}"
    return users.objects.create_user(username=username)  # no password: unusable


def start_session(campaign: Campaign, visit: Visit) -> CrowdSession:
    """The worker's :class:`CrowdSession` for this visit, resumed or new; CrowdEntryRefused if taken."""
    rater = crowd_rater(visit.platform, visit.worker_id)
    return retry_on_contention(partial(_session, campaign, rater, visit), retry_also=(IntegrityError,))


def _session(campaign: Campaign, rater: Rater, visit: Visit) -> CrowdSession:
    with transaction.atomic():
        existing = (
            CrowdSession.objects.select_related("rater__user")
            .filter(platform=visit.platform, session_id=visit.session_id)
            .first()
        )
        if existing is not None:
            if (existing.rater_id, existing.campaign_id, existing.task_id) != (rater.pk, campaign.pk, visit.task_id):
                raise CrowdEntryRefused("This assignment or session belongs to another worker or task.")
            return existing
        return CrowdSession.objects.create(
            campaign=campaign,
            rater=rater,
            platform=visit.platform,
            session_id=visit.session_id,
            task_id=visit.task_id,
            submit_to=visit.submit_to,
        )


def enter(request: HttpRequest, campaign: Campaign, visit: Visit) -> CrowdSession:
    """Start or resume the visit's session, log the worker in and make it their current session."""
    crowd_session = start_session(campaign, visit)
    user = crowd_session.rater.user
    if request.user != user:
        auth.login(request, user, backend=settings.USER_BACKEND)
    current = request.session.get(SESSION_KEY, {})
    current[str(campaign.pk)] = crowd_session.pk
    request.session[SESSION_KEY] = current
    return crowd_session


def session_id(crowd_session: CrowdSession | None) -> int | None:
    """The engine's handle of a crowd session: its id, or None outside one."""
    return None if crowd_session is None else crowd_session.pk


def current_session(request: HttpRequest, campaign: Campaign, rater: Rater | None) -> CrowdSession | None:
    """The crowd session this browser entered for the campaign, if it is the rater's; else None."""
    if rater is None or rater.platform not in CROWD_PLATFORMS:
        return None
    session_pk = request.session.get(SESSION_KEY, {}).get(str(campaign.pk))
    if session_pk is None:
        return None
    return CrowdSession.objects.filter(pk=session_pk, campaign=campaign, rater=rater).first()


def entered_sessions(request: HttpRequest, rater: Rater | None) -> list[CrowdSession]:
    """Every crowd session this browser entered (one per campaign), if they are the rater's."""
    if rater is None or not rater.is_crowd_account:
        return []
    pks = [pk for pk in request.session.get(SESSION_KEY, {}).values() if isinstance(pk, int)]
    return list(CrowdSession.objects.filter(pk__in=pks, rater=rater))


# --- completion (the session's progress is counted in core/progress.py) -----------------------


@dataclass(frozen=True)
class Completion:
    """What a finished rater takes back to the platform: the code and the link carrying it."""

    code: str
    url: str
    screened_out: bool


def completion(campaign: Campaign, rater: Rater) -> Completion:
    """The rater's :class:`Completion` in the campaign (completion or screening code)."""
    screened_out = is_screened_out(campaign, rater)
    code = code_for(campaign, screened_out)
    url = completion_link(campaign.completion_url, code) if campaign.completion_url else ""
    return Completion(code, url, screened_out)


def completion_link(url: str, code: str) -> str:
    """``url`` with ``cc=code`` (an existing ``cc`` replaced); ``url`` unchanged without a code."""
    if not code:
        return url
    parts = urlsplit(url)
    query = [
        (name, value)
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
        if name != COMPLETION_CODE_PARAMETER
    ]
    query.append((COMPLETION_CODE_PARAMETER, code))
    return urlunsplit(parts._replace(query=urlencode(query)))


def external_submit_url(crowd_session: CrowdSession) -> str:
    """Where the completion form posts: ``{turkSubmitTo}/mturk/externalSubmit`` (checked again)."""
    return submit_origin(crowd_session.submit_to) + EXTERNAL_SUBMIT_PATH
