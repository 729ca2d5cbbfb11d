"""The code cites the manual's protocol page, never a document a reader of the repository cannot open.

Why: a citation is only useful when it can be followed. The rules the product keeps are stated in
``docs/reference/protocol.md``, and a product file points to them by anchor (``protocol.md#invariants``).
Section numbers of a specification kept beside the checkout (``S1`` ... ``S12``), that specification
itself (``SPEC.md``) and the task paper's text under ``../shared/`` are outside the repository, so no
product file may cite them; the real data under ``../shared/comve`` is not a document and may be named
(the tests that need it skip without it). Every cited anchor must exist on the page, so a renamed
section cannot leave a citation pointing nowhere.
"""

import re
from pathlib import Path

import pytest
from markdown.extensions.toc import slugify

from tests.conftest import REPO

PROTOCOL = REPO / "docs" / "reference" / "protocol.md"
# Product files: the code, its templates and static files, scripts, benchmarks, tests and the manual.
PRODUCT_DIRS = ("config", "core", "annotators", "evalapp", "templates", "static", "scripts", "bench", "tests", "docs")
PRODUCT_TOP_FILES = ("README.md", "manage.py", "gunicorn.conf.py", "pyproject.toml", "mkdocs.yml", ".importlinter")
TEXT_SUFFIXES = {".py", ".html", ".js", ".css", ".sh", ".md", ".txt", ".yml", ".yaml", ".toml", ".ini", ".cfg"}
# Inputs of the bad-input tests are data (deliberately malformed files), not text anyone reads as prose.
NOT_PROSE = (REPO / "tests" / "badinput" / "files",)
SKIPPED_PARTS = {"__pycache__", "node_modules"}

SPEC_SECTION = re.compile(r"\bS(?:1[0-2]|[1-9])\b")
OUTSIDE_DOCUMENT = re.compile(
    r"SPEC\.md|shared/papers|semeval2020-task4-comve\.txt|(?:\.\./|/work/)shared/(?!comve(?:/|\b))"
)
CITED_ANCHOR = re.compile(r"protocol\.md#([A-Za-z0-9_-]+)")
EXPLICIT_ID = re.compile(r"\{#([A-Za-z0-9_-]+)\}|\bid=\"([A-Za-z0-9_-]+)\"")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")


def product_files():
    """Every text file of the product, as paths."""
    found = [REPO / name for name in PRODUCT_TOP_FILES if (REPO / name).is_file()]
    for directory in PRODUCT_DIRS:
        for path in sorted((REPO / directory).rglob("*")):
            if (
                path.is_file()
                and path.suffix in TEXT_SUFFIXES
                and not SKIPPED_PARTS.intersection(path.parts)
                and not any(root in path.parents for root in NOT_PROSE)
            ):
                found.append(path)
    return found


def outside_citations(text):
    """``(line number, line)`` of every line that cites a spec section or a document outside the repository."""
    return [
        (number, line.strip())
        for number, line in enumerate(text.splitlines(), 1)
        if SPEC_SECTION.search(line) or OUTSIDE_DOCUMENT.search(line)
    ]


def page_anchors(text):
    """The anchors of a Markdown page: explicit ``{#id}`` and ``id="..."``, and heading slugs (toc's)."""
    anchors = {first or second for first, second in EXPLICIT_ID.findall(text)}
    in_code = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        heading = HEADING.match(line)
        if heading and not in_code and "{#" not in line:
            anchors.add(slugify(heading.group(2), "-"))
    return anchors


def cited_anchors(files, root=REPO):
    """``{anchor: [where it is cited]}`` over ``files`` (places relative to ``root``)."""
    cited = {}
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for anchor in CITED_ANCHOR.findall(line):
                cited.setdefault(anchor, []).append(f"{path.relative_to(root)}:{number}")
    return cited


FILES = product_files()
SELF = Path(__file__).resolve()


def test_the_scan_covers_the_product():
    names = {str(path.relative_to(REPO)) for path in FILES}
    for expected in ("core/engine.py", "static/js/rate.js", "templates/base.html", "docs/architecture.md", "README.md"):
        assert expected in names
    assert not any(name.startswith("tests/badinput/files/") for name in names)


def test_no_product_file_cites_a_document_outside_the_repository():
    offending = []
    for path in FILES:
        if path.resolve() == SELF:  # this file names the patterns it forbids
            continue
        for number, line in outside_citations(path.read_text(encoding="utf-8", errors="replace")):
            offending.append(f"{path.relative_to(REPO)}:{number}: {line[:120]}")
    assert not offending, (
        "cite the protocol page (docs/reference/protocol.md#anchor) instead of a spec section or an outside "
        "document:\n" + "\n".join(offending)
    )


def test_every_cited_anchor_exists_on_the_protocol_page():
    anchors = page_anchors(PROTOCOL.read_text(encoding="utf-8"))
    cited = cited_anchors(path for path in FILES if path.resolve() != SELF)
    assert len(cited) >= 10, "the code cites the protocol page by anchor"
    missing = {anchor: places for anchor, places in cited.items() if anchor not in anchors}
    assert not missing, f"protocol.md has no such anchor: {missing}"


@pytest.mark.parametrize(
    "line",
    [
        "# Quality-control thresholds (S8): raters below them are flagged.",
        '"""The engine (S7 invariants)."""',
        "see spec S10 for the metrics",
        "The product is specified in ../shared/SPEC.md.",
        "as the paper says (/work/shared/papers/semeval2020-task4-comve.txt)",
    ],
)
def test_a_planted_citation_is_caught(line):
    assert outside_citations(f"x = 1\n{line}\n") == [(2, line.strip())]


@pytest.mark.parametrize(
    "line",
    [
        "# Quality-control thresholds (protocol.md#rater-quality).",
        "the real files in ../shared/comve (skipped without them)",
        "S13 is not a section; nor is S0 or SS7 or S7x",
        "ratings in ../shared/comve/ratings",
    ],
)
def test_what_may_be_named_is_not_caught(line):
    assert outside_citations(line) == []


def test_a_missing_anchor_is_caught(tmp_path):
    page = "# The protocol\n\n## The rubric {#rubric}\n\n## Table 6\n\n```text\n## not a heading\n```\n"
    anchors = page_anchors(page)
    assert anchors == {"rubric", "the-protocol", "table-6"}
    cited_file = tmp_path / "cites.py"
    cited_file.write_text("# (protocol.md#rubric) and (protocol.md#no-such-section)\n")
    cited = cited_anchors([cited_file], root=tmp_path)
    assert cited == {"rubric": ["cites.py:1"], "no-such-section": ["cites.py:1"]}
    assert set(cited) - anchors == {"no-such-section"}
