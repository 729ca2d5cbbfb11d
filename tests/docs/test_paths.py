"""Every repository path the README or a page of the manual names must exist.

A path is named in backticks (`core/engine.py`, `docs/deploy.md`) or as a link target
(`[deploy](docs/deploy.md)`). It counts as a repository path when its first part is a
top-level entry of the repository; placeholders (``<id>``, ``{name}``, ``*``) are not checked.
A ``path:name`` or ``path::name`` suffix (a function in a module) is dropped.
"""

import re

import pytest

from tests.conftest import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
TOP_LEVEL = {
    path.name
    for path in REPO.iterdir()
    if not path.name.startswith(".") or path.name in (".importlinter", ".ci", ".gitignore")
} - {"var", "staticfiles", "site", "test-artifacts", ".venv"}
BACKTICKED = re.compile(r"`([^`\s]+)`")
LINK_TARGET = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
PLACEHOLDER = re.compile(r"[<>{}*$]")


def named_paths(page):
    text = page.read_text(encoding="utf-8")
    for match in BACKTICKED.finditer(text):
        yield match.group(1), False
    for match in LINK_TARGET.finditer(text):
        yield match.group(1), True


def repository_path(candidate, page, is_link):
    """The repository path ``candidate`` names, or None when it names none."""
    if "://" in candidate or candidate.startswith(("mailto:", "/")) or PLACEHOLDER.search(candidate):
        return None
    candidate = re.split(r"::?(?=[A-Za-z_])", candidate)[0].rstrip("/.,;")
    if is_link and page.parent != REPO:
        resolved = (page.parent / candidate).resolve()
        return resolved if REPO in resolved.parents else None
    first = candidate.split("/")[0]
    if first not in TOP_LEVEL or (first == candidate and "." not in candidate and not (REPO / first).is_dir()):
        return None
    return REPO / candidate


def test_the_manual_has_pages():
    assert REPO / "docs" / "index.md" in PAGES and len(PAGES) > 5


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(REPO)) for page in PAGES])
def test_every_named_path_exists(page):
    missing = sorted(
        {
            str(path.relative_to(REPO))
            for candidate, is_link in named_paths(page)
            if (path := repository_path(candidate, page, is_link)) is not None and not path.exists()
        }
    )
    assert not missing, f"{page.relative_to(REPO)} names paths that do not exist: {missing}"


def test_a_missing_path_is_caught(tmp_path):
    page = REPO / "README.md"
    assert repository_path("core/no_such_module.py", page, False) == REPO / "core" / "no_such_module.py"
    assert repository_path("docs/no-such-page.md", page, True) == REPO / "docs" / "no-such-page.md"
    assert repository_path("https://example.org/core/x.py", page, False) is None
    assert repository_path("campaigns/<id>/quality/", page, False) is None
