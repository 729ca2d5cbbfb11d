"""The official Subtask C BLEU: hand-worked cases, sacreBLEU on single references, and the
official scorer's figures (SOURCES.md) on every real system."""

import csv
import math
import re

import numpy as np
import pytest
from sacrebleu.metrics import BLEU

from evalapp.compute import official_bleu as cb
from tests.conftest import shared_file

TEST_SYSTEMS = 17
DEV_SYSTEMS = 5


def test_identical_hypothesis_scores_100():
    result = cb.corpus_bleu(["a b c d"], [["a b c d"]])
    assert result.score == pytest.approx(100.0)
    assert result.precisions == (1.0, 1.0, 1.0, 1.0)
    assert result.brevity_penalty == 1.0


def test_brevity_penalty_uses_the_shortest_reference_not_the_closest():
    # hyp 5 tokens; references of 2 and 6 tokens. Shortest (2) -> ratio 2.5 -> no penalty.
    # The closest reference (6) would give exp(1 - 6/5) = 0.8187 instead.
    result = cb.corpus_bleu(["a b c d e"], [["a b", "a b c d e f"]])
    assert result.ref_len == 2
    assert result.brevity_penalty == 1.0
    assert result.score == pytest.approx(100.0)


def test_brevity_penalty_below_one():
    # hyp 4 tokens, shortest reference 6: bp = exp(1 - 6/4) = exp(-0.5), precisions all 1.
    result = cb.corpus_bleu(["a b c d"], [["a b c d e f", "a b c d e f g h"]])
    assert result.ratio == pytest.approx(4 / 6)
    assert result.score == pytest.approx(100 * math.exp(-0.5))


def test_a_zero_ngram_precision_gives_zero():
    result = cb.corpus_bleu(["a b c x"], [["a b c d"]])
    assert result.precisions == pytest.approx((3 / 4, 2 / 3, 1 / 2, 0.0))
    assert result.score == 0.0


def test_single_token_hypothesis_alone_scores_zero():
    # One token: no 2-, 3- or 4-gram is possible, so those precisions are 0 and BLEU is 0.
    stats = cb.segment_stats("cats", ["cats cannot read"])
    assert stats.possible == (1, 0, 0, 0)
    assert stats.matches == (1, 0, 0, 0)
    assert cb.bleu_from_stats([stats]).score == 0.0


def test_single_token_hypothesis_within_a_corpus():
    # seg 1: perfect 4-token match; seg 2: "z" against "y q" (no match).
    # matches (4,3,2,1); possible (5,3,2,1); hyp 5; ref 4 + 2 = 6.
    result = cb.corpus_bleu(["a b c d", "z"], [["a b c d"], ["y q"]])
    expected = 100 * (4 / 5) ** 0.25 * math.exp(1 - 6 / 5)
    assert result.score == pytest.approx(expected)


def test_counts_are_clipped_by_the_max_over_references_not_the_sum():
    # "the" occurs at most twice in one reference: 2 of 4 unigrams match (a sum would give 3).
    stats = cb.segment_stats("the the the the", ["the cat", "the the dog"])
    assert stats.matches == (2, 1, 0, 0)
    assert stats.possible == (4, 3, 2, 1)


def test_case_is_kept_and_tokens_are_whitespace_split():
    stats = cb.segment_stats("Cats  cannot\tread.", ["cats cannot read ."])
    assert stats.hyp_len == 3
    assert stats.matches[0] == 1  # only "cannot": "Cats" != "cats", "read." != "read"


def test_empty_references_are_ignored_like_the_official_scorer():
    assert cb.segment_stats("a b c d", ["", "a b c d", ""]).ref_len == 4
    with pytest.raises(ValueError):
        cb.segment_stats("a b", ["", ""])


def test_empty_hypothesis_corpus_scores_zero_without_crashing():
    result = cb.corpus_bleu(["", "  "], [["a b c d"], ["e f"]])
    assert result.hyp_len == 0
    assert result.score == 0.0
    assert cb.bleu_from_totals_array(cb.stats_matrix(cb.corpus_stats(["", "  "], [["a b"], ["c"]])).sum(0))[0] == 0


def test_signature_names_the_choices():
    assert cb.signature(3).endswith("|nrefs:3")
    for part in ("tok:whitespace", "order:4", "smooth:none", "eff:shortest"):
        assert part in cb.signature()


def test_vectorised_resampling_equals_recomputing_each_resample():
    rng = np.random.default_rng(7)
    words = "a b c d e f g".split()
    hyps = [" ".join(rng.choice(words, rng.integers(1, 9))) for _ in range(40)]
    refs = [[" ".join(rng.choice(words, rng.integers(2, 9))) for _ in range(3)] for _ in range(40)]
    stats = cb.corpus_stats(hyps, refs)
    matrix = cb.stats_matrix(stats)
    draws = rng.integers(0, len(stats), size=(25, len(stats)))
    weights = np.stack([np.bincount(d, minlength=len(stats)) for d in draws])
    fast = cb.bleu_from_totals_array(weights @ matrix)
    slow = [cb.bleu_from_stats([stats[i] for i in d]).score for d in draws]
    assert fast == pytest.approx(slow, abs=1e-9)


def _read(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


def _official_figures():
    text = shared_file("SOURCES.md").read_text(encoding="utf-8")
    return {
        m.group(1): (m.group(2), float(m.group(3)))
        for m in re.finditer(r"^\| (\S+\.csv) \| (test|dev) \| \d+ \| ([\d.]+) \|", text, re.M)
    }


def _system_bleu(filename, split, references=None):
    refs = references or {row[0]: row[1:4] for row in _read(shared_file(f"{split}_references.csv"))}
    reasons = {row[0]: row[1] for row in _read(shared_file("systems", filename))}
    ids = list(refs)
    return cb.corpus_bleu([reasons[i] for i in ids], [refs[i] for i in ids]).score


@pytest.mark.shared
def test_every_real_system_equals_the_official_scorer_to_4_decimals():
    figures = _official_figures()
    assert sum(split == "test" for split, _ in figures.values()) == TEST_SYSTEMS
    assert sum(split == "dev" for split, _ in figures.values()) == DEV_SYSTEMS
    for filename, (split, official) in figures.items():
        assert f"{_system_bleu(filename, split):.4f}" == f"{official:.4f}", filename


@pytest.mark.shared
def test_single_reference_bleu_equals_sacrebleu():
    # With one reference per instance, shortest == closest, so sacreBLEU (no tokenisation,
    # no smoothing) is an independent reference implementation of the same figure.
    references = _read(shared_file("test_references.csv"))
    reasons = {row[0]: row[1] for row in _read(shared_file("systems", "butfit_bart_test.csv"))}
    hyps = [reasons[row[0]] for row in references]
    for k in (1, 2, 3):
        refs = [row[k] for row in references]
        ours = cb.corpus_bleu(hyps, [[r] for r in refs]).score
        theirs = BLEU(tokenize="none", smooth_method="none", force=True).corpus_score(hyps, [refs]).score
        assert ours == pytest.approx(theirs, abs=1e-9)
