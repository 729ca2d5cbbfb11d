"""Results of a campaign for organizers and researchers: the one import path for every result.

Commands, web views, the API and the metric study call these functions. What counts is the
domain's rule (:meth:`core.models.RatingQuerySet.counted`): ratings of system items (never control
items), from raters not excluded from the campaign, made through a door the campaign opened
(:mod:`core.doors`); an item that stands for several systems' identical outputs counts for each of them.
The aggregation runs in the database and NumPy, never a Python loop per rating: Table 6, the
intervals and the clusters read per-item sums and counts (``GROUP BY item``, a few hundred
thousand integer rows for a million ratings); only the consumers that need single ratings
(the metric study's histograms, the long export) read per-rating rows, as integer codes.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any

import numpy as np
from django.core.cache import cache
from django.db import connections
from django.db.models import BigIntegerField, Count, ExpressionWrapper, F, Max, Model, Q, QuerySet
from django.db.models.expressions import Combinable
from numpy.typing import ArrayLike, NDArray

from core.defaults import (
    ADJUSTED_INLINE_MAX_RATINGS,
    ADJUSTED_QUEUE_SECONDS,
    CONFIDENCE_LEVEL,
    DEFAULT_CLUSTER_RULE,
    DEFAULT_PERMUTATIONS,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    DEFAULT_TABLE6_RESAMPLES,
    MAX_ADJUSTED_LEVELS,
    PACKED_BITS,
    PACKED_ID_MARGIN,
    RECORD_DIGITS,
    RESULTS_CACHE_SECONDS,
    SCORE_MAX,
    SIGNIFICANCE_ALPHA,
)
from core.models import (
    Campaign,
    Instance,
    Item,
    ItemOutput,
    Rater,
    Rating,
    System,
    SystemOutput,
    SystemRetirement,
    rater_label,
)
from evalapp.compute import agreement as agreement_compute
from evalapp.compute import bootstrap as bootstrap_compute
from evalapp.compute import rater_effects as rater_effects_compute
from evalapp.compute import rater_uncertainty
from evalapp.compute import significance as significance_compute
from evalapp.compute.human_score import (
    CountedRatings,
    RatingRecords,
    ScoreMatrix,
    matrix_system_scores,
    score_matrix,
)
from evalapp.compute.ranks import BLEU_DIGITS, HUMAN_DIGITS, competition_ranks
from evalapp.compute.table6 import IntervalSettings, SecondaryColumns, Significance, Table6, Table6Row
from evalapp.models import Submission
from evalapp.services import background

# Integer columns of a million rows are read packed into one BIGINT per row (:func:`_packed_columns`): a
# rating is (item id x raters + rater id) x 4 + score (scores are 0-3, a constraint of the rating table).
PACKED_SCORE_LIMIT = SCORE_MAX + 1


def _int_columns(queryset: QuerySet[Any], fields: tuple[str, ...]) -> list[NDArray[np.int64]]:
    """The integer columns ``fields`` of ``queryset`` as int64 arrays, through one cursor fetch of the
    queryset's own SQL (no model instance and no per-row converter, which cost more than the query)."""
    sql, params = queryset.values_list(*fields).order_by().query.sql_with_params()
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    flat = np.fromiter(itertools.chain.from_iterable(rows), dtype=np.int64, count=len(rows) * len(fields))
    table = flat.reshape(len(rows), len(fields))
    return [table[:, k] for k in range(len(fields))]


def _packed_columns(
    queryset: QuerySet[Any], fields: tuple[str, ...], bounds: tuple[int, ...], ordered: bool = False
) -> list[NDArray[np.int64]]:
    """The non-negative integer columns ``fields`` (each below its ``bounds``) read as one BIGINT per row, mixed
    radix, when they fit in :data:`PACKED_BITS` bits (else as separate columns): a million rows without a tuple
    each. ``ordered``: the rows sorted by the fields in turn (one integer sort when packed)."""
    if math.prod(bounds) >= 2**PACKED_BITS:
        columns = _int_columns(queryset, fields)
        if ordered:
            order = np.lexsort(columns[::-1])
            columns = [column[order] for column in columns]
        return columns
    packed: Combinable = F(fields[0])
    for name, bound in zip(fields[1:], bounds[1:]):
        packed = packed * bound + F(name)
    (values,) = _int_columns(queryset.annotate(packed=ExpressionWrapper(packed, BigIntegerField())), ("packed",))
    if ordered:
        values.sort()
    unpacked = []
    for bound in reversed(bounds[1:]):
        values, column = np.divmod(values, bound)
        unpacked.append(column)
    return [values, *reversed(unpacked)]


def _id_bound(model: type[Model]) -> int:
    """An exclusive upper bound of ``model``'s ids, with room for ids made while a read runs."""
    return int(model._default_manager.aggregate(top=Max("pk"))["top"] or 0) + PACKED_ID_MARGIN


def counted_ratings(campaign: Campaign) -> CountedRatings:
    """Every counted rating of the campaign (:meth:`core.models.RatingQuerySet.counted`, the one rule) as the
    integer arrays of :class:`~evalapp.compute.human_score.CountedRatings`: one read of the ratings (packed
    into one integer each) and the items' systems and instances (:func:`_shown_by_items`)."""
    counted = Rating.objects.counted(campaign)
    item, rater, score = _packed_columns(
        counted, ("item_id", "rater_id", "score"), (_id_bound(Item), _id_bound(Rater), PACKED_SCORE_LIMIT), True
    )
    return CountedRatings.from_arrays(item, rater, score, *_shown_by_items(campaign))


def _shown_by_items(campaign: Campaign) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """(item ids, system ids, instance ids): each item of the campaign and the systems whose outputs it shows.

    Read as two tables without a join (the items' outputs, and those outputs' systems and instances: an item
    shows outputs of its own instance), matched in NumPy. Items and what they show are made with the campaign
    and never change (:mod:`evalapp.services.campaigns`), so they are also kept in the cache under the
    campaign's id and creation time.
    """
    key = f"comve:shown:{campaign.pk}:{campaign.created_at.isoformat()}"
    found = cache.get(key)
    if found is None:
        output_bound = _id_bound(SystemOutput)
        linked, outputs = _packed_columns(
            ItemOutput.objects.filter(campaign=campaign), ("item_id", "output_id"), (_id_bound(Item), output_bound)
        )
        output_ids, systems, instances = _packed_columns(
            SystemOutput.objects.filter(pk__in=ItemOutput.objects.filter(campaign=campaign).values("output_id")),
            ("pk", "system_id", "instance_id"),
            (output_bound, _id_bound(System), _id_bound(Instance)),
            True,
        )
        position = np.searchsorted(output_ids, outputs)
        system_of, instance_of = systems[position], instances[position]
        found = (linked, system_of, instance_of)
        cache.set(key, found, RESULTS_CACHE_SECONDS)
    return found


def ratings_records(campaign: Campaign) -> RatingRecords:
    """Every counted rating as (instance external id, system name, rater id, score) records.

    A :class:`RatingRecords` (parallel NumPy arrays; iterating yields the tuples), ordered by
    instance id, system name and rater. An item shared by several systems' identical outputs
    yields one record per system. The rows are read as integers; names come from small lookups.
    """
    rows = (
        Rating.objects.counted_per_system(campaign)
        .values_list("item__instance_id", "item__item_outputs__output__system_id", "rater_id", "score")
        .order_by()
    )
    table = np.fromiter(
        rows, dtype=[("instance", np.int64), ("system", np.int64), ("rater", np.int64), ("score", np.int64)]
    )
    if not len(table):
        return RatingRecords.empty()
    instances, instance_codes = _labels(table["instance"], _instance_names)
    systems, system_codes = _labels(table["system"], _system_names)
    order = np.lexsort((table["rater"], _label_ranks(systems)[system_codes], _label_ranks(instances)[instance_codes]))
    return RatingRecords(
        instances[instance_codes[order]],
        systems[system_codes[order]],
        table["rater"][order].astype(object),
        table["score"][order],
    )


def _labels(
    ids: NDArray[np.int64], names_of: Callable[[list[int]], Mapping[int, str]]
) -> tuple[NDArray[Any], NDArray[np.int64]]:
    """(label array of the distinct ``ids``, code of each id into it); ``names_of(ids)`` -> {id: label}."""
    distinct, codes = np.unique(ids, return_inverse=True)
    names = names_of(distinct.tolist())
    labels = np.empty(len(distinct), dtype=object)
    labels[:] = [names[pk] for pk in distinct.tolist()]
    return labels, codes


def _label_ranks(labels: NDArray[Any]) -> NDArray[np.int64]:
    """Rank of each label in sorted order, so integer codes sort as their labels do."""
    ranks = np.empty(len(labels), dtype=np.int64)
    ranks[sorted(range(len(labels)), key=labels.__getitem__)] = np.arange(len(labels))
    return ranks


def _instance_names(ids: Iterable[int]) -> dict[int, str]:
    return dict(Instance.objects.filter(pk__in=ids).values_list("pk", "external_id"))


def _system_names(ids: Iterable[int]) -> dict[int, str]:
    return dict(System.objects.filter(pk__in=ids).values_list("pk", "name"))


def rating_rows(
    campaign: Campaign,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[Any], NDArray[np.int64], NDArray[np.int64]]:
    """Every counted rating once per system it counts for, as parallel arrays
    ``(rating ids, instance ids, system names, rater ids, scores)`` (integers but the names)."""
    rows = (
        Rating.objects.counted_per_system(campaign)
        .values_list("id", "item__instance_id", "item__item_outputs__output__system_id", "rater_id", "score")
        .order_by("id", "item__item_outputs__output__system_id")
    )
    table = np.fromiter(
        rows,
        dtype=[
            ("id", np.int64),
            ("instance", np.int64),
            ("system", np.int64),
            ("rater", np.int64),
            ("score", np.int64),
        ],
    )
    if not len(table):
        return table["id"], table["instance"], np.empty(0, dtype=object), table["rater"], table["score"]
    systems, system_codes = _labels(table["system"], _system_names)
    return table["id"], table["instance"], systems[system_codes], table["rater"], table["score"]


@dataclass(frozen=True)
class RaterEffects:
    """The secondary figures of Table 6: ``z`` ({name: mean z or None}), the mixed model's ``fit``, and
    ``problem``: why neither can be estimated (None when they can)."""

    z: dict[str, float | None]
    fit: rater_effects_compute.MixedModelFit
    problem: str | None = None

    def secondary(self) -> SecondaryColumns:
        """The secondary columns' record of Table 6 (their methods, the fit, why they are empty if they are)."""
        return SecondaryColumns(self.fit, self.problem)


def rater_z_means(
    campaign: Campaign, names: Sequence[str], counted: CountedRatings | None = None
) -> dict[str, float | None]:
    """``{name: mean z or None}`` (``human_z``) from the per rater and per (system, rater) sums of the counted
    ratings (:func:`evalapp.compute.rater_effects.system_z_from_totals`), never a z-score per rating."""
    counted = counted_ratings(campaign) if counted is None else counted
    systems, raters, rows, sums = counted.system_rater_cells()
    labels = _system_names(sorted(set(systems.tolist())))
    return rater_effects_compute.system_z_from_totals(
        *counted.rater_totals(), [labels[pk] for pk in systems.tolist()], raters, rows, sums, names
    )


def _fit_key(campaign: Campaign, names: Sequence[str], counted: CountedRatings) -> str:
    """The mixed model's cache key: the counted ratings' fingerprint (a new, excluded or reconciled rating
    changes it) and the systems asked for."""
    text = counted.fingerprint() + "\x1d" + "\x1f".join(names)
    return f"comve:adjusted:{campaign.pk}:{hashlib.sha256(text.encode()).hexdigest()}"


def _unfitted(names: Iterable[str], problem: str) -> rater_effects_compute.MixedModelFit:
    return rater_effects_compute.MixedModelFit(
        dict.fromkeys(names, rater_effects_compute.NOT_ESTIMATED),
        False,
        None,
        None,
        None,
        CONFIDENCE_LEVEL,
        problem,
    )


def fit_rater_effects(
    campaign: Campaign, names: Sequence[str], key: str | None = None
) -> rater_effects_compute.MixedModelFit:
    """Fit the mixed model on every counted rating row and keep it in the cache under ``key`` (default:
    the key of the current ratings); what the background task runs, and the inline fit of a small
    campaign. Above ``MAX_ADJUSTED_LEVELS`` raters and instances together it is not fitted, and says so."""
    key = _fit_key(campaign, names, counted_ratings(campaign)) if key is None else key
    ids, instances, systems, raters, scores = rating_rows(campaign)
    if len(np.unique(raters)) + len(np.unique(instances)) > MAX_ADJUSTED_LEVELS:
        fit = _unfitted(names, f"not fitted: more than {MAX_ADJUSTED_LEVELS} raters and instances together")
    else:
        fit = rater_effects_compute.mixed_model(
            instances, systems, raters, scores, names, weights=rater_effects_compute.shared_weights(ids)
        )
    cache.set(key, fit, RESULTS_CACHE_SECONDS)
    return fit


def rater_effects(
    campaign: Campaign, names: Sequence[str] | None = None, wait: bool = False, counted: CountedRatings | None = None
) -> RaterEffects:
    """:class:`RaterEffects` of the campaign's systems (``names``; default every system of the campaign).

    Neither column is estimated when the raters cannot be told apart
    (:func:`evalapp.compute.rater_effects.ratings_per_rater_problem`; then both are None and
    ``problem`` says why). ``human_z`` comes from grouped sums (:func:`rater_z_means`). A shared item's
    rating enters the mixed model once (its rows weighted 1/m). The mixed model is fitted once per state of
    the counted ratings (:meth:`CountedRatings.fingerprint`: a new, excluded or reconciled rating refits it)
    and kept in Django's cache: up to ``ADJUSTED_INLINE_MAX_RATINGS`` ratings (or with ``wait``) where it is
    asked for, above that by the background worker, and until it is ready the fit says
    :data:`ADJUSTED_BEING_COMPUTED` (page, API and command alike). ``counted``: the campaign's
    :func:`counted_ratings` when the caller has read them already.
    """
    names = [s.name for s in campaign_systems(campaign)] if names is None else list(names)
    counted = counted_ratings(campaign) if counted is None else counted
    problem = rater_effects_compute.ratings_per_rater_problem(counted.rater_totals()[1])
    if problem is not None:
        return RaterEffects(dict.fromkeys(names), _unfitted(names, problem), problem)
    z = rater_z_means(campaign, names, counted)
    key = _fit_key(campaign, names, counted)
    fit = cache.get(key)
    if fit is None:
        if wait or counted.ratings <= ADJUSTED_INLINE_MAX_RATINGS:
            fit = fit_rater_effects(campaign, names, key)
        else:
            _queue_fit(campaign, names, key)
            # an immediate task backend (development, tests) has fitted it already
            fit = cache.get(key) or _unfitted(names, ADJUSTED_BEING_COMPUTED)
    return RaterEffects(z, fit)


ADJUSTED_BEING_COMPUTED = (
    "being computed by the background worker (python manage.py db_worker); "
    "export again in a minute, or use export_table6 --wait-adjusted"
)


def _queue_fit(campaign: Campaign, names: Sequence[str], key: str) -> None:
    """Queue the background fit of this state once (``cache.add`` is atomic: one of many callers wins)."""
    if cache.add(f"{key}:queued", True, ADJUSTED_QUEUE_SECONDS):
        background.enqueue(background.RATER_EFFECTS_FIT, campaign.pk, names)


def digest(*columns: ArrayLike) -> str:
    """A SHA-256 of the given arrays and name lists (the state of the ratings a figure was made from)."""
    hasher = hashlib.sha256()
    for column in columns:
        column = np.asarray(column)
        hasher.update(column.tobytes() if column.dtype != object else "\x1f".join(map(str, column)).encode())
        hasher.update(b"\x1e")
    return hasher.hexdigest()


def _campaign_matrix(
    campaign: Campaign, systems: Sequence[System] | None = None, counted: CountedRatings | None = None
) -> ScoreMatrix:
    """The :class:`ScoreMatrix` of the counted ratings (:func:`counted_ratings`): each rating credited to every
    system whose output its item shows, on its instance; systems and instances as :func:`cell_matrix` orders them."""
    systems = campaign_systems(campaign) if systems is None else systems
    counted = counted_ratings(campaign) if counted is None else counted
    return counted.score_matrix(
        _system_names,
        _instance_names,
        [s.name for s in systems],
        campaign_instance_ids(campaign),
    )


def campaign_systems(campaign: Campaign) -> list[System]:
    """Systems of the campaign (its list plus any system with an item in it), Human first, then by name."""
    rated = ItemOutput.objects.filter(campaign=campaign).values("output__system_id")
    systems = System.objects.filter(Q(campaigns=campaign) | Q(pk__in=rated)).distinct()
    return sorted(systems, key=lambda s: (not s.is_human, s.name.lower(), s.pk))


def campaign_instance_ids(campaign: Campaign) -> list[str]:
    """External ids of the sampled instances that count (not retired), in sample order."""
    return list(campaign.sampled.in_use().order_by("position").values_list("instance__external_id", flat=True))


def retired_instances(campaign: Campaign) -> tuple[tuple[str, str], ...]:
    """``(external id, reason)`` of the campaign's retired instances, in sample order: Table 6's footnote."""
    return tuple(campaign.sampled.retired().order_by("position").values_list("instance__external_id", "retired_reason"))


def human_scores(
    campaign: Campaign, records: RatingRecords | None = None, matrix: ScoreMatrix | None = None
) -> dict[str, dict[str, Any]]:
    """Formula (1) per system name: ``{name: {"human", "ratings", "expected_ratings", "complete"}}``.

    ``human`` is the mean over the ratings present (None without ratings); ``complete`` says
    whether all N*M expected ratings are there (see :mod:`evalapp.compute.human_score`).
    Computed from ``matrix`` or ``records`` when given, else from sums made in the database.
    """
    if matrix is None:
        matrix = _campaign_matrix(campaign) if records is None else instance_score_matrix(campaign, records)
    scores = matrix_system_scores(matrix, campaign.sampled.in_use().count(), campaign.raters_per_item)
    return {name: score.as_dict() for name, score in scores.items()}


def full_submission_bleu(systems: Sequence[System]) -> dict[int, float | None]:
    """``{system id: official BLEU}`` of each system's latest submission; None when it is partial or absent.

    The latest submission defines the outputs that were rated, so an older full submission's
    BLEU would describe other outputs and is not used.
    """
    latest: dict[int, Submission] = {}
    for submission in Submission.objects.filter(system__in=systems).order_by("system_id", "-created_at", "-id"):
        latest.setdefault(submission.system_id, submission)
    return {
        system.pk: (None if system.pk not in latest or latest[system.pk].partial else latest[system.pk].official_bleu)
        for system in systems
    }


def instance_score_matrix(
    campaign: Campaign, records: RatingRecords | None = None, systems: Sequence[System] | None = None
) -> ScoreMatrix:
    """:class:`~evalapp.compute.human_score.ScoreMatrix` of the campaign: systems x sampled instances."""
    if records is None:
        return _campaign_matrix(campaign, systems)
    names = [s.name for s in (campaign_systems(campaign) if systems is None else systems)]
    return score_matrix(records, names, campaign_instance_ids(campaign))


def bootstrap_intervals(
    campaign: Campaign,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = CONFIDENCE_LEVEL,
    matrix: ScoreMatrix | None = None,
) -> dict[str, Any]:
    """``{system name: Interval}``: percentile bootstrap of each human score, resampling instances."""
    matrix = instance_score_matrix(campaign) if matrix is None else matrix
    if not matrix.instances:
        return {}
    intervals = bootstrap_compute.ratio_intervals(matrix.sums, matrix.counts, resamples, seed, level)
    return dict(zip(matrix.systems, intervals))


@dataclass(frozen=True)
class RaterAwareUncertainty:
    """The rater-aware variances of every system mean and pairwise difference
    (:mod:`evalapp.compute.rater_uncertainty`), over the systems ``names``."""

    names: list[str]
    contrasts: rater_uncertainty.Contrasts
    raters: int
    instances: int

    @property
    def fallback_reason(self) -> str | None:
        return self.contrasts.fallback_reason

    def intervals(self, level: float = CONFIDENCE_LEVEL) -> dict[str, rater_uncertainty.TInterval]:
        """``{system name: TInterval}``."""
        return dict(zip(self.names, rater_uncertainty.intervals(self.contrasts, level)))

    def settings(self, level: float = CONFIDENCE_LEVEL) -> IntervalSettings:
        """How the intervals were made: method, level, the design's size and any fallback."""
        return IntervalSettings(
            rater_uncertainty.method_name("interval", self.fallback_reason),
            level,
            self.raters,
            self.instances,
            self.fallback_reason,
        )

    def pair(self, first: str, second: str) -> tuple[float, float, float]:
        """(difference first - second, variance, df) of two of ``names``."""
        differences, variances, dfs = self.pairs_of([first], [second])
        return float(differences[0]), float(variances[0]), float(dfs[0])

    def pairs_of(
        self, firsts: Sequence[str], seconds: Sequence[str]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Arrays (differences first - second, variances, df) of the pairs ``zip(firsts, seconds)`` of ``names``;
        a pair's place in :attr:`Contrasts.pairs` (``combinations`` order) is computed, not searched."""
        position = {name: k for k, name in enumerate(self.names)}
        a = np.array([position[name] for name in firsts], dtype=np.int64)
        b = np.array([position[name] for name in seconds], dtype=np.int64)
        low, high, n = np.minimum(a, b), np.maximum(a, b), len(self.names)
        index = low * (2 * n - low - 1) // 2 + (high - low - 1)
        differences = self.contrasts.means[a] - self.contrasts.means[b]
        return differences, self.contrasts.pair_variance[index], self.contrasts.pair_df[index]


def rater_aware_uncertainty(
    campaign: Campaign, systems: Sequence[System] | None = None, counted: CountedRatings | None = None
) -> RaterAwareUncertainty:
    """:class:`RaterAwareUncertainty` of the campaign's counted ratings (every system of ``systems``)."""
    names = [s.name for s in (campaign_systems(campaign) if systems is None else systems)]
    counted = counted_ratings(campaign) if counted is None else counted
    system_names = _system_names(sorted(set(counted.shown_system.tolist())))
    design = rater_uncertainty.RatingDesign.from_counted(counted, system_names, names)
    return RaterAwareUncertainty(names, rater_uncertainty.contrasts(design), design.n_raters, design.n_instances)


def significance_clusters(
    campaign: Campaign,
    alpha: float = SIGNIFICANCE_ALPHA,
    rule: str = DEFAULT_CLUSTER_RULE,
    uncertainty: RaterAwareUncertainty | None = None,
    scores: Mapping[str, Mapping[str, Any]] | None = None,
) -> Significance:
    """Clusters of the team systems under ``rule`` ("holm" or "wmt"), from the rater-aware tests of the
    displayed formula (1) differences (the Human pseudo-system is not ranked, as in Table 6)."""
    systems = campaign_systems(campaign)
    uncertainty = rater_aware_uncertainty(campaign, systems) if uncertainty is None else uncertainty
    scores = human_scores(campaign) if scores is None else scores
    teams = [s.name for s in systems if not s.is_human and scores[s.name]["human"] is not None]
    teams.sort(key=lambda name: (-scores[name]["human"], name))
    pairs = list(combinations(teams, 2))
    differences, variances, dfs = uncertainty.pairs_of([a for a, _ in pairs], [b for _, b in pairs])
    one_sided = rater_uncertainty.one_sided_pvalues(differences, variances, dfs)
    comparisons = significance_compute.ruled_comparisons(
        teams, differences, np.sqrt(np.maximum(variances, 0.0)), dfs, one_sided, alpha, rule
    )
    comparisons = [
        significance_compute.RuledComparison(
            c.better,
            c.worse,
            _rounded(c.difference),
            _rounded(c.standard_error),
            round(c.df, 6),
            _rounded(c.p_value),
            _rounded(c.p_holm),
            c.significant,
        )
        for c in comparisons
    ]
    numbers = significance_compute.ruled_clusters(teams, comparisons, alpha, rule)
    return Significance(
        rater_uncertainty.method_name("test", uncertainty.fallback_reason),
        rule,
        alpha,
        dict(zip(teams, numbers)),
        comparisons,
    )


def _rounded(value: float, digits: int = RECORD_DIGITS) -> float:
    """Figures of the significance record rounded far below display, so files are identical across platforms."""
    return round(float(value), digits)


def table6(
    campaign: Campaign,
    bootstrap: int = DEFAULT_TABLE6_RESAMPLES,
    seed: int = DEFAULT_SEED,
    permutations: int = DEFAULT_PERMUTATIONS,
    secondary: bool = True,
    clusters: str = DEFAULT_CLUSTER_RULE,
) -> Table6:
    """Table 6 of the campaign: the Human pseudo-system first (human score only), then the teams by BLEU rank.

    BLEU is the official BLEU of the team's full submission (None for a partial one); ranks are
    competition ranks on the displayed values (protocol.md#table6). With ``bootstrap`` > 0 every row also gets its
    rater-aware 95% interval (``ci``) and every team its significance ``cluster`` under the rule
    ``clusters`` ("holm" or "wmt"); the intervals are analytic, so ``bootstrap``, ``seed`` and
    ``permutations`` only switch them on (they are kept so that former requests still work). With
    ``secondary`` (every export) every row gets the rater-effect columns ``human_z`` and
    ``human_adjusted`` with its interval (:func:`rater_effects`); the live preview leaves them out.
    """
    systems = campaign_systems(campaign)
    counted = counted_ratings(campaign)
    matrix = _campaign_matrix(campaign, systems, counted)
    scores = human_scores(campaign, matrix=matrix)
    teams = [s for s in systems if not s.is_human]
    humans = [s for s in systems if s.is_human]
    bleu = full_submission_bleu(teams)
    bleu_ranks = competition_ranks([bleu[s.pk] for s in teams], BLEU_DIGITS)
    human_ranks = competition_ranks([scores[s.name]["human"] for s in teams], HUMAN_DIGITS)
    team_rows = sorted(
        (
            (s, Table6Row(s.name, s.marker, bleu[s.pk], bleu_rank, human_rank=human_rank, **scores[s.name]))
            for s, bleu_rank, human_rank in zip(teams, bleu_ranks, human_ranks)
        ),
        key=lambda pair: _team_order(pair[1]),
    )
    human_rows = [
        (s, Table6Row(System.HUMAN_NAME, "", None, None, human_rank=None, is_human=True, **scores[s.name]))
        for s in humans
    ]
    pairs = human_rows + team_rows
    intervals: IntervalSettings | None = None
    significance: Significance | None = None
    if bootstrap:
        uncertainty = rater_aware_uncertainty(campaign, systems, counted)
        cis = uncertainty.intervals()
        found = significance_clusters(campaign, rule=clusters, uncertainty=uncertainty, scores=scores)
        pairs = [
            (
                system,
                replace(
                    row,
                    ci=cis[system.name] if cis[system.name].low is not None else None,
                    cluster=None if row.is_human else found.clusters.get(system.name),
                ),
            )
            for system, row in pairs
        ]
        intervals = uncertainty.settings()
        significance = found
    effects: SecondaryColumns | None = None
    if secondary:
        columns = rater_effects(campaign, [s.name for s in systems], counted=counted)
        pairs = [(system, _with_secondary(row, columns, system.name)) for system, row in pairs]
        effects = columns.secondary()
    retired = tuple(
        SystemRetirement.objects.filter(campaign=campaign)
        .order_by("system__name")
        .values_list("system__name", "instances")
    )
    return Table6(
        campaign.name,
        tuple(row for _, row in pairs),
        campaign.raters_per_item,
        campaign.sampled.in_use().count(),
        intervals,
        significance,
        effects,
        Rating.objects.left_out(campaign),
        retired,
        retired_instances(campaign),
    )


def _with_secondary(row: Table6Row, columns: RaterEffects, name: str) -> Table6Row:
    """``row`` with its secondary columns: ``human_z`` and the mixed model's estimate with its interval."""
    score = columns.fit.scores[name]
    return replace(
        row,
        human_z=columns.z[name],
        human_adjusted=score.estimate,
        human_adjusted_low=score.low,
        human_adjusted_high=score.high,
    )


def score_distribution(campaign: Campaign) -> dict[str, list[int]]:
    """``{system name: [count of 0, of 1, of 2, of 3]}`` over the counted ratings (a shared item's rating
    counts for each of its systems, as in formula (1))."""
    rows = list(
        Rating.objects.counted_per_system(campaign)
        .values_list("item__item_outputs__output__system_id", "score")
        .annotate(n=Count("id"))
        .order_by()
    )
    names = _system_names(sorted({system for system, _, _ in rows}))
    result = {name: [0, 0, 0, 0] for name in names.values()}
    for system, score, count in rows:
        if 0 <= score < len(result[names[system]]):
            result[names[system]][score] += count
    return result


def _team_order(row: Table6Row) -> tuple[bool, int, float, str]:
    """Table 6 order: BLEU rank (teams without BLEU last), then human score, then name."""
    human = row.human if row.human is not None else float("-inf")
    return (row.bleu_rank is None, row.bleu_rank or 0, -human, row.team.lower())


def agreement_report(campaign: Campaign) -> dict[str, Any]:
    """Agreement (protocol.md#agreement) over the system items (one unit per item, counted ratings only)."""
    rows = np.array(list(Rating.objects.counted(campaign).values_list("item_id", "rater_id", "score")), dtype=np.int64)
    rows = rows.reshape(-1, 3)
    report: dict[str, Any] = dict(
        agreement_compute.agreement(rows[:, 0], rows[:, 1], rows[:, 2], campaign.raters_per_item)
    )
    for entry in report["raters"]:
        entry["rater"] = rater_label(int(entry["rater"]))
    report["campaign"] = campaign.name
    report["units_are"] = "campaign items (an item shared by identical outputs counts once)"
    return report


def ratings_long_rows(campaign: Campaign) -> list[tuple[Any, ...]]:
    """The counted ratings in long form, one row per (rating, system), raters pseudonymous.

    Columns: instance_id, system, rater, score, seconds, source, shared_item (the item stood for
    several systems' identical outputs). The file re-imports with ``import_ratings --format long``.
    """
    shared = set(
        ItemOutput.objects.filter(campaign=campaign)
        .values("item_id")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .values_list("item_id", flat=True)
    )
    rows = (
        Rating.objects.counted_per_system(campaign)
        .values_list(
            "item__instance__external_id",
            "item__item_outputs__output__system__name",
            "rater_id",
            "score",
            "seconds",
            "source",
            "item_id",
        )
        .order_by("item__instance__external_id", "item__item_outputs__output__system__name", "rater_id")
    )
    return [
        (
            instance,
            system,
            rater_label(rater),
            score,
            "" if seconds is None else seconds,
            source,
            "true" if item in shared else "false",
        )
        for instance, system, rater, score, seconds, source, item in rows
    ]


RATINGS_LONG_HEADER = ("instance_id", "system", "rater", "score", "seconds", "source", "shared_item")
