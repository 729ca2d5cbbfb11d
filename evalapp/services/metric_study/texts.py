"""The texts a metric study scores: every system's outputs and the references, read from the database.

The corpus scope decides the instances of the system-level scores (the whole dataset, or the
campaign's sampled instances); the Human pseudo-system's reference is left out of the references
every system is scored against.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from core.models import Campaign, Instance, Reference, System, SystemOutput
from evalapp.compute.correlation_study import CAMPAIGN_DOMAIN
from evalapp.services import results

DATASET_DOMAIN = "dataset"
CORPUS_SCOPES = (DATASET_DOMAIN, CAMPAIGN_DOMAIN)
DEFAULT_CORPUS_SCOPE = DATASET_DOMAIN


class StudyError(ValueError):
    """A metric study cannot run as asked (unknown metric, bad option, no ratings...)."""


@dataclass
class Corpus:
    """What the metrics score: systems x instances of the scope, references without Human's."""

    systems: list[System]
    instances: list[tuple[int, str]]  # (pk, external_id) in dataset order
    references: list[list[str]]  # per instance: reference texts
    hypotheses: list[list[str | None]]  # per system: texts aligned with instances, None = missing
    campaign_columns: NDArray[np.int64]  # positions of the campaign's sampled instances in ``instances``
    excluded_reference: int | None = None


def human_reference_position(campaign: Campaign, systems: list[System]) -> int | None:
    """Reference k of the campaign's Human pseudo-system, or None when it has none."""
    if campaign.human_reference:
        return int(campaign.human_reference)
    return next((s.human_reference for s in systems if s.is_human), None)


def load_corpus(campaign: Campaign, corpus_scope: str = DEFAULT_CORPUS_SCOPE) -> Corpus:
    """The texts the built-in metrics score, read in a few queries."""
    if corpus_scope not in CORPUS_SCOPES:
        raise StudyError(f"corpus scope must be one of {', '.join(CORPUS_SCOPES)}, not {corpus_scope!r}")
    systems = results.campaign_systems(campaign)
    excluded = human_reference_position(campaign, systems)
    # The instances that count (a retired one left the human scores, so it leaves the metrics too).
    sampled: list[tuple[int, str]] = list(
        campaign.sampled.in_use().order_by("position").values_list("instance_id", "instance__external_id")
    )
    if corpus_scope == DATASET_DOMAIN:
        instances: list[tuple[int, str]] = list(
            Instance.objects.filter(dataset=campaign.dataset).order_by("position").values_list("pk", "external_id")
        )
    else:
        instances = sampled
    texts: dict[int, dict[int, str]] = {}
    for instance_id, position, text in (
        Reference.objects.filter(instance_id__in=[pk for pk, _ in instances])
        .order_by("instance_id", "position")
        .values_list("instance_id", "position", "text")
    ):
        texts.setdefault(instance_id, {})[position] = text
    instances = [(pk, ext) for pk, ext in instances if any(p != excluded for p in texts.get(pk, {}))]
    references = [[t for p, t in sorted(texts[pk].items()) if p != excluded] for pk, _ in instances]
    outputs: dict[tuple[int, int], str] = {}
    for system_id, instance_id, text in SystemOutput.objects.filter(
        system__in=[s for s in systems if not s.is_human], instance_id__in=[pk for pk, _ in instances]
    ).values_list("system_id", "instance_id", "text"):
        outputs[(system_id, instance_id)] = text
    hypotheses: list[list[str | None]] = []
    for system in systems:
        if system.is_human:
            hypotheses.append([texts[pk].get(system.human_reference or 0) for pk, _ in instances])
        else:
            hypotheses.append([outputs.get((system.pk, pk)) for pk, _ in instances])
    column_of = {pk: column for column, (pk, _) in enumerate(instances)}
    columns = np.array([column_of.get(pk, -1) for pk, _ in sampled], dtype=np.int64)
    return Corpus(systems, instances, references, hypotheses, columns, excluded)
