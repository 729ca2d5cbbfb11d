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

import hashlib
from dataclasses import dataclass, field, replace
from itertools import combinations

import numpy as np
from django.core.cache import cache
from django.db.models import Count, F, Q, Sum

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
    RECORD_DIGITS,
    RESULTS_CACHE_SECONDS,
    SIGNIFICANCE_ALPHA,
)
from core.models import Instance, Item, ItemOutput, RaterExclusion, Rating, System, SystemRetirement, rater_label
from evalapp.compute import agreement as agreement_compute
from evalapp.compute import bootstrap as bootstrap_compute
from evalapp.compute import rater_effects as rater_effects_compute
from evalapp.compute import rater_uncertainty
from evalapp.compute import significance as significance_compute
from evalapp.compute.human_score import RatingRecords, cell_matrix, matrix_system_scores, score_matrix
from evalapp.compute.ranks import BLEU_DIGITS, HUMAN_DIGITS, competition_ranks
from evalapp.formats.table6 import Table6, Table6Row
from evalapp.models import Submission


def _counted_ratings(campaign):
    """Ratings that enter results: the domain's rule, :meth:`core.models.RatingQuerySet.counted` (system
    items of instances not retired, nothing excluded, and only ratings made through a door the campaign opened)."""
    return Rating.objects.counted(campaign)


def ratings_records(campaign):
    """Every counted rating as (instance external id, system name, rater id, score) records.

    A :class:`RatingRecords` (parallel NumPy arrays; iterating yields the tuples), ordered by
    instance id, system name and rater. An item shared by several systems' identical outputs
    yields one record per system. The rows are read as integers; names come from small lookups.
    """
    rows = (
        _counted_ratings(campaign)
        .filter(item__item_outputs__campaign=campaign)
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


def _labels(ids, names_of):
    """(label array of the distinct ``ids``, code of each id into it); ``names_of(ids)`` -> {id: label}."""
    distinct, codes = np.unique(ids, return_inverse=True)
    names = names_of(distinct.tolist())
    labels = np.empty(len(distinct), dtype=object)
    labels[:] = [names[pk] for pk in distinct.tolist()]
    return labels, codes


def _label_ranks(labels):
    """Rank of each label in sorted order, so integer codes sort as their labels do."""
    ranks = np.empty(len(labels), dtype=np.int64)
    ranks[sorted(range(len(labels)), key=labels.__getitem__)] = np.arange(len(labels))
    return ranks


def _instance_names(ids):
    return dict(Instance.objects.filter(pk__in=ids).values_list("pk", "external_id"))


def _system_names(ids):
    return dict(System.objects.filter(pk__in=ids).values_list("pk", "name"))


def rating_rows(campaign):
    """Every counted rating once per system it counts for, as parallel arrays
    ``(rating ids, instance ids, system names, rater ids, scores)`` (integers but the names)."""
    rows = (
        _counted_ratings(campaign)
        .filter(item__item_outputs__campaign=campaign)
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

    z: dict
    fit: rater_effects_compute.MixedModelFit
    problem: str | None = None

    def as_dict(self):
        return {
            "human_z": rater_effects_compute.Z_METHOD,
            "human_adjusted": self.fit.as_dict(),
            "secondary": "formula (1) is the headline; these columns correct for who rated what"
            + (f"; human_z and human_adjusted are empty: {self.problem}" if self.problem else ""),
            "not_estimable": self.problem,
        }


@dataclass(frozen=True)
class RaterSums:
    """The grouped sums behind ``human_z`` and the mixed model's cache key, read without single ratings.

    ``cells``: per system and rater, over the rows a system counts (a shared item's rating counts
    for each of its systems): (system name, rater, ratings, sum, sum of squares, sum of rating
    ids, sum of id x score). ``raters``: per rater, over its distinct counted ratings: (rater,
    ratings, sum, sum of squares). ``ratings``: the distinct counted ratings.
    """

    cells: list
    raters: list
    ratings: int

    def state_key(self, campaign, names):
        """The fit's cache key: a new, excluded or reconciled rating changes a cell's count or sums."""
        rows = sorted(tuple(map(str, cell)) for cell in self.cells)
        text = "\x1e".join("\x1f".join(row) for row in rows) + "\x1d" + "\x1f".join(names)
        return f"comve:adjusted:{campaign.pk}:{hashlib.sha256(text.encode()).hexdigest()}"


def rater_sums(campaign):
    """:class:`RaterSums` in one ``GROUP BY system, rater`` query (a second, per rater, only when
    some item stands for several systems' identical outputs, whose rating must enter its rater once)."""
    counted = _counted_ratings(campaign)
    system = "item__item_outputs__output__system_id"
    cells = list(
        counted.filter(item__item_outputs__campaign=campaign)
        .order_by()
        .values(system, "rater_id")
        .annotate(
            n=Count("id"),
            total=Sum("score"),
            squares=Sum(F("score") * F("score")),
            ids=Sum("id"),
            weighted=Sum(F("id") * F("score")),
        )
        .values_list(system, "rater_id", "n", "total", "squares", "ids", "weighted")
    )
    shared = (
        ItemOutput.objects.filter(campaign=campaign)
        .order_by()
        .values("item_id")
        .annotate(outputs=Count("id"))
        .filter(outputs__gt=1)
        .exists()
    )
    if shared:
        raters = list(
            counted.order_by()
            .values("rater_id")
            .annotate(n=Count("id"), total=Sum("score"), squares=Sum(F("score") * F("score")))
            .values_list("rater_id", "n", "total", "squares")
        )
    else:  # every rating is in exactly one cell: its rater's sums are the sums of the rater's cells
        per_rater = {}
        for _, rater, n, total, squares, _, _ in cells:
            found = per_rater.setdefault(rater, [0, 0, 0])
            found[0], found[1], found[2] = found[0] + n, found[1] + total, found[2] + squares
        raters = [(rater, *sums) for rater, sums in per_rater.items()]
    names = _system_names({cell[0] for cell in cells})
    return RaterSums([(names[cell[0]], *cell[1:]) for cell in cells], raters, sum(r[1] for r in raters))


def rater_z_means(campaign, names, sums=None):
    """``{name: mean z or None}`` (``human_z``) from :func:`rater_sums`, never reading single ratings
    (:func:`rater_effects_compute.system_z_from_sums`)."""
    sums = rater_sums(campaign) if sums is None else sums
    return rater_effects_compute.system_z_from_sums(
        sums.raters, [(name, rater, n, total) for name, rater, n, total, *_ in sums.cells], names
    )


def _unfitted(names, problem):
    return rater_effects_compute.MixedModelFit(
        dict.fromkeys(names, rater_effects_compute.NOT_ESTIMATED),
        False,
        None,
        None,
        None,
        CONFIDENCE_LEVEL,
        problem,
    )


def fit_rater_effects(campaign, names, key=None):
    """Fit the mixed model on every counted rating row and keep it in the cache under ``key`` (default:
    the key of the current ratings); what the background task runs, and the inline fit of a small
    campaign. Above ``MAX_ADJUSTED_LEVELS`` raters and instances together it is not fitted, and says so."""
    key = rater_sums(campaign).state_key(campaign, names) if key is None else key
    ids, instances, systems, raters, scores = rating_rows(campaign)
    if len(np.unique(raters)) + len(np.unique(instances)) > MAX_ADJUSTED_LEVELS:
        fit = _unfitted(names, f"not fitted: more than {MAX_ADJUSTED_LEVELS} raters and instances together")
    else:
        fit = rater_effects_compute.mixed_model(
            instances, systems, raters, scores, names, weights=rater_effects_compute.shared_weights(ids)
        )
    cache.set(key, fit, RESULTS_CACHE_SECONDS)
    return fit


def rater_effects(campaign, names=None, wait=False):
    """:class:`RaterEffects` of the campaign's systems (``names``; default every system of the campaign).

    Neither column is estimated when the raters cannot be told apart
    (:func:`evalapp.compute.rater_effects.ratings_per_rater_problem`; then both are None and
    ``problem`` says why). ``human_z`` comes from grouped sums (:func:`rater_sums`,
    :func:`rater_z_means`). A shared item's rating enters the mixed model once (its rows weighted
    1/m). The mixed model is fitted once per state of the counted ratings
    (:meth:`RaterSums.state_key`: a new, excluded or reconciled rating refits it) and kept in
    Django's cache: up to ``ADJUSTED_INLINE_MAX_RATINGS`` ratings (or with ``wait``) where it is
    asked for, above that by the background worker, and until it is ready the fit says
    :data:`ADJUSTED_BEING_COMPUTED` (page, API and command alike).
    """
    names = [s.name for s in campaign_systems(campaign)] if names is None else list(names)
    sums = rater_sums(campaign)
    problem = rater_effects_compute.ratings_per_rater_problem([n for _, n, *_ in sums.raters])
    if problem is not None:
        return RaterEffects(dict.fromkeys(names), _unfitted(names, problem), problem)
    z = rater_z_means(campaign, names, sums)
    key = sums.state_key(campaign, names)
    fit = cache.get(key)
    if fit is None:
        if wait or sums.ratings <= ADJUSTED_INLINE_MAX_RATINGS:
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


def _queue_fit(campaign, names, key):
    """Queue the background fit of this state once (``cache.add`` is atomic: one of many callers wins)."""
    from evalapp.tasks import fit_rater_effects_task

    if cache.add(f"{key}:queued", True, ADJUSTED_QUEUE_SECONDS):
        fit_rater_effects_task.enqueue(campaign.pk, names)


def digest(*columns):
    """A SHA-256 of the given arrays and name lists (the state of the ratings a figure was made from)."""
    hasher = hashlib.sha256()
    for column in columns:
        column = np.asarray(column)
        hasher.update(column.tobytes() if column.dtype != object else "\x1f".join(map(str, column)).encode())
        hasher.update(b"\x1e")
    return hasher.hexdigest()


def _campaign_matrix(campaign, systems=None):
    """The :class:`ScoreMatrix` summed in the database: counted ratings grouped per item, then
    each item's sum and count credited to every system whose output it shows, on its instance."""
    systems = campaign_systems(campaign) if systems is None else systems
    per_item = (
        _counted_ratings(campaign)
        .values("item_id")
        .annotate(total=Sum("score"), n=Count("id"))
        .order_by()
        .values_list("item_id", "total", "n")
    )
    items = np.fromiter(per_item, dtype=[("item", np.int64), ("total", np.int64), ("n", np.int64)])
    shown = np.fromiter(
        ItemOutput.objects.filter(campaign=campaign)
        .values_list("item_id", "output__system_id", "item__instance_id")
        .order_by(),
        dtype=[("item", np.int64), ("system", np.int64), ("instance", np.int64)],
    )
    items.sort(order="item")
    position = np.searchsorted(items["item"], shown["item"])
    rated = position < len(items)
    rated[rated] = items["item"][position[rated]] == shown["item"][rated]
    shown, position = shown[rated], position[rated]
    system_labels, system_codes = _labels(shown["system"], _system_names)
    instance_labels, instance_codes = _labels(shown["instance"], _instance_names)
    return cell_matrix(
        system_labels[system_codes],
        instance_labels[instance_codes],
        items["total"][position],
        items["n"][position],
        [s.name for s in systems],
        campaign_instance_ids(campaign),
    )


def campaign_systems(campaign):
    """Systems of the campaign (its list plus any system with an item in it), Human first, then by name."""
    rated = ItemOutput.objects.filter(campaign=campaign).values("output__system_id")
    systems = System.objects.filter(Q(campaigns=campaign) | Q(pk__in=rated)).distinct()
    return sorted(systems, key=lambda s: (not s.is_human, s.name.lower(), s.pk))


def campaign_instance_ids(campaign):
    """External ids of the sampled instances that count (not retired), in sample order."""
    return list(campaign.sampled.in_use().order_by("position").values_list("instance__external_id", flat=True))


def retired_instances(campaign):
    """``(external id, reason)`` of the campaign's retired instances, in sample order: Table 6's footnote."""
    return tuple(campaign.sampled.retired().order_by("position").values_list("instance__external_id", "retired_reason"))


def human_scores(campaign, records=None, matrix=None):
    """Formula (1) per system name: ``{name: {"human", "ratings", "expected_ratings", "complete"}}``.

    ``human`` is the mean over the ratings present (None without ratings); ``complete`` says
    whether all N*M expected ratings are there (see :mod:`evalapp.compute.human_score`).
    Computed from ``matrix`` or ``records`` when given, else from sums made in the database.
    """
    if matrix is None:
        matrix = _campaign_matrix(campaign) if records is None else instance_score_matrix(campaign, records)
    scores = matrix_system_scores(matrix, campaign.sampled.in_use().count(), campaign.raters_per_item)
    return {name: score.as_dict() for name, score in scores.items()}


def full_submission_bleu(systems):
    """``{system id: official BLEU}`` of each system's latest submission; None when it is partial or absent.

    The latest submission defines the outputs that were rated, so an older full submission's
    BLEU would describe other outputs and is not used.
    """
    latest = {}
    for submission in Submission.objects.filter(system__in=systems).order_by("system_id", "-created_at", "-id"):
        latest.setdefault(submission.system_id, submission)
    return {
        system.pk: (None if system.pk not in latest or latest[system.pk].partial else latest[system.pk].official_bleu)
        for system in systems
    }


def instance_score_matrix(campaign, records=None, systems=None):
    """:class:`~evalapp.compute.human_score.ScoreMatrix` of the campaign: systems x sampled instances."""
    if records is None:
        return _campaign_matrix(campaign, systems)
    names = [s.name for s in (campaign_systems(campaign) if systems is None else systems)]
    return score_matrix(records, names, campaign_instance_ids(campaign))


def bootstrap_intervals(campaign, resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=CONFIDENCE_LEVEL, matrix=None):
    """``{system name: Interval}``: percentile bootstrap of each human score, resampling instances."""
    matrix = instance_score_matrix(campaign) if matrix is None else matrix
    if not matrix.instances:
        return {}
    intervals = bootstrap_compute.ratio_intervals(matrix.sums, matrix.counts, resamples, seed, level)
    return dict(zip(matrix.systems, intervals))


@dataclass
class Clusters:
    """Significance clusters of the (non-Human) systems under a named rule, and the pairwise comparisons."""

    test: str
    rule: str
    alpha: float
    cluster_of: dict = field(default_factory=dict)
    comparisons: list = field(default_factory=list)

    def as_dict(self):
        return {
            "test": self.test,
            "rule": self.rule,
            "rule_description": significance_compute.RULE_TEXT[self.rule],
            "alpha": self.alpha,
            "p_value": "one-sided: P(t_df >= difference / standard_error), better beats worse",
            "clusters": self.cluster_of,
            "comparisons": [c.as_dict() for c in self.comparisons],
        }


@dataclass(frozen=True)
class RaterAwareUncertainty:
    """The rater-aware variances of every system mean and pairwise difference
    (:mod:`evalapp.compute.rater_uncertainty`), over the systems ``names``."""

    names: list
    contrasts: rater_uncertainty.Contrasts
    raters: int
    instances: int

    @property
    def fallback_reason(self):
        return self.contrasts.fallback_reason

    def intervals(self, level=CONFIDENCE_LEVEL):
        """``{system name: TInterval}``."""
        return dict(zip(self.names, rater_uncertainty.intervals(self.contrasts, level)))

    def settings(self, level=CONFIDENCE_LEVEL):
        """The ``intervals`` record of the JSON: method, level, the design's size and any fallback."""
        return {
            "method": rater_uncertainty.method_name("interval", self.fallback_reason),
            "level": level,
            "raters": self.raters,
            "instances": self.instances,
            "fallback": self.fallback_reason,
        }

    def pair(self, first, second):
        """(difference first - second, variance, df) of two of ``names``."""
        a, b = self.names.index(first), self.names.index(second)
        index = self.contrasts.pairs.index((min(a, b), max(a, b)))
        difference = self.contrasts.means[a] - self.contrasts.means[b]
        return difference, self.contrasts.pair_variance[index], self.contrasts.pair_df[index]


def rater_aware_uncertainty(campaign, systems=None):
    """:class:`RaterAwareUncertainty` of the campaign's counted ratings (every system of ``systems``)."""
    names = [s.name for s in (campaign_systems(campaign) if systems is None else systems)]
    _, instances, system_names, raters, scores = rating_rows(campaign)
    design = rater_uncertainty.RatingDesign.from_rows(system_names, instances, raters, scores, names)
    return RaterAwareUncertainty(names, rater_uncertainty.contrasts(design), design.n_raters, design.n_instances)


def significance_clusters(campaign, alpha=SIGNIFICANCE_ALPHA, rule=DEFAULT_CLUSTER_RULE, uncertainty=None, scores=None):
    """Clusters of the team systems under ``rule`` ("holm" or "wmt"), from the rater-aware tests of the
    displayed formula (1) differences (the Human pseudo-system is not ranked, as in Table 6)."""
    systems = campaign_systems(campaign)
    uncertainty = rater_aware_uncertainty(campaign, systems) if uncertainty is None else uncertainty
    scores = human_scores(campaign) if scores is None else scores
    teams = [s.name for s in systems if not s.is_human and scores[s.name]["human"] is not None]
    teams.sort(key=lambda name: (-scores[name]["human"], name))
    found = [uncertainty.pair(a, b) for a, b in combinations(teams, 2)]
    differences = np.array([d for d, _, _ in found], dtype=float)
    variances = np.array([v for _, v, _ in found], dtype=float)
    dfs = np.array([df for _, _, df in found], dtype=float)
    one_sided = rater_uncertainty.one_sided_pvalues(differences, variances, dfs)
    comparisons = significance_compute.ruled_comparisons(
        teams, differences, np.sqrt(np.maximum(variances, 0.0)), dfs, one_sided, alpha, rule
    )
    comparisons = [
        replace(
            c,
            difference=_rounded(c.difference),
            standard_error=_rounded(c.standard_error),
            df=round(c.df, 6),
            p_value=_rounded(c.p_value),
            p_holm=_rounded(c.p_holm),
        )
        for c in comparisons
    ]
    numbers = significance_compute.ruled_clusters(teams, comparisons, alpha, rule)
    return Clusters(
        rater_uncertainty.method_name("test", uncertainty.fallback_reason),
        rule,
        alpha,
        dict(zip(teams, numbers)),
        comparisons,
    )


def _rounded(value, digits=RECORD_DIGITS):
    """Figures of the significance record rounded far below display, so files are identical across platforms."""
    return round(float(value), digits)


def table6(
    campaign,
    bootstrap=DEFAULT_TABLE6_RESAMPLES,
    seed=DEFAULT_SEED,
    permutations=DEFAULT_PERMUTATIONS,
    secondary=True,
    clusters=DEFAULT_CLUSTER_RULE,
):
    """Table 6 of the campaign: the Human pseudo-system first (human score only), then the teams by BLEU rank.

    BLEU is the official BLEU of the team's full submission (None for a partial one); ranks are
    competition ranks on the displayed values (S3). With ``bootstrap`` > 0 every row also gets its
    rater-aware 95% interval (``ci``) and every team its significance ``cluster`` under the rule
    ``clusters`` ("holm" or "wmt"); the intervals are analytic, so ``bootstrap``, ``seed`` and
    ``permutations`` only switch them on (they are kept so that former requests still work). With
    ``secondary`` (every export) every row gets the rater-effect columns ``human_z`` and
    ``human_adjusted`` with its interval (:func:`rater_effects`); the live preview leaves them out.
    """
    systems = campaign_systems(campaign)
    matrix = _campaign_matrix(campaign, systems)
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
    intervals = significance = None
    if bootstrap:
        uncertainty = rater_aware_uncertainty(campaign, systems)
        cis = uncertainty.intervals()
        found = significance_clusters(campaign, rule=clusters, uncertainty=uncertainty, scores=scores)
        pairs = [
            (
                system,
                replace(
                    row,
                    ci=cis[system.name].as_dict() if cis[system.name].low is not None else None,
                    cluster=None if row.is_human else found.cluster_of.get(system.name),
                ),
            )
            for system, row in pairs
        ]
        intervals = uncertainty.settings()
        significance = found.as_dict()
    effects = None
    if secondary:
        found = rater_effects(campaign, [s.name for s in systems])
        pairs = [
            (system, replace(row, human_z=found.z[system.name], **_adjusted_fields(found.fit, system.name)))
            for system, row in pairs
        ]
        effects = found.as_dict()
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
        left_out(campaign),
        retired,
        retired_instances(campaign),
    )


def left_out(campaign):
    """What no figure of the campaign counts, for the exports' notes: the raters the organizer excluded
    (how many, and how many of their system-item ratings), and the control items (how many, and their
    ratings). ``{"excluded_raters", "excluded_ratings", "control_items", "control_ratings"}``."""
    excluded = RaterExclusion.objects.filter(campaign=campaign).values("rater_id")
    return {
        "excluded_raters": RaterExclusion.objects.filter(campaign=campaign).count(),
        "excluded_ratings": Rating.objects.filter(
            campaign=campaign, item__kind=Item.Kind.SYSTEM, rater_id__in=excluded
        ).count(),
        "control_items": Item.objects.filter(campaign=campaign, kind=Item.Kind.CONTROL).count(),
        "control_ratings": Rating.objects.filter(campaign=campaign, item__kind=Item.Kind.CONTROL).count(),
    }


def _adjusted_fields(fit, name):
    score = fit.scores[name]
    return {"human_adjusted": score.estimate, "human_adjusted_low": score.low, "human_adjusted_high": score.high}


def score_distribution(campaign):
    """``{system name: [count of 0, of 1, of 2, of 3]}`` over the counted ratings (a shared item's rating
    counts for each of its systems, as in formula (1))."""
    rows = list(
        _counted_ratings(campaign)
        .filter(item__item_outputs__campaign=campaign)
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


def _team_order(row):
    """Table 6 order: BLEU rank (teams without BLEU last), then human score, then name."""
    human = row.human if row.human is not None else float("-inf")
    return (row.bleu_rank is None, row.bleu_rank or 0, -human, row.team.lower())


def agreement_report(campaign):
    """S8 agreement of the campaign over its system items (one unit per item, counted ratings only)."""
    rows = np.array(list(_counted_ratings(campaign).values_list("item_id", "rater_id", "score")), dtype=np.int64)
    rows = rows.reshape(-1, 3)
    report = agreement_compute.agreement(rows[:, 0], rows[:, 1], rows[:, 2], campaign.raters_per_item)
    for entry in report["raters"]:
        entry["rater"] = rater_label(entry["rater"])
    report["campaign"] = campaign.name
    report["units_are"] = "campaign items (an item shared by identical outputs counts once)"
    return report


def ratings_long_rows(campaign):
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
        _counted_ratings(campaign)
        .filter(item__item_outputs__campaign=campaign)
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
