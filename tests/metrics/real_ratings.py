"""The real ComVE ratings as the metric tests read them: one rater's 0-3 scores of four systems on 100 test
instances, with sentence-level metric scores of the same outputs."""

import csv

import numpy as np

from tests.conftest import shared_file


def butfit_scores(*scorers):
    """(human, [metric]) as (systems, instances) matrices, one metric matrix per ``scorer(reason, references)``;
    skips the test when the real data is absent."""
    with open(shared_file("ratings", "butfit_internal_ratings_test100.csv"), encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    with open(shared_file("test_references.csv"), encoding="utf-8") as handle:
        references = {row[0]: row[1:] for row in csv.reader(handle)}
    systems = sorted({row["system"] for row in rows})
    ids = sorted({row["id"] for row in rows})
    human = np.full((len(systems), len(ids)), np.nan)
    metrics = [np.full_like(human, np.nan) for _ in scorers]
    for row in rows:
        k, i = systems.index(row["system"]), ids.index(row["id"])
        human[k, i] = float(row["rating_0to3"])
        for metric, scorer in zip(metrics, scorers):
            metric[k, i] = scorer(row["reason"], references[row["id"]])
    return human, metrics
