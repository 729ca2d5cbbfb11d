"""The site's own error pages with DEBUG off: the layout and navigation, why in one sentence, where next."""

from unittest import mock

import pytest
from django.db import OperationalError
from django.db.backends.base.base import BaseDatabaseWrapper
from django.test import RequestFactory, override_settings

from config import errors

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


@pytest.fixture(autouse=True)
def debug_off(settings):
    settings.DEBUG = False


def test_403_shows_the_reason_the_navigation_and_another_login(client, researcher):
    client.force_login(researcher)
    response = client.get("/data/")
    body = response.content.decode()
    assert response.status_code == 403
    assert "Your account does not have the role this page needs." in body
    assert 'aria-label="Main"' in body and ">Results</a>" in body, "the navigation stays"
    assert "Log in as another user" in body and "/accounts/login/?next=/data/" in body
    assert "<title>403 Access denied" in body


def test_404_says_nothing_is_there_and_where_to_go(client, organizer):
    client.force_login(organizer)
    response = client.get("/no-such-page/")
    body = response.content.decode()
    assert response.status_code == 404 and "Page not found" in body
    assert ">Campaigns</a>" in body and "Go to your home page" in body


def test_a_view_s_own_404_sentence_is_shown(client, rater_user):
    client.force_login(rater_user)
    response = client.get("/rate/999999/")
    assert response.status_code == 404 and "No open campaign here." in response.content.decode()


def test_400_for_a_host_the_site_does_not_serve(client):
    response = client.get("/", HTTP_HOST="evil.example")
    assert response.status_code == 400 and "Bad request" in response.content.decode()


def test_500_renders_without_a_database():
    request = RequestFactory().get("/anywhere/")
    with mock.patch.object(BaseDatabaseWrapper, "cursor", side_effect=OperationalError("the database is down")):
        response = errors.server_error(request)
    body = response.content.decode()
    assert response.status_code == 500 and "Server error" in body and 'href="/"' in body
    assert "<title>500 Server error" in body


@override_settings(DEBUG=False)
def test_the_project_names_its_handlers():
    from config import urls

    assert (urls.handler400, urls.handler403, urls.handler404, urls.handler500) == (
        "config.errors.bad_request",
        "config.errors.permission_denied",
        "config.errors.page_not_found",
        "config.errors.server_error",
    )


def test_the_site_has_a_favicon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    icon = client.get(response["Location"])
    assert icon.status_code == 200 and b"".join(icon.streaming_content)[:4] == b"\x00\x00\x01\x00"


def test_api_root_is_a_json_index_of_its_parts(client):
    response = client.get("/api/")
    index = response.json()
    assert response.status_code == 200
    assert index["docs"].endswith("/api/docs/") and index["schema"].endswith("/api/schema/")
    assert index["authentication"]["token"].endswith("/api/auth/token/")
    assert any(address.endswith("/api/rate/campaigns/") for address in index["parts"].values())


def test_schema_names_read_naturally(client):
    names = client.get("/api/schema/?format=json").json()["components"]["schemas"]
    assert not [name for name in names if "RequestRequest" in name or "Serializer" in name]
    assert {"RatingRequest", "ExclusionRequest", "NewMetricRunRequest"} <= set(names)
