"""Tiny runs of the benchmark scripts, so that they keep working (the real runs are by hand)."""

import json
import subprocess
import sys

from tests.conftest import REPO

SMOKE_TIMEOUT_SECONDS = 300


def run_script(*args):
    result = subprocess.run(
        [sys.executable, *args], cwd=REPO, capture_output=True, text=True, timeout=SMOKE_TIMEOUT_SECONDS
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_rater_load_smoke(tmp_path):
    figures = tmp_path / "load.json"
    output = run_script(
        "bench/rater_load.py",
        "--database",
        "sqlite",
        "--raters",
        "3",
        "--systems",
        "2",
        "--instances",
        "5",
        "--max-seconds",
        "30",
        "--json",
        str(figures),
    )
    (run,) = json.loads(figures.read_text())
    assert run["violations"] == {}
    assert run["rating"]["completed"] == run["expected_ratings"] == run["stored_ratings"] == 2 * 5 * 3
    assert run["baseline"]["completed"] >= run["rating"]["completed"]
    assert run["rating"]["errors"] == {} and run["baseline"]["errors"] == {}
    assert "S7 invariants all hold" in output and "ratings/s" in output


def test_aggregate_bench_smoke():
    output = run_script(
        "bench/aggregate_bench.py",
        "--database",
        "sqlite",
        "--systems",
        "3",
        "--instances",
        "10",
        "--raters-per-item",
        "3",
        "--raters",
        "6",
        "--bootstrap",
        "20",
        "--repeat",
        "1",
    )
    assert "= 90 ratings" in output
    assert "Table 6 + 20 bootstrap resamples" in output and "agreement (run 1)" in output
    assert "human_z from every rating row" in output and "Table 6 with every column, fit in the cache" in output


def test_aggregate_bench_before_and_after_smoke():
    """``--baseline REV`` times Table 6 with the code of a git revision and of the checkout, on the same data."""
    output = run_script(
        "bench/aggregate_bench.py",
        "--database",
        "sqlite",
        "--systems",
        "3",
        "--instances",
        "8",
        "--raters-per-item",
        "3",
        "--raters",
        "6",
        "--bootstrap",
        "20",
        "--baseline",
        "HEAD",
        "--baseline-intervals",
    )
    assert "baseline HEAD (load" in output and "this checkout (load" in output
    assert "Table 6 with every column, first export" in output
    assert "Table 6 with every column + intervals and clusters (20)" in output and "not run" not in output
