"""Rater quality in a campaign (S8): control pass rate, agreement with co-raters, speed, flags.

``rater_quality(campaign)`` is the one entry point: the organizer's quality page, the dashboard
and the API all call it. A rater is *flagged* when a figure is below the campaign's threshold
and there are enough ratings behind that figure (the ``MIN_*`` constants); an excluded rater is
listed with their figures but is never flagged again.

Control ratings count here and nowhere else: control items have no ``ItemOutput``, so no
system score can include them.
"""

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from statistics import median
from typing import Any

from core.defaults import MIN_COMPARED_PAIRS, MIN_CONTROL_RATINGS, MIN_TIMED_RATINGS
from core.models import Assignment, Item, ItemFlag, Rater, RaterExclusion, Rating, rater_label


@dataclass
class RaterQuality:
    """Quality figures of one rater in one campaign; ``None`` when there is nothing to measure."""

    rater_id: int
    rater: str
    platform: str
    ratings: int = 0
    control_ratings: int = 0
    control_passed: int = 0
    control_pass_rate: float | None = None
    compared_pairs: int = 0
    exact_agreement: float | None = None
    mean_abs_difference: float | None = None
    timed_ratings: int = 0
    median_seconds: float | None = None
    flags_raised: int = 0
    excluded: bool = False
    problems: list = field(default_factory=list)

    @property
    def flagged(self):
        return bool(self.problems) and not self.excluded

    @property
    def label(self):
        """The rater's display name, as on the dashboard and in ratings.csv (``rater`` is their account)."""
        return rater_label(self.rater_id)

    def as_dict(self):
        return {**asdict(self), "flagged": self.flagged}


@dataclass(frozen=True)
class Thresholds:
    """The organizer's thresholds of a campaign: rates in 0-1, seconds not negative."""

    min_control_pass_rate: float
    min_coagreement: float
    min_median_seconds: float

    RATE_FIELDS = ("min_control_pass_rate", "min_coagreement")

    @classmethod
    def of(cls, campaign):
        return cls(campaign.min_control_pass_rate, campaign.min_coagreement, campaign.min_median_seconds)

    def problems(self):
        """What is out of range, as ``{field: message}``."""
        found = {}
        for name in self.RATE_FIELDS:
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and 0 <= value <= 1):
                found[name] = f"must be a number from 0 to 1 (found {value!r})"
        seconds = self.min_median_seconds
        if not (isinstance(seconds, (int, float)) and 0 <= seconds < float("inf")):
            found["min_median_seconds"] = f"must be a number of seconds, 0 or more (found {seconds!r})"
        return found


class ThresholdError(ValueError):
    """Thresholds out of range; ``problems`` maps each field to its message. Nothing was saved."""

    def __init__(self, problems):
        self.problems = problems
        super().__init__("; ".join(f"{field} {message}" for field, message in problems.items()))


def set_thresholds(campaign, thresholds):
    """Save the campaign's quality thresholds (S8) after checking them; raises ThresholdError."""
    problems = thresholds.problems()
    if problems:
        raise ThresholdError(problems)
    campaign.min_control_pass_rate = float(thresholds.min_control_pass_rate)
    campaign.min_coagreement = float(thresholds.min_coagreement)
    campaign.min_median_seconds = float(thresholds.min_median_seconds)
    campaign.save(update_fields=["min_control_pass_rate", "min_coagreement", "min_median_seconds"])


@dataclass(frozen=True)
class RatingRecord:
    """The plain facts about one rating that the figures need."""

    item_id: int
    rater_id: int
    score: int
    seconds: float | None
    excluded: bool
    expected_min: int | None = None  # set on control items only
    expected_max: int | None = None
    is_control: bool = False


def control_passes(score, expected_min, expected_max):
    """A control rating passes when it lies in the expected range (an open end is unbounded)."""
    return (expected_min is None or score >= expected_min) and (expected_max is None or score <= expected_max)


def summarize(record_list, thresholds):
    """Figures per rater id from plain rating records (no database access).

    A rater's own ratings count whether or not they are excluded (so that the organizer still
    sees why); their co-raters are only the ratings that still count (not excluded).
    """
    by_rater = defaultdict(list)
    counting_by_item = defaultdict(list)
    for record in record_list:
        by_rater[record.rater_id].append(record)
        if not record.excluded:
            counting_by_item[record.item_id].append(record)

    figures = {}
    for rater_id, own in by_rater.items():
        quality: dict[str, Any] = {"ratings": len(own)}
        controls = [r for r in own if r.is_control]
        passed = sum(control_passes(r.score, r.expected_min, r.expected_max) for r in controls)
        quality.update(
            control_ratings=len(controls),
            control_passed=passed,
            control_pass_rate=passed / len(controls) if controls else None,
        )

        differences = [
            abs(mine.score - other.score)
            for mine in own
            for other in counting_by_item[mine.item_id]
            if other.rater_id != rater_id
        ]
        quality.update(
            compared_pairs=len(differences),
            exact_agreement=sum(d == 0 for d in differences) / len(differences) if differences else None,
            mean_abs_difference=sum(differences) / len(differences) if differences else None,
        )

        seconds = [r.seconds for r in own if r.seconds is not None]
        quality.update(timed_ratings=len(seconds), median_seconds=median(seconds) if seconds else None)
        quality["problems"] = shortfalls(quality, thresholds)
        figures[rater_id] = quality
    return figures


def fails_controls(control_ratings, control_pass_rate, min_control_pass_rate):
    """Below the control threshold, on at least ``MIN_CONTROL_RATINGS`` control ratings.

    The one rule behind the quality flag and the crowd platforms' screening code.
    """
    return control_ratings >= MIN_CONTROL_RATINGS and control_pass_rate < min_control_pass_rate


def control_figures(campaign, rater):
    """``(control ratings, passed)`` of one rater in the campaign, excluded ratings included."""
    rows = Rating.objects.filter(campaign=campaign, rater=rater, item__kind=Item.Kind.CONTROL).values_list(
        "score", "item__expected_min", "item__expected_max"
    )
    passed = [control_passes(score, low, high) for score, low, high in rows]
    return len(passed), sum(passed)


def shortfalls(quality, thresholds):
    """Why a rater falls below the thresholds, in words; empty when they do not (or data is too thin)."""
    found = []
    if fails_controls(quality["control_ratings"], quality["control_pass_rate"], thresholds.min_control_pass_rate):
        found.append(
            f"control pass rate {quality['control_pass_rate']:.0%} is below {thresholds.min_control_pass_rate:.0%}"
        )
    if quality["compared_pairs"] >= MIN_COMPARED_PAIRS and quality["exact_agreement"] < thresholds.min_coagreement:
        found.append(
            f"agreement with co-raters {quality['exact_agreement']:.0%} is below {thresholds.min_coagreement:.0%}"
        )
    if quality["timed_ratings"] >= MIN_TIMED_RATINGS and quality["median_seconds"] < thresholds.min_median_seconds:
        found.append(f"median {quality['median_seconds']:.1f} s per item is below {thresholds.min_median_seconds:g} s")
    return found


def rating_records(campaign):
    """Every rating of the campaign as :class:`RatingRecord`, in one query."""
    rows = Rating.objects.filter(campaign=campaign).values_list(
        "item_id",
        "rater_id",
        "score",
        "seconds",
        "excluded",
        "item__kind",
        "item__expected_min",
        "item__expected_max",
    )
    return [
        RatingRecord(item_id, rater_id, score, seconds, excluded, expected_min, expected_max, kind == Item.Kind.CONTROL)
        for item_id, rater_id, score, seconds, excluded, kind, expected_min, expected_max in rows
    ]


def rater_quality(campaign):
    """One :class:`RaterQuality` per rater who rated, was assigned or flagged in the campaign.

    Ordered with flagged raters first, then by rater id, so the organizer sees problems first.
    """
    figures = summarize(rating_records(campaign), Thresholds.of(campaign))
    flags: defaultdict[int, int] = defaultdict(int)
    for rater_id in ItemFlag.objects.filter(item__campaign=campaign).values_list("rater_id", flat=True):
        flags[rater_id] += 1
    excluded = set(RaterExclusion.objects.filter(campaign=campaign).values_list("rater_id", flat=True))
    assigned = set(Assignment.objects.filter(campaign=campaign).values_list("rater_id", flat=True).distinct())
    rater_ids = set(figures) | set(flags) | excluded | assigned

    records = []
    for rater in Rater.objects.filter(pk__in=rater_ids).select_related("user"):
        records.append(
            RaterQuality(
                rater_id=rater.pk,
                rater=str(rater),
                platform=rater.platform,
                flags_raised=flags[rater.pk],
                excluded=rater.pk in excluded,
                **figures.get(rater.pk, {}),
            )
        )
    records.sort(key=lambda q: (not q.flagged, q.excluded, q.rater_id))
    return records
