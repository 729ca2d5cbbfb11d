"""Malformed and hostile requests, as a table: who sends what where, and what must come back.

``channel`` is ``"web"`` for the browser screens; API endpoints get ``"api"`` rows in the same
table (same world, same "nothing written" check). ``path`` may use ``{campaign}`` (the open
campaign), ``{closed}`` (a closed one), ``{dataset}``, ``{own}`` (the rater's live assignment)
and ``{others}`` (another rater's live assignment); so may the values of ``data``.
``says`` is a fragment of the response, or of the page it redirects to.
"""

from dataclasses import dataclass, field

ITEM = "/rate/{campaign}/item/"
FLAG = "/rate/{campaign}/flag/"
UPLOAD = "/data/{dataset}/upload/"
CHOOSE_SCORE = "Choose a score from 0 to 3"
TOKEN_EXPIRED = "security token had expired"
# A forged id that no row has.
NO_SUCH_ID = 987654321
# Django's cap on form fields per request (DATA_UPLOAD_MAX_NUMBER_FIELDS).
MAX_FIELDS = 1000
# Upload limit lowered for the oversized-upload case, so the test file stays small.
SMALL_UPLOAD_LIMIT = 64 * 1024


@dataclass(frozen=True)
class BadRequest:
    name: str
    who: str  # "rater", "organizer" or "anonymous"
    method: str
    path: str
    data: dict = field(default_factory=dict)
    status: int = 302
    says: str | None = None
    csrf: str = "valid"  # "valid", "missing", "wrong" or "foreign-origin"
    upload: str | None = None  # a file of tests/badinput/files sent as the form's "file"
    upload_bytes: int = 0  # or a generated file of this size
    settings: dict = field(default_factory=dict)
    channel: str = "web"


def score(value):
    return {"assignment": "{own}", "score": value, "seconds": "4"}


BAD_REQUESTS = [
    # scores the rubric does not have: refused with a message, the item stays the rater's
    BadRequest("score 4", "rater", "POST", ITEM, score("4"), says=CHOOSE_SCORE),
    BadRequest("score -1", "rater", "POST", ITEM, score("-1"), says=CHOOSE_SCORE),
    BadRequest("score 2.5", "rater", "POST", ITEM, score("2.5"), says=CHOOSE_SCORE),
    BadRequest("score 'three'", "rater", "POST", ITEM, score("three"), says=CHOOSE_SCORE),
    BadRequest("score empty", "rater", "POST", ITEM, score(""), says=CHOOSE_SCORE),
    BadRequest("score 10^23", "rater", "POST", ITEM, score("1" * 24), says=CHOOSE_SCORE),
    BadRequest("score missing", "rater", "POST", ITEM, {"assignment": "{own}"}, says=CHOOSE_SCORE),
    # assignments that are not the rater's: 404, which says nothing about whether they exist
    BadRequest("someone else's assignment", "rater", "POST", ITEM, {"assignment": "{others}", "score": "3"}, 404),
    BadRequest("forged assignment id", "rater", "POST", ITEM, {"assignment": NO_SUCH_ID, "score": "3"}, 404),
    BadRequest("assignment id not a number", "rater", "POST", ITEM, {"assignment": "1 OR 1=1", "score": "3"}, 404),
    BadRequest("assignment id missing", "rater", "POST", ITEM, {"score": "3"}, 404),
    BadRequest("flag someone else's assignment", "rater", "POST", FLAG, {"assignment": "{others}", "note": "x"}, 404),
    # campaigns that are not open to the rater
    BadRequest("forged campaign id", "rater", "POST", f"/rate/{NO_SUCH_ID}/item/", score("2"), 404),
    BadRequest("closed campaign", "rater", "POST", "/rate/{closed}/item/", score("2"), 404),
    BadRequest("start a forged campaign", "rater", "POST", f"/rate/{NO_SUCH_ID}/next/", {}, 404),
    # CSRF: a stale or missing token keeps the choice and says so; another origin is refused
    BadRequest("CSRF token missing", "rater", "POST", ITEM, score("2"), says=TOKEN_EXPIRED, csrf="missing"),
    BadRequest("CSRF token wrong", "rater", "POST", ITEM, score("2"), says=TOKEN_EXPIRED, csrf="wrong"),
    BadRequest("POST from another origin", "rater", "POST", ITEM, score("2"), 403, csrf="foreign-origin"),
    # oversized and overfull bodies
    BadRequest(
        "body over DATA_UPLOAD_MAX_MEMORY_SIZE",
        "rater",
        "POST",
        ITEM,
        {**score("2"), "pad": "x" * 4096},
        400,
        settings={"DATA_UPLOAD_MAX_MEMORY_SIZE": 1024},
    ),
    BadRequest(
        "more than 1000 form fields",
        "rater",
        "POST",
        ITEM,
        {**score("2"), **{f"f{n}": "1" for n in range(MAX_FIELDS)}},
        400,
    ),
    # methods and roles
    BadRequest("score in a GET query", "rater", "GET", ITEM + "?assignment={own}&score=3", status=200),
    BadRequest("PUT on the item", "rater", "PUT", ITEM, score("2"), 405),
    BadRequest("session expired (anonymous POST)", "anonymous", "POST", ITEM, score("2"), 302),
    BadRequest("organizer posts a score", "organizer", "POST", ITEM, score("2"), 403),
    # the organizer's upload form
    BadRequest(
        "upload to a forged dataset",
        "organizer",
        "POST",
        f"/data/{NO_SUCH_ID}/upload/",
        {"system": "gamma"},
        404,
        upload="submission_repeated_id.csv",
    ),
    BadRequest(
        "upload a malformed submission",
        "organizer",
        "POST",
        UPLOAD,
        {"system": "gamma"},
        400,
        "id &#x27;3&#x27; repeated (first on line 3)",
        upload="submission_repeated_id.csv",
    ),
    BadRequest(
        "upload a binary file",
        "organizer",
        "POST",
        UPLOAD,
        {"system": "gamma"},
        400,
        "file looks binary",
        upload="submission_zip.zip",
    ),
    BadRequest(
        "upload with a NUL byte in the system name",
        "organizer",
        "POST",
        UPLOAD,
        {"system": "gam\x00ma"},
        400,
        "The field 'system' contains a NUL byte",
        upload="submission_repeated_id.csv",
    ),
    BadRequest(
        "upload over the size limit",
        "organizer",
        "POST",
        UPLOAD,
        {"system": "gamma"},
        400,
        "the limit is",
        upload_bytes=SMALL_UPLOAD_LIMIT + 1,
        settings={"COMVE_MAX_UPLOAD_BYTES": SMALL_UPLOAD_LIMIT},
    ),
    BadRequest(
        "upload without CSRF token",
        "organizer",
        "POST",
        UPLOAD,
        {"system": "gamma"},
        403,
        upload="submission_repeated_id.csv",
        csrf="missing",
    ),
    BadRequest(
        "rater uploads a submission",
        "rater",
        "POST",
        UPLOAD,
        {"system": "gamma"},
        403,
        upload="submission_repeated_id.csv",
    ),
]
