"""Done-criterion of issue 4: ratings whose means are the paper's human scores give the paper's ranks."""

import io
import json

import pytest
from django.core.management import call_command

from tests.results.factories import rated_campaign
from tests.results.paper import HUMAN_SCORE, TABLE6, ratings_with_mean

N_INSTANCES, RATERS = 100, 3


@pytest.fixture
def paper_campaign(db):
    scores = {team: ratings_with_mean(human, N_INSTANCES, RATERS) for team, _, _, _, human, _ in TABLE6}
    campaign, _ = rated_campaign(
        scores,
        name="semeval2020",
        markers={t: m for t, m, *_ in TABLE6},
        bleu={t: bleu for t, _, bleu, *_ in TABLE6},
        human=ratings_with_mean(HUMAN_SCORE, N_INSTANCES, RATERS),
    )
    return campaign


def export(campaign, fmt, *extra):
    out = io.StringIO()
    call_command("export_table6", "--campaign", campaign.name, "--format", fmt, *extra, stdout=out)
    return out.getvalue()


def test_human_rank_column_is_the_papers(paper_campaign):
    table = json.loads(export(paper_campaign, "json"))
    rows = {row["team"]: row for row in table["rows"]}
    assert table["rows"][0]["team"] == "Human" and table["rows"][0]["human_rank"] is None
    assert table["rows"][0]["human"] == pytest.approx(HUMAN_SCORE)
    for team, marker, _bleu, bleu_rank, human, human_rank in TABLE6:
        assert rows[team]["human_rank"] == human_rank, team
        assert rows[team]["bleu_rank"] == bleu_rank, team
        assert rows[team]["marker"] == marker
        assert rows[team]["human"] == pytest.approx(human)
        assert rows[team]["complete"] and rows[team]["ratings"] == rows[team]["expected_ratings"] == 300


def test_markdown_shows_the_papers_rows_in_bleu_order(paper_campaign):
    lines = [line for line in export(paper_campaign, "markdown").splitlines() if line.startswith("| ")][1:]
    headline = ["| " + " | ".join(line.split(" | ")[:5]).removeprefix("| ") + " |" for line in lines]
    assert headline[0] == "| Human | - | - | 2.58 | - |"
    expected = [
        f"| {team}{marker.replace('*', chr(92) + '*')} | {bleu:.1f} | {bleu_rank} | {human:.2f} | {human_rank} |"
        for team, marker, bleu, bleu_rank, human, human_rank in TABLE6
    ]
    assert headline[1:] == expected


def test_latex_halves_split_like_the_paper(paper_campaign):
    body = [line for line in export(paper_campaign, "latex", "--halves").splitlines() if line.endswith("\\\\")][1:]
    width = 7  # Team, BLEU, Rank, Human, Rank, then the secondary z and Adj.
    cells = [
        [cell.strip() for cell in line.removesuffix("\\\\").split("&")]
        for line in body
        if not line.startswith("\\multicolumn")
    ]
    assert cells[0][:5] == ["Human", "-", "-", "2.58", "-"] and cells[0][width:] == [""] * width
    assert cells[1][:5] + cells[1][width : width + 5] == [
        "BUT-FIT",
        "22.4",
        "1",
        "1.84",
        "4",
        "CN-HIT-IT.NLP+",
        "9.7",
        "10",
        "1.74",
        "10",
    ]
    assert cells[9][:5] == ["LMVE+", "12.9", "9", "1.78", "7"]
    assert len(cells) == 10
