"""Every endpoint x every role, with the status code each must get (issue 6, part 2).

Roles: anonymous (no credentials), rater (holds an assignment), rater2 (a second rater,
who tries the first rater's assignment), researcher, organizer, admin (superuser). Every
request authenticates with a token, as an API client would. One row per endpoint; read the
table across to see who may do what.
"""

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from knox.models import AuthToken

from tests.api.world import REFERENCES, ROLES, STATEMENTS

SUBMISSION = b"1,Elephants are large.\n2,The sun rises in the east.\n3,Cats cannot read.\n4,Sand is dry.\n"
LONG_RATINGS = b"instance_id,system,rater,score\n1,SysAlphaQZ,ext-1,2\n"


def upload(name, data):
    return SimpleUploadedFile(name, data, content_type="text/csv")


def none(world):
    return None


def dataset_import(world):
    return {"name": "another", "statements": upload("s.csv", STATEMENTS), "references": upload("r.csv", REFERENCES)}


def submission(world):
    return {"system": "SysGammaQZ", "file": upload("gamma.csv", SUBMISSION)}


def new_campaign(world):
    return {"dataset": world.dataset.pk, "name": "second", "sample": 2, "seed": 1}


def ratings_file(world):
    return {"format": "long", "file": upload("ratings.csv", LONG_RATINGS)}


def metric_run(world):
    return {"metrics": ["comve_bleu"], "bootstrap": 0, "permutations": 1}


def metric_scores(world):
    return {
        "metric": "my_metric",
        "level": "system",
        "file": upload("scores.csv", b"system,score\nSysAlphaQZ,0.7\nSysBetaQZ,0.2\nHuman,0.9\n"),
    }


def crowd_settings(world):
    return {"mturk_enabled": True}


def mturk_batch(world):
    return {
        "platform": "mturk",
        "file": upload(
            "Batch_1_batch_results.csv", b"HITId,AssignmentId,WorkerId,AssignmentStatus\nH1,A1,W1,Submitted\n"
        ),
    }


def lab_raters(world):
    return {"raters": [{"name": "Ann Example", "email": "ann@example.org"}], "sign_in": "password"}


def listed_rater(world):
    """The first rater, listed on the campaign as a lab account: the rater-account endpoints act on it."""
    world.campaign.lab_raters.add(world.rater())
    return {"sign_in": "link"}


def retirement(world):
    return {"reason": "the statement makes sense"}


def score(world):
    return {"score": 2, "seconds": 12.5}


def note(world):
    return {"note": "the statement is cut off"}


@dataclass
class Endpoint:
    method: str
    path: str  # {d} dataset, {c} campaign, {a} the first rater's assignment, {r} the first rater, {m} metric run,
    #            {t} a token of the organizer's, {i} the item of the first rater's assignment
    anonymous: int
    rater: int
    rater2: int
    researcher: int
    organizer: int
    admin: int
    body: Callable = none
    multipart: bool = False

    def url(self, world):
        token = AuthToken.objects.create(user=world.users["organizer"])[0].token_key if "{t}" in self.path else ""
        return self.path.format(
            d=world.dataset.pk,
            c=world.campaign.pk,
            a=world.assignment.pk,
            r=world.rater().pk,
            m=world.metric_run.pk,
            t=token,
            i=world.assignment.item_id,
        )


C = "/api/campaigns/{c}/"
ENDPOINTS = [
    #        method  path                                 anon rater r2   res  org  admin
    Endpoint("get", "/api/", 200, 200, 200, 200, 200, 200),
    Endpoint("get", "/api/schema/", 200, 200, 200, 200, 200, 200),
    Endpoint("get", "/api/docs/", 200, 200, 200, 200, 200, 200),
    Endpoint("get", "/api/me/", 401, 200, 200, 200, 200, 200),
    # tokens: everyone lists their own; someone else's token is as good as missing (admins excepted)
    Endpoint("get", "/api/auth/tokens/", 401, 200, 200, 200, 200, 200),
    Endpoint("delete", "/api/auth/tokens/{t}/", 401, 404, 404, 404, 204, 204),
    # data
    Endpoint("get", "/api/datasets/", 401, 403, 403, 200, 200, 200),
    Endpoint("post", "/api/datasets/", 401, 403, 403, 403, 201, 201, dataset_import, True),
    Endpoint("get", "/api/datasets/{d}/", 401, 403, 403, 200, 200, 200),
    Endpoint("get", "/api/datasets/{d}/systems/", 401, 403, 403, 200, 200, 200),
    Endpoint("post", "/api/datasets/{d}/submissions/", 401, 403, 403, 403, 201, 201, submission, True),
    # campaigns and quality
    Endpoint("get", "/api/campaigns/", 401, 403, 403, 200, 200, 200),
    Endpoint("post", "/api/campaigns/", 401, 403, 403, 403, 201, 201, new_campaign),
    Endpoint("get", C, 401, 403, 403, 200, 200, 200),
    Endpoint("get", C + "progress/", 401, 403, 403, 200, 200, 200),
    Endpoint("get", C + "raters/", 401, 403, 403, 403, 200, 200),
    Endpoint("post", C + "raters/{r}/exclusion/", 401, 403, 403, 403, 201, 201),
    Endpoint("get", C + "flags/", 401, 403, 403, 403, 200, 200),
    Endpoint("post", C + "flags/{i}/dismissal/", 401, 403, 403, 403, 200, 200),
    Endpoint("post", C + "flags/{i}/retirement/", 401, 403, 403, 403, 201, 201, retirement),
    Endpoint("get", C + "lab-raters/", 401, 403, 403, 403, 200, 200),
    Endpoint("post", C + "lab-raters/", 401, 403, 403, 403, 201, 201, lab_raters),
    Endpoint("post", C + "lab-raters/{r}/sign-in/", 401, 403, 403, 403, 200, 200, listed_rater),
    Endpoint("post", C + "lab-raters/{r}/deactivation/", 401, 403, 403, 403, 200, 200, listed_rater),
    Endpoint("get", C + "crowd-sessions/", 401, 403, 403, 403, 200, 200),
    Endpoint("get", C + "crowd/", 401, 403, 403, 403, 200, 200),
    Endpoint("patch", C + "crowd/", 401, 403, 403, 403, 200, 200, crowd_settings),
    Endpoint("post", C + "crowd/key/", 401, 403, 403, 403, 200, 200),
    Endpoint("post", C + "crowd-submissions/", 401, 403, 403, 403, 200, 200, mturk_batch, True),
    # results
    Endpoint("get", C + "table6/", 401, 403, 403, 200, 200, 200),
    Endpoint("get", C + "table6/?format=csv", 401, 403, 403, 200, 200, 200),
    Endpoint("get", C + "table6/?format=markdown", 401, 403, 403, 200, 200, 200),
    Endpoint("get", C + "table6/?format=latex", 401, 403, 403, 200, 200, 200),
    Endpoint("get", C + "ratings/", 401, 403, 403, 200, 200, 200),
    Endpoint("get", C + "ratings/?format=json", 401, 403, 403, 200, 200, 200),
    Endpoint("post", C + "ratings/import/", 401, 403, 403, 403, 201, 201, ratings_file, True),
    Endpoint("get", C + "agreement/", 401, 403, 403, 200, 200, 200),
    Endpoint("get", C + "plan/", 401, 403, 403, 200, 200, 200),
    Endpoint("get", C + "stability/", 401, 403, 403, 200, 200, 200),
    Endpoint("get", C + "sequential/", 401, 403, 403, 200, 200, 200),
    Endpoint("post", C + "sequential/racing/", 401, 403, 403, 403, 200, 200),
    # metric study: researchers may also start runs and import their metric (protocol.md#roles)
    Endpoint("get", C + "metric-runs/", 401, 403, 403, 200, 200, 200),
    Endpoint("post", C + "metric-runs/", 401, 403, 403, 202, 202, 202, metric_run),
    Endpoint("get", "/api/metric-runs/{m}/", 401, 403, 403, 200, 200, 200),
    # the world's run {m} has finished: past the permission check, 409 (nothing to cancel)
    Endpoint("post", "/api/metric-runs/{m}/cancel/", 401, 403, 403, 409, 409, 409),
    Endpoint("get", C + "metric-report/", 401, 403, 403, 200, 200, 200),
    Endpoint("get", C + "metric-report/?format=csv", 401, 403, 403, 200, 200, 200),
    Endpoint("get", C + "metric-report/?format=latex", 401, 403, 403, 200, 200, 200),
    Endpoint("get", C + "metric-report/?format=html", 401, 403, 403, 200, 200, 200),
    Endpoint("post", C + "metric-scores/", 401, 403, 403, 201, 201, 201, metric_scores, True),
    # the rater's own work; rater2 tries the first rater's assignment {a}
    Endpoint("get", "/api/rate/campaigns/", 401, 200, 200, 403, 403, 403),
    Endpoint("get", "/api/rate/campaigns/{c}/current/", 401, 200, 404, 403, 403, 403),
    Endpoint("post", "/api/rate/campaigns/{c}/next/", 401, 200, 200, 403, 403, 403),
    Endpoint("post", "/api/rate/assignments/{a}/rating/", 401, 201, 404, 403, 403, 403, score),
    Endpoint("post", "/api/rate/assignments/{a}/flag/", 401, 201, 404, 403, 403, 403, note),
    # the rater's assignment {a} holds no rating yet: past the permission check, 409 (nothing to correct)
    Endpoint("post", "/api/rate/assignments/{a}/correction/", 401, 409, 404, 403, 403, 403, score),
]

CASES = [
    pytest.param(endpoint, role, id=f"{endpoint.method.upper()} {endpoint.path} as {role}")
    for endpoint in ENDPOINTS
    for role in ROLES
]


def send(world, endpoint, role):
    client = world.client(role)
    body = endpoint.body(world)
    return getattr(client, endpoint.method)(
        endpoint.url(world), body, format="multipart" if endpoint.multipart else "json"
    )


@pytest.mark.parametrize("endpoint, role", CASES)
def test_status_code(world, endpoint, role):
    response = send(world, endpoint, role)
    expected = getattr(endpoint, role)
    assert response.status_code == expected, response.content[:500]


def test_every_api_url_is_in_the_matrix():
    """A new endpoint without a row here fails: the matrix must stay complete."""
    from config.urls import api_urlpatterns

    covered = {endpoint.path.split("?")[0] for endpoint in ENDPOINTS}
    placeholders = {
        "<id:dataset_id>": "{d}",
        "<id:campaign_id>": "{c}",
        "<id:assignment_id>": "{a}",
        "<id:rater_id>": "{r}",
        "<id:run_id>": "{m}",
        "<str:token_id>": "{t}",
        "<id:item_id>": "{i}",
    }
    missing = []
    for pattern in api_urlpatterns:
        route = "/api/" + str(pattern.pattern)
        for converter, placeholder in placeholders.items():
            route = route.replace(converter, placeholder)
        # The token endpoint (password in, token out) has tests of its own in tests/trust/test_tokens.py.
        if route not in covered and pattern.name not in {"token", "unknown"}:
            missing.append(route)
    assert not missing, f"endpoints without a row in the auth matrix: {missing}"
