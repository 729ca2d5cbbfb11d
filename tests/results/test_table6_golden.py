"""Golden-file regression tests: a fixed campaign with fixed ratings, every Table 6 format.

Regenerate after an intended change with ``COMVE_UPDATE_GOLDEN=1`` and review the diff.
"""

import io
import os
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.results.factories import rated_campaign

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("COMVE_UPDATE_GOLDEN") == "1"

# Four instances, three raters. "Tie & Co" and "tied_b" both show 2.25 (shared rank);
# "partial" has a partial submission (no BLEU) and two ratings missing (incomplete).
SCORES = {
    "Tie & Co": [[3, 2, 2], [2, 2, 2], [3, 2, 1], [3, 2, 3]],
    "tied_b": [[2, 2, 3], [3, 3, 2], [2, 2, 2], [2, 2, 2]],
    "nopaper": [[1, 0, 1], [1, 1, 0], [0, 0, 0], [2, 1, 1]],
    "partial": [[3, 3, None], [2, 2, 2], [1, None, 1], [2, 1, 2]],
}
HUMAN = [[3, 3, 3], [3, 2, 3], [2, 3, 3], [3, 3, 3]]
CASES = [
    ("csv", [], "table6.csv"),
    ("json", [], "table6.json"),
    ("markdown", [], "table6.md"),
    ("latex", [], "table6.tex"),
    ("latex", ["--halves"], "table6_halves.tex"),
    ("json", ["--bootstrap", "500", "--seed", "11", "--permutations", "1000"], "table6_bootstrap.json"),
    ("markdown", ["--bootstrap", "500", "--seed", "11", "--permutations", "1000"], "table6_bootstrap.md"),
    (
        "latex",
        ["--latex-intervals", "--bootstrap", "500", "--seed", "11", "--permutations", "1000"],
        "table6_bootstrap_inline.tex",
    ),
    ("csv", ["--bootstrap", "500", "--seed", "11", "--permutations", "1000"], "table6_bootstrap.csv"),
    ("json", ["--bootstrap", "500", "--clusters", "wmt"], "table6_wmt.json"),
]


@pytest.fixture
def golden_campaign(db):
    campaign, _ = rated_campaign(
        SCORES,
        name="golden",
        human=HUMAN,
        markers={"nopaper": "*", "tied_b": "+"},
        bleu={"Tie & Co": 21.05, "tied_b": 21.04, "nopaper": 3.5},
        partial={"partial"},
    )
    return campaign


@pytest.mark.parametrize("fmt, extra, filename", CASES)
def test_export_matches_golden_file(golden_campaign, fmt, extra, filename):
    out = io.StringIO()
    call_command("export_table6", "--campaign", "golden", "--format", fmt, *extra, stdout=out)
    path = GOLDEN / filename
    if UPDATE:
        path.write_text(out.getvalue(), encoding="utf-8")
    assert out.getvalue() == path.read_text(encoding="utf-8")


def test_out_option_writes_the_file(golden_campaign, tmp_path):
    target = tmp_path / "t6.md"
    call_command(
        "export_table6", "--campaign", "golden", "--format", "markdown", "--out", str(target), stderr=io.StringIO()
    )
    assert target.read_text(encoding="utf-8") == (GOLDEN / "table6.md").read_text(encoding="utf-8")


def test_latex_intervals_sit_beside_their_scores(golden_campaign):
    out = io.StringIO()
    call_command(
        "export_table6",
        "--campaign",
        "golden",
        "--format",
        "latex",
        "--latex-intervals",
        "--bootstrap",
        "500",
        "--seed",
        "11",
        "--permutations",
        "1000",
        stdout=out,
    )
    human = next(line for line in out.getvalue().splitlines() if line.startswith("Human &"))
    assert human == "Human & - & - & 2.83 {\\small [2.53, 3.00]} & - & - & 0.93 & 2.83 {\\small [2.43, 3.24]} \\\\"


def test_latex_intervals_refused_for_other_formats(golden_campaign):
    with pytest.raises(CommandError, match="latex"):
        call_command(
            "export_table6", "--campaign", "golden", "--format", "csv", "--latex-intervals", stdout=io.StringIO()
        )
