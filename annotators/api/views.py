"""The rater's endpoints: campaigns, the current/next item, submit a score, correct the last one, flag an item.

Blind like the rater screens (``annotators/views/rating.py``): a response carries the
statement, the reason, the rubric, the rater's own progress and the rater's own assignment
id, never a system name, an item id or anyone else's score. Leasing and submitting go
through :mod:`core.engine`, so the S7 invariants hold for API and browser raters alike.
Getting an item leases it, so it is a POST; GET only shows the item the rater already holds.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from annotators import crowd
from annotators.seconds import measured_seconds
from annotators.serializers import (
    CorrectionResultSerializer,
    CorrectionSerializer,
    FlagResultSerializer,
    FlagSerializer,
    RaterCampaignSerializer,
    RaterItemSerializer,
    RatingResultSerializer,
    RatingSerializer,
)
from core import corrections, doors, engine, flags, roles
from core.api.base import ApiView, ListApiView
from core.api.errors import Conflict
from core.api.parsers import SafeJSONParser
from core.api.permissions import RATER
from core.api.serializers import ErrorSerializer
from core.doors import Door
from core.models import Assignment, Campaign, Rater
from core.progress import rater_progress, session_full

NOT_YOURS = "No such assignment of yours."
NOTHING_HELD = "You hold no item in this campaign; POST to next to get one."


def open_campaign_or_404(campaign_id: int) -> Campaign:
    return get_object_or_404(Campaign, pk=campaign_id, status=Campaign.Status.OPEN)


def door_or_404(request: Request, campaign: Campaign, rater: Rater | None) -> Door:
    """The rater's door into the campaign (:mod:`core.doors`), as the rater screens ask it: a crowd
    account only through the crowd session its browser entered, while it is live; 404 otherwise."""
    try:
        return doors.door(campaign, rater, crowd.current_session(request, campaign, rater))
    except doors.DoorClosed:
        raise NotFound("No open campaign of yours here.") from None


def own_assignment_or_404(request: Request, assignment_id: int) -> Assignment:
    """The requesting rater's assignment; someone else's gives the same 404 as a missing one."""
    assignment = (
        Assignment.objects.of_rater(roles.rater_of(request.user))
        .select_related("item__instance", "campaign")
        .filter(pk=assignment_id)
        .first()
    )
    if assignment is None:
        raise NotFound(NOT_YOURS)
    return assignment


def item_body(campaign: Campaign, rater: Rater, assignment: Assignment | None) -> dict[str, Any]:
    """What a rater may see of their item; ``assignment`` None when nothing is left for them."""
    body = {
        "campaign_id": campaign.pk,
        "rubric": campaign.rubric,
        "progress": rater_progress(campaign, rater).as_dict(),
        "assignment_id": None,
        "statement": None,
        "reason": None,
        "lease_expires_at": None,
    }
    if assignment is not None:
        body.update(
            assignment_id=assignment.pk,
            statement=assignment.item.instance.false_sent,
            reason=assignment.item.text,
            lease_expires_at=assignment.lease_expires_at,
        )
    return body


class RaterCampaignListView(ListApiView):
    """GET: the open campaigns the rater can take part in, with their own progress.

    Security: raters only; own counts only; only campaigns whose door admits the rater
    (:mod:`core.doors`: a crowd account sees only the campaigns of the crowd sessions it entered);
    campaigns the rater was excluded from are left out.
    """

    permission_classes = RATER
    serializer_class = RaterCampaignSerializer

    def get_queryset(self) -> list[dict[str, Any]]:  # type: ignore[override]  # DRF lists any iterable; this one is built per rater
        rater = roles.rater_of(self.request.user)
        return [
            {
                "id": campaign.pk,
                "name": campaign.name,
                "instructions": campaign.instructions,
                "rubric": campaign.rubric,
                "progress": rater_progress(campaign, rater).as_dict(),
            }
            for campaign in doors.campaigns_open_to(rater, crowd.entered_sessions(self.request, rater))
        ]

    @extend_schema(tags=["rate"])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class CurrentItemView(ApiView):
    """GET: the item the rater holds in this campaign (404 when none: POST next to get one).

    Security: raters only, through their door (404 otherwise); shows only the rater's own live lease
    (of this crowd session, for a crowd account). Read-only: never leases.
    """

    permission_classes = RATER

    @extend_schema(responses=RaterItemSerializer, tags=["rate"])
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = open_campaign_or_404(campaign_id)
        rater = roles.rater_of(request.user)
        door = door_or_404(request, campaign, rater)
        assignment = engine.live_lease(campaign, rater, crowd_session_id=door.crowd_session_id)
        if assignment is None:
            raise NotFound(NOTHING_HELD)
        return Response(item_body(campaign, rater, assignment))


class NextItemView(ApiView):
    """POST: the rater's current item, or a newly leased one; ``assignment_id`` null when done.

    Security: raters only, POST (CSRF with a session), through their door (404 otherwise: a crowd
    account only inside the live crowd session it entered, whose cap on items applies as on the
    screens). Repeating it returns the same item while its lease lasts; the engine only leases
    items this rater never had.
    """

    permission_classes = RATER

    @extend_schema(request=None, responses=RaterItemSerializer, tags=["rate"])
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = open_campaign_or_404(campaign_id)
        rater = roles.rater_of(request.user)
        door = door_or_404(request, campaign, rater)
        if session_full(campaign, door.crowd_session):
            assignment = engine.live_lease(campaign, rater, crowd_session_id=door.crowd_session_id)
        else:
            assignment = engine.next_assignment(campaign, rater, crowd_session_id=door.crowd_session_id)
        return Response(item_body(campaign, rater, assignment))


class SubmitRatingView(ApiView):
    """POST: the score (0-3) of the rater's assignment, and optionally the seconds it took.

    Security: raters only, own assignments only, through the rater's door into the assignment's
    campaign (a crowd account: only assignments of the live crowd session it entered); anything
    else gives 404, as a missing assignment does, and writes nothing. Idempotent: a repeated
    submit returns the stored rating with 200 instead of 201. 409 when the rating is no longer needed, the campaign is
    closed or the rater was excluded; the message says which.
    """

    permission_classes = RATER
    parser_classes = [SafeJSONParser]

    @extend_schema(
        request=RatingSerializer,
        responses={201: RatingResultSerializer, 200: RatingResultSerializer, 409: ErrorSerializer},
        tags=["rate"],
    )
    def post(self, request: Request, assignment_id: int) -> Response:
        form = RatingSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        assignment = own_assignment_or_404(request, assignment_id)
        rater, campaign = roles.rater_of(request.user), assignment.campaign
        door = door_or_404(request, campaign, rater)
        now = timezone.now()
        reported = form.validated_data.get("seconds")
        # The engine checks ownership (rater, campaign, crowd session) again under the row lock.
        try:
            rating, created = engine.submit_rating(
                assignment.pk,
                rater,
                form.validated_data["score"],
                now=now,
                campaign=campaign,
                crowd_session_id=door.crowd_session_id,
                seconds=lambda assignment: measured_seconds(assignment, now, reported),
            )
        except engine.SubmissionRefused as refusal:
            if refusal.code == engine.SubmissionRefused.NOT_FOUND:
                raise NotFound(NOT_YOURS) from None
            raise Conflict(refusal.message, code=refusal.code) from None
        body = {
            "assignment_id": rating.assignment_id,
            "score": rating.score,
            "seconds": rating.seconds,
            "created": created,
            "progress": rater_progress(rating.campaign, rater).as_dict(),
        }
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class FlagItemView(ApiView):
    """POST: report the rater's item as broken; the item is skipped and never comes back to them.

    Security: raters only, own assignments only, through the rater's door (a crowd account: only its
    live crowd session's assignments; 404 otherwise, nothing written); POST with CSRF when a session
    is used. The checks of a submit: an open campaign, a rater not excluded,
    the rater's live lease (409 otherwise, with the reason; nothing written).
    """

    permission_classes = RATER
    parser_classes = [SafeJSONParser]

    @extend_schema(request=FlagSerializer, responses={201: FlagResultSerializer, 409: ErrorSerializer}, tags=["rate"])
    def post(self, request: Request, assignment_id: int) -> Response:
        assignment = own_assignment_or_404(request, assignment_id)
        rater = roles.rater_of(request.user)
        door = door_or_404(request, assignment.campaign, rater)
        form = FlagSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            _, released = flags.flag_item(
                assignment.pk,
                rater,
                assignment.campaign,
                form.validated_data["note"],
                crowd_session_id=door.crowd_session_id,
            )
        except flags.FlagRefused as refusal:
            if refusal.code == flags.FlagRefused.NOT_FOUND:
                raise NotFound(NOT_YOURS) from None
            raise Conflict(refusal.message, code=refusal.code) from None
        return Response(
            {"assignment_id": assignment.pk, "flagged": True, "released": released}, status=status.HTTP_201_CREATED
        )


class CorrectRatingView(ApiView):
    """POST: change the score of the rater's last rating (undo of the last submission), the web's
    "change your previous score" twin (``annotators.views.rating.correct``).

    Security: raters only, own assignments only, through the rater's door into the campaign
    (someone else's id, or no door, gives 404, as a missing one does, and writes nothing). 409 when
    the rating is not the rater's last one in its campaign,
    was saved more than CORRECTION_WINDOW_SECONDS ago, no longer counts, or the campaign is
    closed; the message says which and nothing is written. The rating keeps its row (the
    distinct-raters invariant is untouched); the change is recorded as a RatingCorrection.
    """

    permission_classes = RATER
    parser_classes = [SafeJSONParser]

    @extend_schema(
        request=CorrectionSerializer, responses={200: CorrectionResultSerializer, 409: ErrorSerializer}, tags=["rate"]
    )
    def post(self, request: Request, assignment_id: int) -> Response:
        assignment = own_assignment_or_404(request, assignment_id)
        rater = roles.rater_of(request.user)
        door_or_404(request, assignment.campaign, rater)
        form = CorrectionSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            correction = corrections.correct_last_rating(
                assignment.pk, rater, assignment.campaign, form.validated_data["score"]
            )
        except corrections.CorrectionRefused as refusal:
            if refusal.code == corrections.CorrectionRefused.NOT_FOUND:
                raise NotFound(NOT_YOURS) from None
            raise Conflict(refusal.message, code=refusal.code) from None
        return Response(
            {
                "assignment_id": correction.assignment_id,
                "old_score": correction.old_score,
                "score": correction.new_score,
                "changed": correction.changed,
            }
        )
