"""The options of the data imports, declared once for the upload forms, the API and the ``import_*`` commands.

The file options are uploads on the web and in the API (size-checked there, read into a SourceFile) and paths
on the command line (read by the import service, which names the file in its problems). The target of an
import (the dataset of a submission, the campaign of ratings) is part of the address or ``--campaign``/
``--dataset``, not an option.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.crowd import CROWD_PLATFORMS, MTURK, PROLIFIC
from core.defaults import NAME_MAX_CHARS, TEAM_MARKERS
from core.models import Dataset, System
from evalapp.formats.comve import SourceFile
from evalapp.formats.metric_scores import SEGMENT_LEVEL, SYSTEM_LEVEL
from evalapp.formats.ratings import DEFAULT_COLUMNS, LONG, OPTION_FIELDS
from evalapp.formats.ratings import FORMATS as RATINGS_FORMATS
from evalapp.formats.ratings import MTURK as MTURK_RATINGS
from evalapp.options.base import API_AND_COMMAND, Kind, OptionError, Options, choices_of, option

Source = SourceFile | str  # an upload, or a path on the command line
MARKER_NONE = "none"
PLATFORM_EXPORTS = {MTURK: "Mechanical Turk batch results (CSV)", PROLIFIC: "Prolific submissions export (CSV)"}


@dataclass(frozen=True)
class ComveImportOptions(Options):
    """A ComVE dataset: its name and split, and its files (``import_comve``, the data page, ``POST /datasets/``)."""

    job = "import-comve"
    api_name = "DatasetImport"

    name: str = option(
        None,
        kind=Kind.TEXT,
        label="Name",
        help="Name of the new dataset (must not exist yet), e.g. comve-test.",
        web_help="A new name, e.g. comve-test.",
        max_length=NAME_MAX_CHARS,
        required=True,
    )
    split: str = option(
        Dataset.Split.TEST.value,
        kind=Kind.CHOICE,
        label="Split",
        help="Which split the files are.",
        web_help="",
        choices=tuple((str(value), str(label)) for value, label in Dataset.Split.choices),
    )
    statements: Source = option(
        None,
        kind=Kind.FILE,
        label="Statements",
        help="CSV with header id,FalseSent (subtaskC_test_data.csv).",
        required=True,
    )
    references: Source = option(
        None,
        kind=Kind.FILE,
        label="References",
        help="CSV id,ref1,ref2,ref3 without header (subtaskC_gold_answers.csv).",
        required=True,
    )
    pairs: Source | None = option(
        None,
        kind=Kind.FILE,
        label="Pairs",
        help="Optional: CSV with header id,sent0,sent1 (subtaskA_test_data.csv).",
    )
    pair_answers: Source | None = option(
        None,
        kind=Kind.FILE,
        label="Pair answers",
        help="With the pairs: CSV id,k without header (subtaskA_gold_answers.csv): sent<k> is the nonsensical one.",
        web_help="With the pairs: CSV id,k without header (subtaskA_gold_answers.csv).",
    )

    def check(self) -> None:
        if (self.pairs is None) != (self.pair_answers is None):
            raise OptionError("pair_answers", "the pairs file and the pair answers file go together")


@dataclass(frozen=True)
class SubmissionImportOptions(Options):
    """A team's submission to a dataset (``import_submission``, the dataset page, ``POST .../submissions/``)."""

    job = "import-submission"
    api_name = "SubmissionUpload"

    system: str = option(
        None,
        kind=Kind.TEXT,
        label="System name",
        help="Team/system name as it appears in Table 6.",
        web_help="As it appears in Table 6.",
        max_length=NAME_MAX_CHARS,
        required=True,
    )
    marker: str | None = option(
        None,
        kind=Kind.CHOICE,
        label="Marker",
        help=f"Table 6 marker: '*' ({TEAM_MARKERS['*']}), '+' ({TEAM_MARKERS['+']}) or '{MARKER_NONE}' (no marker; "
        "empty text too). Omitted: keep the current one.",
        web_help="",
        choices=(
            (MARKER_NONE, "none"),
            *((value, label) for value, label in System.Marker.choices if value != System.Marker.NONE),
        ),
        blank_value=MARKER_NONE,
    )
    file: Source = option(
        None,
        kind=Kind.FILE,
        label="Submission file",
        help="The official format: id,reason per line, no header, UTF-8.",
        web_help="id,reason per line, no header, UTF-8.",
        required=True,
    )
    allow_partial: bool = option(
        False,
        kind=Kind.BOOL,
        label="Accept a partial submission (a subset of the ids; no official BLEU)",
        help="Accept a subset of the ids (its BLEU is then not a Table 6 figure: null).",
        web_help="",
    )

    def marker_to_store(self) -> str | None:
        """The marker for the import service: None keeps the system's, "" clears it."""
        return System.Marker.NONE.value if self.marker == MARKER_NONE else self.marker


def _column(field: str) -> Any:
    mturk, long_form = getattr(DEFAULT_COLUMNS[MTURK_RATINGS], field), getattr(DEFAULT_COLUMNS[LONG], field)
    return option(
        None,
        kind=Kind.TEXT,
        label=f"{field.capitalize()} column",
        help=f"Column holding the {field} (default: mturk {mturk or 'none'}, long {long_form or 'none'}).",
        max_length=NAME_MAX_CHARS,
        doors=API_AND_COMMAND,
    )


@dataclass(frozen=True)
class RatingsImportOptions(Options):
    """Ratings made elsewhere (``import_ratings``, ``POST .../ratings/import/``); ``<field>_column`` names a column."""

    job = "import-ratings"
    api_name = "RatingsImport"

    file: Source = option(
        None, kind=Kind.FILE, label="File", help="The CSV file.", required=True, doors=API_AND_COMMAND
    )
    format: str = option(
        None,
        kind=Kind.CHOICE,
        label="Format",
        help="mturk: Mechanical Turk batch results; long: instance_id,system,rater,score[,seconds].",
        choices=choices_of(RATINGS_FORMATS),
        required=True,
        doors=API_AND_COMMAND,
    )
    system: str | None = option(
        None,
        kind=Kind.TEXT,
        label="System",
        help="mturk only: the system every row rates (else the system column).",
        max_length=NAME_MAX_CHARS,
        doors=API_AND_COMMAND,
    )
    instance_column: str | None = _column("instance")
    score_column: str | None = _column("score")
    system_column: str | None = _column("system")
    reason_column: str | None = _column("reason")
    worker_column: str | None = _column("worker")
    status_column: str | None = _column("status")
    seconds_column: str | None = _column("seconds")
    assignment_column: str | None = _column("assignment")

    def columns(self) -> dict[str, str | None]:
        """The column names given, by field of :data:`evalapp.formats.ratings.OPTION_FIELDS`."""
        return {field: getattr(self, f"{field}_column") for field in OPTION_FIELDS}


@dataclass(frozen=True)
class CrowdSubmissionsOptions(Options):
    """A crowd platform's record of the work (``import_crowd_submissions``, the crowd page, the API)."""

    job = "import-crowd-submissions"
    api_name = "CrowdSubmissionsUpload"

    platform: str = option(
        None,
        kind=Kind.CHOICE,
        label="Platform",
        help="mturk: Mechanical Turk batch results; prolific: Prolific's submissions export.",
        web_help="",
        choices=tuple((platform, PLATFORM_EXPORTS[platform]) for platform in CROWD_PLATFORMS),
        required=True,
    )
    file: Source = option(
        None,
        kind=Kind.FILE,
        label="The platform's export",
        help="MTurk batch results CSV, or Prolific's submissions export CSV.",
        web_help="",
        required=True,
    )
    replace: bool = option(
        False,
        kind=Kind.BOOL,
        label="This file is the whole record: sessions it does not confirm are no longer verified",
        help="The file is the whole record: a verified session it does not confirm becomes unverified again "
        "(by default a session stays verified until a file rejects it).",
        web_help="",
    )


@dataclass(frozen=True)
class MetricScoresImportOptions(Options):
    """A researcher's own metric (``import_metric_scores``, the metric page, ``POST .../metric-scores/``)."""

    job = "import-metric-scores"
    api_name = "MetricScoresImport"

    metric: str = option(
        None,
        kind=Kind.TEXT,
        label="Metric name",
        help="Name of the metric in reports (e.g. bleurt-20).",
        max_length=NAME_MAX_CHARS,
        required=True,
    )
    level: str = option(
        None,
        kind=Kind.CHOICE,
        label="Level",
        help="system: rows 'system,score'; segment: rows 'instance_id,system,score'. A header row is optional.",
        choices=choices_of((SYSTEM_LEVEL, SEGMENT_LEVEL)),
        required=True,
    )
    file: Source = option(
        None,
        kind=Kind.FILE,
        label="File",
        help="system,score (system level) or instance_id,system,score (segment level).",
        required=True,
    )
