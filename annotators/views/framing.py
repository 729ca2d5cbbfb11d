"""Let Mechanical Turk show the rater screens in its frame, and no other site.

Every page sends the site's Content-Security-Policy (django-csp, ``config/settings.py``), whose
``frame-ancestors 'none'`` refuses every frame, with ``X-Frame-Options: DENY`` for old browsers.
The rater screens replace that one directive with the MTurk origins
(``annotators.crowd.frame_origins``); browsers that know CSP ignore X-Frame-Options when
frame-ancestors is present, so that header is dropped for these views only.
"""

from functools import wraps

from annotators import crowd

FRAME_ANCESTORS = "frame-ancestors"


def frame_ancestors():
    return ["'self'", *crowd.frame_origins()]


def frameable_by_mturk(view):
    """Decorator: the view's pages may be framed by this site and Mechanical Turk only."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        response.xframe_options_exempt = True
        # django-csp's per-response override (what its @csp_replace sets), computed per request
        # because the allowed origins are settings.
        response._csp_replace = {**(getattr(response, "_csp_replace", None) or {}), FRAME_ANCESTORS: frame_ancestors()}
        return response

    return wrapped
