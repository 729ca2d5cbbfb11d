"""Issue 12, deliverable 6: hostile values in every HTML form and every API operation give no 5xx,
and a refused request changes no table.

The forms are found by reading the pages each role sees (every ``<form method="post">`` with its
fields, hidden ones included); the API operations by reading the OpenAPI schema (every path,
method, query parameter and body property). Each field then gets each value of the corpus: NUL
bytes, a lone surrogate, invalid UTF-8, a 10 MB string, ids of 2^63 and 2^64, nested JSON, and
(JSON bodies) values of the wrong type. Runs on PostgreSQL (the database that refused NUL bytes
with a server error) with DEBUG off, and on SQLite.
"""

import hashlib
import json
from html.parser import HTMLParser
from urllib.parse import quote_plus, urlencode

import pytest
from django.apps import apps
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from knox.models import AuthToken
from rest_framework.test import APIClient

from tests.api.world import build_world
from tests.crowd.conftest import mturk_params

pytestmark = [pytest.mark.django_db(transaction=False), pytest.mark.postgres]

TEN_MB = 10 * 1024 * 1024
# Form values as bytes, sent as they are (a browser or a script can send any bytes).
FORM_VALUES = {
    "NUL": b"a\x00b",
    "lone surrogate (CESU-8)": b"\xed\xa0\x80",
    "invalid UTF-8": b"\xff\xfe\xfd",
    "2^63": str(2**63).encode(),
    "2^64": str(2**64).encode(),
    "negative": b"-1",
    "nested JSON": b"[" * 5000,
    "markup": b"<script>alert(1)</script>",
    "formula": b'=HYPERLINK("http://x")',
}
BIG_FORM_VALUE = b"x" * TEN_MB
JSON_VALUES = {
    "NUL": "a\u0000b",
    "2^64": 2**64,
    "-2^63-1": -(2**63) - 1,
    "float": 1e308,
    "nested list": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],
    "object": {"$gt": ""},
    "boolean": True,
    "null": None,
    "huge string": "x" * (TEN_MB // 16),
    "markup": "<script>alert(1)</script>",
}
PATH_IDS = [str(2**63), str(2**64), "0", "-1", "1e3"]
# Tables a refused request may still touch: its session, the login-failure log, the cache.
BOOKKEEPING = {"sessions.session", "axes.accessattempt", "axes.accesslog", "axes.accessfailurelog"}


def snapshot():
    """A digest of every row of every model's table (small world: cheap enough per request)."""
    digest = {}
    for model in apps.get_models():
        if model._meta.label_lower in BOOKKEEPING or not model._meta.managed:
            continue
        rows = model.objects.order_by("pk").values_list()
        digest[model._meta.label_lower] = hashlib.sha256(repr(list(rows)).encode()).hexdigest()
    return digest


def check(response, what, before):
    assert response.status_code < 500, f"{what}: {response.status_code} {response.content[:300]!r}"
    if response.status_code >= 400:
        after = snapshot()
        changed = [table for table in before if before[table] != after.get(table)]
        assert not changed, f"{what}: refused ({response.status_code}) but changed {changed}"


class Forms(HTMLParser):
    """Every POST form of a page: its action and its fields (name -> value), files apart."""

    def __init__(self):
        super().__init__()
        self.forms, self._form = [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and (attrs.get("method") or "").lower() == "post":
            self._form = {"action": attrs.get("action") or "", "fields": {}, "files": []}
            self.forms.append(self._form)
        elif self._form is not None and tag in ("input", "select", "textarea", "button") and attrs.get("name"):
            if attrs.get("type") == "file":
                self._form["files"].append(attrs["name"])
            else:
                self._form["fields"].setdefault(attrs["name"], attrs.get("value") or "")

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None


def forms_on(client, path):
    response = client.get(path)
    assert response.status_code == 200, path
    parser = Forms()
    parser.feed(response.content.decode())
    return [(form["action"] or path, form) for form in parser.forms]


def post_form(client, action, fields, files):
    pairs = [
        (name.encode(), value if isinstance(value, bytes) else str(value).encode()) for name, value in fields.items()
    ]
    if files:
        boundary = "fuzzboundary"
        parts = [
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name.decode()}"\r\n\r\n'.encode() + value + b"\r\n"
            for name, value in pairs
        ]
        parts += [
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="f.csv"\r\n'
            f"Content-Type: text/csv\r\n\r\n".encode()
            + b"1,\x00\xff"
            + b"\r\n"
            for name in files
        ]
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        return client.generic("POST", action, body, content_type=f"multipart/form-data; boundary={boundary}")
    body = "&".join(f"{quote_plus(name)}={quote_plus(value)}" for name, value in pairs)
    return client.generic("POST", action, body, content_type="application/x-www-form-urlencoded")


@pytest.fixture
def world(db):
    return build_world()


def web_client(user=None):
    client = Client(raise_request_exception=False)
    if user is not None:
        client.force_login(user)
    return client


def pages(world):
    c, d, r = world.campaign.pk, world.dataset.pk, world.rater().pk
    organizer = [
        "/",
        "/data/import/",
        f"/data/{d}/upload/",
        "/campaigns/new/",
        f"/campaigns/new/?dataset={d}",
        f"/campaigns/{c}/",
        f"/campaigns/{c}/crowd/",
        f"/campaigns/{c}/quality/",
        f"/campaigns/{c}/exclude/{r}/",
        f"/results/{c}/",
        f"/metrics/campaign/{c}/",
    ]
    rater = ["/rate/", f"/rate/{c}/", f"/rate/{c}/item/"]
    return [("organizer", organizer), ("rater", rater)]


def test_every_html_form_with_hostile_values(world):
    world.campaign.mturk_enabled = True
    world.campaign.save()
    tried = 0
    anonymous = [("/accounts/login/", form) for _, form in forms_on(web_client(), "/accounts/login/")]
    entry = f"/rate/mturk/{world.campaign.pk}/{world.campaign.crowd_key}/?{urlencode(mturk_params())}"
    anonymous += forms_on(web_client(), entry)
    targets = [(None, action, form) for action, form in anonymous]
    for role, paths in pages(world):
        client = web_client(world.users[role])
        targets += [(role, action, form) for path in paths for action, form in forms_on(client, path)]
    assert len(targets) >= 15, "the pages lost their forms"
    for role, action, form in targets:
        names = [name for name in form["fields"] if name != "csrfmiddlewaretoken"]
        for label, value in [*FORM_VALUES.items(), ("10 MB", BIG_FORM_VALUE)]:
            client = web_client(world.users.get(role))
            fields = dict(form["fields"], **dict.fromkeys(names, value))
            before = snapshot()
            check(post_form(client, action, fields, form["files"]), f"{role} {action} fields={names} {label}", before)
            tried += 1
    assert tried >= 150


def operations():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            body = operation.get("requestBody", {}).get("content", {})
            media = next(iter(body), None)
            properties = list(_properties(schema, body[media]["schema"])) if media else []
            query = [p["name"] for p in operation.get("parameters", []) if p["in"] == "query"]
            yield path, method, media, properties, query


def _properties(schema, node):
    if "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node.get("properties", {}).keys()


def api_client(world, path):
    client = APIClient(raise_request_exception=False)
    if path == "/api/auth/token/":
        return client
    role = "rater" if path.startswith("/api/rate/") else "organizer"
    client.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user=world.users[role])[1]}")
    return client


def real_path(world, path):
    return path.format(
        campaign_id=world.campaign.pk,
        dataset_id=world.dataset.pk,
        rater_id=world.rater().pk,
        run_id=world.metric_run.pk,
        assignment_id=world.assignment.pk,
        token_id="abcdefgh",
        item_id=world.assignment.item_id,
    )


def test_every_api_operation_with_hostile_values(world):
    tried = 0
    for path, method, media, properties, query in operations():
        client = api_client(world, path)
        for label, value in JSON_VALUES.items():
            url = real_path(world, path)
            if query:
                url += "?" + urlencode({name: json.dumps(value)[:1000] for name in query})
            before = snapshot()
            if media == "application/json":
                response = client.generic(
                    method.upper(),
                    url,
                    json.dumps(dict.fromkeys(properties, value)),
                    content_type="application/json",
                )
            elif media:
                text = value if isinstance(value, str) else json.dumps(value)
                response = client.generic(
                    method.upper(),
                    url,
                    post_body(properties, text.encode("utf-8", "replace")),
                    content_type="multipart/form-data; boundary=fuzzboundary",
                )
            else:
                response = getattr(client, method)(url)
            check(response, f"{method.upper()} {path} {label}", before)
            tried += 1
        for hostile_id in PATH_IDS:
            if "{" not in path:
                continue
            url = path.replace("{", "").replace("}", "")
            for name in ("campaign_id", "dataset_id", "rater_id", "run_id", "assignment_id", "token_id", "item_id"):
                url = url.replace(name, hostile_id)
            before = snapshot()
            response = client.generic(method.upper(), url, "{}", content_type="application/json")
            assert response.status_code in (400, 401, 403, 404, 405), f"{method} {url}: {response.status_code}"
            check(response, f"{method.upper()} {url}", before)
            tried += 1
    assert tried >= 300


def post_body(names, value):
    boundary = "fuzzboundary"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode() + value + b"\r\n"
        for name in names
        if name != "file"
    ]
    if "file" in names:
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="x.csv"\r\n'
            f"Content-Type: text/csv\r\n\r\n".encode()
            + value
            + b"\r\n"
        )
    return b"".join(parts) + f"--{boundary}--\r\n".encode()


# Issue 18, failure 5: the probe's hostile requests, each a 5xx before the fix (commit a7b981f).
NESTED_ESCAPED = ("\\u005b" * 50_000).encode()  # "[" x 50,000 once unicode_escape decodes it
HOSTILE_CHARSETS = {
    "unicode_escape": NESTED_ESCAPED,
    "utf-16-le": ("[" * 50_000).encode("utf-16-le"),
    "rot13": b'{"score": 2}',
    "base64": b"eyJzY29yZSI6IDJ9",
    "no-such-charset": b'{"score": 2}',
}


def hostile_targets(world):
    return [
        "/api/auth/token/",
        f"/api/rate/assignments/{world.assignment.pk}/rating/",
        f"/api/rate/assignments/{world.assignment.pk}/flag/",
        f"/api/rate/campaigns/{world.campaign.pk}/next/",
    ]


@pytest.mark.parametrize("charset", HOSTILE_CHARSETS)
def test_unsafe_json_charsets_are_refused_before_parsing(world, charset):
    rater = world.users["rater"]
    for url in hostile_targets(world):
        client = APIClient(raise_request_exception=False)
        client.force_login(rater)
        before = snapshot()
        response = client.generic(
            "POST", url, HOSTILE_CHARSETS[charset], content_type=f"application/json; charset={charset}"
        )
        check(response, f"{url} charset={charset}", before)
        assert response.status_code in (400, 415), (url, charset, response.status_code)


@pytest.mark.parametrize("charset", ["rot13", "base64", "unicode_escape", "no-such-charset"])
def test_unsafe_form_charsets_are_refused_on_every_post(world, charset):
    """The hygiene middleware read request.POST: multipart (or urlencoded) with charset=rot13 was a 500 on any POST."""
    body = b'--b\r\nContent-Disposition: form-data; name="note"\r\n\r\nx\r\n--b--\r\n'
    targets = [
        ("/accounts/login/", None),
        (f"/rate/{world.campaign.pk}/next/", "rater"),
        (f"/campaigns/{world.campaign.pk}/crowd/", "organizer"),
        ("/api/auth/token/", None),
    ]
    for url, role in targets:
        for content_type, data in (
            (f"multipart/form-data; boundary=b; charset={charset}", body),
            (f"application/x-www-form-urlencoded; charset={charset}", b"note=x"),
        ):
            client = web_client(world.users.get(role))
            before = snapshot()
            response = client.generic("POST", url, data, content_type=content_type)
            check(response, f"{url} {content_type}", before)
            assert response.status_code in (400, 403, 415), (url, content_type, response.status_code)


@pytest.mark.parametrize(
    "header",
    [b"Token \xe9\xe9", b"Token \xff", b"Token a b", b"Token", b"Token \x00", b"Bearer \xe9", "Token ééé".encode()],
)
def test_malformed_authorization_headers_are_a_401(world, header):
    client = APIClient(raise_request_exception=False)
    response = client.get("/api/me/", HTTP_AUTHORIZATION=header.decode("latin-1"))
    assert response.status_code == 401, (header, response.status_code, response.content[:200])


def test_nul_in_a_url_segment_is_a_404_everywhere(world, django_user_model):
    admin = django_user_model.objects.create_superuser("root-fuzz", "root@example.org", "pw-root-fuzz")
    signed_in = APIClient(raise_request_exception=False)
    signed_in.force_login(world.users["rater"])
    superuser = web_client(admin)
    probes = [
        (signed_in, "DELETE", "/api/auth/tokens/%00/"),
        (signed_in, "DELETE", "/api/auth/tokens/a%00b/"),
        (superuser, "GET", "/admin/knox/authtoken/%00/change/"),
        (superuser, "GET", "/admin/auth/user/%00/change/"),
        (superuser, "POST", "/admin/knox/authtoken/%00/delete/"),
        (web_client(), "GET", "/rate/%00/"),
        (signed_in, "GET", f"/api/campaigns/{world.campaign.pk}/%00/"),
    ]
    for client, method, url in probes:
        before = snapshot()
        response = client.generic(method, url)
        check(response, f"{method} {url}", before)
        assert response.status_code == 404, (method, url, response.status_code)
