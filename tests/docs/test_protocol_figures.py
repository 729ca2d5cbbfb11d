"""The figures and defaults the protocol page states are the code's.

Why: ``docs/reference/protocol.md`` is the reference the code cites; a number on it that the code
does not produce (a default changed in ``core/defaults.py``, a rubric reworded, a rounding rule
changed) would make the manual wrong while every other test passes. Each test computes or reads
the figure from the product's code and checks that the page states it.
"""

import re

import numpy as np
import pytest

from core import defaults
from core import quality as quality_rules
from core.models import DEFAULT_RUBRIC, Campaign
from evalapp.compute import campaign_plan
from evalapp.compute.human_score import RatingRecords, system_scores
from evalapp.compute.ranks import competition_ranks, display
from evalapp.formats.table6 import percent_text
from tests.conftest import REPO

RAW = (REPO / "docs" / "reference" / "protocol.md").read_text(encoding="utf-8")
PAGE = re.sub(r"\s+", " ", RAW)  # sentences wrap across lines


def says(text):
    return re.sub(r"\s+", " ", text) in PAGE


def test_the_rubric_is_the_default_rubric_word_for_word():
    rows = re.findall(r"^\| ([0-3]) \| ([^|]+?) \| ([^|]+?) \|$", RAW, re.MULTILINE)
    assert [(int(score), label, description) for score, label, description in rows] == [
        (entry["score"], entry["label"], entry["description"]) for entry in DEFAULT_RUBRIC
    ]


def test_the_worked_example_of_formula_1():
    ratings = [
        ("i1", "A", "r1", 3),
        ("i1", "A", "r2", 2),
        ("i1", "A", "r3", 3),
        ("i2", "A", "r1", 1),
        ("i2", "A", "r2", 2),
        ("i2", "A", "r3", 2),
        ("i1", "B", "r1", 2),
        ("i1", "B", "r2", 2),
        ("i1", "B", "r3", 1),
        ("i2", "B", "r1", 3),
        ("i2", "B", "r2", 3),
    ]
    scores = system_scores(RatingRecords.from_tuples(ratings), n_instances=2, raters_per_item=3)
    a, b = scores["A"], scores["B"]
    assert (a.ratings, a.expected_ratings, a.complete) == (6, 6, True)
    assert (b.ratings, b.expected_ratings, b.complete) == (5, 6, False)
    assert a.human == pytest.approx(13 / 6) and b.human == pytest.approx(11 / 5)
    assert display(a.human, 2) == "2.17" and display(b.human, 2) == "2.20"
    assert display(11 / 6, 2) == "1.83"  # what dividing by N x M would have shown
    assert percent_text(b.ratings, b.expected_ratings) == "83%"
    assert says("| A | 3, 2, 3 | 1, 2, 2 | 13 / 6 = 2.17 | 6 of 6 | yes |")
    assert says("| B | 2, 2, 1 | 3, 3 | 11 / 5 = 2.20 | 5 of 6 | no |")
    assert says('"5 of 6 (83%)", not as 11 / 6 = 1.83')
    assert np.isclose(sum(score for *_, score in ratings[:6]) / (2 * 3), a.human)


def test_ranks_and_rounding():
    assert competition_ranks([2.10, 2.08, 1.94, 1.84, 1.8449, 1.80], 2) == [1, 2, 3, 4, 4, 6]
    assert display(1.845, 2) == "1.85"
    assert says("two teams showing 1.84 share rank 4 and the next is 6th")
    assert says("(1.845 shows as 1.85)")
    assert says('competition ranks ("1, 2, 2, 4")')


def test_the_defaults_and_limits_stated():
    assert defaults.DEFAULT_LEASE_SECONDS == 30 * 60 and says("lease time (30 minutes unless")
    assert (defaults.MIN_LEASE_SECONDS, defaults.MAX_LEASE_SECONDS) == (60, 7 * 24 * 3600)
    assert says("from 1 minute to 7 days")
    assert defaults.DEFAULT_RATERS_PER_ITEM == 3 and defaults.MAX_RATERS_PER_ITEM == 50
    assert says("M = 3; at most 50")
    assert defaults.PAPER_SAMPLE_SIZE == 100 and says("N = 100")
    assert defaults.RATER_AWARE_MIN_RATERS == 5 and says("fewer than 5 raters")
    assert defaults.CLUSTER_RULES == ("holm", "wmt") and says("`holm`") and says("`wmt`")
    assert defaults.CONFIDENCE_LEVEL == 0.95 and defaults.SIGNIFICANCE_ALPHA == 0.05
    assert says("95% interval") and says("p < 0.05")


def test_the_quality_thresholds_stated():
    fields = {field.name: field.default for field in Campaign._meta.get_fields() if hasattr(field, "default")}
    assert (fields["min_control_pass_rate"], fields["min_coagreement"], fields["min_median_seconds"]) == (0.7, 0, 3)
    assert says("(defaults: control pass rate 0.7, co-rater agreement 0, median 3 seconds)")
    minimums = (quality_rules.MIN_CONTROL_RATINGS, quality_rules.MIN_COMPARED_PAIRS, quality_rules.MIN_TIMED_RATINGS)
    assert minimums == (3, 5, 5)
    assert says("(at least 3 control ratings, 5 compared pairs, 5 timed ratings)")


def test_the_control_items_stated():
    expected = campaign_plan.CONTROL_EXPECTED
    assert expected[campaign_plan.OTHER_REASON] == (0, 0) and says("| other reason | a human reference of another")
    assert expected[campaign_plan.STATEMENT] == (0, 1) and says("| statement | the statement itself | 0 or 1 |")
    assert expected[campaign_plan.REFERENCE] == (2, 3) and says("(never the one used as `Human`) | 2 or 3 |")
    assert campaign_plan.CONTROL_KINDS == (campaign_plan.OTHER_REASON, campaign_plan.STATEMENT, campaign_plan.REFERENCE)


def test_a_wrong_figure_on_the_page_is_caught():
    assert not says("lease time (45 minutes unless")
    assert not says("| B | 2, 2, 1 | 3, 3 | 11 / 6 = 1.83 | 5 of 6 | no |")
