"""The two clustering rules of Table 6 (issue 19, item 2): ``wmt`` is mt-metrics-eval's AssignRanks on the
product's one-sided p-values, ``holm`` the every-above-beats-every-below rule with Holm's correction."""

import json

import numpy as np
import pytest

from core.models import ItemOutput
from evalapp.compute import significance
from evalapp.options.table6 import Table6Options
from evalapp.services import exports
from tests.conftest import shared_file
from tests.results.factories import add_ratings, butfit_campaign, make_campaign, make_dataset, make_raters, make_system


def AssignRanks(sig_matrix, pval):
    """mt-metrics-eval ``mt_metrics_eval/data.py`` (google-research/mt-metrics-eval), copied as it stands."""
    assert sig_matrix.ndim == 2
    assert sig_matrix.shape[0] == sig_matrix.shape[1]
    n = sig_matrix.shape[0]
    ranks = [0] * n
    current_rank = 1
    start_index = 0
    for i in range(n):
        if any(sig_matrix[:, i][start_index:i] <= pval):
            current_rank += 1
            start_index = i
        ranks[i] = current_rank
    return ranks


def comparisons_from(matrix, rule, alpha=0.05):
    """RuledComparisons of systems s0..s(n-1) (best first) whose one-sided p-values are ``matrix`` (upper)."""
    n = matrix.shape[0]
    names = [f"s{k}" for k in range(n)]
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    one_sided = np.array([matrix[a, b] for a, b in pairs])
    differences = np.array([0.1 * (b - a) for a, b in pairs])  # best first: every difference positive
    found = significance.ruled_comparisons(
        names, differences, np.ones(len(pairs)), np.full(len(pairs), 50.0), one_sided, alpha, rule
    )
    return names, found


HAND_MADE = [
    # (upper-triangle p-values, best first; wmt clusters; holm clusters)
    # s0 beats s2 only: WMT starts a rank at s2 (s0 is in the current rank); Holm needs s0 and s1 above s2.
    (np.array([[1, 0.30, 0.01], [1, 1, 0.40], [1, 1, 1]]), [1, 1, 2], [1, 1, 1]),
    # Every pair at p 0.03: WMT separates everyone; Holm (3 pairs, two-sided 0.06 x 3) separates no one.
    (np.array([[1, 0.03, 0.03], [1, 1, 0.03], [1, 1, 1]]), [1, 2, 3], [1, 1, 1]),
    # Strong separations: both rules agree.
    (np.array([[1, 1e-6, 1e-6, 1e-6], [1, 1, 0.2, 1e-6], [1, 1, 1, 1e-6], [1, 1, 1, 1]]), [1, 2, 2, 3], [1, 2, 2, 3]),
    # WMT resets its window at the new rank: s3 is compared only with s2 (p 0.5), not with s0 or s1.
    (np.array([[1, 0.5, 0.001, 0.001], [1, 1, 0.5, 0.001], [1, 1, 1, 0.5], [1, 1, 1, 1]]), [1, 1, 2, 2], [1, 1, 1, 1]),
    # p exactly alpha counts for WMT (<=).
    (np.array([[1, 0.05], [1, 1]]), [1, 2], [1, 1]),
]


@pytest.mark.parametrize("matrix, wmt, holm_clusters", HAND_MADE)
def test_rules_on_hand_made_pvalues(matrix, wmt, holm_clusters):
    names, found = comparisons_from(matrix, "wmt")
    assert significance.ruled_clusters(names, found, 0.05, "wmt") == wmt == AssignRanks(matrix, 0.05)
    names, found = comparisons_from(matrix, "holm")
    assert significance.ruled_clusters(names, found, 0.05, "holm") == holm_clusters


def test_assign_ranks_is_the_literal_rule_on_random_matrices():
    rng = np.random.default_rng(19)
    differ = 0
    for _ in range(300):
        n = int(rng.integers(2, 9))
        matrix = np.triu(rng.uniform(0, 0.2, (n, n)) ** rng.uniform(0.5, 3), 1) + np.tril(np.ones((n, n)))
        names, found = comparisons_from(matrix, "wmt")
        wmt = significance.ruled_clusters(names, found, 0.05, "wmt")
        assert wmt == AssignRanks(matrix, 0.05) == significance.assign_ranks(matrix, 0.05)
        names, found = comparisons_from(matrix, "holm")
        differ += wmt != significance.ruled_clusters(names, found, 0.05, "holm")
    assert differ > 30  # the two rules are not the same rule


def test_unknown_rule_is_refused():
    with pytest.raises(ValueError, match="clustering rule"):
        comparisons_from(np.array([[1, 0.01], [1, 1]]), "bonferroni")


def simulated_campaign(seed, systems=6, instances=40, pool=8):
    rng = np.random.default_rng(seed)
    dataset = make_dataset(f"sim{seed}", n_instances=instances)
    names = [f"sys{k}" for k in range(systems)]
    made = [make_system(dataset, name) for name in names]
    campaign = make_campaign(dataset, made, name=f"sim{seed}", raters_per_item=3)
    raters = make_raters(pool, prefix=f"s{seed}-")
    severity = rng.normal(0, 0.3, pool)
    means = np.linspace(2.3, 1.3, systems)
    instances_ = list(dataset.instances.order_by("position"))
    items = {
        (io.output.system.name, io.output.instance_id): io.item
        for io in ItemOutput.objects.filter(campaign=campaign).select_related("item", "output__system")
    }
    for k, name in enumerate(names):
        for instance in instances_:
            chosen = rng.choice(pool, 3, replace=False)
            scores = np.clip(np.rint(means[k] + severity[chosen] + rng.normal(0, 0.8, 3)), 0, 3).astype(int).tolist()
            add_ratings(campaign, [(items[name, instance.pk], scores)], [raters[r] for r in chosen])
    return campaign


def assert_wmt_is_assign_ranks(document):
    significance_record = document["significance"]
    assert significance_record["rule"] == "wmt"
    ordered = list(significance_record["clusters"])
    n = len(ordered)
    matrix = np.ones((n, n))
    for comparison in significance_record["comparisons"]:
        matrix[ordered.index(comparison["better"]), ordered.index(comparison["worse"])] = comparison["p_value"]
    assert np.all(matrix[np.tril_indices(n)] == 1)  # every comparison is "higher beats lower" in formula (1) order
    assert [significance_record["clusters"][name] for name in ordered] == AssignRanks(
        matrix, significance_record["alpha"]
    )
    rows = {row["team"]: row for row in document["rows"]}
    humans = [rows[name]["human"] for name in ordered]
    assert humans == sorted(humans, reverse=True)


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_wmt_export_is_assign_ranks_on_simulated_campaigns(seed):
    campaign = simulated_campaign(seed)
    document = json.loads(exports.table6(campaign, "json", Table6Options(bootstrap=1, clusters="wmt")).text)
    assert_wmt_is_assign_ranks(document)
    assert document["intervals"]["fallback"] is None
    holm = json.loads(exports.table6(campaign, "json", Table6Options(bootstrap=1, clusters="holm")).text)
    assert holm["significance"]["rule"] == "holm"
    assert [c["p_value"] for c in holm["significance"]["comparisons"]] == [
        c["p_value"] for c in document["significance"]["comparisons"]
    ]


@pytest.mark.django_db
@pytest.mark.shared
def test_wmt_export_is_assign_ranks_on_real_ratings():
    """The real BUT-FIT ratings (one rater: the visible one-way fallback): the wmt export's clusters are
    AssignRanks of its own one-sided p-values, and the secondary columns say why they are empty."""
    campaign, _, _ = butfit_campaign(shared_file)
    document = json.loads(exports.table6(campaign, "json", Table6Options(bootstrap=1, clusters="wmt")).text)
    assert_wmt_is_assign_ranks(document)
    assert document["intervals"]["fallback"] == "1 rater, fewer than 5"
    assert "raters not accounted for" in document["significance"]["test"]
    assert len(set(document["significance"]["clusters"].values())) > 1
    assert all(row["human_z"] is None and row["human_adjusted"] is None for row in document["rows"])
    assert "a single rater" in document["secondary"]["not_estimable"]
