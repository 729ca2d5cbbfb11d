"""Metric scores computed once and kept; finished reports stored and rendered again (issue 13)."""

import io

import numpy as np
import pytest
from django.core.management import call_command

from core.models import SystemOutput
from evalapp.metrics import registry
from evalapp.models import MetricRun, MetricSegmentScore
from evalapp.services.metric_study import report as metric_study
from evalapp.services.metric_study import runs as metric_runs
from evalapp.services.metric_study.score_cache import compute_builtin
from evalapp.services.metric_study.texts import load_corpus
from tests.metrics.builders import build_study_campaign
from tests.results.factories import add_ratings, make_raters

pytestmark = pytest.mark.django_db
METRICS = ["comve_bleu", "chrf", "sentbleu"]
OPTIONS = {"bootstrap": 20, "permutations": 20, "seed": 1, "corpus_scope": "campaign"}


@pytest.fixture
def scored(monkeypatch):
    """Counts the outputs each built-in metric is asked to score."""
    calls = []
    originals = {key: cls.compute for key, cls in registry.METRICS.items()}

    def spy(key):
        def compute(self, hypotheses, references, progress=None):
            calls.append((key, sum(h is not None for outputs in hypotheses for h in outputs)))
            return originals[key](self, hypotheses, references, progress)

        return compute

    for key, cls in registry.METRICS.items():
        monkeypatch.setattr(cls, "compute", spy(key))
    return calls


def system_scores(report):
    return {s["system"]: s["metrics"] for s in report["systems"]}


@pytest.mark.postgres
def test_scores_are_computed_once_and_equal_a_fresh_computation(scored):
    campaign = build_study_campaign()
    first = metric_study.build_report(campaign, METRICS, **{**OPTIONS, "seed": 1}).to_json()
    assert dict(scored) == {"comve_bleu": 40, "chrf": 40, "sentbleu": 40}
    assert MetricSegmentScore.objects.count() == 40 * 3
    scored.clear()
    # another seed: nothing scored
    second = metric_study.build_report(campaign, METRICS, **{**OPTIONS, "seed": 2}).to_json()
    assert all(n == 0 for _, n in scored) and {key for key, _ in scored} == {"comve_bleu", "chrf"}  # corpus metrics
    assert system_scores(second) == system_scores(first)
    assert second["segment_level"]["chrf"]["acc_eq"]["value"] == first["segment_level"]["chrf"]["acc_eq"]["value"]
    assert MetricSegmentScore.objects.count() == 40 * 3


def test_a_changed_output_is_the_only_one_scored_again(scored):
    campaign = build_study_campaign()
    metric_study.build_report(campaign, METRICS, **OPTIONS)
    output = SystemOutput.objects.filter(system__name="sys2").order_by("instance__position").first()
    output.text = "the cat can read the fridge ."
    output.save()
    scored.clear()
    stored = metric_study.build_report(campaign, METRICS, **OPTIONS).to_json()
    assert sorted(scored) == [("chrf", 1), ("comve_bleu", 1), ("sentbleu", 1)]
    MetricSegmentScore.objects.all().delete()
    fresh = metric_study.build_report(campaign, METRICS, **OPTIONS).to_json()
    for system, metrics in system_scores(fresh).items():
        assert system_scores(stored)[system] == pytest.approx(metrics, abs=1e-12)
    for name in ("chrf", "sentbleu"):
        assert stored["segment_level"][name]["flattened"]["pearson"]["r"] == pytest.approx(
            fresh["segment_level"][name]["flattened"]["pearson"]["r"], abs=1e-12
        )


def test_a_new_signature_scores_everything_again(scored, monkeypatch):
    campaign = build_study_campaign()
    metric_study.build_report(campaign, ["chrf"], **OPTIONS)
    monkeypatch.setattr("evalapp.metrics.sacrebleu_metrics.distribution_version", lambda name: "99.0")
    scored.clear()
    metric_study.build_report(campaign, ["chrf"], **OPTIONS)
    assert scored == [("chrf", 40)]
    assert MetricSegmentScore.objects.filter(signature__contains="version:99.0").count() == 40
    assert MetricSegmentScore.objects.count() == 80  # the old scores stay for the old signature


def test_stored_values_hold_statistics_and_segment_scores():
    campaign = build_study_campaign()
    metric_study.build_report(campaign, ["comve_bleu", "sentbleu"], **OPTIONS)
    bleu = MetricSegmentScore.objects.filter(metric="comve_bleu").first()
    assert bleu.values == {"comve_bleu": None} and len(bleu.stats) == 10 and bleu.signature.startswith("comve-bleu")
    sentence = MetricSegmentScore.objects.filter(metric="sentbleu").first()
    assert isinstance(sentence.values["sentbleu"], float) and sentence.stats is None  # a mean: no statistics


@pytest.mark.postgres
def test_a_report_is_reused_until_ratings_change_and_then_only_the_statistics_are_redone(scored):
    from core.models import Item, Rating

    campaign = build_study_campaign(n_instances=8, n_systems=4, raters=2)
    late = Item.objects.filter(campaign=campaign, kind=Item.Kind.SYSTEM).first()  # rated later, below
    Rating.objects.filter(item=late).delete()
    Item.objects.filter(pk=late.pk).update(active_count=0, done_count=0)
    run, reused = metric_runs.report_for(campaign, METRICS, OPTIONS)
    assert not reused and run.status == MetricRun.Status.DONE and run.report["fingerprint"]
    scored.clear()
    again, reused = metric_runs.report_for(campaign, METRICS, OPTIONS)
    assert reused and again.pk == run.pk and scored == []  # another format: the stored figures
    other_seed, reused = metric_runs.report_for(campaign, METRICS, {**OPTIONS, "seed": 9})
    assert not reused and all(n == 0 for _, n in scored)
    # new ratings change the human scores: a new report, no metric scored again
    late.refresh_from_db()
    add_ratings(campaign, [(late, [0, 3])], make_raters(2, prefix="late"))
    scored.clear()
    after, reused = metric_runs.report_for(campaign, METRICS, OPTIONS)
    assert not reused and after.pk != run.pk and all(n == 0 for _, n in scored)
    assert after.report["fingerprint"] != run.report["fingerprint"]


def test_a_report_of_the_former_statistics_code_is_not_reused(scored, monkeypatch):
    """A run finished before a change of the figures a seed gives (METRIC_REPORT_STATISTICS_VERSION) is
    not what a new computation would give: it is computed again, from the stored metric scores."""
    from evalapp.services.metric_study import score_cache

    campaign = build_study_campaign(n_instances=6, n_systems=3, raters=1)
    current = score_cache.METRIC_REPORT_STATISTICS_VERSION
    monkeypatch.setattr(score_cache, "METRIC_REPORT_STATISTICS_VERSION", current - 1)
    former, _ = metric_runs.report_for(campaign, METRICS, OPTIONS)
    assert scored, "the first report scores the outputs"
    monkeypatch.setattr(score_cache, "METRIC_REPORT_STATISTICS_VERSION", current)
    scored.clear()
    now, reused = metric_runs.report_for(campaign, METRICS, OPTIONS)
    assert not reused and now.pk != former.pk
    assert scored and all(n == 0 for _, n in scored), "the metrics are asked again, with nothing left to score"
    assert now.report["fingerprint"] != former.report["fingerprint"]
    again, reused = metric_runs.report_for(campaign, METRICS, OPTIONS)
    assert reused and again.pk == now.pk


def test_the_command_renders_a_stored_report_in_another_format(tmp_path, scored):
    campaign = build_study_campaign()
    options = {"campaign": campaign.name, "metrics": "comve_bleu,chrf", "bootstrap": 10, "permutations": 10}
    err = io.StringIO()
    call_command("metric_report", format="json", out=str(tmp_path / "r.json"), stderr=err, **options)
    assert "computed and stored" in err.getvalue()
    scored.clear()
    err = io.StringIO()
    call_command("metric_report", format="html", out=str(tmp_path / "r.html"), stderr=err, **options)
    assert "the stored report" in err.getvalue() and scored == []
    run = MetricRun.objects.get()
    err = io.StringIO()
    call_command(
        "metric_report", format="csv", out=str(tmp_path / "r.csv"), stderr=err, run=run.pk, campaign=campaign.name
    )
    assert (tmp_path / "r.csv").read_text().startswith("table,subset")
    assert np.isfinite(run.report["system_level"]["chrf"]["pairwise_accuracy"]["value"])


@pytest.mark.postgres
def test_builtin_rows_are_kept_when_unchanged_and_replaced_when_changed():
    """Another seed stores the same MetricScore rows: they stay (same ids); a changed output replaces its
    metric's rows, which then equal what bulk_create of the computed scores stored before."""
    from evalapp.models import MetricScore

    campaign = build_study_campaign()
    metric_study.build_report(campaign, METRICS, **OPTIONS)
    builtin = MetricScore.objects.filter(campaign=campaign, imported=False)

    def rows():
        return {
            (m, level, s, i): (v, sig)
            for m, level, s, i, v, sig in builtin.values_list(
                "metric", "level", "system", "instance", "value", "signature"
            )
        }

    first, ids = rows(), set(builtin.values_list("pk", flat=True))
    # what the rows hold, written out from the computed scores: every finite system and segment score
    corpus = load_corpus(campaign, "campaign")
    sampled = list(campaign.sampled.in_use().order_by("position").values_list("instance_id", flat=True))
    expected = {}
    for metric in compute_builtin(campaign, METRICS, "campaign", corpus=corpus):
        for k, system in enumerate(corpus.systems):
            levels = [("system", None, metric.system[k])]
            if metric.segment is not None:
                levels += [("segment", sampled[i], metric.segment[k, i]) for i in range(len(sampled))]
            for level, instance, value in levels:
                if np.isfinite(value):
                    expected[(metric.name, level, system.pk, instance)] = (float(value), metric.signature)
    assert first == expected and any(key[1] == "segment" for key in first)
    assert set(builtin.values_list("pk", flat=True)) == ids  # compute_builtin stored the same rows again: kept
    metric_study.build_report(campaign, METRICS, **{**OPTIONS, "seed": 5})
    assert rows() == first and set(builtin.values_list("pk", flat=True)) == ids
    output = SystemOutput.objects.filter(system__name="sys2").order_by("instance__position").first()
    output.text = "the cat can read the fridge ."
    output.save()
    metric_study.build_report(campaign, METRICS, **OPTIONS)
    changed = rows()
    assert changed.keys() == first.keys() and changed != first
    assert set(builtin.values_list("pk", flat=True)) != ids
    assert all(changed[key] == first[key] for key in first if key[1] == "segment" and key[2] != output.system_id)
    assert (
        changed[("sentbleu", "segment", output.system_id, output.instance_id)]
        != first[("sentbleu", "segment", output.system_id, output.instance_id)]
    )
