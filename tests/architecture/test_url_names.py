"""One URL style: each app's pages in its ``urls.py``, its API routes in its ``api/urls.py``, and every
URL name still resolving to the path it had before the URL modules were gathered (issue 21, item 5).

``ROUTES`` was listed from ``main`` at commit 970bf26, before the move, by walking the resolver (the
admin's own routes apart): the pages, the API, the rater screens, the templates and the manual address
these names and paths, so a move must keep every one of them.
"""

import ast
import re
from pathlib import Path

import pytest
from django.urls import URLResolver, get_resolver, resolve, reverse

REPO = Path(__file__).resolve().parents[2]
APPS = ("config", "core", "annotators", "evalapp")
# The modules that may declare routes: the root, each app's pages, each app's API.
URL_MODULES = {"config/urls.py", "annotators/urls.py", "evalapp/urls.py"} | {
    f"{app}/api/urls.py" for app in ("core", "annotators", "evalapp")
}

ROUTES = [
    ("home", ""),
    ("favicon", "favicon.ico"),
    ("sign_in_link", "accounts/link/<str:uidb64>/<str:token>/"),
    ("login", "accounts/login/"),
    ("logout", "accounts/logout/"),
    ("password_change", "accounts/password_change/"),
    ("password_change_done", "accounts/password_change/done/"),
    ("password_reset", "accounts/password_reset/"),
    ("password_reset_done", "accounts/password_reset/done/"),
    ("password_reset_confirm", "accounts/reset/<uidb64>/<token>/"),
    ("password_reset_complete", "accounts/reset/done/"),
    ("data:index", "data/"),
    ("data:import_dataset", "data/import/"),
    ("data:dataset", "data/<id:pk>/"),
    ("data:upload_submission", "data/<id:pk>/upload/"),
    ("campaigns:index", "campaigns/"),
    ("campaigns:create", "campaigns/new/"),
    ("campaigns:detail", "campaigns/<id:campaign_id>/"),
    ("campaigns:status", "campaigns/<id:campaign_id>/status/"),
    ("campaigns:quality", "campaigns/<id:campaign_id>/quality/"),
    ("campaigns:quality_download", "campaigns/<id:campaign_id>/quality.<str:fmt>"),
    ("campaigns:thresholds", "campaigns/<id:campaign_id>/thresholds/"),
    ("campaigns:exclude", "campaigns/<id:campaign_id>/exclude/<id:rater_id>/"),
    ("campaigns:flags", "campaigns/<id:campaign_id>/flags/"),
    ("campaigns:flag_dismiss", "campaigns/<id:campaign_id>/flags/<id:item_id>/dismiss/"),
    ("campaigns:flag_retire", "campaigns/<id:campaign_id>/flags/<id:item_id>/retire/"),
    ("campaigns:raters", "campaigns/<id:campaign_id>/raters/"),
    ("campaigns:raters_add", "campaigns/<id:campaign_id>/raters/add/"),
    ("campaigns:rater_reset", "campaigns/<id:campaign_id>/raters/<id:rater_id>/reset/"),
    ("campaigns:rater_deactivate", "campaigns/<id:campaign_id>/raters/<id:rater_id>/deactivate/"),
    ("campaigns:crowd", "campaigns/<id:campaign_id>/crowd/"),
    ("campaigns:rotate_crowd_key", "campaigns/<id:campaign_id>/crowd/rotate-key/"),
    ("campaigns:import_crowd_submissions", "campaigns/<id:campaign_id>/crowd/submissions/"),
    ("campaigns:crowd_sessions_download", "campaigns/<id:campaign_id>/crowd-sessions.<str:fmt>"),
    ("results:index", "results/"),
    ("results:dashboard", "results/<id:campaign_id>/"),
    ("results:table6_page", "results/<id:campaign_id>/table6/"),
    ("results:plan", "results/<id:campaign_id>/plan/"),
    ("results:racing", "results/<id:campaign_id>/racing/"),
    ("results:table6", "results/<id:campaign_id>/table6.<str:fmt>"),
    ("results:agreement", "results/<id:campaign_id>/agreement.<str:fmt>"),
    ("results:ratings", "results/<id:campaign_id>/ratings.<str:fmt>"),
    ("metrics:index", "metrics/"),
    ("metrics:campaign", "metrics/campaign/<id:campaign_id>/"),
    ("metrics:start", "metrics/campaign/<id:campaign_id>/start/"),
    ("metrics:import", "metrics/campaign/<id:campaign_id>/import/"),
    ("metrics:download", "metrics/campaign/<id:campaign_id>/download/<str:fmt>/"),
    ("metrics:run", "metrics/run/<id:run_id>/"),
    ("metrics:run_cancel", "metrics/run/<id:run_id>/cancel/"),
    ("annotators:campaigns", "rate/"),
    ("annotators:instructions", "rate/<id:campaign_id>/"),
    ("annotators:next", "rate/<id:campaign_id>/next/"),
    ("annotators:item", "rate/<id:campaign_id>/item/"),
    ("annotators:flag", "rate/<id:campaign_id>/flag/"),
    ("annotators:correct", "rate/<id:campaign_id>/correct/"),
    ("annotators:done", "rate/<id:campaign_id>/done/"),
    ("annotators:mturk", "rate/mturk/<id:campaign_id>/<str:key>/"),
    ("annotators:prolific", "rate/prolific/<id:campaign_id>/<str:key>/"),
    ("api:index", "api/"),
    ("api:schema", "api/schema/"),
    ("api:docs", "api/docs/"),
    ("api:token", "api/auth/token/"),
    ("api:tokens", "api/auth/tokens/"),
    ("api:token-revoke", "api/auth/tokens/<str:token_id>/"),
    ("api:me", "api/me/"),
    ("api:datasets", "api/datasets/"),
    ("api:dataset", "api/datasets/<id:dataset_id>/"),
    ("api:systems", "api/datasets/<id:dataset_id>/systems/"),
    ("api:submissions", "api/datasets/<id:dataset_id>/submissions/"),
    ("api:campaigns", "api/campaigns/"),
    ("api:campaign", "api/campaigns/<id:campaign_id>/"),
    ("api:progress", "api/campaigns/<id:campaign_id>/progress/"),
    ("api:rater-quality", "api/campaigns/<id:campaign_id>/raters/"),
    ("api:exclusion", "api/campaigns/<id:campaign_id>/raters/<id:rater_id>/exclusion/"),
    ("api:flags", "api/campaigns/<id:campaign_id>/flags/"),
    ("api:flag-dismissal", "api/campaigns/<id:campaign_id>/flags/<id:item_id>/dismissal/"),
    ("api:flag-retirement", "api/campaigns/<id:campaign_id>/flags/<id:item_id>/retirement/"),
    ("api:lab-raters", "api/campaigns/<id:campaign_id>/lab-raters/"),
    ("api:lab-rater-sign-in", "api/campaigns/<id:campaign_id>/lab-raters/<id:rater_id>/sign-in/"),
    ("api:lab-rater-deactivation", "api/campaigns/<id:campaign_id>/lab-raters/<id:rater_id>/deactivation/"),
    ("api:crowd-sessions", "api/campaigns/<id:campaign_id>/crowd-sessions/"),
    ("api:crowd", "api/campaigns/<id:campaign_id>/crowd/"),
    ("api:crowd-key", "api/campaigns/<id:campaign_id>/crowd/key/"),
    ("api:crowd-submissions", "api/campaigns/<id:campaign_id>/crowd-submissions/"),
    ("api:table6", "api/campaigns/<id:campaign_id>/table6/"),
    ("api:ratings", "api/campaigns/<id:campaign_id>/ratings/"),
    ("api:ratings-import", "api/campaigns/<id:campaign_id>/ratings/import/"),
    ("api:agreement", "api/campaigns/<id:campaign_id>/agreement/"),
    ("api:plan", "api/campaigns/<id:campaign_id>/plan/"),
    ("api:stability", "api/campaigns/<id:campaign_id>/stability/"),
    ("api:sequential", "api/campaigns/<id:campaign_id>/sequential/"),
    ("api:racing", "api/campaigns/<id:campaign_id>/sequential/racing/"),
    ("api:metric-runs", "api/campaigns/<id:campaign_id>/metric-runs/"),
    ("api:metric-run", "api/metric-runs/<id:run_id>/"),
    ("api:metric-run-cancel", "api/metric-runs/<id:run_id>/cancel/"),
    ("api:metric-report", "api/campaigns/<id:campaign_id>/metric-report/"),
    ("api:metric-scores", "api/campaigns/<id:campaign_id>/metric-scores/"),
    ("api:rate-campaigns", "api/rate/campaigns/"),
    ("api:rate-current", "api/rate/campaigns/<id:campaign_id>/current/"),
    ("api:rate-next", "api/rate/campaigns/<id:campaign_id>/next/"),
    ("api:rate-submit", "api/rate/assignments/<id:assignment_id>/rating/"),
    ("api:rate-flag", "api/rate/assignments/<id:assignment_id>/flag/"),
    ("api:rate-correct", "api/rate/assignments/<id:assignment_id>/correction/"),
    ("api:unknown", "api/"),
]


def _named_routes():
    """{name: route} of the project's URL tree, namespaces joined with ':' as ``reverse`` takes them."""
    found = {}

    def walk(patterns, prefix, namespace):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                inner = namespace
                if pattern.namespace:
                    inner = f"{namespace}:{pattern.namespace}" if namespace else pattern.namespace
                walk(pattern.url_patterns, prefix + str(pattern.pattern), inner)
            elif pattern.name:
                found.setdefault(
                    f"{namespace}:{pattern.name}" if namespace else pattern.name, prefix + str(pattern.pattern)
                )

    walk(get_resolver().url_patterns, "", None)
    return found


def _sample_path(route):
    """The route with every converter filled in (ids 7, strings 'abc'): a path to reverse to and resolve."""
    return "/" + re.sub(r"<(?:(\w+):)?(\w+)>", lambda m: "7" if m.group(1) == "id" else "abc", route)


def _sample_kwargs(route):
    return {name: 7 if kind == "id" else "abc" for kind, name in re.findall(r"<(?:(\w+):)?(\w+)>", route)}


def test_every_url_name_keeps_its_route():
    routes = _named_routes()
    moved = {name: (route, routes.get(name)) for name, route in ROUTES if routes.get(name) != route}
    assert not moved, f"URL names whose route changed (before, now): {moved}"


@pytest.mark.parametrize(("name", "route"), [row for row in ROUTES if row[0] != "api:unknown"])
def test_every_url_name_reverses_and_resolves_to_the_same_path(name, route):
    path = _sample_path(route)
    assert reverse(name, kwargs=_sample_kwargs(route)) == path
    assert resolve(path).view_name == name


def test_the_api_catch_all_comes_after_every_endpoint():
    assert resolve("/api/no-such-endpoint/").view_name == "api:unknown"
    assert resolve("/api/rate/campaigns/").view_name == "api:rate-campaigns"


def _declares_routes(source):
    """Whether a module imports Django's route builders (``path``, ``re_path``, ``include``)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module == "django.urls":
            if {alias.name for alias in node.names} & {"path", "re_path", "include"}:
                return True
    return False


def test_routes_are_declared_only_in_the_url_modules():
    declaring = {
        str(module.relative_to(REPO))
        for app in APPS
        for module in (REPO / app).rglob("*.py")
        if "migrations" not in module.parts and _declares_routes(module.read_text(encoding="utf-8"))
    }
    assert declaring - URL_MODULES == set(), "routes declared outside the apps' urls.py and api/urls.py"


def test_the_route_check_sees_a_route_declared_in_a_view_module():
    planted = "from django.urls import path\n\nurlpatterns = [path('x/', view)]\n"
    assert _declares_routes(planted)
    assert not _declares_routes("from django.urls import reverse\n")
