"""The architecture page lists every module of the product, each with what it is for, and tells no history.

Why: a newcomer finds where a thing goes from ``docs/architecture.md``; a module it does not list is
one they cannot find, and a listed module that no longer exists sends them the wrong way. A module is
every ``.py`` file under ``config/``, ``core/``, ``annotators/`` and ``evalapp/`` except migrations
and ``__init__.py`` files without code (nothing but a docstring). The page lists one as a table row
whose first cell is its path in backticks and whose second says what it is for. The page describes the
code as it is: words that tell its history ("formerly", "used to", "since issue 18") belong in the
commit log.
"""

import ast
import re

import pytest

from tests.conftest import REPO

PAGE = REPO / "docs" / "architecture.md"
PACKAGES = ("config", "core", "annotators", "evalapp")
MODULE_PATH = r"(?:config|core|annotators|evalapp)/[\w/]+\.py"
LISTED_ROW = re.compile(rf"^\|\s*`({MODULE_PATH})`\s*\|\s*(.*?)\s*\|\s*$", re.MULTILINE)
NAMED = re.compile(rf"`({MODULE_PATH})`")
HISTORY = re.compile(
    r"\b(?:formerly|previously|used to|no longer|was|were|last round|since issue|before issue|issue \d+"
    r"|renamed|moved (?:from|to)|the old|the former)\b",
    re.IGNORECASE,
)


def has_code(path):
    """Whether a file holds anything but a docstring."""
    body = ast.parse(path.read_text(encoding="utf-8")).body
    return any(
        not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))
        for node in body
    )


def product_modules(root=REPO):
    """Repository paths of every module the page must list."""
    found = set()
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            relative = path.relative_to(root)
            if "migrations" in relative.parts or "__pycache__" in relative.parts:
                continue
            if path.name == "__init__.py" and not has_code(path):
                continue
            found.add(relative.as_posix())
    return found


def listed_modules(text):
    """``{path: what it is for}`` of the page's module rows."""
    return dict(LISTED_ROW.findall(text))


def history_notes(text):
    """``(line number, line)`` of every line that tells history."""
    return [(number, line) for number, line in enumerate(text.splitlines(), 1) if HISTORY.search(line)]


TEXT = PAGE.read_text(encoding="utf-8")


def test_the_page_lists_every_module():
    missing = sorted(product_modules() - set(listed_modules(TEXT)))
    assert not missing, f"docs/architecture.md does not list these modules (add a row each): {missing}"


def test_every_module_the_page_names_exists():
    named = set(NAMED.findall(TEXT)) | set(listed_modules(TEXT))
    gone = sorted(path for path in named if not (REPO / path).is_file())
    assert not gone, f"docs/architecture.md names modules that do not exist: {gone}"


def test_every_listed_module_says_what_it_is_for():
    listed = listed_modules(TEXT)
    assert len(listed) > 100
    assert not [path for path, what in listed.items() if len(what.split()) < 3]


def test_each_module_is_listed_once():
    rows = [path for path, _ in LISTED_ROW.findall(TEXT)]
    assert len(rows) == len(set(rows))


def test_the_page_tells_no_history():
    assert not history_notes(TEXT), history_notes(TEXT)


def test_a_missing_or_stale_module_is_caught(tmp_path):
    (tmp_path / "core" / "api").mkdir(parents=True)
    (tmp_path / "core" / "migrations").mkdir()
    (tmp_path / "core" / "__init__.py").write_text('"""Only a docstring."""\n')
    (tmp_path / "core" / "api" / "__init__.py").write_text("from core.api.base import ApiView\n")
    (tmp_path / "core" / "engine.py").write_text("x = 1\n")
    (tmp_path / "core" / "migrations" / "0001_initial.py").write_text("x = 1\n")
    for package in ("config", "annotators", "evalapp"):
        (tmp_path / package).mkdir()
    assert product_modules(tmp_path) == {"core/engine.py", "core/api/__init__.py"}
    page = (
        "| module | what |\n|---|---|\n"
        "| `core/engine.py` | the assignment engine itself |\n"
        "| `core/gone.py` | a module that is not there |\n"
    )
    assert product_modules(tmp_path) - set(listed_modules(page)) == {"core/api/__init__.py"}
    assert set(listed_modules(page)) - product_modules(tmp_path) == {"core/gone.py"}


@pytest.mark.parametrize(
    "line",
    [
        "| `core/rating_sql.py` | SQL, formerly annotators/statements.py |",
        "the old bootstrap signal",
        "Since issue 18 the doors are one module.",
        "what this product used to do",
        "it was moved to core",
    ],
)
def test_a_history_note_is_caught(line):
    assert history_notes(line) == [(1, line)]
