"""Lab rater accounts made by the organizer, without the admin: create (one, or many from a CSV), give a
one-time sign-in link or a printed password, reset, deactivate. The web page, the API and
``manage.py lab_raters`` all call these functions.

A created account is a site user (username = their email, display name = their name) with a Rater
profile, listed on the campaign it was made for (``Campaign.lab_raters``), which is what the rule of
who may rate where reads (a campaign whose lab access is "listed" admits only those). Nothing is
half-written: a list with one bad line creates no account, and its problems come back with line and column.

One-time sign-in links are Django's password-reset tokens: a token is bound to the account's
password hash and last login, so it stops working once used (signing in sets the last login), when a
new link or password is issued, and after ``PASSWORD_RESET_TIMEOUT``. Neither the link nor the
password is stored in readable form: they are shown once, to the organizer who made them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.db import transaction
from django.db.models import Count, Q
from django.urls import reverse
from django.utils.crypto import get_random_string
from django.utils.encoding import force_bytes, force_str
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode

from core.defaults import LAB_PASSWORD_ALPHABET, LAB_PASSWORD_CHARS, MAX_LAB_RATERS_AT_ONCE
from core.engine import new_order_seed
from core.models import Rater
from core.problems import FormatError, Problem, ProblemLog
from evalapp.formats.rater_list import RaterEntry, check_entries

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from core.models import Campaign

LINK, PASSWORD = "link", "password"
SIGN_IN_CHOICES = ((LINK, "a one-time sign-in link"), (PASSWORD, "a printed password"))


class LabRaterError(FormatError):
    """The accounts were not created (nothing was written); ``problems`` says why, by line and column."""


@dataclass(frozen=True)
class Credential:
    """How a rater signs in, shown once: a password, or a sign-in link's path (the caller makes it absolute)."""

    rater_id: int
    username: str
    name: str
    password: str | None = None
    link: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "rater_id": self.rater_id,
            "username": self.username,
            "name": self.name,
            "password": self.password,
            "link": self.link,
        }


@dataclass(frozen=True)
class LabRater:
    """A lab account listed on a campaign, as the rater-accounts page shows it."""

    rater_id: int
    username: str
    name: str
    active: bool
    ratings: int
    last_login: datetime | None
    signed_in: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "rater_id": self.rater_id,
            "username": self.username,
            "name": self.name,
            "active": self.active,
            "ratings": self.ratings,
            "last_login": self.last_login,
            "signed_in": self.signed_in,
        }


def lab_raters(campaign: Campaign) -> list[LabRater]:
    """The lab accounts listed on the campaign, in the order they were added, with their counted ratings."""
    members = (
        campaign.lab_raters.filter(user__isnull=False)
        .select_related("user")
        .annotate(counted=Count("ratings", filter=Q(ratings__campaign=campaign, ratings__excluded=False)))
        .order_by("pk")
    )
    return [_lab_rater(member, member.user, member.counted) for member in members if member.user is not None]


def _lab_rater(rater: Rater, user: User, counted: int) -> LabRater:
    return LabRater(
        rater.pk,
        user.get_username(),
        user.first_name or user.get_username(),
        user.is_active,
        counted,
        user.last_login,
        user.last_login is not None,
    )


def _check_sign_in(sign_in: str) -> None:
    if sign_in not in (LINK, PASSWORD):
        raise LabRaterError(Problem("sign_in", None, None, f"choose {LINK!r} or {PASSWORD!r}", str(sign_in)))


def add_lab_raters(
    campaign: Campaign,
    entries: Iterable[RaterEntry],
    sign_in: str = LINK,
    by: User | None = None,
    filename: str = "raters",
) -> list[Credential]:
    """Create an account for every entry (a :class:`RaterEntry`), list it on ``campaign`` and return each
    one's :class:`Credential`, in order. All or nothing: any problem (a bad name or email, an email that
    already has an account, too many at once) raises :class:`LabRaterError` with every problem found."""
    _check_sign_in(sign_in)
    entries = [RaterEntry(e.line, (e.name or "").strip(), (e.email or "").strip().lower()) for e in entries]
    log = ProblemLog()
    if not entries:
        log.add(filename, None, None, "no rater to create")
    if len(entries) > MAX_LAB_RATERS_AT_ONCE:
        log.add(filename, None, None, f"{len(entries):,} raters at once; at most {MAX_LAB_RATERS_AT_ONCE:,}")
    check_entries(entries, filename, log)
    users = get_user_model()
    taken = set(users.objects.filter(username__in=[e.email for e in entries]).values_list("username", flat=True))
    for entry in entries:
        if entry.email in taken:
            log.add(filename, entry.line, "email", "an account with this email exists already", entry.email)
    if log:
        raise LabRaterError(log.reported())
    with transaction.atomic():
        made = []
        for entry in entries:
            user = users.objects.create_user(username=entry.email, email=entry.email, first_name=entry.name)
            rater = Rater.objects.create(user=user, platform=Rater.Platform.SITE, order_seed=new_order_seed())
            campaign.lab_raters.add(rater)
            made.append(_issue(user, rater, sign_in))
    return made


def _issue(user: User, rater: Rater, sign_in: str) -> Credential:
    """A new password, or a new link (the account's password made unusable, which also voids older links)."""
    if sign_in == PASSWORD:
        password = get_random_string(LAB_PASSWORD_CHARS, LAB_PASSWORD_ALPHABET)
        user.set_password(password)
        user.save(update_fields=["password"])
        return Credential(rater.pk, user.get_username(), user.first_name, password=password)
    user.set_unusable_password()
    user.save(update_fields=["password"])
    return Credential(rater.pk, user.get_username(), user.first_name, link=sign_in_path(user))


def sign_in_path(user: User) -> str:
    """The path of a one-time sign-in link for ``user`` (valid until used, replaced or timed out)."""
    return reverse(
        "sign_in_link", args=(urlsafe_base64_encode(force_bytes(user.pk)), default_token_generator.make_token(user))
    )


def user_of_link(uidb64: str, token: str) -> User | None:
    """The active lab account a sign-in link is for, or None when the link is unknown, used, replaced or too
    old, or the account is not a lab account listed on a campaign (Django's password-reset tokens of other
    accounts are no sign-in links)."""
    try:
        pk = int(force_str(urlsafe_base64_decode(uidb64)))
    except (TypeError, ValueError, OverflowError, UnicodeDecodeError):
        return None
    # Only a lab account signs in by link: an organizer's or an admin's account never does, whatever the token.
    user = (
        get_user_model()
        .objects.filter(
            pk=pk, is_active=True, is_staff=False, is_superuser=False, rater__listed_campaigns__isnull=False
        )
        .distinct()
        .first()
    )
    if user is None or not default_token_generator.check_token(user, token):
        return None
    return user


def _member(campaign: Campaign, rater_id: int) -> Rater | None:
    """The campaign's lab account ``rater_id`` (a Rater with its user), or None."""
    return campaign.lab_raters.filter(pk=rater_id, user__isnull=False).select_related("user").first()


def reset_sign_in(campaign: Campaign, rater_id: int, sign_in: str = LINK) -> Credential | None:
    """A new password or sign-in link for a lab account of the campaign (older links and the old password
    stop working); reactivates a deactivated account. None when ``rater_id`` is not one of its lab accounts."""
    _check_sign_in(sign_in)
    rater = _member(campaign, rater_id)
    if rater is None:
        return None
    with transaction.atomic():
        user = rater.user
        assert user is not None  # _member finds only raters with an account
        if not user.is_active:
            user.is_active = True
            user.save(update_fields=["is_active"])
        return _issue(user, rater, sign_in)


def deactivate(campaign: Campaign, rater_id: int) -> tuple[Rater, bool] | None:
    """Deactivate a lab account of the campaign: it can no longer sign in (its ratings stay and count;
    exclude the rater on the quality page to take them out). ``(rater, changed)``, or None when
    ``rater_id`` is not one of its lab accounts."""
    rater = _member(campaign, rater_id)
    if rater is None:
        return None
    user = rater.user
    assert user is not None  # _member finds only raters with an account
    changed = user.is_active
    if changed:
        user.is_active = False
        user.save(update_fields=["is_active"])
    return rater, changed
