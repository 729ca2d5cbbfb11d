"""The typed metric report: its versioned JSON form, old stored reports, and exports that keep their bytes.

``golden/NAME.report.json`` are reports as main's code stored them before the report was typed
(format 1: no ``format_version``; the time, fingerprint and package versions fixed), and
``golden/NAME.{json,csv,tex,html}`` main's code's exports of them. The typed report must load
each and export the same bytes; the JSON export only adds ``"format_version": 2`` on its second line.
"""

import dataclasses
import io
import json
import math
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from evalapp.compute.metric_study_report import FORMAT_VERSION, MetricReport, ReportFormatError
from evalapp.formats import metric_report
from evalapp.formats.comve import SourceFile
from evalapp.models import MetricRun
from evalapp.services import exports
from evalapp.services.metric_study import report as metric_study
from evalapp.services.metric_study import score_import
from tests.metrics.builders import build_study_campaign

GOLDEN = Path(__file__).parent / "golden"
CASES = ("full", "nobootstrap", "human")
VERSION_LINE = f'  "format_version": {FORMAT_VERSION},\n'
# what differs between two computations of the same report: when, on which database rows, with which packages
VOLATILE = ("generated_at", "fingerprint", "versions")


def stored(case):
    return json.loads((GOLDEN / f"{case}.report.json").read_text(encoding="utf-8"))


def golden(case, fmt):
    return (GOLDEN / f"{case}.{metric_report.EXTENSIONS[fmt]}").read_text(encoding="utf-8")


def without_version(text):
    lines = text.splitlines(keepends=True)
    assert lines[1] == VERSION_LINE, "the version is the JSON's first field"
    return "".join(lines[:1] + lines[2:])


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("fmt", metric_report.FORMATS)
def test_an_old_stored_report_exports_the_bytes_main_gave(case, fmt):
    text = metric_report.render(MetricReport.from_json(stored(case)), fmt)
    if fmt == "json":
        text = without_version(text)
    assert text == golden(case, fmt)


def jsonb_order(value):
    """Keys as PostgreSQL's jsonb gives them back: shorter first, then by their bytes."""
    if isinstance(value, dict):
        return {k: jsonb_order(value[k]) for k in sorted(value, key=lambda k: (len(k.encode()), k.encode()))}
    if isinstance(value, list):
        return [jsonb_order(v) for v in value]
    return value


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("fmt", metric_report.FORMATS)
def test_a_report_read_back_from_jsonb_exports_the_same_bytes(case, fmt):
    shuffled = jsonb_order(stored(case))
    assert list(shuffled["system_level"]) != list(stored(case)["system_level"])  # the order did change
    text = metric_report.render(MetricReport.from_json(shuffled), fmt)
    assert (without_version(text) if fmt == "json" else text) == golden(case, fmt)


@pytest.mark.parametrize("case", CASES)
def test_the_json_form_round_trips_and_carries_its_version(case):
    report = MetricReport.from_json(stored(case))
    data = report.to_json()
    assert next(iter(data)) == "format_version" and data["format_version"] == FORMAT_VERSION == 2
    assert MetricReport.from_json(json.loads(json.dumps(data))) == report
    assert {k: v for k, v in data.items() if k != "format_version"} == stored(case), "version 1 + the field = 2"


def test_a_report_names_what_it_cannot_read():
    data = stored("full")
    with pytest.raises(ReportFormatError, match="format_version 3; this version of the program reads 1, 2"):
        MetricReport.from_json({**data, "format_version": 3})
    with pytest.raises(ReportFormatError, match="no 'systems' in the report"):
        MetricReport.from_json({k: v for k, v in data.items() if k != "systems"})
    broken = json.loads(json.dumps(data))
    del broken["system_level"]["chrf"]["kendall_b"]
    with pytest.raises(ReportFormatError, match="no 'kendall_b'"):
        MetricReport.from_json(broken)
    with pytest.raises(ReportFormatError, match="not NoneType"):
        MetricRun(report=None).study_report()


def test_attributes_hold_the_figures_of_the_json():
    report = MetricReport.from_json(stored("full"))
    data = stored("full")
    chrf = report.system_level["chrf"]
    assert chrf.coefficients.pearson.r == data["system_level"]["chrf"]["pearson"]["r"]
    assert chrf.coefficients.spearman.bootstrap_ci == tuple(data["system_level"]["chrf"]["spearman"]["bootstrap_ci"])
    assert chrf.soft_pairwise_accuracy.permutations == 1000
    seg = report.segment_level["seg-metric"]
    assert seg.grouped_by_instance.pearson.groups_used == 8 and seg.wmt_kendall.concordant == 39
    assert seg.acc_eq_grouped.groups == 8 and seg.acc_eq.epsilon == 0.0
    assert report.top_k.k == 3 and report.top_k.figures.system_level["chrf"].pairwise_accuracy is None
    assert report.ranks()["pairwise_accuracy"] == {"chrf": 1, "sys-metric": 2, "comve_bleu": 3, "seg-metric": 3}
    first = report.metric_ranking.statistics["pairwise_accuracy"].p_values[0]
    assert (first.better, first.worse, first.p) == ("chrf", "sys-metric", 0.0)
    assert report.soft_pairwise.pairs[0].p_metrics["seg-metric"] == 0.864
    assert report.systems[4].human == 2.875 and report.systems[0].metrics["sys-metric"] == 0.1
    # no bootstrap: no bootstrap_ci, and undefined intervals are None
    plain = MetricReport.from_json(stored("nobootstrap")).system_level["sentbleu"].coefficients.spearman
    assert plain.bootstrap_ci is None and plain.ci == (None, None)


def normalised(data):
    return {k: v for k, v in data.items() if k not in VOLATILE and k != "format_version"}


# Soft pairwise accuracy's interval: since issue 22 the swaps of a resampled instance are drawn as random bits
# (the same Binomial distribution, tests/metrics/test_fast_statistics.py), so its bounds and the ranking's
# paired p-values (and ranks) built on them move within Monte Carlo noise; the value itself does not.
SPA_REDRAWN = ("soft_pairwise_accuracy.ci", "metric_ranking.statistics.soft_pairwise_accuracy")
SPA_NOISE = 0.1
# The comparisons' permutation p-values: since the third round of issue 22 the swaps are the bits of the
# generator's bytes (the same distribution of p-values, tests/metrics/test_permutation_flips.py), so with
# the golden report's 20 permutations only their form is the same: (1 + extreme) / (1 + 20).
COMPARISON_REDRAWN = re.compile(r"^report\.comparisons\[\d+\]\.permutation\.\w+\.p$")
GOLDEN_PERMUTATIONS = 20


def assert_same_json(new, old, path="report"):
    """Same keys in the same order, the same values; floats to 12 significant digits (the statistics may be
    computed in another order by a faster implementation)."""
    if COMPARISON_REDRAWN.match(path) and isinstance(old, float):
        extreme = new * (1 + GOLDEN_PERMUTATIONS) - 1
        assert isinstance(new, float) and 0 <= round(extreme) <= GOLDEN_PERMUTATIONS, f"{path}: {new!r}"
        assert math.isclose(extreme, round(extreme), abs_tol=1e-9), f"{path}: {new!r} is no permutation p-value"
        return
    if any(part in path for part in SPA_REDRAWN) and not isinstance(old, (dict, list)):
        assert type(new) is type(old) or {type(new), type(old)} <= {int, float}, f"{path}: {new!r} != {old!r}"
        if isinstance(old, float) and isinstance(new, float):
            assert abs(new - old) <= SPA_NOISE, f"{path}: {new} != {old}"
        return
    if isinstance(old, dict):
        assert isinstance(new, dict) and list(new) == list(old), f"{path}: keys {list(new)} != {list(old)}"
        for key in old:
            assert_same_json(new[key], old[key], f"{path}.{key}")
    elif isinstance(old, list):
        assert isinstance(new, list) and len(new) == len(old), path
        for i, (a, b) in enumerate(zip(new, old, strict=True)):
            assert_same_json(a, b, f"{path}[{i}]")
    elif isinstance(old, float) and isinstance(new, float):
        assert math.isclose(new, old, rel_tol=1e-12, abs_tol=1e-15), f"{path}: {new} != {old}"
    else:
        assert new == old and type(new) is type(old), f"{path}: {new!r} != {old!r}"


@pytest.mark.django_db
def test_a_report_built_now_has_the_shape_and_figures_main_built():
    """The campaign and options the golden files were made with (tests/metrics/golden), built again."""
    campaign = build_study_campaign()
    rows = [
        f"{instance.external_id},sys{k},{(k * 7 + n) % 5 / 4}"
        for n, instance in enumerate(campaign.instances.order_by("position"))
        for k in range(5)
    ]
    score_import.import_metric_scores(campaign, "seg-metric", "segment", SourceFile("s.csv", "\n".join(rows).encode()))
    system_scores = b"sys0,0.1\nsys1,0.3\nsys2,0.2\nsys3,0.5\nsys4,0.9\n"
    score_import.import_metric_scores(campaign, "sys-metric", "system", SourceFile("y.csv", system_scores))
    report = metric_study.build_report(
        campaign,
        ["comve_bleu", "chrf", "seg-metric", "sys-metric"],
        bootstrap=20,
        permutations=GOLDEN_PERMUTATIONS,
        seed=3,
    )
    data = json.loads(metric_report.render(report, "json"))
    assert data["format_version"] == FORMAT_VERSION
    assert_same_json(normalised(data), normalised(stored("full")))
    assert set(data["versions"]) >= {"python", "numpy", "scipy", "sacrebleu"} and len(data["fingerprint"]) == 64


@pytest.fixture
def old_run(db):
    """A finished run whose report was stored by main's code (no format_version)."""
    campaign = build_study_campaign(n_instances=3, n_systems=2, raters=1, name="stored-old")
    return MetricRun.objects.create(
        campaign=campaign, metrics=["comve_bleu"], status=MetricRun.Status.DONE, progress=1.0, report=stored("full")
    )


@pytest.mark.postgres
@pytest.mark.parametrize("fmt", metric_report.FORMATS)
def test_an_old_stored_run_downloads_the_same_bytes_everywhere(old_run, fmt, researcher, client, tmp_path):
    expected = golden("full", fmt)
    client.force_login(researcher)
    web = client.get(reverse("metrics:download", args=(old_run.campaign_id, fmt)))
    api = APIClient()
    api.force_authenticate(researcher)
    through_api = api.get(f"/api/campaigns/{old_run.campaign_id}/metric-report/?format={fmt}")
    out = tmp_path / "report"
    call_command(
        "export", "metric-report", campaign=old_run.campaign.name, format=fmt, out=str(out), stderr=io.StringIO()
    )
    command = out.read_text(encoding="utf-8")
    call_command(
        "metric_report",
        campaign=old_run.campaign.name,
        run=old_run.pk,
        format=fmt,
        out=str(out),
        quiet=True,
        stderr=io.StringIO(),
    )
    for text in (web.content.decode(), through_api.content.decode(), command, out.read_text(encoding="utf-8")):
        assert (without_version(text) if fmt == "json" else text) == expected
    assert exports.metric_report_of(old_run, fmt).text == web.content.decode()


@pytest.mark.postgres
def test_the_page_of_an_old_stored_run_shows_its_figures(old_run, researcher, client):
    client.force_login(researcher)
    page = client.get(reverse("metrics:campaign", args=(old_run.campaign_id,))).content.decode()
    assert "8 sampled instances" in page and "seed 3" in page and "Soft pairwise accuracy" in page
    assert "sys-metric" in page and "0.950" in page  # chrf's system-level Pearson r


def test_a_typed_report_is_a_dataclass_family():
    report = MetricReport.from_json(stored("human"))
    assert dataclasses.is_dataclass(report) and report.systems[0].system == "Human"
    assert report.systems[0].in_correlations is False and report.excluded_reference == 2
    assert report.metric_names() == ["comve_bleu", "chrf"]
