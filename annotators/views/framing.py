"""Let Mechanical Turk show the rater screens in its frame, and no other site.

Django sends ``X-Frame-Options: DENY`` by default, which would blank the HIT. The rater
screens instead send ``Content-Security-Policy: frame-ancestors`` naming the MTurk origins
(``annotators.crowd.frame_origins``); browsers that know CSP ignore X-Frame-Options when
frame-ancestors is present, so that header is dropped for these views only.
"""
from functools import wraps

from annotators import crowd

POLICY_HEADER = "Content-Security-Policy"


def frame_ancestors_policy():
    return "frame-ancestors " + " ".join(("'self'", *crowd.frame_origins()))


def frameable_by_mturk(view):
    """Decorator: the view's pages may be framed by this site and Mechanical Turk only."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        response.xframe_options_exempt = True
        existing = response.get(POLICY_HEADER)
        if not existing:
            response[POLICY_HEADER] = frame_ancestors_policy()
        elif "frame-ancestors" not in existing:
            response[POLICY_HEADER] = f"{existing}; {frame_ancestors_policy()}"
        return response

    return wrapped
