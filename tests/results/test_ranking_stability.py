"""Ranking stability while a campaign runs: the bootstrap shares, the "settled" signal, closing early, the API,
and a smoke run of the validation benchmark."""

import numpy as np
import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from bench import ranking_stability_sim
from core.models import Campaign
from evalapp.compute import ranking_stability
from evalapp.services import planning
from tests.results.factories import rated_campaign

PERMUTATIONS = 2000


def _state(scores, mask):
    sums = (scores * mask).sum(axis=2)
    counts = mask.sum(axis=2)
    score_counts = np.stack([((scores == v) & mask).sum(axis=(1, 2)) for v in range(4)], axis=1)
    return sums, counts, score_counts


def _campaign(means, n=30, m=3, seed=0, share=0.5):
    rng = np.random.default_rng(seed)
    scores = np.clip(np.rint(np.asarray(means)[:, None, None] + rng.normal(0, 0.5, (len(means), n, m))), 0, 3)
    mask = rng.random(scores.shape) < share
    return scores, mask


def test_a_complete_campaign_is_settled_with_certainty():
    scores, _ = _campaign([2.5, 1.5, 0.5])
    found = ranking_stability.stability(
        ["a", "b", "c"], *_state(scores, np.ones_like(scores, dtype=bool)), 3, 50, PERMUTATIONS, 1, 0.05, 0.95
    )
    assert found.settled and found.rank_stability == found.cluster_stability == [1.0, 1.0, 1.0]
    assert found.ranks == [1, 2, 3] and found.clusters == [1, 2, 3]


def test_far_apart_systems_are_settled_at_half_way():
    scores, mask = _campaign([2.8, 1.5, 0.2], seed=1)
    found = ranking_stability.stability(["a", "b", "c"], *_state(scores, mask), 3, 50, PERMUTATIONS, 1, 0.05, 0.95)
    assert found.settled and min(found.rank_stability) >= 0.95 and found.clusters == [1, 2, 3]


def test_close_systems_are_not_settled_early():
    scores, mask = _campaign([1.55, 1.5, 1.45], seed=2, share=0.3)
    sums, counts, score_counts = _state(scores, mask)
    order = list(np.argsort(-(sums.sum(axis=1) / counts.sum(axis=1))))
    found = ranking_stability.stability(
        [f"s{k}" for k in order], sums[order], counts[order], score_counts[order], 3, 60, PERMUTATIONS, 1, 0.05, 0.95
    )
    assert not found.settled and min(found.rank_stability) < 0.9
    again = ranking_stability.stability(
        [f"s{k}" for k in order], sums[order], counts[order], score_counts[order], 3, 60, PERMUTATIONS, 1, 0.05, 0.95
    )
    assert again == found  # seeded


def test_rank_share_by_hand_for_one_missing_rating():
    # a: 3 instances x 1 rater all rated 2 except one missing; b rated 2, 2, 2 (complete, mean 2.00).
    # a's only score is 2, so the missing one is 2 in every completion: rank unchanged (tied 1st) always.
    sums = np.array([[2.0, 2.0, 0.0], [2.0, 2.0, 2.0]])
    counts = np.array([[1, 1, 0], [1, 1, 1]])
    score_counts = np.array([[0, 0, 2, 0], [0, 0, 3, 0]])
    found = ranking_stability.stability(["a", "b"], sums, counts, score_counts, 1, 30, 100, 3, 0.05, 0.95)
    assert found.ranks == [1, 1] and found.rank_stability == [1.0, 1.0] and found.settled


# --- the dashboard, closing early, the API --------------------------------------------------------------------

SEPARATED = {
    "top": [[3, 3, 3]] * 12,
    "middle": [[2, 1, 2], [1, 2, 2], [2, 2, 1]] * 4,
    "bottom": [[0, 0, 1]] * 11 + [[0, 0, None]],
}  # one rating still missing


@pytest.fixture
def nearly_done(db):
    campaign, _ = rated_campaign(SEPARATED, name="nearly")
    return campaign


@pytest.mark.postgres
def test_dashboard_shows_the_anytime_valid_decisions_instead_of_the_old_signal(client, organizer, nearly_done):
    """The dashboard's stopping section is the confidence sequences' (tests/sequential); the bootstrap signal
    stays in the API and the command only."""
    client.force_login(organizer)
    body = client.get(reverse("results:dashboard", args=[nearly_done.pk])).content.decode()
    assert "Stopping early: decisions per pair" in body
    assert "Ranking settled" not in body and "bootstrap completions" not in body
    closed = client.post(reverse("campaigns:status", args=[nearly_done.pk]), {"status": "closed"})
    assert closed.status_code == 302
    assert Campaign.objects.get(pk=nearly_done.pk).status == Campaign.Status.CLOSED


def test_researchers_cannot_close(client, researcher, nearly_done):
    client.force_login(researcher)
    body = client.get(reverse("results:dashboard", args=[nearly_done.pk])).content.decode()
    assert "Close the campaign" not in body
    assert client.post(reverse("campaigns:status", args=[nearly_done.pk]), {"status": "closed"}).status_code == 403


@pytest.mark.postgres
def test_api_gives_the_dashboards_figures(researcher, nearly_done):
    api = APIClient()
    api.force_authenticate(researcher)
    response = api.get(f"/api/campaigns/{nearly_done.pk}/stability/")
    assert response.status_code == 200
    assert response.json() == planning.ranking_stability(nearly_done).as_dict()
    assert response.json()["settled"]
    assert [s["system"] for s in response.json()["systems"]] == ["top", "middle", "bottom"]


def test_unsettled_campaign_offers_no_close_button(client, organizer, db):
    close = {
        "a": [[2, 1, None], [2, None, None], [1, 2, None]] * 2,
        "b": [[1, 2, None], [2, 1, None], [2, None, 1]] * 2,
    }
    campaign, _ = rated_campaign(close, name="close-call")
    client.force_login(organizer)
    body = client.get(reverse("results:dashboard", args=[campaign.pk])).content.decode()
    assert "Not settled yet" in body and "Close the campaign early" not in body


def test_a_team_without_ratings_is_never_settled(client, organizer, db):
    scores = {**SEPARATED, "silent": [[None, None, None]] * 12}
    campaign, _ = rated_campaign(scores, name="silent")
    found = planning.ranking_stability(campaign)
    assert found.unrated == ("silent",) and not found.settled and min(found.rank_stability) == 1.0
    assert found.as_dict()["systems"][-1] == {
        "system": "silent",
        "rank": None,
        "cluster": None,
        "rank_stability": 0.0,
        "cluster_stability": 0.0,
    }
    client.force_login(organizer)
    response = client.get(reverse("results:dashboard", args=[campaign.pk]))
    # The dashboard's decisions (tests/sequential): every pair with the silent team stays open.
    assert not response.context["sequential"].settled and "Close the campaign now" not in response.content.decode()
    assert all(
        pair.decision == "open"
        for pair in response.context["sequential"].pairs
        if "silent" in (pair.better, pair.worse)
    )


def test_too_large_a_campaign_is_not_estimated_and_says_so(client, organizer, nearly_done, monkeypatch):
    monkeypatch.setattr(planning, "STABILITY_MAX_CELLS", 35)  # 3 teams x 12 instances = 36
    found = planning.ranking_stability(nearly_done)
    assert not found.settled and "3 teams x 12 instances is above 35" in found.problem
    api = APIClient()
    api.force_authenticate(organizer)
    assert "is above 35" in api.get(f"/api/campaigns/{nearly_done.pk}/stability/").json()["problem"]


def test_the_validation_benchmark_runs(tmp_path):
    figures = ranking_stability_sim.main(
        [
            "--campaigns",
            "2",
            "--systems",
            "3",
            "--instances",
            "12",
            "--replicates",
            "10",
            "--permutations",
            "200",
            "--spread",
            "2.5",
            "--json",
            str(tmp_path / "sim.json"),
        ]
    )
    assert figures["campaigns"] == 2 and 0 <= figures["settled_early"] <= 2
    assert figures["settled_but_final_ranks_differ"] <= figures["settled_early"]
    assert (tmp_path / "sim.json").exists()
