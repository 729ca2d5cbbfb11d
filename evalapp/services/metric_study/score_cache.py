"""Metric scores computed once (issue 13): each output's score stored under a key of its inputs, reused.

A built-in metric's score of one output is looked up by :func:`segment_keys` (metric, signature,
text, references) in ``MetricSegmentScore``; only the missing ones are computed. The campaign's
built-in ``MetricScore`` rows are replaced by each computation. :func:`study_fingerprint` digests
everything else a report depends on, so a finished run with the same options can be reused.
"""

from __future__ import annotations

import gc
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
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
    slots = output_slots(corpus)
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
        for output in stored_or_computed(metric, corpus, step, slots):
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


@dataclass(frozen=True)
class OutputSlots:
    """Every output of the corpus that exists, row by row: its system row, its instance column, and
    the end of its store key's digested text (``\x1d`` text ``\x1d`` digest of the references).

    The end is the same for every metric, so it is encoded once per report instead of once per metric.
    """

    systems: NDArray[np.int64]
    instances: NDArray[np.int64]
    suffixes: list[bytes]


def output_slots(corpus: Corpus) -> OutputSlots:
    """The corpus's :class:`OutputSlots` (outputs ``None`` have no slot)."""
    reference_digests = [_digest(*refs) for refs in corpus.references]
    systems, instances, suffixes = [], [], []
    for k, outputs in enumerate(corpus.hypotheses):
        for i, text in enumerate(outputs):
            if text is not None:
                systems.append(k)
                instances.append(i)
                suffixes.append(f"\x1d{text}\x1d{reference_digests[i]}".encode())
    return OutputSlots(np.array(systems, dtype=np.int64), np.array(instances, dtype=np.int64), suffixes)


def segment_keys(metric: Metric, signature: str, slots: OutputSlots) -> list[str]:
    """The store key of every slot's output: the SHA-256 of metric, signature, text and references.

    ``_digest(VERSION, metric key, signature, text, _digest(*references))``, byte for byte (the keys of
    existing stores must still be found); the digest of the common beginning is computed once and copied.
    """
    start = hashlib.sha256(f"{METRIC_SCORE_CACHE_VERSION}\x1d{metric.key}\x1d{signature}".encode())
    keys = []
    for suffix in slots.suffixes:
        digest = start.copy()
        digest.update(suffix)
        keys.append(digest.hexdigest())
    return keys


def _field(model: type[Model], name: str) -> Field[Any, Any]:
    """``model``'s concrete field ``name``, for the statements written as SQL here."""
    field = model._meta.get_field(name)
    if not isinstance(field, Field) or not field.column:
        raise ValueError(f"{model.__name__}.{name} is not a column")
    return field


def _column(model: type[Model], name: str) -> str:
    """The quoted column of ``model``'s field ``name``."""
    return connection.ops.quote_name(str(_field(model, name).column))


@dataclass(frozen=True)
class StoredScores:
    """The stored scores of a list of keys: ``row[j]`` is key j's row in ``values`` and ``stats`` (-1: not stored)."""

    row: NDArray[np.int64]
    values: list[dict[str, float | None]]
    stats: list[list[float] | None]


@contextmanager
def _bulk_read() -> Iterator[None]:
    """No cyclic garbage collection while a block reads many rows into Python objects (and makes no cycles).

    Each run of the collector traverses every object of the process (Django, the corpus, the ratings); the
    tuples, dictionaries and lists of 85,000 stored scores set off several full runs, which cost a third of
    reading them (0.12 to 0.16 of 0.50 CPU s at 17 x 1,000). Reference counting still frees everything at once; the
    collector is switched on again afterwards unless it was off already (another thread doing the same
    meanwhile can only make the pause shorter or longer, never lose an object).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _stored(keys: Sequence[str]) -> StoredScores:
    """The stored scores among ``keys`` (:class:`StoredScores`, aligned with ``keys``; a key may repeat).

    One plain ``SELECT ... WHERE key IN (...)`` per batch (the ORM resolved each of a metric's 17,000
    keys as an expression), and the two JSON columns, which both databases hand over as text here, decoded
    in one ``json.loads`` each for all rows: a list of the ``values`` objects and a list of the ``stats`` lists
    decode a third faster than one list of pairs, and the rows are then found by position, not by key.
    """
    unique = list(dict.fromkeys(keys))
    columns = ", ".join(_column(MetricSegmentScore, name) for name in ("key", "values", "stats"))
    select = (
        f"SELECT {columns} FROM {connection.ops.quote_name(MetricSegmentScore._meta.db_table)} "
        f"WHERE {_column(MetricSegmentScore, 'key')} IN "
    )
    rows: list[tuple[str, str, str | None]] = []
    with _bulk_read(), connection.cursor() as cursor:
        for start in range(0, len(unique), SCORE_LOOKUP_BATCH):
            batch = unique[start : start + SCORE_LOOKUP_BATCH]
            cursor.execute(select + f"({', '.join(['%s'] * len(batch))})", batch)
            rows.extend(cursor.fetchall())
        position = {key: r for r, (key, _, _) in enumerate(rows)}
        return StoredScores(
            np.fromiter((position.get(key, -1) for key in keys), dtype=np.int64, count=len(keys)),
            json.loads("[" + ",".join(values for _, values, _ in rows) + "]"),
            json.loads("[" + ",".join(stats or "null" for _, _, stats in rows) + "]"),
        )


def _stored_stats(stored: StoredScores, rows: NDArray[np.int64], width: int) -> tuple[NDArray[np.int64], Any]:
    """The stored statistics of ``rows`` (rows of ``stored``) that have some: (their positions in ``rows``,
    a ``(n, width)`` array, or the lists themselves when one's length is not ``width``)."""
    lists = [stored.stats[r] for r in rows.tolist()]
    present = np.fromiter((s is not None for s in lists), dtype=bool, count=len(lists))
    chosen = [s for s in lists if s is not None]
    if all(len(s) == width for s in chosen):
        return np.flatnonzero(present), np.array(chosen, dtype=float).reshape(len(chosen), width)
    return np.flatnonzero(present), chosen  # as the stored lists say (a row of another width fails as it did)


def stored_or_computed(
    metric: Metric, corpus: Corpus, progress: MetricProgress | None = None, slots: OutputSlots | None = None
) -> list[MetricOutput]:
    """The metric's outputs for the corpus, computing only the outputs whose score is not stored.

    Outputs are looked up by :func:`segment_keys`; the missing ones are computed (on the
    instances that have one, with the other outputs left out) and stored. A corpus metric is
    always called (on one instance when nothing is missing) for the function turning summed
    statistics into its score. A metric whose scores depend on the whole corpus
    (``whole_corpus``) is computed whole unless everything is stored. BERTScore's stored
    scores are those of the batches they were computed in (bert_score lets a padded zero into
    some token maxima, see :func:`evalapp.metrics.bertscore.padding_floors`). ``slots`` are the
    corpus's :func:`output_slots` when the caller has them (one per report, not one per metric).
    """
    slots = slots or output_slots(corpus)
    signature = metric.signature_for(corpus.references)
    keys = segment_keys(metric, signature, slots)
    found = _stored(keys)
    n_systems, n_instances = len(corpus.hypotheses), len(corpus.references)
    missing = found.row < 0
    if missing.any() and metric.whole_corpus:
        missing[:] = True
    missing_slots = np.flatnonzero(missing).tolist()
    is_missing = np.zeros((n_systems, n_instances), dtype=bool)
    is_missing[slots.systems[missing], slots.instances[missing]] = True
    columns = np.unique(slots.instances[missing]).tolist()
    if not columns and metric.corpus_level:
        columns = [0] if n_instances else []
    outputs = []
    if columns:
        hypotheses = [
            [corpus.hypotheses[k][i] if is_missing[k, i] else None for i in columns] for k in range(n_systems)
        ]
        outputs = metric.compute(hypotheses, [corpus.references[i] for i in columns], progress)
    names = metric.output_names()
    by_name = {output.name: output for output in outputs}
    assembled: list[MetricOutput] = []
    new_rows: dict[str, dict[str, Any]] = {}
    column_of = {i: position for position, i in enumerate(columns)}
    # the stored outputs, as arrays: their slots' system rows and instance columns, their rows in ``found``
    kept = ~missing
    kept_k, kept_i, kept_rows = slots.systems[kept], slots.instances[kept], found.row[kept]
    for name in names:
        computed = by_name.get(name)
        stats = None
        width = computed.stats.shape[2] if computed is not None and computed.stats is not None else None
        if width is None:
            width = next((len(found.stats[r]) for r in found.row.tolist() if r >= 0 and found.stats[r]), None)
        if width is not None and (computed is None or computed.stats is not None):
            stats = np.zeros((n_systems, n_instances, width))
        segment = nan_matrix(n_systems, n_instances)
        for slot in missing_slots:
            # a missing output was computed (every computed output has its segment scores, NaN where none)
            assert computed is not None and computed.segment is not None
            k, i, key = int(slots.systems[slot]), int(slots.instances[slot]), keys[slot]
            value = computed.segment[k, column_of[i]]
            row_stats = computed.stats[k, column_of[i]] if computed.stats is not None else None
            entry = new_rows.setdefault(key, {"values": {}, "stats": None})
            entry["values"][name] = float(value) if np.isfinite(value) else None
            if row_stats is not None:
                entry["stats"] = [float(v) for v in row_stats]
            if np.isfinite(value):
                segment[k, i] = value
            if stats is not None and row_stats is not None:
                stats[k, i] = row_stats
        # None (no score) becomes NaN, which stays out of the matrix as it did
        stored_values = np.array([values.get(name) for values in found.values], dtype=float)[kept_rows]
        finite = np.isfinite(stored_values)
        segment[kept_k[finite], kept_i[finite]] = stored_values[finite]
        if stats is not None:
            with_stats, stored_stats = _stored_stats(found, kept_rows, stats.shape[2])
            if isinstance(stored_stats, np.ndarray):
                stats[kept_k[with_stats], kept_i[with_stats]] = stored_stats
            else:
                for j, row_stats in zip(with_stats.tolist(), stored_stats, strict=True):
                    stats[kept_k[j], kept_i[j]] = row_stats
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


def _wanted_values(metric: ComputedMetric) -> NDArray[np.float64]:
    """The figures of one output's built-in rows, by slot: its system scores (slot k), then its segment
    scores (slot n_systems + k x n_instances + i); only the finite ones are rows (:func:`_score_rows`)."""
    segment = metric.segment.ravel() if metric.segment is not None else np.empty(0)
    return np.concatenate([np.asarray(metric.system, dtype=float), segment])


def _shaped(metric: ComputedMetric, n_systems: int, n_sampled: int) -> bool:
    """Whether the output's figures are one per system and (segment scores) one per system and sampled instance."""
    segment_shaped = metric.segment is None or metric.segment.shape == (n_systems, n_sampled)
    return np.shape(metric.system) == (n_systems,) and segment_shaped


def _stored_slots(
    rows: Sequence[tuple[Any, ...]], system_ids: NDArray[np.int64], sampled_ids: NDArray[np.int64]
) -> NDArray[np.int64] | None:
    """The slots (:func:`_wanted_values`) of stored ``(system id, instance id or None, value)`` rows; None when
    one is not a slot (a system or instance outside the report). A system-level row is the one without an
    instance (the database's ``metric_level_matches_instance`` constraint)."""
    system_column = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
    instance_column = np.fromiter((-1 if row[1] is None else row[1] for row in rows), dtype=np.int64, count=len(rows))
    system_order, sampled_order = np.argsort(system_ids), np.argsort(sampled_ids)
    k = system_order[np.searchsorted(system_ids, system_column, sorter=system_order).clip(0, len(system_ids) - 1)]
    if not len(system_ids) or not np.array_equal(system_ids[k], system_column):
        return None
    at_system = instance_column < 0
    slots = k.copy()
    if not at_system.all():
        if not len(sampled_ids):
            return None
        on = ~at_system
        position = np.searchsorted(sampled_ids, instance_column[on], sorter=sampled_order).clip(0, len(sampled_ids) - 1)
        i = sampled_order[position]
        if not np.array_equal(sampled_ids[i], instance_column[on]):
            return None
        slots[on] = len(system_ids) + k[on] * len(sampled_ids) + i
    return slots


def _unchanged(
    campaign: Campaign, system_ids: Sequence[int], sampled_ids: Sequence[int], wanted: dict[str, ComputedMetric]
) -> set[str]:
    """The metric outputs whose stored built-in rows are already exactly ``wanted``'s (signature, keys, values).

    With stored segment scores a report (another seed, new ratings) usually stores the same figures again;
    reading them back and comparing them as arrays by slot costs a fraction of replacing them, or of building
    the rows as dictionaries (:func:`_score_rows`) to compare those. Equal means: every row of the output has
    the wanted signature, and there are as many rows as finite figures, each at a distinct slot of a finite
    figure, with that figure's value (the dictionaries' equality). The rows are read by one plain ``SELECT``
    per output and level, each served by the level's unique index (a grouped count of the rows by signature
    scanned all of the campaign's rows); a row's level is system exactly when it has no instance (the
    database's ``metric_level_matches_instance`` constraint), so the two levels are every row.
    """
    if len(set(system_ids)) != len(system_ids) or len(set(sampled_ids)) != len(sampled_ids):
        return set()  # (ids repeat only if the database's unique constraints were lifted: then all is replaced)
    systems, sampled = np.array(system_ids, dtype=np.int64), np.array(sampled_ids, dtype=np.int64)
    signature, system, instance, value = (
        _column(MetricScore, name) for name in ("signature", "system", "instance", "value")
    )
    select = (
        f"SELECT {system}, {instance}, {value}, CASE WHEN {signature} = %s THEN 1 ELSE 0 END "
        f"FROM {connection.ops.quote_name(MetricScore._meta.db_table)} WHERE "
        + " AND ".join(f"{_column(MetricScore, name)} = %s" for name in ("campaign", "metric", "level", "imported"))
    )
    not_imported = _field(MetricScore, "imported").get_db_prep_value(False, connection)
    unchanged = set()
    with connection.cursor() as cursor:
        for name, metric in wanted.items():
            figures = _wanted_values(metric)
            count = int(np.isfinite(figures).sum())
            if not _shaped(metric, len(system_ids), len(sampled_ids)):
                continue
            rows: list[tuple[int, int | None, float, int]] = []
            for level in (MetricScore.Level.SYSTEM, MetricScore.Level.SEGMENT):
                cursor.execute(select, [metric.signature, campaign.pk, name, level.value, not_imported])
                with _bulk_read():
                    rows.extend(cursor.fetchall())
                if len(rows) > count:
                    break
            if len(rows) != count or not all(row[3] for row in rows):
                continue
            slots = _stored_slots(rows, systems, sampled)
            if slots is None:
                continue
            expected = figures[slots]
            values = np.fromiter((row[2] for row in rows), dtype=float, count=len(rows))
            if len(np.unique(slots)) == len(rows) and np.isfinite(expected).all() and np.array_equal(values, expected):
                unchanged.add(name)
    return unchanged


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

    An output whose stored rows are already these (same signature, same scores) is left as it is; only the
    others' rows are built (:func:`_score_rows`).
    """
    sampled_ids = list(campaign.sampled.in_use().order_by("position").values_list("instance_id", flat=True))
    wanted = {metric.name: metric for metric in computed}
    with transaction.atomic():
        unchanged = _unchanged(campaign, [system.pk for system in corpus.systems], sampled_ids, wanted)
        changed = [name for name in wanted if name not in unchanged]
        if not changed:
            return
        MetricScore.objects.filter(campaign=campaign, imported=False, metric__in=changed).delete()
        for name in changed:
            _insert_scores(campaign, name, wanted[name].signature, _score_rows(corpus, sampled_ids, wanted[name]))


def study_fingerprint(campaign: Campaign, records: Iterable[Any] | None = None) -> str:
    """A digest of everything a report's figures depend on besides its options: the counted
    ratings, the texts the metrics score (outputs and references), the imported metric scores and
    the version of the statistics' code (``METRIC_REPORT_STATISTICS_VERSION``)."""
    counted: Iterable[Any] = results.ratings_records(campaign) if records is None else records
    # one update of the records' joined reprs: the digest of the update per record it replaced
    digest = hashlib.sha256("".join([repr(tuple(record)) for record in counted]).encode())
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
