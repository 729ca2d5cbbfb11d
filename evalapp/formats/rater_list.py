"""A list of lab raters to create: a CSV with the columns ``name`` and ``email`` (any order, more columns
ignored). No Django imports.

Every problem of the file is reported at once, with its line and column (an empty name, an address
that is not one, the same address twice), so that the organizer fixes the file in one go.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

from core.problems import ProblemLog
from evalapp.formats.csvfile import Row, read_file, read_rows

COLUMNS = ("name", "email")
# A rater's display name fits Django's first_name column; an address its username column.
MAX_NAME_CHARS = 150
MAX_EMAIL_CHARS = 150
# One @, something before it, a dotted domain after it, no spaces: what a sign-in name needs, not RFC 5322.
EMAIL = re.compile(r"^[^@\s,;<>\"]+@[^@\s,;<>\"]+\.[^@\s,;<>\".]+$")


@dataclass(frozen=True)
class RaterEntry:
    """One rater to create: where it came from (``line``), display name and email (their sign-in name)."""

    line: int | None
    name: str
    email: str


def check_entries(entries: Iterable[RaterEntry], filename: str, log: ProblemLog | None = None) -> ProblemLog:
    """Check names and emails of ``entries``; every problem goes into ``log`` (a ProblemLog), which is returned."""
    log = log if log is not None else ProblemLog()
    first_line: dict[str, int | None] = {}
    for entry in entries:
        if not entry.name:
            log.add(filename, entry.line, "name", "the name is empty")
        elif len(entry.name) > MAX_NAME_CHARS:
            log.add(filename, entry.line, "name", f"the name is longer than {MAX_NAME_CHARS} characters")
        if not entry.email:
            log.add(filename, entry.line, "email", "the email is empty")
        elif len(entry.email) > MAX_EMAIL_CHARS or not EMAIL.match(entry.email):
            log.add(filename, entry.line, "email", "this is not an email address", entry.email)
        elif entry.email in first_line:
            where = f"line {first_line[entry.email]}" if first_line[entry.email] is not None else "above"
            log.add(filename, entry.line, "email", f"the same email is on {where}", entry.email)
        else:
            first_line[entry.email] = entry.line
    return log


def read_rater_list(data: bytes | str, filename: str) -> list[RaterEntry]:
    """The raters of a CSV file (bytes or text) as :class:`RaterEntry` records; raises FormatError with
    every problem (missing column, empty or overlong name, bad or repeated email), writing nothing."""
    return _entries(read_rows(data, filename), filename)


def read_rater_file(path: str | os.PathLike[str]) -> list[RaterEntry]:
    """:func:`read_rater_list` of a file path (the messages name the file as given)."""
    return _entries(read_file(path), str(path))


def _entries(rows: list[Row], filename: str) -> list[RaterEntry]:
    log = ProblemLog()
    if not rows:
        log.add(filename, None, None, "the file is empty: give a header line 'name,email' and one rater a line")
        log.raise_if_any()
    header = [cell.strip().lower() for cell in rows[0].fields]
    missing = [column for column in COLUMNS if column not in header]
    if missing:
        log.add(
            filename,
            rows[0].line,
            None,
            f"the header needs the column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
            f"(found: {', '.join(header) or 'nothing'})",
        )
        log.raise_if_any()
    name_at, email_at = header.index("name"), header.index("email")
    entries: list[RaterEntry] = []
    for row in rows[1:]:
        if len(row.fields) != len(header):
            log.add(filename, row.line, None, f"{len(row.fields)} fields where the header has {len(header)}")
            continue
        entries.append(RaterEntry(row.line, row.fields[name_at].strip(), row.fields[email_at].strip().lower()))
    if not entries and not log:
        log.add(filename, None, None, "the file lists no rater below its header")
    check_entries(entries, filename, log)
    log.raise_if_any()
    return entries
