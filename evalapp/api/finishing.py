"""Finishing a campaign: the review of reported items (dismiss, retire the instance) and the campaign's
lab rater accounts (create, new sign-in, deactivate). The same functions as the web pages and the
commands (:mod:`core.flags`, :mod:`evalapp.services.lab_raters`)."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response

from core import flags
from core.api.base import ApiView, ListApiView
from core.api.parsers import SafeJSONParser
from core.api.permissions import ORGANIZER
from evalapp.api.campaigns import campaign_or_404
from evalapp.api.serializers import (
    CredentialSerializer,
    FlaggedItemSerializer,
    LabRatersCreateSerializer,
    LabRaterSerializer,
    RetirementSerializer,
    ReviewDecisionSerializer,
    SignInSerializer,
)
from evalapp.formats.rater_list import RaterEntry, read_rater_list
from evalapp.services import lab_raters

TRUE = ("1", "true", "yes")
NOT_LISTED = "This rater is not one of this campaign's lab accounts."


def _flag(request, name):
    return request.query_params.get(name, "").lower() in TRUE


class FlaggedItemsView(ListApiView):
    """GET: the review queue: items raters reported as broken, with statement, reason, each report (rater,
    note, time, decision); ``?resolved=true`` also decided ones; ``?systems=true`` names the systems.

    Security: organizers only (it names raters); read-only.
    """

    permission_classes = ORGANIZER
    serializer_class = FlaggedItemSerializer

    def get_queryset(self):
        return flags.review_queue(
            campaign_or_404(self.kwargs["campaign_id"]), include_resolved=_flag(self.request, "resolved")
        )

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "systems": _flag(self.request, "systems")}

    @extend_schema(parameters=[OpenApiParameter("resolved", bool), OpenApiParameter("systems", bool)], tags=["quality"])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


def _decision(call):
    try:
        return call()
    except flags.ReviewRefused as refusal:
        raise NotFound(refusal.message) from None


class DismissalView(ApiView):
    """POST: dismiss the open reports on an item: it is rated as it stands, by raters who have not seen it.

    Security: organizers only; CSRF with a session. 200 with ``already`` true when nothing was open;
    404 for an item of another campaign (nothing changed).
    """

    permission_classes = ORGANIZER
    parser_classes = [SafeJSONParser]

    @extend_schema(request=None, responses=ReviewDecisionSerializer, tags=["quality"])
    def post(self, request, campaign_id, item_id):
        campaign = campaign_or_404(campaign_id)
        decision = _decision(lambda: flags.dismiss_reports(campaign, item_id, by=request.user))
        return Response(ReviewDecisionSerializer(decision).data)


class RetirementView(ApiView):
    """POST: retire the instance of a reported item (its statement is broken): it leaves every system's mean
    and N, its items take no more ratings; Table 6 names it under the table.

    Security: organizers only; JSON with CSRF with a session. 201 when retired, 200 when it was already;
    404 for an item of another campaign (nothing changed).
    """

    permission_classes = ORGANIZER
    parser_classes = [SafeJSONParser]

    @extend_schema(
        request=RetirementSerializer,
        responses={201: ReviewDecisionSerializer, 200: ReviewDecisionSerializer},
        tags=["quality"],
    )
    def post(self, request, campaign_id, item_id):
        campaign = campaign_or_404(campaign_id)
        form = RetirementSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        decision = _decision(
            lambda: flags.retire_instance(campaign, item_id, by=request.user, reason=form.validated_data["reason"])
        )
        return Response(
            ReviewDecisionSerializer(decision).data,
            status=status.HTTP_200_OK if decision.already else status.HTTP_201_CREATED,
        )


def _absolute(request, credential):
    """The credential with its sign-in link made absolute for this server."""
    data = credential.as_dict()
    if credential.link:
        data["link"] = request.build_absolute_uri(credential.link)
    return data


class LabRatersView(ListApiView):
    """GET: the campaign's lab accounts (ratings, whether they signed in). POST: create accounts, from a JSON
    list ``raters`` or a multipart CSV ``file`` (header name,email), each with a one-time sign-in link or a
    printed password, returned once.

    Security: organizers only; CSRF with a session. All or nothing: with any problem (400, each with its
    line and column) no account is made.
    """

    permission_classes = ORGANIZER
    serializer_class = LabRaterSerializer
    parser_classes = [SafeJSONParser, MultiPartParser]

    def get_queryset(self):
        return [rater.as_dict() for rater in lab_raters.lab_raters(campaign_or_404(self.kwargs["campaign_id"]))]

    @extend_schema(tags=["raters"])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(
        request={"application/json": LabRatersCreateSerializer, "multipart/form-data": LabRatersCreateSerializer},
        responses={201: CredentialSerializer(many=True)},
        tags=["raters"],
    )
    def post(self, request, campaign_id):
        campaign = campaign_or_404(campaign_id)
        form = LabRatersCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        if data.get("file"):
            entries, filename = read_rater_list(data["file"].data, data["file"].name), data["file"].name
        else:
            entries = [
                RaterEntry(position, entry["name"], entry["email"]) for position, entry in enumerate(data["raters"], 1)
            ]
            filename = "raters"
        made = lab_raters.add_lab_raters(campaign, entries, data["sign_in"], by=request.user, filename=filename)
        return Response([_absolute(request, credential) for credential in made], status=status.HTTP_201_CREATED)


class LabRaterSignInView(ApiView):
    """POST: a new sign-in link or password for one lab account (the old ones stop working; a deactivated
    account is reactivated); returned once.

    Security: organizers only; JSON with CSRF with a session; 404 for a rater not listed on the campaign.
    """

    permission_classes = ORGANIZER
    parser_classes = [SafeJSONParser]

    @extend_schema(request=SignInSerializer, responses=CredentialSerializer, tags=["raters"])
    def post(self, request, campaign_id, rater_id):
        campaign = campaign_or_404(campaign_id)
        form = SignInSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        made = lab_raters.reset_sign_in(campaign, rater_id, form.validated_data["sign_in"])
        if made is None:
            raise NotFound(NOT_LISTED)
        return Response(_absolute(request, made))


class LabRaterDeactivationView(ApiView):
    """POST: deactivate a lab account: it can no longer sign in (its ratings stay; exclusion is separate).

    Security: organizers only; CSRF with a session; 404 for a rater not listed on the campaign.
    """

    permission_classes = ORGANIZER
    parser_classes = [SafeJSONParser]

    @extend_schema(request=None, responses=LabRaterSerializer, tags=["raters"])
    def post(self, request, campaign_id, rater_id):
        campaign = campaign_or_404(campaign_id)
        done = lab_raters.deactivate(campaign, rater_id)
        if done is None:
            raise NotFound(NOT_LISTED)
        row = next(r for r in lab_raters.lab_raters(campaign) if r.rater_id == rater_id)
        return Response(row.as_dict())
