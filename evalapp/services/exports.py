"""Every download of a campaign, made in one place: the web pages, the REST API and ``manage.py export``
call these functions, so the same request gives the same bytes, the same file name and the same
content type whichever door it comes through.

Each function returns an :class:`Export`. Raters appear as ``rater-<id>`` in every export that
results viewers can download; only the organizers' quality and crowd-session exports name raters
(they are how an organizer reviews and pays them). CSV cells that a spreadsheet would run as a
formula are neutralised by :func:`evalapp.formats.csvfile.write_csv`.
"""

import json
from dataclasses import dataclass

from django.utils import timezone

from core import quality
from core.defaults import (
    CLUSTER_RULES,
    DEFAULT_CLUSTER_RULE,
    DEFAULT_PERMUTATIONS,
    DEFAULT_SEED,
    DEFAULT_TABLE6_RESAMPLES,
    FORMAT_LABELS,
    content_type,
    download_filename,
)
from core.models import Campaign
from evalapp.formats import metric_report
from evalapp.formats import table6 as table6_format
from evalapp.formats.csvfile import write_csv
from evalapp.services import crowd, results

TABLE6 = "table6"
AGREEMENT = "agreement"
RATINGS = "ratings"
QUALITY = "quality"
CROWD_SESSIONS = "crowd-sessions"
METRIC_REPORT = "metric-report"
# Every export and its formats, the first being the default (of the API and of ``manage.py export``).
FORMATS = {
    TABLE6: ("json", "csv", "markdown", "latex"),
    AGREEMENT: ("json",),
    RATINGS: ("csv", "json"),
    QUALITY: ("csv",),
    CROWD_SESSIONS: ("csv",),
    METRIC_REPORT: metric_report.FORMATS,
}
QUALITY_COLUMNS = (
    "rater_id",
    "rater",
    "platform",
    "ratings",
    "control_ratings",
    "control_passed",
    "control_pass_rate",
    "compared_pairs",
    "exact_agreement",
    "mean_abs_difference",
    "timed_ratings",
    "median_seconds",
    "flags_raised",
    "excluded",
    "flagged",
    "problems",
)


@dataclass(frozen=True)
class Export:
    """A finished download: its text, the file name to save it as, and its content type."""

    text: str
    filename: str
    content_type: str

    @property
    def format(self):
        return self.filename.rsplit(".", 1)[-1]


class UnknownFormat(ValueError):
    """The export has no such format; the message lists the ones it has."""


class BadOption(ValueError):
    """An option that does not go with the rest of the request; ``field`` names it."""

    def __init__(self, field, message):
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


def check_format(kind, fmt):
    """``fmt`` if ``kind`` has it (None gives the default), else :class:`UnknownFormat`."""
    formats = FORMATS[kind]
    if fmt is None:
        return formats[0]
    if fmt not in formats:
        raise UnknownFormat(f"{kind} has no format {fmt!r}; choose one of {', '.join(formats)}")
    return fmt


def _export(kind, campaign_name, fmt, text, suffix=""):
    return Export(text, download_filename(kind, campaign_name, fmt, suffix), content_type(fmt))


def _json(value):
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def table6(
    campaign,
    fmt=None,
    halves=False,
    bootstrap=DEFAULT_TABLE6_RESAMPLES,
    seed=DEFAULT_SEED,
    permutations=DEFAULT_PERMUTATIONS,
    latex_intervals=False,
    clusters=DEFAULT_CLUSTER_RULE,
):
    """Table 6 (S3) in ``fmt``; with ``bootstrap`` > 0, rater-aware intervals and significance clusters too,
    under the rule ``clusters`` ("holm" or "wmt"); ``latex_intervals``: LaTeX with each interval beside its score."""
    fmt = check_format(TABLE6, fmt)
    if halves and fmt != "latex":
        raise BadOption("halves", "applies to the LaTeX format only")
    if latex_intervals and fmt != "latex":
        raise BadOption("latex_intervals", "applies to the LaTeX format only")
    if clusters not in CLUSTER_RULES:
        raise BadOption("clusters", f"must be one of {', '.join(CLUSTER_RULES)}")
    table = results.table6(campaign, bootstrap=bootstrap, seed=seed, permutations=permutations, clusters=clusters)
    rule = clusters if bootstrap and clusters != DEFAULT_CLUSTER_RULE else ""
    suffix = "-".join(
        part
        for part in (
            "halves" if halves else "",
            f"ci{bootstrap}" if bootstrap else "",
            rule,
            "inline" if latex_intervals else "",
        )
        if part
    )
    export = _export(
        TABLE6,
        campaign.name,
        fmt,
        table6_format.render(table, fmt, halves=halves, latex_intervals=latex_intervals),
        suffix,
    )
    # The organizer's checklist follows exports: every download (web, API, command) comes through here.
    Campaign.objects.filter(pk=campaign.pk).update(table6_exported_at=timezone.now())
    return export


def agreement(campaign, fmt=None):
    """The agreement report (S8), raters pseudonymous."""
    fmt = check_format(AGREEMENT, fmt)
    return _export(AGREEMENT, campaign.name, fmt, _json(results.agreement_report(campaign)))


def ratings(campaign, fmt=None):
    """The counted ratings in long form (re-importable with ``import_ratings --format long``)."""
    fmt = check_format(RATINGS, fmt)
    rows = results.ratings_long_rows(campaign)
    if fmt == "json":
        text = _json([dict(zip(results.RATINGS_LONG_HEADER, row)) for row in rows])
    else:
        text = write_csv(rows, header=results.RATINGS_LONG_HEADER)
    return _export(RATINGS, campaign.name, fmt, text)


def _quality_cell(value):
    if isinstance(value, list):
        return "; ".join(value)
    return "" if value is None else value


def rater_quality(campaign, fmt=None):
    """Every rater's quality figures (S8), flagged raters first: the organizer's review (the API also lists
    them as JSON records, page by page)."""
    fmt = check_format(QUALITY, fmt)
    records = [record.as_dict() for record in quality.rater_quality(campaign)]
    text = write_csv(
        [[_quality_cell(record[column]) for column in QUALITY_COLUMNS] for record in records], header=QUALITY_COLUMNS
    )
    return _export(QUALITY, campaign.name, fmt, text)


def crowd_sessions(campaign, fmt=None):
    """The campaign's crowd sessions with their ratings and the code each worker is owed."""
    fmt = check_format(CROWD_SESSIONS, fmt)
    rows = [review.row() for review in crowd.session_reviews(campaign)]
    return _export(CROWD_SESSIONS, campaign.name, fmt, write_csv(rows, header=crowd.SessionReview.COLUMNS))


def metric_report_of(run, fmt=None):
    """A finished metric study's stored report, rendered again (nothing is recomputed)."""
    fmt = check_format(METRIC_REPORT, fmt)
    return _export(METRIC_REPORT, run.campaign.name, fmt, metric_report.render(run.study_report(), fmt), f"run{run.pk}")


def label(kind, fmt):
    """The link text of a download, e.g. "Table 6 (LaTeX)"."""
    return f"{KIND_LABELS[kind]} ({FORMAT_LABELS[fmt]})"


KIND_LABELS = {
    TABLE6: "Table 6",
    AGREEMENT: "Agreement",
    RATINGS: "Ratings, long form",
    QUALITY: "Rater quality",
    CROWD_SESSIONS: "Crowd sessions",
    METRIC_REPORT: "Metric report",
}
