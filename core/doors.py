"""Who may rate where: the one rule of the domain that every interface asks (issue 18).

A campaign has two kinds of door, and an account acts in a campaign only through one of them:

- the **lab door**, for site (lab) accounts: open to every lab rater, to the ones the campaign
  lists, or to none, as the organizer chose (``Campaign.lab_access``, ``Campaign.lab_raters``);
- the **crowd door**, for crowd accounts (MTurk workers, Prolific participants): the crowd session
  the worker entered through the campaign's keyed entry address. A crowd account acts only in that
  campaign, only in that session, and only while the session is live: the platform still enabled
  for the campaign and the session not rejected by the platform's records.

The rater screens, the rater API and the listing of campaigns ask :func:`door` or
:func:`campaigns_open_to`; results count a rating only when it came through a door the campaign
opened (:meth:`core.models.RatingQuerySet.counted`), so a rating that slipped past an interface
still never counts. Exclusion by an organizer is the engine's (it closes every door of the rater).
Why one module: the probe of issue 18 found each view applying its own half of this rule, and a
crowd account rating in a lab campaign through the one that forgot.
"""

from dataclasses import dataclass

from django.db.models import Q

from core.crowd import entry_enabled
from core.models import Campaign, CrowdSession
from core.problems import Refusal

LAB = "lab"
CROWD = "crowd"


class DoorClosed(Refusal):
    """The account has no door into the campaign; interfaces answer as for a missing campaign (404)."""

    NO_DOOR = "no_door"

    def __init__(self, message="You cannot rate in this campaign."):
        super().__init__(message, self.NO_DOOR)


@dataclass(frozen=True)
class Door:
    """How a rater is in a campaign: through the lab door, or through a live crowd session."""

    kind: str
    crowd_session: CrowdSession | None = None

    @property
    def crowd_session_id(self):
        """The engine's handle of the session (None through the lab door)."""
        return None if self.crowd_session is None else self.crowd_session.pk


def lab_door_open(campaign, rater):
    """Whether the campaign's lab door admits ``rater`` (a lab account; crowd accounts never)."""
    if rater is None or rater.is_crowd_account:
        return False
    if campaign.lab_access == Campaign.LabAccess.ALL:
        return True
    if campaign.lab_access == Campaign.LabAccess.LISTED:
        return campaign.lab_raters.filter(pk=rater.pk).exists()
    return False


def crowd_session_live(campaign, crowd_session):
    """Whether the crowd session is a live door into ``campaign``: its own, its platform still enabled, not rejected."""
    return (
        crowd_session is not None
        and crowd_session.campaign_id == campaign.pk
        and crowd_session.status != CrowdSession.Status.REJECTED
        and entry_enabled(campaign, crowd_session.platform)
    )


def door(campaign, rater, crowd_session=None, reading=False):
    """The rater's :class:`Door` into ``campaign``, or :class:`DoorClosed`.

    ``crowd_session``: the session this browser entered the campaign through (None: none). A crowd
    account needs it, live; a lab account never uses one. ``reading``: only to read the rater's own
    completion page, for which a crowd session that has ended (rejected, platform turned off) still
    shows what the worker did.
    """
    if rater is None:
        raise DoorClosed()
    if rater.is_crowd_account:
        if crowd_session is None or crowd_session.rater_id != rater.pk or crowd_session.campaign_id != campaign.pk:
            raise DoorClosed("A crowd worker rates only in the task they entered from their platform.")
        if reading or crowd_session_live(campaign, crowd_session):
            return Door(CROWD, crowd_session)
        raise DoorClosed("This crowd session has ended; nothing more can be rated in it.")
    if lab_door_open(campaign, rater):
        return Door(LAB)
    raise DoorClosed()


def campaigns_open_to(rater, crowd_sessions=()):
    """The open campaigns ``rater`` may rate in now, by name, leaving out those they were excluded from.

    A lab account: the campaigns whose lab door admits them. A crowd account: only the campaigns of
    ``crowd_sessions`` (the sessions this browser entered) that are live doors.
    """
    campaigns = Campaign.objects.filter(status=Campaign.Status.OPEN).exclude(exclusions__rater=rater)
    if rater.is_crowd_account:
        sessions = [s for s in crowd_sessions if s.rater_id == rater.pk]
        by_campaign = {campaign.pk: campaign for campaign in campaigns.filter(pk__in=[s.campaign_id for s in sessions])}
        live = {
            s.campaign_id
            for s in sessions
            if s.campaign_id in by_campaign and crowd_session_live(by_campaign[s.campaign_id], s)
        }
        return campaigns.filter(pk__in=live).order_by("name")
    admitted = Q(lab_access=Campaign.LabAccess.ALL) | Q(lab_access=Campaign.LabAccess.LISTED, lab_raters=rater)
    return campaigns.filter(admitted).distinct().order_by("name")
