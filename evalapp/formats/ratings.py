"""Ratings files (protocol.md#imports): Mechanical Turk batch results and long-form CSV. No Django imports.

Two kinds of trouble are kept apart:

- file-level errors (no header, a required column missing, unreadable CSV) raise
  :class:`FormatError` naming the file and the column: nothing can be imported;
- row-level rejections (a score that is not an integer 0-3, an empty instance id, a bad time)
  are collected as :class:`Rejection` (line, value, reason) and the valid rows are kept.

Rows of rejected Mechanical Turk assignments are skipped, not rejected. Optional columns that a
file lacks (``WorkerId``, ``AssignmentStatus``, ...) are listed in ``unknown`` with what could
therefore not be known.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from core.problems import FormatError, Problem
from evalapp.formats.csvfile import Row, read_rows

MTURK, LONG = "mturk", "long"
FORMATS = (MTURK, LONG)
SCALE = range(4)  # Table 1 of the task paper
REJECTED_STATUS = "rejected"
INTEGER = re.compile(r"[+-]?[0-9]+")  # ASCII digits only: str.isdigit() also accepts other scripts' digits


@dataclass(frozen=True)
class Columns:
    """Which column holds what; ``None`` means the file has no such column."""

    instance: str
    score: str
    system: str | None = None
    reason: str | None = None
    worker: str | None = None
    status: str | None = None
    seconds: str | None = None
    assignment: str | None = None


DEFAULT_COLUMNS = {
    MTURK: Columns(
        instance="Input.id",
        score="Answer.score",
        system="Input.system",
        worker="WorkerId",
        status="AssignmentStatus",
        seconds="WorkTimeInSeconds",
        assignment="AssignmentId",
    ),
    LONG: Columns(instance="instance_id", score="score", system="system", worker="rater", seconds="seconds"),
}
# Options a user may set; a given option names a column that must exist.
OPTION_FIELDS = ("instance", "score", "system", "reason", "worker", "status", "seconds", "assignment")


def columns_for(fmt: str, **options: str | None) -> Columns:
    """The format's default columns with every non-None option applied."""
    if fmt not in DEFAULT_COLUMNS:
        raise ValueError(f"unknown ratings format {fmt!r}; choose one of {', '.join(FORMATS)}")
    defaults = DEFAULT_COLUMNS[fmt]
    return Columns(**{name: options.get(name) or getattr(defaults, name) for name in OPTION_FIELDS})


@dataclass(frozen=True)
class RatingRow:
    line: int
    instance_id: str
    score: int
    system: str | None = None
    worker: str | None = None
    reason: str | None = None
    seconds: float | None = None
    assignment: str | None = None


@dataclass(frozen=True)
class Rejection:
    line: int
    value: str
    reason: str
    column: str | None = None

    def as_dict(self) -> dict[str, str | int | None]:
        return {"line": self.line, "value": self.value, "reason": self.reason, "column": self.column}


@dataclass
class ParsedRatings:
    rows: list[RatingRow] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (line, why)
    unknown: list[str] = field(default_factory=list)  # what the file could not tell
    columns: Columns | None = None
    missing: set[str] = field(default_factory=set)  # optional column names absent from the file


def parse_score(text: str) -> int:
    """The score as an int in 0-3, or a ValueError saying why not."""
    value = text.strip()
    if not value:
        raise ValueError("score is empty")
    if not INTEGER.fullmatch(value):
        raise ValueError("score is not an integer 0-3")
    score = int(value)
    if score not in SCALE:
        raise ValueError("score is out of range 0-3")
    return score


def _parse_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise ValueError("time is not a number") from None
    if not seconds >= 0:  # also refuses NaN
        raise ValueError("time is negative or not a number")
    return seconds


def _header_index(
    header: list[str], columns: Columns, required: Iterable[str], filename: str, fmt: str
) -> dict[str, int]:
    index = {name.strip(): position for position, name in enumerate(header)}
    problems: list[Problem] = []
    for option in required:
        name = getattr(columns, option)
        if name not in index:
            problems.append(
                Problem(
                    filename,
                    1,
                    name,
                    f"required {option} column {name!r} is missing (the {fmt} header has: {', '.join(header)})",
                )
            )
    if problems:
        raise FormatError(problems)
    return index


def parse_ratings(
    data: bytes | str,
    filename: str,
    fmt: str,
    columns: Columns | None = None,
    system_given: bool = False,
    user_options: Iterable[str] = (),
) -> ParsedRatings:
    """Parse a ratings file into :class:`ParsedRatings`.

    ``system_given``: the caller names the system for the whole file (``--system``), so no
    system column is needed. ``user_options``: option names the user set explicitly; their
    columns must exist, while a missing default optional column is only reported as unknown.
    """
    columns = columns or columns_for(fmt)
    rows = read_rows(data, filename)
    if not rows:
        raise FormatError(Problem(filename, None, None, "the file is empty; a header line is needed"))
    header = [name.strip() for name in rows[0].fields]
    required = {"instance", "score"} | set(user_options)
    if not system_given:
        required.add("system")
    index = _header_index(header, columns, sorted(required), filename, fmt)
    result = ParsedRatings(columns=columns)
    for option in ("worker", "status", "seconds", "assignment", "reason"):
        name = getattr(columns, option)
        if name is not None and name not in index:
            result.missing.add(option)
            result.unknown.append(_unknown_message(option, name, fmt))
    present = {
        option: index[getattr(columns, option)]
        for option in OPTION_FIELDS
        if getattr(columns, option) is not None and getattr(columns, option) in index
    }
    for row in rows[1:]:
        _parse_row(row, present, columns, filename, result)
    return result


def _unknown_message(option: str, name: str, fmt: str) -> str:
    return {
        "worker": f"no {name!r} column: raters unknown; "
        + (
            "each assignment is counted as a different rater"
            if fmt == MTURK
            else "all rows are counted as one rater (the file's)"
        ),
        "status": f"no {name!r} column: assignment status unknown; no row was skipped as rejected",
        "seconds": f"no {name!r} column: time spent per item unknown",
        "assignment": f"no {name!r} column: assignment ids unknown",
        "reason": f"no {name!r} column: reasons not checked",
    }[option]


def _parse_row(row: Row, present: dict[str, int], columns: Columns, filename: str, result: ParsedRatings) -> None:
    def cell(option: str) -> str | None:
        position = present.get(option)
        if position is None or position >= len(row.fields):
            return None
        return row.fields[position].strip()

    if max(present.values()) >= len(row.fields):
        result.rejected.append(Rejection(row.line, ",".join(row.fields), "row has fewer columns than the header"))
        return
    status = cell("status")
    if status is not None and status.lower() == REJECTED_STATUS:
        result.skipped.append((row.line, f"assignment status {status!r}"))
        return
    instance_id = cell("instance")
    if not instance_id:
        result.rejected.append(Rejection(row.line, "", "instance id is empty", columns.instance))
        return
    raw_score = cell("score") or ""
    try:
        score = parse_score(raw_score)
    except ValueError as reason:
        result.rejected.append(Rejection(row.line, raw_score, str(reason), columns.score))
        return
    raw_seconds = cell("seconds")
    seconds = None
    if raw_seconds:
        try:
            seconds = _parse_seconds(raw_seconds)
        except ValueError as reason:
            result.rejected.append(Rejection(row.line, raw_seconds, str(reason), columns.seconds))
            return
    result.rows.append(
        RatingRow(
            line=row.line,
            instance_id=instance_id,
            score=score,
            system=cell("system") or None,
            worker=cell("worker") or None,
            reason=cell("reason"),
            seconds=seconds,
            assignment=cell("assignment") or None,
        )
    )
