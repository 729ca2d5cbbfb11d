"""The authentication backend loads the user's Rater profile with the user (core.auth_backend)."""

import pytest
from django.contrib.auth import get_user
from django.test import RequestFactory

from core import roles
from core.auth_backend import RaterLoadingBackend

pytestmark = pytest.mark.django_db


def test_the_rater_profile_comes_with_the_user(rater_user, django_assert_num_queries):
    with django_assert_num_queries(1):
        user = RaterLoadingBackend().get_user(rater_user.pk)
    with django_assert_num_queries(0):
        assert roles.rater_of(user) == rater_user.rater


def test_a_user_without_a_profile_is_no_rater_and_costs_no_query(organizer, django_assert_num_queries):
    user = RaterLoadingBackend().get_user(organizer.pk)
    with django_assert_num_queries(0):
        assert roles.rater_of(user) is None


def test_inactive_and_missing_users_are_nobody(rater_user):
    rater_user.is_active = False
    rater_user.save()
    assert RaterLoadingBackend().get_user(rater_user.pk) is None
    assert RaterLoadingBackend().get_user(10**9) is None


def test_a_logged_in_session_gets_its_user_through_the_backend(client, rater_user):
    client.force_login(rater_user)
    request = RequestFactory().get("/")
    request.session = client.session
    assert get_user(request) == rater_user
    assert request.session["_auth_user_backend"] == "core.auth_backend.RaterLoadingBackend"
