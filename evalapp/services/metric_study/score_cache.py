"""Metric scores computed once (issue 13): each output's score stored under a key of its inputs, reused.

A built-in metric's score of one output is looked up by :func:`segment_keys` (metric, signature,
text, references) in ``MetricSegmentScore``; only the missing ones are computed. The campaign's
built-in ``MetricScore`` rows are replaced by each computation. :func:`study_fingerprint` digests
everything else a report depends on, so a finished run with the same options can be reused.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
from django.db import connection, transaction
from django.db.models import Count, Field, Max, Model
from django.db.models.constants import OnConflict
from django.utils import timezone
from numpy.typing import NDArray

from core.defaults import (
    BULK_CREATE_BATCH,
    METRIC_REPORT_STATISTICS_VERSION,
    METRIC_SCORE_CACHE_VERSION,
    SCORE_LOOKUP_BATCH,
)
from core.models import Campaign, Reference, SystemOutput
from evalapp.compute.correlation_study import CAMPAIGN_DOMAIN, Resampler
from evalapp.metrics import registry
from evalapp.metrics.base import Metric, MetricOutput, nan_matrix
from evalapp.models import MetricScore, MetricSegmentScore
from evalapp.services import results
from evalapp.services.metric_study.statistics import ComputedMetric, Progress
from evalapp.services.metric_study.texts import DATASET_DOMAIN, DEFAULT_CORPUS_SCOPE, Corpus, load_corpus

MetricProgress = Callable[..., None]  # (fraction, detail=None), as the metrics call it


def _campaign_columns(values: NDArray[Any], columns: NDArray[np.int64], fill: float) -> NDArray[np.float64]:
    """Columns of the campaign's sampled instances from an array over the scope's instances
    (axis 1); ``fill`` where a sampled instance is not in the scope (it has no reference)."""
    result = np.full((values.shape[0], len(columns), *values.shape[2:]), fill, dtype=float)
    present = columns >= 0
    result[:, present] = values[:, columns[present]]
    return result


def _resampler(output: MetricOutput, corpus: Corpus, corpus_scope: str) -> Resampler:
    """How the bootstrap recomputes the output's system scores: from its statistics or its mean."""
    stats, from_stats, segment = output.stats, output.from_stats, _segment(output)
    if corpus_scope == CAMPAIGN_DOMAIN:
        if stats is not None and from_stats is not None:
            return Resampler(CAMPAIGN_DOMAIN, _campaign_columns(stats, corpus.campaign_columns, 0.0), from_stats)
        return Resampler.mean(_campaign_columns(segment, corpus.campaign_columns, np.nan), CAMPAIGN_DOMAIN)
    if stats is not None and from_stats is not None:
        return Resampler(DATASET_DOMAIN, stats, from_stats)
    return Resampler.mean(segment, DATASET_DOMAIN)


def _segment(output: MetricOutput) -> NDArray[np.float64]:
    """The output's segment scores; :func:`stored_or_computed` gives every output a matrix (NaN = none)."""
    if output.segment is None:
        raise ValueError(f"metric output {output.name} has no segment matrix")
    return output.segment


def compute_builtin(
    campaign: Campaign,
    keys: Sequence[str],
    corpus_scope: str = DEFAULT_CORPUS_SCOPE,
    bertscore_options: dict[str, Any] | None = None,
    progress: Progress | None = None,
    corpus: Corpus | None = None,
) -> list[ComputedMetric]:
    """Compute built-in metrics ``keys`` for every system of the campaign and store them.

    Replaces the campaign's earlier built-in scores of the same names. Returns
    :class:`ComputedMetric` objects (with the statistics a bootstrap needs) in system order.
    """
    corpus = corpus or load_corpus(campaign, corpus_scope)
    computed = []
    for position, key in enumerate(keys):
        # BERTScore in a process of its own: torch and the model never stay in this one (the worker's)
        metric = registry.build(key, {**(bertscore_options or {}), "separate_process": True})

        def step(
            fraction: float, detail: str | None = None, position: int = position, label: str = metric.label or key
        ) -> None:
            if progress is not None:
                progress((position + fraction) / len(keys), f"{label}: {detail}" if detail else label)

        step(0.0)
        for output in stored_or_computed(metric, corpus, step):
            segment = (
                _campaign_columns(_segment(output), corpus.campaign_columns, np.nan)
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


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1d".join(parts).encode("utf-8")).hexdigest()


def segment_keys(metric: Metric, signature: str, corpus: Corpus) -> dict[tuple[int, int], str]:
    """{(system row, instance column): key} of every output: metric, signature, text, references."""
    prefix = f"{METRIC_SCORE_CACHE_VERSION}\x1d{metric.key}\x1d{signature}"
    reference_digests = [_digest(*refs) for refs in corpus.references]
    return {
        (k, i): _digest(prefix, text, reference_digests[i])
        for k, outputs in enumerate(corpus.hypotheses)
        for i, text in enumerate(outputs)
        if text is not None
    }


def _field(model: type[Model], name: str) -> Field[Any, Any]:
    """``model``'s concrete field ``name``, for the statements written as SQL here."""
    field = model._meta.get_field(name)
    if not isinstance(field, Field) or not field.column:
        raise ValueError(f"{model.__name__}.{name} is not a column")
    return field


def _column(model: type[Model], name: str) -> str:
    """The quoted column of ``model``'s field ``name``."""
    return connection.ops.quote_name(str(_field(model, name).column))


def _stored(keys: Iterable[str]) -> dict[str, tuple[dict[str, float | None], list[float] | None]]:
    """``{key: (values, stats)}`` of the stored scores among ``keys``.

    One plain ``SELECT ... WHERE key IN (...)`` per batch (the ORM resolved each of a metric's 17,000
    keys as an expression), and the two JSON columns, which both databases hand over as text here, decoded
    in one ``json.loads`` per batch instead of one per row and column.
    """
    found = {}
    unique = list(set(keys))
    columns = ", ".join(_column(MetricSegmentScore, name) for name in ("key", "values", "stats"))
    select = (
        f"SELECT {columns} FROM {connection.ops.quote_name(MetricSegmentScore._meta.db_table)} "
        f"WHERE {_column(MetricSegmentScore, 'key')} IN "
    )
    with connection.cursor() as cursor:
        for start in range(0, len(unique), SCORE_LOOKUP_BATCH):
            batch = unique[start : start + SCORE_LOOKUP_BATCH]
            cursor.execute(select + f"({', '.join(['%s'] * len(batch))})", batch)
            rows = cursor.fetchall()
            decoded = json.loads("[" + ",".join(f"[{values},{stats or 'null'}]" for _, values, stats in rows) + "]")
            found.update({key: (values, stats) for (key, _, _), (values, stats) in zip(rows, decoded, strict=True)})
    return found


def stored_or_computed(metric: Metric, corpus: Corpus, progress: MetricProgress | None = None) -> list[MetricOutput]:
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
    assembled: list[MetricOutput] = []
    new_rows: dict[str, dict[str, Any]] = {}
    column_of = {i: position for position, i in enumerate(columns)}
    for name in names:
        computed = by_name.get(name)
        stats = None
        width = computed.stats.shape[2] if computed is not None and computed.stats is not None else None
        if width is None:
            width = next((len(found[key][1] or ()) for key in keys.values() if key in found and found[key][1]), None)
        if width is not None and (computed is None or computed.stats is not None):
            stats = np.zeros((n_systems, n_instances, width))
        segment = nan_matrix(n_systems, n_instances)
        for (k, i), key in keys.items():
            row_stats: Any
            if (k, i) in missing:
                # a missing output was computed (every computed output has its segment scores, NaN where none)
                assert computed is not None and computed.segment is not None
                value = computed.segment[k, column_of[i]]
                row_stats = computed.stats[k, column_of[i]] if computed.stats is not None else None
                entry = new_rows.setdefault(key, {"values": {}, "stats": None})
                entry["values"][name] = float(value) if np.isfinite(value) else None
                if row_stats is not None:
                    entry["stats"] = [float(v) for v in row_stats]
            else:
                values, row_stats = found[key]
                value = values.get(name)
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
        created = _now_for(MetricSegmentScore, "created_at")
        _insert(
            MetricSegmentScore,
            ("key", "metric", "signature", "values", "stats", "created_at"),
            [
                (key, metric.key, signature, json.dumps(entry["values"]), _json_or_null(entry["stats"]), created)
                for key, entry in new_rows.items()
            ],
            ignore_conflicts=True,
        )
    return assembled


ScoreRows = dict[tuple[str, int, int | None], float]  # {(level, system id, instance id or None): value}


def _score_rows(corpus: Corpus, sampled_ids: Sequence[int], metric: ComputedMetric) -> ScoreRows:
    """``{(level, system id, instance id): value}`` of one metric output's finite scores (system and segment level)."""
    rows: ScoreRows = {}
    system_ids = [system.pk for system in corpus.systems]
    for k, value in enumerate(metric.system.tolist()):
        if np.isfinite(value):
            rows[(MetricScore.Level.SYSTEM, system_ids[k], None)] = value
    if metric.segment is not None:
        finite_k, finite_i = np.nonzero(np.isfinite(metric.segment))
        values = metric.segment[finite_k, finite_i].tolist()
        for k, i, value in zip(finite_k.tolist(), finite_i.tolist(), values, strict=True):
            rows[(MetricScore.Level.SEGMENT, system_ids[k], sampled_ids[i])] = value
    return rows


def _unchanged(campaign: Campaign, wanted: dict[str, tuple[str, ScoreRows]]) -> set[str]:
    """The metric outputs whose stored built-in rows are already exactly ``wanted``'s (signature, keys, values).

    With stored segment scores a report (another seed, new ratings) usually stores the same figures again;
    reading them back (one grouped query, one read of the matching rows) costs a fraction of replacing them.
    """
    stored = MetricScore.objects.filter(campaign=campaign, imported=False, metric__in=list(wanted))
    candidates = {
        metric
        for metric, signature, count in stored.values_list("metric", "signature").annotate(n=Count("pk")).order_by()
        if signature == wanted[metric][0] and count == len(wanted[metric][1])
    }
    if not candidates:
        return set()
    found: dict[str, ScoreRows] = {metric: {} for metric in candidates}
    for metric, level, system_id, instance_id, value in stored.filter(metric__in=list(candidates)).values_list(
        "metric", "level", "system_id", "instance_id", "value"
    ):
        found[metric][(level, system_id, instance_id)] = value
    # rows of another signature too (one row per system and instance) would have made ``found`` larger
    return {metric for metric in candidates if found[metric] == wanted[metric][1]}


def _insert(
    model: type[Model], fields: Sequence[str], rows: Sequence[tuple[Any, ...]], ignore_conflicts: bool = False
) -> None:
    """Insert ``rows`` (values of ``fields``, ready for the database) as one parameterised statement run
    by ``executemany`` in batches; ``ignore_conflicts`` skips rows a unique constraint already holds.

    ``bulk_create`` built a model instance and compiled the values of each row: 6 s of CPU for the 85,000
    rows of a 17 x 1,000 study, against a fraction of a second here. The table and columns come from the
    model's ``_meta``, the conflict clause from the database's own operations (as ``bulk_create``'s).
    """
    quote, on_conflict = connection.ops.quote_name, OnConflict.IGNORE if ignore_conflicts else None
    columns = [_field(model, name) for name in fields]
    sql = " ".join(
        [
            connection.ops.insert_statement(on_conflict=on_conflict),
            f"{quote(model._meta.db_table)} ({', '.join(_column(model, name) for name in fields)})",
            f"VALUES ({', '.join(['%s'] * len(columns))})",
            connection.ops.on_conflict_suffix_sql(columns, on_conflict, None, None) or "",
        ]
    )
    # one transaction: in autocommit every batch was a commit of its own, and each commit waits for the disk
    # (SQLite's synchronous=FULL): 13 s of the first report's 200 batches at 17 x 1,000
    with transaction.atomic(), connection.cursor() as cursor:
        for start in range(0, len(rows), BULK_CREATE_BATCH):
            cursor.executemany(sql, rows[start : start + BULK_CREATE_BATCH])


def _now_for(model: type[Model], field: str) -> Any:
    """The current time as ``model.field`` stores it (what ``auto_now_add`` would write)."""
    return _field(model, field).get_db_prep_save(timezone.now(), connection)


def _insert_scores(campaign: Campaign, metric: str, signature: str, rows: ScoreRows) -> None:
    """Insert one metric output's built-in rows (:func:`_insert`)."""
    created, not_imported = (
        _now_for(MetricScore, "created_at"),
        _field(MetricScore, "imported").get_db_prep_save(False, connection),
    )
    fields = ("campaign", "metric", "level", "system", "instance", "value", "imported", "signature", "created_at")
    _insert(
        MetricScore,
        fields,
        [
            (campaign.pk, metric, level, system_id, instance_id, value, not_imported, signature, created)
            for (level, system_id, instance_id), value in rows.items()
        ],
    )


def _json_or_null(value: Any) -> str | None:
    """A nullable JSON column's value: SQL NULL for None (as the JSON field stores it), else its JSON text."""
    return None if value is None else json.dumps(value)


def _store_builtin(campaign: Campaign, corpus: Corpus, computed: Sequence[ComputedMetric]) -> None:
    """The campaign's built-in ``MetricScore`` rows (system and segment level) replaced by ``computed``'s.

    An output whose stored rows are already these (same signature, same scores) is left as it is.
    """
    sampled_ids = list(campaign.sampled.in_use().order_by("position").values_list("instance_id", flat=True))
    wanted = {metric.name: (metric.signature, _score_rows(corpus, sampled_ids, metric)) for metric in computed}
    with transaction.atomic():
        unchanged = _unchanged(campaign, wanted)
        changed = [name for name in wanted if name not in unchanged]
        if not changed:
            return
        MetricScore.objects.filter(campaign=campaign, imported=False, metric__in=changed).delete()
        for name in changed:
            _insert_scores(campaign, name, *wanted[name])


def study_fingerprint(campaign: Campaign, records: Iterable[Any] | None = None) -> str:
    """A digest of everything a report's figures depend on besides its options: the counted
    ratings, the texts the metrics score (outputs and references), the imported metric scores and
    the version of the statistics' code (``METRIC_REPORT_STATISTICS_VERSION``)."""
    counted: Iterable[Any] = results.ratings_records(campaign) if records is None else records
    digest = hashlib.sha256()
    for record in counted:
        digest.update(repr(tuple(record)).encode())
    systems = [s.pk for s in results.campaign_systems(campaign)]
    outputs = SystemOutput.objects.filter(system_id__in=systems).aggregate(n=Count("pk"), last=Max("pk"))
    references = Reference.objects.filter(instance__dataset=campaign.dataset).aggregate(n=Count("pk"), last=Max("pk"))
    imported = MetricScore.objects.filter(campaign=campaign, imported=True).aggregate(n=Count("pk"), last=Max("pk"))
    digest.update(
        repr(
            (sorted(systems), outputs, references, imported, campaign.human_reference, METRIC_REPORT_STATISTICS_VERSION)
        ).encode()
    )
    return digest.hexdigest()
