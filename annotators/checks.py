"""System checks of the crowd-platform settings (``manage.py check``)."""

from django.conf import settings
from django.core import checks

from annotators import crowd

SAMESITE_NONE = "None"
COOKIE_CHECK_IDS = {"SESSION_COOKIE": "annotators.W001", "CSRF_COOKIE": "annotators.W002"}


@checks.register(checks.Tags.security)
def iframe_cookies_need_secure(app_configs=None, **kwargs):
    """SameSite=None cookies without Secure are dropped by browsers: the MTurk frame would lose its session."""
    problems = []
    for name, check_id in COOKIE_CHECK_IDS.items():
        if getattr(settings, f"{name}_SAMESITE") == SAMESITE_NONE and not getattr(settings, f"{name}_SECURE"):
            problems.append(
                checks.Warning(
                    f"{name}_SAMESITE is 'None' but {name}_SECURE is off: browsers drop such cookies, so crowd workers "
                    "inside Mechanical Turk's frame lose their session.",
                    hint=(
                        "Serve the site over HTTPS with DJANGO_SECURE_COOKIES=1 "
                        "(COMVE_CROWD_IFRAME_COOKIES=1 needs it)."
                    ),
                    id=check_id,
                )
            )
    return problems


@checks.register()
def mturk_test_hosts(app_configs=None, **kwargs):
    """The fake-MTurk origins are for tests; in production they would let another site frame the screens."""
    extra = crowd.frame_origins()[len(crowd.MTURK_FRAME_ORIGINS) :]
    if extra and not settings.DEBUG:
        return [
            checks.Warning(
                f"COMVE_MTURK_SUBMIT_HOSTS adds {', '.join(extra)}: these may frame the rater screens and receive "
                "completed HITs.",
                hint="Leave COMVE_MTURK_SUBMIT_HOSTS unset outside tests.",
                id="annotators.W003",
            )
        ]
    return []
