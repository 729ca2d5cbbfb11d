"""The organizer's rater-quality page, its CSV, and excluding a rater (items reopen)."""

import csv
import io

import pytest
from django.test import Client

from core import engine
from core.models import Assignment, Item, Rater, RaterExclusion, Rating
from tests.screens.test_rating_views import shown_assignment, start, state, url

pytestmark = pytest.mark.django_db


def rate_some(user, campaign, count, score=1):
    client = Client()
    client.force_login(user)
    page = start(client, campaign)
    for _ in range(count):
        response = client.post(url("item", campaign), {"assignment": shown_assignment(page), "score": str(score)})
        page = client.get(response["Location"])
    return client


def quality_urls(campaign, rater_id):
    return [
        url("quality", campaign),
        url("quality_download", campaign, fmt="csv"),
        url("exclude", campaign, rater_id=rater_id),
    ]


def test_only_organizers_see_quality(client, campaign, rater_user, researcher):
    rater_id = Rater.objects.get(user=rater_user).pk
    for address in quality_urls(campaign, rater_id):
        assert client.get(address)["Location"].startswith("/accounts/login/")
    for user in (rater_user, researcher):
        client.force_login(user)
        for address in quality_urls(campaign, rater_id):
            assert client.get(address).status_code == 403
        assert client.post(url("exclude", campaign, rater_id=rater_id)).status_code == 403
    assert not RaterExclusion.objects.exists()


def test_quality_page_lists_raters_figures_and_flagged_items(client, organizer, rater_user, campaign):
    rater_client = rate_some(rater_user, campaign, 3)
    assignment = shown_assignment(rater_client.get(url("item", campaign)))
    rater_client.post(url("flag", campaign), {"assignment": assignment, "note": "Reason is in French"})
    client.force_login(organizer)
    page = client.get(url("quality", campaign)).content.decode()
    assert "rater1" in page and "Reason is in French" in page
    rater_id = Rater.objects.get(user=rater_user).pk
    assert url("exclude", campaign, rater_id=rater_id) in page


def test_quality_csv_is_neutralised(client, organizer, django_user_model, campaign):
    from tests.screens.conftest import make_rater

    rate_some(make_rater(django_user_model, "=HYPERLINK(1)"), campaign, 2)
    client.force_login(organizer)
    response = client.get(url("quality_download", campaign, fmt="csv"))
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [row["rater"] for row in rows] == ["'=HYPERLINK(1)"]
    assert rows[0]["ratings"] == "2" and rows[0]["flagged"] == "False"


@pytest.mark.postgres
def test_exclude_confirms_on_get_and_excludes_on_post(client, organizer, rater_user, other_rater_user, campaign):
    rate_some(rater_user, campaign, 4)
    rater = Rater.objects.get(user=rater_user)
    held = Assignment.objects.get(rater=rater, status=Assignment.Status.LEASED)
    rated_items = list(Rating.objects.filter(rater=rater).values_list("item_id", flat=True))
    client.force_login(organizer)

    before = state(campaign)
    confirm = client.get(url("exclude", campaign, rater_id=rater.pk))
    # One display name everywhere (issue 20): the pseudonym of the dashboard and ratings.csv, the account beside it.
    assert confirm.status_code == 200 and f"Exclude rater-{rater.pk} (rater1)" in confirm.content.decode()
    assert state(campaign) == before and not RaterExclusion.objects.exists()

    response = client.post(url("exclude", campaign, rater_id=rater.pk), {"reason": "random clicking"}, follow=True)
    assert "4 ratings no longer count and 5 items were reopened" in response.content.decode()
    exclusion = RaterExclusion.objects.get()
    assert (exclusion.rater, exclusion.reason, exclusion.excluded_by) == (rater, "random clicking", organizer)
    assert Rating.objects.filter(rater=rater, excluded=True).count() == 4
    for item in Item.objects.filter(pk__in=rated_items + [held.item_id]):
        assert item.active_count == 0 and item.done_count == 0, "reopened for new raters"

    again = client.post(url("exclude", campaign, rater_id=rater.pk), follow=True)
    assert "already excluded" in again.content.decode()
    assert RaterExclusion.objects.count() == 1

    # The excluded rater gets no more items; the reopened ones go to others.
    excluded_client = Client()
    excluded_client.force_login(rater_user)
    assert excluded_client.post(url("next", campaign))["Location"] == url("done", campaign)
    assert "has ended" in excluded_client.get(url("done", campaign)).content.decode()
    campaign.raters_per_item = 1
    Item.objects.filter(campaign=campaign).update(needed=1)
    rate_some(other_rater_user, campaign, Item.objects.filter(campaign=campaign).count())
    other = Rater.objects.get(user=other_rater_user)
    assert set(rated_items) <= set(Rating.objects.filter(rater=other).values_list("item_id", flat=True))


def test_exclude_needs_csrf_and_a_rater_of_the_campaign(organizer, rater_user, campaign):
    rate_some(rater_user, campaign, 1)
    rater = Rater.objects.get(user=rater_user)
    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    assert client.post(url("exclude", campaign, rater_id=rater.pk)).status_code == 403
    assert not RaterExclusion.objects.exists()
    stranger = Rater.objects.create()
    assert client.get(url("exclude", campaign, rater_id=stranger.pk)).status_code == 404
    assert client.get(url("exclude", campaign, rater_id=999999)).status_code == 404


def test_excluded_rater_is_shown_as_excluded(client, organizer, rater_user, campaign):
    rate_some(rater_user, campaign, 2)
    engine.exclude_rater(campaign, Rater.objects.get(user=rater_user))
    client.force_login(organizer)
    page = client.get(url("quality", campaign)).content.decode()
    assert "Excluded" in page
    assert url("exclude", campaign, rater_id=Rater.objects.get(user=rater_user).pk) not in page


def test_organizer_sets_thresholds_and_bad_values_change_nothing(client, organizer, rater_user, campaign):
    address = url("thresholds", campaign)
    values = {"min_control_pass_rate": "0.8", "min_coagreement": "0.4", "min_median_seconds": "2.5"}
    client.force_login(rater_user)
    assert client.post(address, values).status_code == 403
    client.force_login(organizer)
    assert client.get(address).status_code == 405
    response = client.post(address, values)
    assert response["Location"] == url("quality", campaign)
    campaign.refresh_from_db()
    assert (campaign.min_control_pass_rate, campaign.min_coagreement, campaign.min_median_seconds) == (0.8, 0.4, 2.5)
    for field, bad in (
        ("min_control_pass_rate", "1.5"),
        ("min_coagreement", "-0.1"),
        ("min_median_seconds", "inf"),
        ("min_median_seconds", "fast"),
    ):
        response = client.post(address, {**values, field: bad})
        assert response.status_code == 400, (field, bad)
        assert 'aria-invalid="true"' in response.content.decode()
    campaign.refresh_from_db()
    assert (campaign.min_control_pass_rate, campaign.min_coagreement, campaign.min_median_seconds) == (0.8, 0.4, 2.5)


def test_set_thresholds_service_checks_ranges(campaign):
    from core.quality import ThresholdError, Thresholds, set_thresholds

    with pytest.raises(ThresholdError) as error:
        set_thresholds(campaign, Thresholds(1.2, "high", -1))
    assert set(error.value.problems) == {"min_control_pass_rate", "min_coagreement", "min_median_seconds"}
    campaign.refresh_from_db()
    assert campaign.min_control_pass_rate == 0.7
    set_thresholds(campaign, Thresholds(0.5, 0, 0))
    campaign.refresh_from_db()
    assert (campaign.min_control_pass_rate, campaign.min_coagreement, campaign.min_median_seconds) == (0.5, 0, 0)


def test_a_rater_has_one_display_name_on_the_quality_page_and_in_ratings_csv(client, organizer, rater_user, campaign):
    from evalapp.services import exports

    rate_some(rater_user, campaign, 3)
    rater = Rater.objects.get(user=rater_user)
    client.force_login(organizer)
    name = f"rater-{rater.pk}"
    quality_page = client.get(url("quality", campaign)).content.decode()
    assert f'<th scope="row">{name} <span class="muted">(rater1)</span></th>' in quality_page
    ratings_csv = exports.ratings(campaign).text
    assert f",{name}," in ratings_csv and "rater1" not in ratings_csv
