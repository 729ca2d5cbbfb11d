"""Web views of the annotators app: the rater screens, the organizer's quality page, the CSRF failure view."""

from annotators.views.csrf import csrf_failure

__all__ = ["csrf_failure"]
