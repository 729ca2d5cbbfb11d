"""Issue 12, flaw 2: brute force is stopped on every door (django-axes), the client address is the
one a trusted proxy gives or REMOTE_ADDR, and the counts are shared through the database.

Before: 200 wrong passwords, then the right one logged in; a fresh X-Forwarded-For each try
bypassed the token throttle; the throttle counted in each process's own memory.
"""

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.core.cache import caches
from django.core.management import call_command
from django.db import connection
from django.test import Client

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

PASSWORD = "pw-org"  # tests/conftest.py: the organizer's password is "pw-" + username
LOCKED = 429


def web_login(client, password, **headers):
    return client.post("/accounts/login/", {"username": "org", "password": password}, **headers)


def admin_login(client, password, **headers):
    return client.post("/admin/login/", {"username": "org", "password": password}, **headers)


def token_login(client, password, **headers):
    return client.post(
        "/api/auth/token/", {"username": "org", "password": password}, content_type="application/json", **headers
    )


DOORS = {"web": web_login, "admin": admin_login, "api-token": token_login}


def test_the_limit_is_ten_by_default():
    assert settings.AXES_FAILURE_LIMIT == 10
    assert "axes.backends.AxesStandaloneBackend" == settings.AUTHENTICATION_BACKENDS[0]


@pytest.mark.parametrize("door", DOORS)
def test_after_the_limit_even_the_right_password_is_refused(organizer, door, settings):
    organizer.is_staff = True  # so that the admin door would let them in
    organizer.save()
    login = DOORS[door]
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert login(client, "wrong").status_code in (200, 400), "a wrong password is just refused"
    assert login(client, "wrong").status_code == LOCKED, "the last allowed failure locks"
    response = login(client, PASSWORD)
    assert response.status_code == LOCKED
    assert "_auth_user_id" not in client.session
    if door == "api-token":
        assert response.json()["detail"].startswith("Too many failed logins")
    assert AccessAttempt.objects.get(username="org").failures_since_start > settings.AXES_FAILURE_LIMIT


def test_below_the_limit_the_right_password_works_and_resets_the_count(organizer):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        web_login(client, "wrong")
    assert web_login(client, PASSWORD).status_code == 302
    assert not AccessAttempt.objects.filter(username="org").exists()


def test_a_fresh_x_forwarded_for_each_try_changes_nothing_without_a_trusted_proxy(organizer):
    client = Client()
    for n in range(settings.AXES_FAILURE_LIMIT):
        web_login(client, "wrong", HTTP_X_FORWARDED_FOR=f"203.0.113.{n}")
    assert web_login(client, PASSWORD, HTTP_X_FORWARDED_FOR="198.51.100.7").status_code == LOCKED
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"127.0.0.1"}


def test_behind_a_trusted_proxy_the_forwarded_address_is_the_client(organizer, settings):
    settings.TRUSTED_PROXIES = 1
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        web_login(client, "wrong", HTTP_X_FORWARDED_FOR="203.0.113.5")
    assert web_login(client, PASSWORD, HTTP_X_FORWARDED_FOR="203.0.113.5").status_code == LOCKED
    assert web_login(client, PASSWORD, HTTP_X_FORWARDED_FOR="198.51.100.7").status_code == 302, (
        "another client of the proxy is not locked out"
    )


def test_admins_see_lockouts_and_can_lift_them(organizer, django_user_model):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        web_login(client, "wrong")
    admin = django_user_model.objects.create_superuser("boss", password="pw-boss-Long-enough-1")
    staff = Client()
    staff.force_login(admin)
    listing = staff.get("/admin/axes/accessattempt/").content.decode()
    assert "org" in listing and "127.0.0.1" in listing
    call_command("axes_reset_username", "org")
    assert web_login(client, PASSWORD).status_code == 302


def test_the_counts_and_the_throttles_live_in_the_database():
    """Every process and machine reads the same counts: axes in its tables, DRF's throttles in the
    database cache (a per-process memory cache let 2 workers allow twice the rate)."""
    assert settings.AXES_HANDLER == "axes.handlers.database.AxesDatabaseHandler"
    cache = caches["default"]
    assert cache.__class__.__name__ == "DatabaseCache"
    Client().post("/api/auth/token/", {"username": "nobody", "password": "x"}, content_type="application/json")
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT COUNT(*) FROM {settings.CACHES['default']['LOCATION']} WHERE cache_key LIKE %s",
            ["%throttle_login%"],
        )
        assert cursor.fetchone()[0] == 1
