"""The crowd platforms' own records of the work done: MTurk batch results and Prolific's submissions export.

No Django imports. Each file gives, per unit of paid work, the worker, the unit's id (MTurk
``AssignmentId``, Prolific's submission id, which is the study's ``SESSION_ID``) and what the
platform says of it. :func:`parse_submissions` reads either into :class:`PlatformRecord` rows,
each with its line, and refuses a file without the three columns (naming the file and what is
missing) or with a row that lacks them (naming file, line and column).

How a status reads: ``verified`` (the platform has the work: MTurk Submitted or Approved,
Prolific APPROVED or AWAITING REVIEW), ``rejected`` (MTurk Rejected; Prolific REJECTED,
RETURNED, TIMED-OUT, SCREENED OUT), or ``pending`` (a session still running, or a status this
reader does not know: it decides nothing).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from core.problems import ProblemLog
from evalapp.formats.csvfile import read_rows

MTURK = "mturk"
PROLIFIC = "prolific"
PLATFORMS = (MTURK, PROLIFIC)
VERIFIED, REJECTED, PENDING = "verified", "rejected", "pending"

# Header spellings of each part, compared after folding case, spaces and underscores: MTurk's
# batch results; Prolific's export as it is today ("Submission id") and as it was ("session_id").
COLUMNS: dict[str, dict[str, tuple[str, ...]]] = {
    MTURK: {"worker": ("workerid",), "session": ("assignmentid",), "status": ("assignmentstatus",)},
    PROLIFIC: {"worker": ("participantid",), "session": ("submissionid", "sessionid"), "status": ("status",)},
}
STATUSES: dict[str, dict[str, str]] = {
    MTURK: {"submitted": VERIFIED, "approved": VERIFIED, "rejected": REJECTED},
    PROLIFIC: {
        "approved": VERIFIED,
        "awaitingreview": VERIFIED,
        "rejected": REJECTED,
        "returned": REJECTED,
        "timedout": REJECTED,
        "screenedout": REJECTED,
    },
}
_FOLD = re.compile(r"[\s_\-]+")


def fold(text: str) -> str:
    return _FOLD.sub("", text.strip().lower())


class PlatformRecord(NamedTuple):
    """One unit of paid work as the platform records it (a named tuple: a 20 MiB export has half a
    million of them, and a frozen dataclass cost a third of the reading time)."""

    line: int
    worker_id: str
    session_id: str
    status: str  # as written in the file
    verdict: str  # VERIFIED, REJECTED or PENDING


@lru_cache(maxsize=256)
def verdict(platform: str, status: str) -> str:
    """What a status means (a file has a handful of distinct statuses, so each is folded once)."""
    return STATUSES[platform].get(fold(status), PENDING)


def _column_positions(platform: str, header: list[str], filename: str, problems: ProblemLog) -> dict[str, int]:
    folded = [fold(name) for name in header]
    positions: dict[str, int] = {}
    for part, spellings in COLUMNS[platform].items():
        found = next((index for index, name in enumerate(folded) if name in spellings), None)
        if found is None:
            expected = " or ".join(repr(spelling) for spelling in spellings)
            problems.add(
                filename,
                1,
                None,
                f"no {part} column: the header needs one named like {expected} "
                f"(case, spaces and underscores do not matter)",
            )
            continue  # the problem refuses the file before any position is read
        positions[part] = found
    return positions


def parse_submissions(data: bytes | str, filename: str, platform: str, max_bytes: int) -> list[PlatformRecord]:
    """The :class:`PlatformRecord` rows of a platform's export; FormatError naming every problem."""
    if platform not in PLATFORMS:
        raise ValueError(f"unknown platform {platform!r}; choose one of {', '.join(PLATFORMS)}")
    rows = read_rows(data, filename, max_bytes)
    problems = ProblemLog()
    if not rows:
        problems.add(filename, None, None, "the file is empty; expected the platform's export with its header")
        problems.raise_if_any()
    positions = _column_positions(platform, rows[0].fields, filename, problems)
    problems.raise_if_any()
    records: list[PlatformRecord] = []
    worker_at, session_at, status_at = positions["worker"], positions["session"], positions["status"]
    width = max(worker_at, session_at, status_at)
    for row in rows[1:]:
        fields = row.fields
        if len(fields) > width:
            worker, session, status = fields[worker_at].strip(), fields[session_at].strip(), fields[status_at].strip()
            if worker and session and status:
                records.append(PlatformRecord(row.line, worker, session, status, verdict(platform, status)))
                continue
        for part, index in positions.items():  # the rare row with a part missing: say which
            if not (fields[index].strip() if index < len(fields) else ""):
                problems.add(filename, row.line, index + 1, f"the {part} is empty")
    problems.raise_if_any()
    return records
