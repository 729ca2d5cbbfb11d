"""The metric study service: built-in scores, imported metrics, the report contract."""

import json
import math

import numpy as np
import pytest

from core.models import Reference, SystemOutput
from core.problems import FormatError
from evalapp.compute import official_bleu
from evalapp.formats.comve import SourceFile
from evalapp.models import MetricScore
from evalapp.services.metric_study import report as metric_study
from evalapp.services.metric_study import score_import
from tests.metrics.builders import build_study_campaign

pytestmark = pytest.mark.django_db
FAST_METRICS = ["comve_bleu", "sacrebleu", "chrf", "sentbleu"]


def report_of(campaign, metrics=FAST_METRICS, **options):
    options = {"bootstrap": 30, "permutations": 30, "seed": 1, **options}
    return metric_study.build_report(campaign, metrics, **options).to_json()  # the S5 contract: the JSON form


def test_report_follows_the_s5_contract():
    campaign = build_study_campaign()
    report = report_of(campaign)
    json.dumps(report, allow_nan=False)  # strict JSON: NaN became null
    assert [s["system"] for s in report["systems"]] == [f"sys{k}" for k in range(5)]
    for system in report["systems"]:
        assert set(system) >= {"system", "human", "metrics"}
        assert set(system["metrics"]) == {"comve_bleu", "sacrebleu", "chrf", "sentbleu"}
    for name in ("comve_bleu", "sacrebleu", "chrf", "sentbleu"):
        for coefficient in ("pearson", "spearman", "kendall_b", "kendall_c"):
            assert set(report["system_level"][name][coefficient]) >= {"r", "p", "ci"}
    assert set(report["segment_level"]) == {"chrf", "sentbleu"}
    assert set(report["segment_level"]["chrf"]) == {
        "flattened",
        "grouped_by_instance",
        "wmt_kendall",
        "acc_eq",
        "acc_eq_grouped",
    }
    for name in ("comve_bleu", "sacrebleu", "chrf", "sentbleu"):  # the WMT statistics
        for statistic in ("pairwise_accuracy", "soft_pairwise_accuracy"):
            assert set(report["system_level"][name][statistic]) >= {"value", "ci"}
    for name in ("chrf", "sentbleu"):
        assert set(report["segment_level"][name]["acc_eq"]) >= {"value", "ci", "epsilon"}
        assert set(report["segment_level"][name]["acc_eq_grouped"]) >= {"value", "ci", "epsilon"}
    ranking = report["metric_ranking"]["statistics"]
    assert [m["metric"] for m in ranking["acc_eq"]["metrics"]] in (["chrf", "sentbleu"], ["sentbleu", "chrf"])
    assert len(ranking["pairwise_accuracy"]["metrics"]) == 4
    assert len(report["comparisons"]) == 6 + 1  # 4 metrics: 6 system-level pairs; chrf/sentbleu at segment level
    assert set(report["top_k"]) >= {"k", "systems", "system_level", "segment_level"}
    assert report["seed"] == 1 and report["bootstrap"]["resamples"] == 30
    assert set(report["signatures"]) == {"comve_bleu", "sacrebleu", "chrf", "sentbleu"}
    assert report["versions"]["sacrebleu"] and report["versions"]["scipy"]
    assert sum(report["rating_histograms"]["sys0"]) == 8 * 3


@pytest.mark.postgres
def test_builtin_scores_are_stored_with_signatures():
    campaign = build_study_campaign()
    report_of(campaign, ["comve_bleu", "chrf"])
    bleu = MetricScore.objects.filter(campaign=campaign, metric="comve_bleu")
    assert bleu.count() == 5 and all(s.level == "system" and s.signature.startswith("comve-bleu") for s in bleu)
    assert MetricScore.objects.filter(campaign=campaign, metric="chrf", level="segment").count() == 5 * 8
    report_of(campaign, ["comve_bleu"])  # recomputing replaces, never duplicates
    assert MetricScore.objects.filter(campaign=campaign, metric="comve_bleu").count() == 5


def test_system_bleu_is_the_official_bleu_of_the_outputs():
    campaign = build_study_campaign()
    report = report_of(campaign, ["comve_bleu"], bootstrap=0)
    system = campaign.systems.get(name="sys3")
    outputs = list(SystemOutput.objects.filter(system=system).order_by("instance__position"))
    references = [
        list(Reference.objects.filter(instance=o.instance_id).order_by("position").values_list("text", flat=True))
        for o in outputs
    ]
    expected = official_bleu.corpus_bleu([o.text for o in outputs], references).score
    row = next(s for s in report["systems"] if s["system"] == "sys3")
    assert row["metrics"]["comve_bleu"] == pytest.approx(expected)


def test_human_pseudo_system_uses_the_other_references_and_is_not_correlated():
    campaign = build_study_campaign(human_reference=2)
    report = report_of(campaign, ["comve_bleu", "chrf"], bootstrap=0)
    human = next(s for s in report["systems"] if s["system"] == "Human")
    assert human["is_human"] and not human["in_correlations"]
    assert report["excluded_reference"] == 2
    assert "nrefs:2" in report["signatures"]["comve_bleu"]
    assert human["metrics"]["comve_bleu"] is not None and human["metrics"]["comve_bleu"] < 100
    assert "Human" not in report["top_k"]["systems"]
    assert report["system_level"]["chrf"]["pearson"]["n"] == 5


def test_corpus_scope_campaign_uses_the_sampled_instances_only():
    campaign = build_study_campaign(n_instances=10, sampled=6)
    SystemOutput.objects.filter(system__name="sys4", instance__position=9).update(text="nothing in common here")
    whole = report_of(campaign, ["comve_bleu"], bootstrap=0)
    sampled = report_of(campaign, ["comve_bleu"], bootstrap=0, corpus_scope="campaign")
    assert whole["instances"]["corpus"] == 10 and sampled["instances"]["corpus"] == 6
    assert whole["systems"][4]["metrics"]["comve_bleu"] != sampled["systems"][4]["metrics"]["comve_bleu"]


def test_no_ratings_is_a_clear_error():
    campaign = build_study_campaign()
    campaign.ratings.all().delete()
    with pytest.raises(metric_study.StudyError, match="no counted ratings"):
        report_of(campaign)


def test_unknown_metric_is_refused_with_the_known_ones():
    campaign = build_study_campaign()
    with pytest.raises(metric_study.StudyError, match="built-in: comve_bleu"):
        report_of(campaign, ["rouge"])
    assert metric_study.choose_metrics(campaign, ["bertscore_f1", "chrf"]) == (["bertscore", "chrf"], [])


# --- imported metrics ----------------------------------------------------------------------


def source(text, name="mine.csv"):
    return SourceFile(name, text.encode())


def test_imported_system_metric_enters_every_part_of_the_report():
    campaign = build_study_campaign()
    text = "system,score\n" + "".join(f"sys{k},{0.1 * k + (0.05 if k == 2 else 0)}\n" for k in range(5))
    result = score_import.import_metric_scores(campaign, "my-metric", "system", source(text))
    assert result.as_json() == {"metric": "my-metric", "level": "system", "scores": 5, "systems": 5}
    report = report_of(campaign, ["chrf", "my-metric"])
    assert report["systems"][2]["metrics"]["my-metric"] == pytest.approx(0.25)
    assert report["system_level"]["my-metric"]["spearman"]["r"] is not None
    assert {(c["metric_a"], c["metric_b"]) for c in report["comparisons"]} & {
        ("my-metric", "chrf"),
        ("chrf", "my-metric"),
    }
    assert "my-metric" in report["top_k"]["system_level"]
    assert report["signatures"]["my-metric"] == "imported:mine.csv"
    # default metrics: every built-in plus every imported one
    assert metric_study.choose_metrics(campaign)[1] == ["my-metric"]


def test_imported_segment_metric_gets_segment_figures_and_a_mean_system_score():
    campaign = build_study_campaign()
    rows = [
        f"{i.external_id},sys{k},{k + 0.01 * n}"
        for n, i in enumerate(campaign.instances.order_by("position"))
        for k in range(5)
    ]
    score_import.import_metric_scores(campaign, "seg-metric", "segment", source("\n".join(rows)))  # no header
    report = report_of(campaign, ["seg-metric"])
    assert set(report["segment_level"]["seg-metric"]) == {
        "flattened",
        "grouped_by_instance",
        "wmt_kendall",
        "acc_eq",
        "acc_eq_grouped",
    }
    assert report["systems"][3]["metrics"]["seg-metric"] == pytest.approx(3 + 0.01 * 3.5)
    assert report["system_level"]["seg-metric"]["pearson"]["bootstrap_ci"][0] is not None


@pytest.mark.postgres
def test_import_errors_name_file_line_and_column_and_write_nothing():
    campaign = build_study_campaign()
    bad = "system,score\nsys0,0.5\nsys1,abc\nnobody,0.2\nsys0,0.7\n"
    with pytest.raises(FormatError) as error:
        score_import.import_metric_scores(campaign, "m", "system", source(bad, "bad.csv"))
    messages = [str(p) for p in error.value.problems]
    assert "bad.csv, line 3, column 2: score is not a finite number" in messages
    assert any(m.startswith("bad.csv, line 5, column 1: second score for system 'sys0'") for m in messages)
    assert not MetricScore.objects.filter(metric="m").exists()
    with pytest.raises(FormatError) as error:
        score_import.import_metric_scores(campaign, "m", "system", source("nobody,0.2\n", "names.csv"))
    assert str(error.value).startswith("names.csv, line 1, column 1: 'nobody' is not a system of campaign")
    with pytest.raises(FormatError) as error:
        score_import.import_metric_scores(campaign, "m", "segment", source("999,sys0,1\n", "ids.csv"))
    assert "ids.csv, line 1, column 1: '999' is not an instance id" in str(error.value)
    with pytest.raises(FormatError, match="built-in metric"):
        score_import.import_metric_scores(campaign, "bertscore_f1", "system", source("sys0,1\n"))
    with pytest.raises(FormatError, match="not a metric name"):
        score_import.import_metric_scores(campaign, "a b", "system", source("sys0,1\n"))
    assert not MetricScore.objects.filter(campaign=campaign).exists()


@pytest.mark.postgres
def test_reimport_replaces_the_metric():
    campaign = build_study_campaign()
    score_import.import_metric_scores(campaign, "m", "system", source("sys0,1\nsys1,2\n"))
    score_import.import_metric_scores(campaign, "m", "system", source("sys0,5\n"))
    assert list(MetricScore.objects.filter(metric="m").values_list("value", flat=True)) == [5.0]


def test_bertscore_in_the_report():
    campaign = build_study_campaign(n_instances=4, n_systems=4)
    report = report_of(campaign, ["bertscore"], corpus_scope="campaign")
    assert {"bertscore_p", "bertscore_r", "bertscore_f1"} <= set(report["system_level"])
    assert "layer:6" in report["signatures"]["bertscore_f1"]
    values = [s["metrics"]["bertscore_f1"] for s in report["systems"]]
    assert all(0 < v <= 1 for v in values) and not any(math.isnan(v) for v in values)
    assert np.argmax(values) == 3  # the system closest to the references
