"""Every download of a campaign, made in one place: the web pages, the REST API and ``manage.py export``
call these functions, so the same request gives the same bytes, the same file name and the same
content type whichever door it comes through.

Each function returns an :class:`Export`. Raters appear as ``rater-<id>`` in every export that
results viewers can download; only the organizers' quality and crowd-session exports name raters
(they are how an organizer reviews and pays them). CSV cells that a spreadsheet would run as a
formula are neutralised by :func:`evalapp.formats.csvfile.write_csv`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from core import quality
from core.defaults import FORMAT_LABELS, content_type, download_filename
from core.models import Campaign
from evalapp.formats import metric_report
from evalapp.formats import table6 as table6_format
from evalapp.formats.csvfile import write_csv
from evalapp.models import MetricRun
from evalapp.options.table6 import Table6Options
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
    def format(self) -> str:
        return self.filename.rsplit(".", 1)[-1]


class UnknownFormat(ValueError):
    """The export has no such format; the message lists the ones it has."""


def check_format(kind: str, fmt: str | None) -> str:
    """``fmt`` if ``kind`` has it (None gives the default), else :class:`UnknownFormat`."""
    formats = FORMATS[kind]
    if fmt is None:
        return formats[0]
    if fmt not in formats:
        raise UnknownFormat(f"{kind} has no format {fmt!r}; choose one of {', '.join(formats)}")
    return fmt


def _export(kind: str, campaign_name: str, fmt: str, text: str, suffix: str = "") -> Export:
    return Export(text, download_filename(kind, campaign_name, fmt, suffix), content_type(fmt))


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def table6(campaign: Campaign, fmt: str | None = None, options: Table6Options | None = None) -> Export:
    """Table 6 (protocol.md#table6) in ``fmt`` with ``options`` (:class:`~evalapp.options.table6.Table6Options`,
    checked where they are declared): with ``bootstrap`` > 0, rater-aware intervals and significance clusters too,
    under the rule ``clusters`` ("holm" or "wmt"); ``latex_intervals``: LaTeX with each interval beside its score."""
    fmt = check_format(TABLE6, fmt)
    options = Table6Options() if options is None else options
    options.check_format(fmt)
    table = results.table6(
        campaign,
        bootstrap=options.bootstrap,
        seed=options.seed,
        permutations=options.permutations,
        clusters=options.clusters,
    )
    text = table6_format.render(table, fmt, halves=options.halves, latex_intervals=options.latex_intervals)
    export = _export(TABLE6, campaign.name, fmt, text, options.filename_suffix())
    # The organizer's checklist follows exports: every download (web, API, command) comes through here.
    Campaign.objects.filter(pk=campaign.pk).update(table6_exported_at=timezone.now())
    return export


def agreement(campaign: Campaign, fmt: str | None = None) -> Export:
    """The agreement report (protocol.md#agreement), raters pseudonymous."""
    fmt = check_format(AGREEMENT, fmt)
    return _export(AGREEMENT, campaign.name, fmt, _json(results.agreement_report(campaign)))


def ratings(campaign: Campaign, fmt: str | None = None) -> Export:
    """The counted ratings in long form (re-importable with ``import_ratings --format long``)."""
    fmt = check_format(RATINGS, fmt)
    rows = results.ratings_long_rows(campaign)
    if fmt == "json":
        text = _json([dict(zip(results.RATINGS_LONG_HEADER, row)) for row in rows])
    else:
        text = write_csv(rows, header=results.RATINGS_LONG_HEADER)
    return _export(RATINGS, campaign.name, fmt, text)


def _quality_cell(value: Any) -> Any:
    if isinstance(value, list):
        return "; ".join(value)
    return "" if value is None else value


def rater_quality(campaign: Campaign, fmt: str | None = None) -> Export:
    """Every rater's figures (protocol.md#rater-quality), flagged first: the organizer's review (the API also lists
    them as JSON records, page by page)."""
    fmt = check_format(QUALITY, fmt)
    records = [record.as_dict() for record in quality.rater_quality(campaign)]
    text = write_csv(
        [[_quality_cell(record[column]) for column in QUALITY_COLUMNS] for record in records], header=QUALITY_COLUMNS
    )
    return _export(QUALITY, campaign.name, fmt, text)


def crowd_sessions(campaign: Campaign, fmt: str | None = None) -> Export:
    """The campaign's crowd sessions with their ratings and the code each worker is owed."""
    fmt = check_format(CROWD_SESSIONS, fmt)
    rows = [review.row() for review in crowd.session_reviews(campaign)]
    return _export(CROWD_SESSIONS, campaign.name, fmt, write_csv(rows, header=crowd.SessionReview.COLUMNS))


def metric_report_of(run: MetricRun, fmt: str | None = None) -> Export:
    """A finished metric study's stored report, rendered again (nothing is recomputed)."""
    fmt = check_format(METRIC_REPORT, fmt)
    return _export(METRIC_REPORT, run.campaign.name, fmt, metric_report.render(run.study_report(), fmt), f"run{run.pk}")


def label(kind: str, fmt: str) -> str:
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
