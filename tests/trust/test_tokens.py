"""Issue 12, deliverable 4: API tokens are hashed at rest, expire, are listed and revoked by their
owner (and by admins), and a password change revokes them (django-rest-knox).

Before: DRF's authtoken stored the token itself, forever, with no way to list or revoke it.
"""

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def get_token(username):
    response = APIClient().post("/api/auth/token/", {"username": username, "password": "pw-" + username}, format="json")
    assert response.status_code == 200
    return response.json()


def client_with(token):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_only_a_hash_is_stored_and_the_token_expires(organizer):
    issued = get_token("org")
    stored = AuthToken.objects.get(user=organizer)
    assert issued["token"] not in {stored.digest, stored.token_key}
    assert stored.token_key == issued["token_id"] == issued["token"][: len(stored.token_key)]
    expected = timezone.now() + settings.REST_KNOX["TOKEN_TTL"]
    assert abs(stored.expiry - expected) < timedelta(minutes=1)
    assert settings.REST_KNOX["TOKEN_TTL"] == timedelta(days=30)
    assert client_with(issued["token"]).get("/api/me/").status_code == 200


def test_an_expired_token_is_refused(organizer):
    issued = get_token("org")
    AuthToken.objects.filter(user=organizer).update(expiry=timezone.now() - timedelta(seconds=1))
    assert client_with(issued["token"]).get("/api/me/").status_code == 401


def test_an_owner_lists_and_revokes_their_tokens_and_not_others(organizer, researcher):
    first, second = get_token("org"), get_token("org")
    theirs = get_token("res")
    me = client_with(first["token"])
    listed = me.get("/api/auth/tokens/").json()
    assert {row["token_id"] for row in listed} == {first["token_id"], second["token_id"]}
    assert all(first["token"] not in str(row) for row in listed), "never the token itself"
    assert me.delete(f"/api/auth/tokens/{theirs['token_id']}/").status_code == 404
    assert me.delete(f"/api/auth/tokens/{second['token_id']}/").status_code == 204
    assert client_with(second["token"]).get("/api/me/").status_code == 401
    assert client_with(theirs["token"]).get("/api/me/").status_code == 200


def test_an_admin_lists_and_revokes_anyones_token(organizer, django_user_model):
    django_user_model.objects.create_superuser("boss", password="pw-boss")
    boss = client_with(get_token("boss")["token"])
    victim = get_token("org")
    assert victim["token_id"] in {row["token_id"] for row in boss.get("/api/auth/tokens/").json()}
    assert boss.delete(f"/api/auth/tokens/{victim['token_id']}/").status_code == 204
    assert client_with(victim["token"]).get("/api/me/").status_code == 401


def test_a_password_change_revokes_every_token_of_the_account(organizer, researcher):
    tokens = [get_token("org")["token"] for _ in range(2)]
    other = get_token("res")["token"]
    organizer.set_password("a-new-Passphrase-2026")
    organizer.save()
    assert [client_with(token).get("/api/me/").status_code for token in tokens] == [401, 401]
    assert client_with(other).get("/api/me/").status_code == 200


def test_saving_a_user_without_a_new_password_keeps_the_tokens(organizer):
    token = get_token("org")["token"]
    organizer.first_name = "Ada"
    organizer.save()
    assert client_with(token).get("/api/me/").status_code == 200
