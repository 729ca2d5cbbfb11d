"""Prints how long the pure results computations take on 1,000,000 synthetic ratings.

Run: .venv/bin/python bench/results_compute.py [--ratings N]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evalapp.compute import agreement, bootstrap
from evalapp.compute.human_score import RatingRecords, score_matrix, system_scores

RATERS_PER_ITEM = 3
SYSTEMS = 20
RATER_POOL = 2000


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ratings", type=int, default=1_000_000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    items = args.ratings // RATERS_PER_ITEM
    instances = -(-items // SYSTEMS)
    item = np.repeat(np.arange(items), RATERS_PER_ITEM)
    system = item % SYSTEMS
    instance = item // SYSTEMS
    rater = rng.integers(0, RATER_POOL, len(item))
    rater = rater + (np.arange(len(item)) % RATERS_PER_ITEM) * RATER_POOL  # distinct raters per item
    scores = rng.integers(0, 4, len(item))
    records = RatingRecords(
        instance.astype(str).astype(object),
        np.char.add("sys", system.astype(str)).astype(object),
        rater.astype(object),
        scores,
    )
    print(f"{len(item):,} ratings, {items:,} items, {SYSTEMS} systems x {instances:,} instances")
    for label, run in [
        ("formula (1) system_scores", lambda: system_scores(records, instances, RATERS_PER_ITEM)),
        (
            "agreement (alpha x2, Fleiss, exact, pairwise QWK, per rater)",
            lambda: agreement.agreement(item, rater, scores, RATERS_PER_ITEM),
        ),
        ("bootstrap 1000 resamples over instances", lambda: bootstrap.ratio_intervals(*_matrix(records), 1000, seed=1)),
    ]:
        start = time.perf_counter()
        run()
        print(f"{label}: {time.perf_counter() - start:.2f} s")


def _matrix(records):
    matrix = score_matrix(records)
    return matrix.sums, matrix.counts


if __name__ == "__main__":
    main()
