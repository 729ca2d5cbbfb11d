"""The authentication backend: Django's ModelBackend, reading a user's Rater profile with the user.

Every rater screen, and the navigation of every page, needs the user's Rater profile (or
its absence). A join on the user's row costs a tenth of a millisecond; a query of its own
about three times that, on each of a rater's two requests per rating.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend


class RaterLoadingBackend(ModelBackend):
    """ModelBackend whose ``get_user`` also loads ``user.rater`` (None-cached when there is none)."""

    def get_user(self, user_id):
        user = get_user_model()._default_manager.select_related("rater").filter(pk=user_id).first()
        return user if user is not None and self.user_can_authenticate(user) else None
