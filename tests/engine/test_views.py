"""The organizer's campaign pages: roles, the creation form (same checks as the command), progress."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from core import engine
from core.models import Campaign, Item, Rater
from evalapp.services.campaigns import create_campaign
from tests.engine.builders import build_dataset

# On both databases: the engine runs some statements differently on PostgreSQL (core.rating_sql).
pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


@pytest.fixture
def dataset():
    return build_dataset(instances=12, systems=("alpha", "beta"))


def form_data(dataset, **overrides):
    data = {
        "dataset": dataset.pk,
        "name": "web",
        "selection": "sample",
        "sample": 5,
        "seed": 2020,
        "raters_per_item": 3,
        "lease_minutes": 30,
        "control_rate": 0.0,
        "human_reference": "",
    }
    for score in range(4):
        data[f"rubric_label_{score}"] = f"Label {score}"
        data[f"rubric_description_{score}"] = f"Description {score}"
    data.update(overrides)
    return data


@pytest.mark.parametrize(
    "name, method, args",
    [
        ("campaigns:index", "get", ()),
        ("campaigns:create", "get", ()),
        ("campaigns:create", "post", ()),
        ("campaigns:detail", "get", ("campaign",)),
        ("campaigns:status", "post", ("campaign",)),
    ],
)
def test_only_organizers_get_in(client, dataset, researcher, rater_user, name, method, args):
    campaign = create_campaign(dataset, "c")
    url = reverse(name, args=[campaign.pk for _ in args])
    assert getattr(client, method)(url).status_code == 302  # to the login page
    for user in (researcher, rater_user):
        client.force_login(user)
        assert getattr(client, method)(url).status_code == 403
    assert Campaign.objects.get().status == Campaign.Status.OPEN


def test_state_changes_need_post(client, organizer, dataset):
    campaign = create_campaign(dataset, "c")
    client.force_login(organizer)
    assert client.get(reverse("campaigns:status", args=[campaign.pk]), {"status": "closed"}).status_code == 405
    assert Campaign.objects.get().status == Campaign.Status.OPEN


def test_create_form_makes_the_same_campaign_as_the_service(client, organizer, dataset):
    client.force_login(organizer)
    page = client.get(reverse("campaigns:create"))  # the only dataset is chosen at once
    assert page.status_code == 200 and b"alpha (12 reasons)" in page.content
    assert b'name="rubric_label_0"' in page.content and b"Not a reason" in page.content
    response = client.post(
        reverse("campaigns:create"),
        form_data(dataset, systems=["alpha"], human_reference="2", control_rate=0.2, share_identical="on"),
    )
    campaign = Campaign.objects.get(name="web")
    assert response.status_code == 302 and response.url == reverse("campaigns:detail", args=[campaign.pk])
    assert (campaign.seed, campaign.sample_size, campaign.human_reference, campaign.lease_seconds) == (2020, 5, 2, 1800)
    assert campaign.share_identical_outputs and campaign.created_by == organizer
    assert campaign.rubric[3] == {"score": 3, "label": "Label 3", "description": "Description 3"}
    same = create_campaign(dataset, "service", sample=5, seed=2020, systems=["alpha"], human_reference=2)
    assert list(campaign.sampled.values_list("instance", flat=True)) == list(
        same.sampled.values_list("instance", flat=True)
    )
    assert Item.objects.filter(campaign=campaign, kind="control").count() == 2  # round(0.2 * 10)


def test_create_form_shows_the_services_problems_next_to_the_fields(client, organizer, dataset):
    client.force_login(organizer)
    response = client.post(
        reverse("campaigns:create"), form_data(dataset, sample=50, human_reference="3", rubric_label_2="")
    )
    assert response.status_code == 400
    form = response.context["form"]
    assert "rubric_label_2" in form.errors
    assert not Campaign.objects.exists()
    response = client.post(reverse("campaigns:create"), form_data(dataset, sample=50))
    assert "cannot sample 50 instances: dataset &#x27;ds&#x27; has 12" in response.content.decode()
    assert response.context["form"].errors["sample"] == ["cannot sample 50 instances: dataset 'ds' has 12"]
    assert b"nothing was written" in response.content


def test_create_form_takes_an_instance_list_file_or_pasted_ids(client, organizer, dataset):
    client.force_login(organizer)
    upload = SimpleUploadedFile("ids.txt", b"3\n99\n")
    response = client.post(
        reverse("campaigns:create"), {**form_data(dataset, selection="list"), "instance_file": upload}
    )
    assert response.status_code == 400
    assert response.context["form"].errors["instance_file"] == [
        "ids.txt, line 2, column 1: unknown instance id '99' (not in dataset 'ds')"
    ]
    response = client.post(reverse("campaigns:create"), form_data(dataset, selection="list", instance_text="4\n2\n"))
    assert response.status_code == 302
    assert list(Campaign.objects.get().sampled.values_list("instance__external_id", flat=True)) == ["4", "2"]


def test_with_several_datasets_the_organizer_chooses_first(client, organizer, dataset):
    build_dataset(name="other", instances=2)
    client.force_login(organizer)
    page = client.get(reverse("campaigns:create"))
    assert page.status_code == 200 and b"other (2 instances)" in page.content and b'name="name"' not in page.content
    assert client.get(reverse("campaigns:create"), {"dataset": dataset.pk}).status_code == 200
    assert client.get(reverse("campaigns:create"), {"dataset": 999}).status_code == 404
    assert client.get(reverse("campaigns:create"), {"dataset": "x"}).status_code == 400


def test_index_and_detail_show_progress(client, organizer, dataset):
    campaign = create_campaign(dataset, "watched", sample=2, seed=1, raters_per_item=1, human_reference=1)
    rater = Rater.objects.create(external_id="w", platform=Rater.Platform.PROLIFIC, order_seed=1)
    lease = engine.next_assignment(campaign, rater)
    engine.submit_rating(lease.pk, rater, 3)
    client.force_login(organizer)
    index = client.get(reverse("campaigns:index")).content.decode()
    assert "watched" in index and "1 of 6" in index
    detail = client.get(reverse("campaigns:detail", args=[campaign.pk]))
    text = detail.content.decode()
    assert "1 of 6 ratings" in text and "Human" in text and "alpha" in text and "seed 1" in text
    assert [system.name for system in detail.context["progress"].systems] == ["Human", "alpha", "beta"]


def test_closing_a_campaign_stops_handing_out_items(client, organizer, dataset):
    campaign = create_campaign(dataset, "closing")
    client.force_login(organizer)
    response = client.post(reverse("campaigns:status", args=[campaign.pk]), {"status": "closed"})
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.status == Campaign.Status.CLOSED
    rater = Rater.objects.create(external_id="late", platform=Rater.Platform.PROLIFIC, order_seed=1)
    assert engine.next_assignment(campaign, rater) is None
    client.post(reverse("campaigns:status", args=[campaign.pk]), {"status": "bogus"})
    campaign.refresh_from_db()
    assert campaign.status == Campaign.Status.CLOSED
