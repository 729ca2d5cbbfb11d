"""A researcher's metric scores (protocol.md#metrics): ``system,score`` or ``instance_id,system,score``. No Django.

One score per system (system level) or per system output (segment level); a header row is
optional (the first row is a header when its score cell is not a number). Every problem is reported with
file, line and column; nothing is accepted from a file with any problem.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.problems import ProblemLog
from evalapp.formats.csvfile import read_rows

SYSTEM_LEVEL = "system"
SEGMENT_LEVEL = "segment"
COLUMNS = {SYSTEM_LEVEL: ("system", "score"), SEGMENT_LEVEL: ("instance_id", "system", "score")}


@dataclass(frozen=True)
class ScoreRecord:
    line: int
    system: str
    score: float
    instance_id: str | None = None

    @property
    def key(self) -> tuple[str | None, str]:
        return (self.instance_id, self.system)


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def parse_metric_scores(
    data: bytes | str, filename: str, level: str, max_bytes: int | None = None
) -> list[ScoreRecord]:
    """The records of a metric-scores file; raises FormatError listing every problem."""
    if level not in COLUMNS:
        raise ValueError(f"level must be one of {', '.join(COLUMNS)}, not {level!r}")
    columns = COLUMNS[level]
    rows = read_rows(data, filename, max_bytes) if max_bytes else read_rows(data, filename)
    problems = ProblemLog()
    if rows and len(rows[0].fields) == len(columns) and _number(rows[0].fields[-1].strip()) is None:
        rows = rows[1:]  # a header (any names): the first row's score cell is not a number
    records: list[ScoreRecord] = []
    first_line: dict[tuple[str | None, str], int] = {}
    for row in rows:
        cells = [cell.strip() for cell in row.fields]
        if len(cells) != len(columns):
            problems.add(
                filename,
                row.line,
                None,
                f"expected {len(columns)} columns ({','.join(columns)}) for {level}-level scores, found {len(cells)}",
            )
            continue
        for column, (name, cell) in enumerate(zip(columns[:-1], cells[:-1]), 1):
            if not cell:
                problems.add(filename, row.line, column, f"{name} is empty")
        score = _number(cells[-1])
        if score is None:
            problems.add(filename, row.line, len(columns), "score is not a finite number", cells[-1])
        if not all(cells[:-1]) or score is None:
            continue
        record = ScoreRecord(row.line, cells[-2], score, cells[0] if level == SEGMENT_LEVEL else None)
        if record.key in first_line:
            what = f"system '{record.system}'" + (f" on instance '{record.instance_id}'" if record.instance_id else "")
            problems.add(filename, row.line, 1, f"second score for {what} (first on line {first_line[record.key]})")
            continue
        first_line[record.key] = row.line
        records.append(record)
    if not records and not problems:
        problems.add(filename, None, None, f"no scores found; expected rows '{','.join(columns)}'")
    problems.raise_if_any()
    return records
