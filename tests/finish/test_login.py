"""A failed login keeps the username the person typed (and says what went wrong)."""

import pytest

pytestmark = pytest.mark.django_db


def test_a_wrong_password_keeps_the_username(client, organizer):
    response = client.post("/accounts/login/", {"username": "org<x>", "password": "wrong"})
    page = response.content.decode()
    assert response.status_code == 200 and 'id="login-error"' in page
    assert 'value="org&lt;x&gt;"' in page and 'aria-describedby="login-error"' in page
    assert 'value=""' in client.get("/accounts/login/").content.decode()
