"""Tokens, sessions with CSRF, the error body, the OpenAPI schema and the offline docs page."""

import re
from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def test_token_for_username_and_password_then_use_it(world):
    client = APIClient()
    response = client.post(
        "/api/auth/token/", {"username": "api-researcher", "password": "pw-api-researcher"}, format="json"
    )
    assert response.status_code == 200
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    me = client.get("/api/me/").json()
    assert me == {"username": "api-researcher", "roles": ["researcher"], "rater_id": None}


def test_wrong_password_is_400_without_saying_which_part_was_wrong(world):
    response = APIClient().post("/api/auth/token/", {"username": "api-researcher", "password": "nope"}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"detail", "problems"}
    assert "Unable to log in" in body["problems"][0]["message"]


def test_token_endpoint_refuses_get(world):
    assert APIClient().get("/api/auth/token/").status_code == 405


def test_roles_of_each_account(world):
    assert world.client("admin").get("/api/me/").json()["roles"] == ["admin", "organizer"]
    rater = world.client("rater").get("/api/me/").json()
    assert rater["roles"] == ["rater"] and rater["rater_id"] == world.rater().pk


def test_anonymous_gets_401_with_the_token_challenge(world):
    response = APIClient().get("/api/campaigns/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert response.json() == {"detail": "Authentication credentials were not provided.", "problems": []}


def test_bad_token_is_401(world):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    assert client.get("/api/me/").status_code == 401


def test_session_works_and_unsafe_methods_need_csrf(world):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(world.users["rater"])
    assert client.get(f"/api/rate/campaigns/{world.campaign.pk}/current/").status_code == 200
    refused = client.post(f"/api/rate/assignments/{world.assignment.pk}/rating/", {"score": 2}, format="json")
    assert refused.status_code == 403
    assert "CSRF" in refused.json()["detail"]
    client.get("/accounts/login/")
    token = client.cookies["csrftoken"].value
    accepted = client.post(
        f"/api/rate/assignments/{world.assignment.pk}/rating/", {"score": 2}, format="json", HTTP_X_CSRFTOKEN=token
    )
    assert accepted.status_code == 201


def test_role_refusal_names_the_role(world):
    response = world.client("researcher").post("/api/campaigns/", {}, format="json")
    assert response.status_code == 403
    assert "organizer" in response.json()["detail"]


def test_schema_generates_without_warnings():
    out = StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json", stdout=out)
    assert '"openapi": "3.0.3"' in out.getvalue()


def test_schema_documents_error_bodies_and_download_formats(world):
    schema = APIClient().get("/api/schema/?format=json").json()
    table6 = schema["paths"]["/api/campaigns/{campaign_id}/table6/"]["get"]
    assert set(table6["responses"]["200"]["content"]) == {
        "application/json",
        "text/csv",
        "text/markdown",
        "application/x-latex",
    }
    assert table6["responses"]["403"]["content"]["application/json"]["schema"]["$ref"].endswith("/Error")
    upload = schema["paths"]["/api/datasets/{dataset_id}/submissions/"]["post"]["requestBody"]["content"]
    file_field = schema["components"]["schemas"]["SubmissionUploadRequest"]["properties"]["file"]
    assert list(upload) == ["multipart/form-data"] and file_field["format"] == "binary"


def test_docs_page_loads_nothing_from_outside(world):
    page = APIClient().get("/api/docs/").content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert any("swagger-ui-bundle.js" in source for source in sources), sources
    assert not [s for s in sources if s.startswith(("http:", "https:", "//"))], sources


def test_browsable_api_renders_every_readable_endpoint(world):
    """A signed-in browser gets DRF's HTML pages (or the download) for every GET, never a 5xx."""
    from tests.api.test_auth_matrix import ENDPOINTS

    client = world.client("organizer")
    for endpoint in ENDPOINTS:
        if endpoint.method == "get":
            response = client.get(endpoint.url(world), HTTP_ACCEPT="text/html")
            assert response.status_code < 500, endpoint.path


@pytest.mark.parametrize("path", ["/api/nowhere/", "/api/campaigns/1234567890123456789012/", "/api/campaigns/x/"])
def test_unknown_paths_get_the_json_error_body(path):
    for method in ("get", "post", "delete"):
        response = getattr(APIClient(), method)(path)
        assert response.status_code == 404
        assert response.json()["detail"].startswith("There is no such API endpoint")
