"""The metric store read as arrays (issue 22): the keys, outputs, stored rows and decisions of the code it replaced.

The replaced functions are kept below as slow references (``reference_*``): the store's keys, the outputs
assembled from stored and computed scores, the segment scores stored, the "unchanged" decision on the built-in
``MetricScore`` rows and the study's fingerprint must each equal theirs.
"""

import hashlib
import json

import numpy as np
import pytest
from django.db import transaction
from django.db.models import Count, Max

from core.defaults import METRIC_REPORT_STATISTICS_VERSION, METRIC_SCORE_CACHE_VERSION
from core.models import Reference, SystemOutput
from evalapp.metrics import registry
from evalapp.metrics.base import nan_matrix
from evalapp.metrics.sacrebleu_metrics import Chrf
from evalapp.models import MetricScore, MetricSegmentScore
from evalapp.services import results
from evalapp.services.metric_study import report as metric_study
from evalapp.services.metric_study import runs as metric_runs
from evalapp.services.metric_study import score_cache
from evalapp.services.metric_study.texts import Corpus, load_corpus
from tests.metrics.builders import build_study_campaign

pytestmark = pytest.mark.django_db
OPTIONS = {"bootstrap": 10, "permutations": 10, "seed": 1, "corpus_scope": "campaign"}


# --- the replaced code, as it was (slow references) -------------------------------------------------------------


def reference_digest(*parts):
    return hashlib.sha256("\x1d".join(parts).encode("utf-8")).hexdigest()


def reference_segment_keys(metric, signature, corpus):
    prefix = f"{METRIC_SCORE_CACHE_VERSION}\x1d{metric.key}\x1d{signature}"
    reference_digests = [reference_digest(*refs) for refs in corpus.references]
    return {
        (k, i): reference_digest(prefix, text, reference_digests[i])
        for k, outputs in enumerate(corpus.hypotheses)
        for i, text in enumerate(outputs)
        if text is not None
    }


def reference_stored(keys):
    found = {}
    for row in MetricSegmentScore.objects.filter(key__in=set(keys)).values_list("key", "values", "stats"):
        found[row[0]] = (row[1], row[2])
    return found


def reference_stored_or_computed(metric, corpus):
    signature = metric.signature_for(corpus.references)
    keys = reference_segment_keys(metric, signature, corpus)
    found = reference_stored(keys.values())
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
        outputs = metric.compute(hypotheses, [corpus.references[i] for i in columns])
    by_name = {output.name: output for output in outputs}
    assembled, new_rows = [], {}
    column_of = {i: position for position, i in enumerate(columns)}
    for name in metric.output_names():
        computed = by_name.get(name)
        stats = None
        width = computed.stats.shape[2] if computed is not None and computed.stats is not None else None
        if width is None:
            width = next((len(found[key][1] or ()) for key in keys.values() if key in found and found[key][1]), None)
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
            if value is not None and np.isfinite(value):
                segment[k, i] = value
            if stats is not None and row_stats is not None:
                stats[k, i] = row_stats
        has_segment = computed.has_segment_scores if computed is not None else metric.has_segment_scores
        from_stats = computed.from_stats if computed is not None else None
        assembled.append((name, signature, segment, stats if from_stats is not None else None, has_segment))
    if new_rows:
        created = score_cache._now_for(MetricSegmentScore, "created_at")
        score_cache._insert(
            MetricSegmentScore,
            ("key", "metric", "signature", "values", "stats", "created_at"),
            [
                (key, metric.key, signature, json.dumps(e["values"]), score_cache._json_or_null(e["stats"]), created)
                for key, e in new_rows.items()
            ],
            ignore_conflicts=True,
        )
    return assembled


def reference_score_rows(corpus, sampled_ids, metric):
    rows = {}
    for k, system in enumerate(corpus.systems):
        if np.isfinite(metric.system[k]):
            rows[(MetricScore.Level.SYSTEM, system.pk, None)] = float(metric.system[k])
        if metric.segment is not None:
            for i, instance_id in enumerate(sampled_ids):
                if np.isfinite(metric.segment[k, i]):
                    rows[(MetricScore.Level.SEGMENT, system.pk, instance_id)] = float(metric.segment[k, i])
    return rows


def reference_unchanged(campaign, wanted):
    """``wanted``: {output: (signature, its rows as reference_score_rows gives them)}."""
    stored = MetricScore.objects.filter(campaign=campaign, imported=False, metric__in=list(wanted))
    found = {}
    for metric, level, system_id, instance_id, value, signature in stored.values_list(
        "metric", "level", "system_id", "instance_id", "value", "signature"
    ):
        found.setdefault(metric, ({}, set()))[0][(level, system_id, instance_id)] = value
        found[metric][1].add(signature)
    return {
        metric
        for metric, (signature, rows) in wanted.items()
        if metric in found and found[metric][1] == {signature} and found[metric][0] == rows
    }


def reference_fingerprint(campaign, records):
    digest = hashlib.sha256()
    for record in records:
        digest.update(repr(tuple(record)).encode())
    systems = [s.pk for s in results.campaign_systems(campaign)]
    outputs = SystemOutput.objects.filter(system_id__in=systems).aggregate(n=Count("pk"), last=Max("pk"))
    references = Reference.objects.filter(instance__dataset=campaign.dataset).aggregate(n=Count("pk"), last=Max("pk"))
    imported = MetricScore.objects.filter(campaign=campaign, imported=True).aggregate(n=Count("pk"), last=Max("pk"))
    statistics = METRIC_REPORT_STATISTICS_VERSION
    digest.update(repr((sorted(systems), outputs, references, imported, campaign.human_reference, statistics)).encode())
    return digest.hexdigest()


# --- keys -----------------------------------------------------------------------------------------------------------


def test_a_key_is_the_one_stored_before_byte_for_byte():
    """A frozen key (computed by the code before this change): existing stores must still be found."""
    corpus = Corpus(
        systems=[],
        instances=[(1, "1"), (2, "2")],
        references=[["the sun rises in the east ."], ["the sun rises in the east .", "élephants are big ."]],
        hypotheses=[[None, "an elephant can not fit in a fridge é"], ["a cat", "a dog"]],
        campaign_columns=np.array([0, 1]),
    )
    metric = registry.build("chrf")
    slots = score_cache.output_slots(corpus)
    keys = score_cache.segment_keys(metric, "chrF2|nc:6|nw:0|v:2.4", slots)
    assert keys[0] == "d2382867c20f594f1dae469e4393802760707820e19a4b1d52f3742c860ca227"
    assert slots.systems.tolist() == [0, 1, 1] and slots.instances.tolist() == [1, 0, 1]
    expected = reference_segment_keys(metric, "chrF2|nc:6|nw:0|v:2.4", corpus)
    assert keys == [expected[(k, i)] for k, i in zip(slots.systems.tolist(), slots.instances.tolist(), strict=True)]
    assert score_cache.segment_keys(metric, "another", slots)[0] != keys[0]  # the signature is in the key


# --- outputs and stored segment scores ------------------------------------------------------------------------------


class WholeChrf(Chrf):
    """chrF as a metric scored whole (as BERTScore with idf is): everything computed again if one is missing."""

    whole_corpus = True


def _metric(key):
    return WholeChrf() if key == "whole_chrf" else registry.build(key)


def _segment_rows():
    return [
        (key, metric, signature, json.dumps(values, sort_keys=True), json.dumps(stats))
        for key, metric, signature, values, stats in MetricSegmentScore.objects.order_by("pk").values_list(
            "key", "metric", "signature", "values", "stats"
        )
    ]


def _both(metric_key, corpus):
    """(reference outputs and rows stored, new outputs and rows stored), from the same store."""
    savepoint = transaction.savepoint()
    reference = reference_stored_or_computed(_metric(metric_key), corpus)
    reference_rows = _segment_rows()
    transaction.savepoint_rollback(savepoint)
    outputs = score_cache.stored_or_computed(_metric(metric_key), corpus)
    new = [(o.name, o.signature, o.segment, o.stats, o.has_segment_scores) for o in outputs]
    return (reference, reference_rows), (new, _segment_rows())


def _assert_same(reference, new):
    (ref_outputs, ref_rows), (new_outputs, new_rows) = reference, new
    assert new_rows == ref_rows
    assert len(new_outputs) == len(ref_outputs)
    for ref, out in zip(ref_outputs, new_outputs, strict=True):
        assert out[0] == ref[0] and out[1] == ref[1] and out[4] == ref[4]
        np.testing.assert_array_equal(out[2], ref[2])  # NaN where the other has NaN, else equal
        assert (out[3] is None) == (ref[3] is None)
        if ref[3] is not None:
            np.testing.assert_array_equal(out[3], ref[3])


@pytest.mark.postgres
@pytest.mark.parametrize("metric_key", ["comve_bleu", "chrf", "sentbleu", "whole_chrf"])
def test_outputs_and_stored_scores_equal_the_replaced_code_when_none_some_or_all_are_stored(metric_key):
    campaign = build_study_campaign(n_instances=8, n_systems=4, sampled=6)
    corpus = load_corpus(campaign, "dataset")
    corpus.hypotheses[1][0] = corpus.hypotheses[0][0]  # two systems' identical outputs: one key, two slots
    corpus.hypotheses[2][3] = None  # an output that does not exist: no slot
    corpus.hypotheses[3][5] = ""  # an empty output is scored
    # nothing stored: everything computed and stored (the same rows in the same order)
    reference, new = _both(metric_key, corpus)
    _assert_same(reference, new)
    assert len(new[1]) == 8 * 4 - 2
    # everything stored: nothing computed for a segment metric, one instance for a corpus metric
    _assert_same(*_both(metric_key, corpus))
    # some stored, one of them without statistics (stored before statistics were kept): zeros there, as before
    rng = np.random.default_rng(3)
    keys = list(MetricSegmentScore.objects.order_by("pk").values_list("key", flat=True))
    MetricSegmentScore.objects.filter(key__in=list(rng.choice(keys, 9, replace=False))).delete()
    kept = MetricSegmentScore.objects.order_by("pk").first()
    MetricSegmentScore.objects.filter(pk=kept.pk).update(stats=None)
    _assert_same(*_both(metric_key, corpus))


def test_stored_statistics_of_another_width_fail_as_they_did():
    """A stored row of statistics whose length is not the others' is not silently reshaped."""
    campaign = build_study_campaign(n_instances=4, n_systems=2)
    corpus = load_corpus(campaign, "campaign")
    score_cache.stored_or_computed(registry.build("chrf"), corpus)
    row = MetricSegmentScore.objects.order_by("pk").last()
    MetricSegmentScore.objects.filter(pk=row.pk).update(stats=row.stats + [1.0])
    with pytest.raises(ValueError):
        reference_stored_or_computed(registry.build("chrf"), corpus)
    with pytest.raises(ValueError):
        score_cache.stored_or_computed(registry.build("chrf"), corpus)


def test_the_stored_scores_are_found_by_position_with_repeated_and_unknown_keys():
    campaign = build_study_campaign(n_instances=3, n_systems=2)
    corpus = load_corpus(campaign, "campaign")
    score_cache.stored_or_computed(registry.build("sentbleu"), corpus)
    stored = list(MetricSegmentScore.objects.order_by("pk").values_list("key", "values"))
    keys = [stored[2][0], "0" * 64, stored[0][0], stored[2][0]]
    found = score_cache._stored(keys)
    assert found.row.tolist()[1] == -1 and found.row[0] == found.row[3]
    assert [found.values[r] for r in found.row.tolist() if r >= 0] == [stored[2][1], stored[0][1], stored[2][1]]
    assert found.stats == [None, None]


# --- the built-in MetricScore rows: unchanged or not ----------------------------------------------------------------


def _decisions(campaign, corpus, computed):
    sampled = list(campaign.sampled.in_use().order_by("position").values_list("instance_id", flat=True))
    wanted = {m.name: (m.signature, reference_score_rows(corpus, sampled, m)) for m in computed}
    new = score_cache._unchanged(campaign, [s.pk for s in corpus.systems], sampled, {m.name: m for m in computed})
    return reference_unchanged(campaign, wanted), new


@pytest.mark.postgres
def test_unchanged_rows_are_told_as_the_replaced_code_told_them():
    campaign = build_study_campaign(n_instances=8, n_systems=4, sampled=6)
    corpus = load_corpus(campaign, "campaign")
    names = ["comve_bleu", "chrf", "sentbleu"]
    computed = score_cache.compute_builtin(campaign, names, "campaign", corpus=corpus)
    rows = MetricScore.objects.filter(campaign=campaign, imported=False)
    everything = {"comve_bleu", "chrf", "sentbleu"}
    assert _decisions(campaign, corpus, computed) == (everything, everything)
    outside = next(
        pk for pk in campaign.dataset.instances.values_list("pk", flat=True) if not rows.filter(instance=pk).exists()
    )
    segment = rows.filter(metric="sentbleu", level="segment").order_by("pk")
    system = rows.filter(metric="chrf", level="system").order_by("pk")

    def extra_row(metric, signature):
        kept = {"campaign": campaign, "level": "segment", "system": corpus.systems[0], "value": 0.5}
        MetricScore.objects.create(metric=metric, instance_id=outside, signature=signature, **kept)

    changes = [
        # one value one ulp off
        lambda: segment.filter(pk=segment[3].pk).update(value=np.nextafter(segment[3].value, 2.0)),
        lambda: system.filter(pk=system[1].pk).update(value=np.nextafter(system[1].value, -2.0)),
        # a row missing
        lambda: segment.filter(pk=segment[0].pk).delete(),
        lambda: system.filter(pk=system[0].pk).delete(),
        # one row of another signature
        lambda: segment.filter(pk=segment[5].pk).update(signature="another"),
        # a row at an instance outside the campaign's sample, instead of its own
        lambda: segment.filter(pk=segment[2].pk).update(instance_id=outside),
        # a row too many (another instance), one too many of another signature
        lambda: extra_row("sentbleu", segment[0].signature),
        lambda: extra_row("chrf", "old"),
    ]
    for change in changes:
        savepoint = transaction.savepoint()
        change()
        reference, new = _decisions(campaign, corpus, computed)
        assert new == reference and len(new) == 2, change
        transaction.savepoint_rollback(savepoint)
    sampled_ids = list(campaign.sampled.in_use().order_by("position").values_list("instance_id", flat=True))
    # an infinite score now and stored (no row wanted there), and a row missing elsewhere: as many rows, changed
    savepoint = transaction.savepoint()
    finite = computed[2].segment[0, 1]
    computed[2].segment[0, 1] = np.inf
    segment.filter(system=corpus.systems[0], instance_id=sampled_ids[1]).update(value=np.inf)
    segment.filter(pk=segment[7].pk).delete()
    reference, new = _decisions(campaign, corpus, computed)
    assert new == reference == {"comve_bleu", "chrf"}
    transaction.savepoint_rollback(savepoint)
    computed[2].segment[0, 1] = finite
    # a score not finite now (no row wanted) where a row is stored: changed
    computed[2].segment[0, 0] = np.nan
    reference, new = _decisions(campaign, corpus, computed)
    assert new == reference == {"comve_bleu", "chrf"}
    # a report over other systems (a system's rows map to no slot): changed
    other = [s.pk for s in corpus.systems][::-1]
    wanted = {m.name: m for m in computed[:2]}
    assert score_cache._unchanged(campaign, other, sampled_ids, wanted) == set()
    assert score_cache._unchanged(campaign, other[:1] * 4, sampled_ids, wanted) == set()  # ids repeated: all replaced


# --- the fingerprint ------------------------------------------------------------------------------------------------


def test_the_fingerprint_is_the_one_computed_before_and_computed_once_per_report(monkeypatch):
    campaign = build_study_campaign(n_instances=4, n_systems=3)
    records = results.ratings_records(campaign)
    fingerprint = score_cache.study_fingerprint(campaign, records)
    assert fingerprint == reference_fingerprint(campaign, records)
    assert score_cache.study_fingerprint(campaign, list(records)) == fingerprint  # records as tuples: the same
    assert score_cache.study_fingerprint(campaign, records[:-1] if isinstance(records, list) else []) != fingerprint
    calls = []
    real = score_cache.study_fingerprint

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(metric_runs, "study_fingerprint", counted)
    monkeypatch.setattr(metric_study, "study_fingerprint", counted)
    run, reused = metric_runs.report_for(campaign, ["sentbleu"], OPTIONS)
    assert not reused and len(calls) == 1 and run.report["fingerprint"] == fingerprint
    run, reused = metric_runs.report_for(campaign, ["sentbleu"], OPTIONS, fresh=True)
    assert not reused and len(calls) == 2 and run.report["fingerprint"] == fingerprint  # fresh: the report's own


def test_a_bulk_read_pauses_the_collector_and_leaves_it_as_it_found_it():
    import gc

    assert gc.isenabled()
    with pytest.raises(RuntimeError), score_cache._bulk_read():
        assert not gc.isenabled()
        raise RuntimeError("a failed read")
    assert gc.isenabled()  # on again, after an error too
    gc.disable()
    try:
        with score_cache._bulk_read():
            assert not gc.isenabled()
        assert not gc.isenabled()  # off before: left off
    finally:
        gc.enable()
