"""A researcher's own metric: its scores imported from a CSV file, then read back for a report.

``system,score`` (system level) or ``instance_id,system,score`` (segment level), systems named as
in the campaign. Imported scores are ``MetricScore`` rows with ``imported=True``; they enter every
report as the built-in metrics do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.db import transaction

from core.defaults import BULK_CREATE_BATCH
from core.models import Campaign, Instance
from core.problems import FormatError, Problem, ProblemLog
from evalapp.compute.correlation_study import CAMPAIGN_DOMAIN, Resampler
from evalapp.formats.metric_scores import SEGMENT_LEVEL, SYSTEM_LEVEL, parse_metric_scores
from evalapp.metrics import registry
from evalapp.models import MetricScore
from evalapp.services import results
from evalapp.services.imports import as_source
from evalapp.services.metric_study.statistics import ComputedMetric
from evalapp.services.metric_study.texts import Corpus

METRIC_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,99}$")


@dataclass
class MetricImport:
    metric: str
    level: str
    scores: int
    systems: int

    def as_json(self) -> dict[str, Any]:
        return {"metric": self.metric, "level": self.level, "scores": self.scores, "systems": self.systems}


def check_metric_name(name: str | None) -> str:
    name = (name or "").strip()
    if not METRIC_NAME_PATTERN.match(name):
        raise FormatError(
            Problem(
                "metric",
                None,
                None,
                f"'{name}' is not a metric name: 1-100 letters, digits or _ . + - (starting with a letter or digit)",
            )
        )
    if name in registry.builtin_output_names() or name in registry.METRICS:
        raise FormatError(Problem("metric", None, None, f"'{name}' is the name of a built-in metric; choose another"))
    return name


def import_metric_scores(campaign: Campaign, metric: str | None, level: str, source: Any) -> MetricImport:
    """Import a researcher's metric (``system,score`` or ``instance_id,system,score``) for a campaign.

    Systems are named as in the campaign (``Human`` for the pseudo-system); segment scores name
    instances of the campaign's dataset. Re-importing the same metric and level replaces it.
    Atomic: on any problem nothing is written, and the error names file, line and column.
    """
    metric = check_metric_name(metric)
    if level not in (SYSTEM_LEVEL, SEGMENT_LEVEL):
        raise FormatError(Problem("level", None, None, f"level must be '{SYSTEM_LEVEL}' or '{SEGMENT_LEVEL}'"))
    source = as_source(source)
    records = parse_metric_scores(source.data, source.name, level, max_bytes=settings.COMVE_MAX_UPLOAD_BYTES)
    systems = {system.name: system for system in results.campaign_systems(campaign)}
    instances = dict(Instance.objects.filter(dataset=campaign.dataset).values_list("external_id", "pk"))
    system_column = 2 if level == SEGMENT_LEVEL else 1
    problems = ProblemLog()
    for record in records:
        if record.system not in systems:
            problems.add(
                source.name,
                record.line,
                system_column,
                f"'{record.system}' is not a system of campaign '{campaign.name}' (systems: {', '.join(systems)})",
            )
        if record.instance_id is not None and record.instance_id not in instances:
            problems.add(
                source.name,
                record.line,
                1,
                f"'{record.instance_id}' is not an instance id of dataset '{campaign.dataset.name}'",
            )
    problems.raise_if_any()
    signature = f"imported:{Path(source.name).name}"
    rows = [
        MetricScore(
            campaign=campaign,
            metric=metric,
            level=level,
            system=systems[r.system],
            instance_id=instances[r.instance_id] if r.instance_id is not None else None,
            value=r.score,
            imported=True,
            signature=signature,
        )
        for r in records
    ]
    with transaction.atomic():
        MetricScore.objects.filter(campaign=campaign, metric=metric, level=level).delete()
        MetricScore.objects.bulk_create(rows, batch_size=BULK_CREATE_BATCH)
    return MetricImport(metric, level, len(rows), len({r.system for r in records}))


def imported_metric_names(campaign: Campaign) -> list[str]:
    return sorted(set(MetricScore.objects.filter(campaign=campaign, imported=True).values_list("metric", flat=True)))


def load_imported(campaign: Campaign, name: str, corpus: Corpus) -> ComputedMetric:
    """An imported metric as a :class:`ComputedMetric`.

    A system-level import gives the system scores (held fixed in the bootstrap: there is
    nothing to resample). A segment-level import gives the segment scores on the campaign's
    instances and, without a system-level import, system scores = mean of each system's
    segment scores, resampled with the campaign's instances when all of them are sampled
    ones, else over the dataset's instances on their own.
    """
    position = {system.pk: k for k, system in enumerate(corpus.systems)}
    rows = list(
        MetricScore.objects.filter(campaign=campaign, metric=name, imported=True).values_list(
            "level", "system_id", "instance_id", "value", "signature"
        )
    )
    system = np.full(len(corpus.systems), np.nan)
    by_instance: dict[int, dict[int, float]] = {}
    signature = ""
    for level, system_id, instance_id, value, row_signature in rows:
        signature = signature or row_signature
        if level == SYSTEM_LEVEL:
            system[position[system_id]] = value
        else:
            by_instance.setdefault(instance_id, {})[position[system_id]] = value
    metric = ComputedMetric(name, signature, "imported", "imported by a researcher", system)
    if not by_instance:
        metric.notes.append("system-level scores only: held fixed in the bootstrap")
        return metric
    in_campaign = set(by_instance) <= set(campaign.sampled.values_list("instance_id", flat=True))
    # The campaign's instances that count (a retired one left the human scores, so it leaves this too).
    sampled = list(campaign.sampled.in_use().order_by("position").values_list("instance_id", flat=True))
    instance_ids = (
        sampled
        if in_campaign
        else list(Instance.objects.filter(dataset=campaign.dataset).order_by("position").values_list("pk", flat=True))
    )
    values = np.full((len(corpus.systems), len(instance_ids)), np.nan)
    for column, instance_id in enumerate(instance_ids):
        for k, value in by_instance.get(instance_id, {}).items():
            values[k, column] = value
    column_of = {pk: column for column, pk in enumerate(instance_ids)}
    metric.segment = values[:, [column_of[pk] for pk in sampled]]
    if np.isnan(system).all():
        metric.resampler = Resampler.mean(values, CAMPAIGN_DOMAIN if in_campaign else f"imported:{name}")
        metric.system = metric.resampler.scores()
    else:
        metric.notes.append("system-level scores imported: held fixed in the bootstrap")
    return metric
