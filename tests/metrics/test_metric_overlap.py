"""BERTScore's child started first, the other built-in metrics computed meanwhile (compute_builtin, issue 22)."""

import subprocess
import threading

import pytest

from evalapp.metrics import registry
from evalapp.models import MetricScore, MetricSegmentScore
from evalapp.services.metric_study.score_cache import compute_builtin
from tests.metrics.builders import build_study_campaign

pytestmark = pytest.mark.django_db
KEYS = ["bertscore", "comve_bleu", "chrf"]  # BERTScore first in the caller's order too


class Cancelled(Exception):
    pass


@pytest.fixture
def events(monkeypatch):
    """What happened, in order: each child started ("child") and each metric's compute ((key, child running))."""
    happened, children = [], []

    class Recorded(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            children.append(self)
            happened.append("child")

    monkeypatch.setattr(subprocess, "Popen", Recorded)
    originals = {key: cls.compute for key, cls in registry.METRICS.items()}

    def spy(key):
        def compute(self, hypotheses, references, progress=None):
            happened.append((key, any(child.poll() is None for child in children)))
            return originals[key](self, hypotheses, references, progress)

        return compute

    for key, cls in registry.METRICS.items():
        if key != "bertscore":
            monkeypatch.setattr(cls, "compute", spy(key))
    return happened, children


def figures(computed):
    return [
        (m.name, m.signature, m.system.tolist(), None if m.segment is None else m.segment.tolist()) for m in computed
    ]


def stored_rows(campaign):
    return sorted(
        MetricScore.objects.filter(campaign=campaign).values_list(
            "metric", "level", "system_id", "instance_id", "value", "signature"
        ),
        key=repr,
    )


@pytest.mark.postgres
def test_the_other_metrics_are_computed_while_bertscore_s_child_runs_with_the_same_figures_and_progress(events):
    happened, children = events
    campaign = build_study_campaign()
    seen = []

    def progress(fraction, message):
        seen.append((threading.get_ident(), fraction, message))

    overlapped = compute_builtin(campaign, KEYS, "campaign", progress=progress)
    # the child started before the other metrics, which were computed while it ran; it has ended since
    assert happened[0] == "child" and [key for key, _ in happened[1:]] == ["comve_bleu", "chrf"]
    assert any(running for _, running in happened[1:]) and children[0].returncode == 0
    overlapped_rows = stored_rows(campaign)
    # the progress: from this thread only, never backwards, the other metrics first, then BERTScore's to the end
    assert {ident for ident, _, _ in seen} == {threading.get_ident()}
    fractions = [fraction for _, fraction, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and fractions[0] == 0.0
    labels = [message.split(":")[0] for _, _, message in seen]
    assert labels.index("BERTScore") > max(i for i, label in enumerate(labels) if label != "BERTScore")
    assert any("sentences" in message for _, _, message in seen)

    # the same figures and stored rows as one metric at a time (nothing to overlap), from an empty store
    MetricSegmentScore.objects.all().delete()
    MetricScore.objects.all().delete()
    one_by_one = [m for key in KEYS for m in compute_builtin(campaign, [key], "campaign")]
    assert figures(overlapped) == figures(one_by_one)
    assert [m.name for m in overlapped][:3] == ["bertscore_p", "bertscore_r", "bertscore_f1"]  # the caller's order
    assert overlapped_rows == stored_rows(campaign) and len(overlapped_rows) > 0


@pytest.mark.postgres
def test_with_every_bertscore_score_stored_no_child_starts_and_the_figures_stay(events):
    happened, _ = events
    campaign = build_study_campaign()
    first = compute_builtin(campaign, KEYS, "campaign")
    happened.clear()
    again = compute_builtin(campaign, KEYS, "campaign")
    assert "child" not in happened and [key for key, _ in happened] == ["comve_bleu", "chrf"]
    assert figures(again) == figures(first)


def test_a_run_cancelled_during_the_other_metrics_stops_bertscore_s_child(events):
    _, children = events
    campaign = build_study_campaign()

    def progress(fraction, message):
        if message.startswith("chrF"):  # computed while BERTScore's child runs
            raise Cancelled

    with pytest.raises(Cancelled):
        compute_builtin(campaign, KEYS, "campaign", progress=progress)
    assert len(children) == 1 and children[0].returncode is not None and children[0].returncode != 0
    assert not MetricScore.objects.filter(campaign=campaign).exists()


def test_a_child_that_fails_is_reported_after_the_other_metrics(events, monkeypatch):
    happened, _ = events
    campaign = build_study_campaign()
    monkeypatch.setattr("sys.executable", "/bin/false")  # the child ends at once without an answer
    with pytest.raises(RuntimeError, match="ended without a result"):
        compute_builtin(campaign, KEYS, "campaign")
    assert [key for key, _ in happened[1:]] == ["comve_bleu", "chrf"]
    assert not MetricScore.objects.filter(campaign=campaign).exists()


def test_bertscore_waits_for_ready_after_loading_and_tokenising_and_before_embedding():
    """The child calls ``ready`` (it waits there for the parent's "go") with every sentence tokenised and none
    embedded, so torch's threads never take the cores while the caller computes the other metrics."""
    from evalapp.metrics.bertscore import BertScore

    metric, state = BertScore(), []
    metric.ready = lambda: state.append((len(metric.cache.token_ids), metric.cache.forward_passed))
    outputs = metric.compute([["a cat", "the sun ."], ["dogs", None]], [["a cat ."], ["sun", "the sun"]])
    assert state == [(6, 0)] and metric.counts.forward_passed == 6 and len(outputs) == 3
