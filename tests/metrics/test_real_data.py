"""Done when: a metric report over the shared real systems, with ratings, in every format with every S10 figure.

The campaign: the first 100 instances of the official test set (the ones the real BUT-FIT
ratings cover), all 17 shared test-set systems and the Human pseudo-system (reference 1).
The four BUT-FIT systems carry their real ratings (one rater); the others get seeded ratings.
BERTScore and the other metrics are computed on the sampled instances only, to keep it fast.
"""

import csv
import io
import json

import numpy as np
import pytest
from django.core.management import call_command

from evalapp.compute.metric_study_report import MetricReport
from evalapp.formats.metric_report import render
from evalapp.services.campaigns import create_campaign
from evalapp.services.imports import import_comve, import_submission
from evalapp.services.ratings_import import import_ratings
from tests.conftest import shared_file

pytestmark = [pytest.mark.shared, pytest.mark.django_db]
SAMPLED = 100
RATINGS_SEED = 2020
EVERY_METRIC = ["comve_bleu", "sacrebleu", "chrf", "sentbleu", "bertscore"]


@pytest.fixture
def real_campaign():
    dataset = import_comve("comve-test", shared_file("test_statements.csv"), shared_file("test_references.csv")).dataset
    systems = sorted(p.name.removesuffix("_test.csv") for p in shared_file("systems").glob("*_test.csv"))
    assert len(systems) == 17
    for name in systems:
        import_submission(dataset, name, shared_file("systems", f"{name}_test.csv"))
    with open(shared_file("test_statements.csv"), encoding="utf-8") as handle:
        first_ids = [row[0] for row in list(csv.reader(handle))[1 : SAMPLED + 1]]
    campaign = create_campaign(
        dataset,
        "real-metrics",
        instance_ids=first_ids,
        raters_per_item=1,
        systems=systems,
        human_reference=1,
        seed=RATINGS_SEED,
    )
    real = shared_file("ratings", "butfit_internal_ratings_test100.csv")
    summary = import_ratings(
        campaign,
        real.read_bytes(),
        str(real),
        "long",
        columns={"instance": "id", "score": "rating_0to3", "reason": "reason"},
    )
    assert summary.accepted == 4 * SAMPLED
    rated = {row["system"] for row in csv.DictReader(io.StringIO(real.read_text(encoding="utf-8")))}
    rng = np.random.default_rng(RATINGS_SEED)
    lines = ["instance_id,system,rater,score"]
    for name in [s for s in systems if s not in rated] + ["Human"]:
        quality = 2.6 if name == "Human" else rng.uniform(0.5, 2.2)
        lines += [f"{i},{name},seeded,{int(np.clip(np.rint(quality + rng.normal(0, 0.8)), 0, 3))}" for i in first_ids]
    assert import_ratings(campaign, "\n".join(lines).encode(), "seeded.csv", "long").accepted == 14 * SAMPLED
    return campaign


def test_metric_report_on_the_real_systems_in_every_format(real_campaign, tmp_path):
    path = tmp_path / "report.json"
    call_command(
        "metric_report",
        campaign=real_campaign.name,
        metrics=",".join(EVERY_METRIC),
        format="json",
        out=str(path),
        bootstrap=100,
        permutations=100,
        corpus_scope="campaign",
        quiet=True,
    )
    report = json.loads(path.read_text(encoding="utf-8"))
    # the other formats render the same report (the command computes it again for each --format)
    outputs = {fmt: render(MetricReport.from_json(report), fmt) for fmt in ("csv", "latex", "html")}
    names = ["comve_bleu", "sacrebleu", "chrf", "sentbleu", "bertscore_p", "bertscore_r", "bertscore_f1"]
    assert len(report["systems"]) == 18 and report["systems"][0]["system"] == "Human"
    butfit = next(s for s in report["systems"] if s["system"] == "butfit_bart")
    assert butfit["ratings"] == SAMPLED and butfit["complete"]
    for name in names:
        for coefficient in ("pearson", "spearman", "kendall_b", "kendall_c"):
            entry = report["system_level"][name][coefficient]
            assert entry["n"] == 17 and entry["r"] is not None and None not in entry["ci"]
        assert report["system_level"][name]["pearson"]["p"] is not None
        assert name in report["top_k"]["system_level"] and name in report["signatures"]
    for name in ["chrf", "sentbleu", "bertscore_p", "bertscore_r", "bertscore_f1"]:
        segment = report["segment_level"][name]
        for coefficient in ("pearson", "spearman", "kendall_b"):
            assert segment["flattened"][coefficient]["n"] == 17 * SAMPLED
            assert segment["grouped_by_instance"][coefficient]["r"] is not None
        assert segment["wmt_kendall"]["concordant"] + segment["wmt_kendall"]["discordant"] > 0
        assert None not in segment["wmt_kendall"]["ci"]
    assert {c["level"] for c in report["comparisons"]} == {"system", "segment"}
    assert len([c for c in report["comparisons"] if c["level"] == "system"]) == len(names) * (len(names) - 1) // 2
    assert report["top_k"]["k"] == 9 and len(report["top_k"]["systems"]) == 9
    assert "nrefs:2" in report["signatures"]["comve_bleu"] and "layer:6" in report["signatures"]["bertscore_f1"]
    assert report["versions"]["bert-score"] and report["seed"] == 2020
    assert sum(report["rating_histograms"]["butfit_bart"]) == SAMPLED
    assert outputs["html"].count('one point per system"><title>') == len(names) and "butfit" in outputs["html"]
    assert outputs["html"].count('class="chart histogram"') == 18
    assert outputs["latex"].count(r"\toprule") == 4
    for name in names:  # the WMT statistics on 17 real systems
        for statistic in ("pairwise_accuracy", "soft_pairwise_accuracy"):
            entry = report["system_level"][name][statistic]
            assert 0 <= entry["value"] <= 1 and 0 <= entry["ci"][0] <= entry["ci"][1] <= 1
        assert report["system_level"][name]["pairwise_accuracy"]["pairs"] == 17 * 16 // 2
    for name in ["chrf", "sentbleu", "bertscore_p", "bertscore_r", "bertscore_f1"]:
        for statistic in ("acc_eq", "acc_eq_grouped"):
            entry = report["segment_level"][name][statistic]
            assert 0 <= entry["value"] <= 1 and entry["epsilon"] >= 0 and None not in entry["ci"]
    ranking = report["metric_ranking"]["statistics"]["acc_eq_grouped"]["metrics"]
    assert ranking[0]["rank"] == 1 and len(ranking) == 5
    assert "correlation,top_k,segment" in outputs["csv"]
