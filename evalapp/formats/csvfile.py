"""Reading and writing the CSV files users bring and take away. No Django imports.

Every reader goes through :func:`read_rows`, so every import refuses binary and oversized
files the same way, accepts a UTF-8 BOM and Windows line endings, and reports problems
with file, line and column.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable
from dataclasses import dataclass, field

from core.problems import MAX_REPORTED_PROBLEMS, FormatError, Problem, ProblemLog

DEFAULT_MAX_BYTES = 20 * 1024 * 1024
# A single CSV field longer than this is a broken file (e.g. a quote left open), not a reason.
MAX_FIELD_CHARS = 100_000
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
# Python's csv module refuses fields over its own limit before our check can name the cause.
csv.field_size_limit(max(csv.field_size_limit(), MAX_FIELD_CHARS + 1))


@dataclass
class Row:
    """A CSV record with the (1-based) physical line it starts on."""

    line: int
    fields: list[str] = field(default_factory=list)


def decode(data: bytes, filename: str, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """Bytes to text: refuses empty-of-sense input (binary, too large, not UTF-8) with a clear message
    naming every line that is not UTF-8."""
    text, problems = _decode(data, filename, max_bytes)
    if problems:
        raise FormatError(capped(problems))
    return text


def _decode(data: bytes, filename: str, max_bytes: int) -> tuple[str, list[Problem]]:
    """``(text, problems)``: a whole-file problem (too large, UTF-16, binary) raises at once; each line
    that is not UTF-8 is a problem (its first bad byte), decoded with replacement characters so the
    rest of the file can still be checked."""
    if len(data) > max_bytes:
        raise FormatError(
            Problem(filename, None, None, f"file is {len(data):,} bytes; the limit is {max_bytes:,} bytes")
        )
    if data.startswith(UTF16_BOMS):
        raise FormatError(Problem(filename, None, None, "file is UTF-16 text; save it as UTF-8"))
    if b"\x00" in data[:65536]:
        raise FormatError(
            Problem(filename, None, None, "file looks binary (it contains NUL bytes); expected UTF-8 CSV text")
        )
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError:
        pass
    problems: list[Problem] = []
    lines: list[str] = []
    for number, line in enumerate(data.splitlines(keepends=True), 1):
        try:
            lines.append(line.decode("utf-8"))
        except UnicodeDecodeError as exc:
            problems.append(
                Problem(
                    filename,
                    number,
                    exc.start + 1,
                    f"not valid UTF-8 (byte 0x{line[exc.start]:02x}); save the file as UTF-8",
                )
            )
            lines.append(line.decode("utf-8", errors="replace"))
    return "".join(lines), problems


def capped(problems: Iterable[Problem], limit: int = MAX_REPORTED_PROBLEMS) -> list[Problem]:
    """The first ``limit`` problems, then one saying how many more there are (as :class:`ProblemLog` does)."""
    log = ProblemLog(limit)
    log.extend(problems)
    return log.reported()


def read_rows(
    data: bytes | str, filename: str, max_bytes: int = DEFAULT_MAX_BYTES, skip_blank: bool = True
) -> list[Row]:
    """Parse CSV bytes (or text) into :class:`Row` records, each with its starting line number; raises
    FormatError with every problem of encoding and quoting found in the file."""
    rows, problems = scan_rows(data, filename, max_bytes, skip_blank)
    if problems:
        raise FormatError(capped(problems))
    return rows


def scan_rows(
    data: bytes | str, filename: str, max_bytes: int = DEFAULT_MAX_BYTES, skip_blank: bool = True
) -> tuple[list[Row], list[Problem]]:
    """``(rows, problems)`` of a CSV file, reading on past each problem so that one pass finds them all.

    A line that is not UTF-8 is read with replacement characters; a record the CSV reader refuses (a
    quote left open, text after a closing quote) is a problem at the line it starts on, and reading
    starts again on the next line, that line read leniently so that its id still counts. A whole-file
    problem (too large, binary, UTF-16) still raises FormatError at once.
    """
    if isinstance(data, (bytes, bytearray)):
        text, problems = _decode(data, filename, max_bytes)
    else:
        text, problems = data, []
    lines = io.StringIO(text, newline="").readlines()
    rows: list[Row] = []
    first = 0  # ``first``: index of the line the current reader started on
    while first < len(lines):
        reader = csv.reader(iter(lines[first:]), strict=True)
        start = first + 1
        try:
            for fields in reader:
                line, start = start, first + reader.line_num + 1
                if skip_blank and (not fields or (len(fields) == 1 and not fields[0].strip())):
                    continue
                if max(map(len, fields), default=0) <= MAX_FIELD_CHARS:  # the common case, read at C speed
                    rows.append(Row(line, fields))
                    continue
                index = next(i for i, value in enumerate(fields, 1) if len(value) > MAX_FIELD_CHARS)
                problems.append(
                    Problem(
                        filename,
                        line,
                        index,
                        f"field is {len(fields[index - 1]):,} characters "
                        f"long (limit {MAX_FIELD_CHARS:,}); is a quote left open?",
                    )
                )
            break
        except csv.Error as exc:
            message = f"malformed CSV: {exc}"
            if "field larger than field limit" in str(exc):
                message = f"a field is longer than {csv.field_size_limit():,} characters; is a quote left open?"
            problems.append(Problem(filename, start, None, message))
            if len(problems) > MAX_REPORTED_PROBLEMS:
                break  # enough to fix; the count says there are more
            # The broken record's own line, read leniently (its id still counts), then on from the next line.
            try:
                fields = next(csv.reader([lines[start - 1]]), [])
            except csv.Error:
                fields = []  # not even one line of it reads as CSV: the problem above says so
            if (
                fields
                and any(field.strip() for field in fields)
                and all(len(value) <= MAX_FIELD_CHARS for value in fields)
            ):
                rows.append(Row(start, fields))
            first = start
    return rows, problems


def read_file(path: str | os.PathLike[str], max_bytes: int = DEFAULT_MAX_BYTES, skip_blank: bool = True) -> list[Row]:
    """:func:`read_rows` on a file path; the message names the file as given."""
    path = str(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise FormatError(Problem(path, None, None, f"cannot read file: {exc.strerror}")) from None
    return read_rows(data, path, max_bytes=max_bytes, skip_blank=skip_blank)


def safe_cell(value: object) -> object:
    """Neutralise a cell a spreadsheet would run as a formula (CSV injection)."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def write_csv(rows: Iterable[Iterable[object]], header: Iterable[str] | None = None) -> str:
    """Rows to CSV text with every cell neutralised; used by every CSV export."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if header:
        writer.writerow([safe_cell(h) for h in header])
    for row in rows:
        writer.writerow([safe_cell(cell) for cell in row])
    return out.getvalue()
