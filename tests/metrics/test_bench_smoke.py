"""A tiny run of bench/metric_study_bench.py, so that the benchmark keeps working (the real run is by hand)."""

import json
import subprocess
import sys

from tests.conftest import REPO

SMOKE_TIMEOUT_SECONDS = 300


def test_metric_study_bench_smoke(tmp_path):
    figures = tmp_path / "figures.json"
    result = subprocess.run(
        [
            sys.executable,
            "bench/metric_study_bench.py",
            "--systems",
            "3",
            "--instances",
            "12",
            "--raters",
            "6",
            "--metrics",
            "comve_bleu,chrf,sentbleu",
            "--bootstrap",
            "20",
            "--permutations",
            "20",
            "--new-ratings",
            "5",
            "--json",
            str(figures),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=SMOKE_TIMEOUT_SECONDS,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    steps = json.loads(figures.read_text())
    assert [s["reused_report"] for s in steps] == [False, True, False, False]
    assert steps[0]["outputs_scored"] == 3 * 12 * 3 and all(s["outputs_scored"] == 0 for s in steps[1:])
    assert "second format (HTML)" in result.stdout and "after 5 more ratings" in result.stdout
