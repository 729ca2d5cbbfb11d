"""Reading and writing the CSV files users bring and take away. No Django imports.

Every reader goes through :func:`read_rows`, so every import refuses binary and oversized
files the same way, accepts a UTF-8 BOM and Windows line endings, and reports problems
with file, line and column.
"""
import csv
import io
from dataclasses import dataclass, field

from core.problems import FormatError, Problem

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
    fields: list = field(default_factory=list)


def decode(data, filename, max_bytes=DEFAULT_MAX_BYTES):
    """Bytes to text: refuses empty-of-sense input (binary, too large, not UTF-8) with a clear message."""
    if len(data) > max_bytes:
        raise FormatError(Problem(filename, None, None,
                                  f"file is {len(data):,} bytes; the limit is {max_bytes:,} bytes"))
    if data.startswith(UTF16_BOMS):
        raise FormatError(Problem(filename, None, None, "file is UTF-16 text; save it as UTF-8"))
    if b"\x00" in data[:65536]:
        raise FormatError(Problem(filename, None, None, "file looks binary (it contains NUL bytes); expected UTF-8 CSV text"))
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise FormatError(Problem(filename, line, column,
                                  f"not valid UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8")) from None


def read_rows(data, filename, max_bytes=DEFAULT_MAX_BYTES, skip_blank=True):
    """Parse CSV bytes (or text) into :class:`Row` records, each with its starting line number."""
    text = decode(data, filename, max_bytes) if isinstance(data, (bytes, bytearray)) else data
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows = []
    start = 1
    try:
        for fields in reader:
            line, start = start, reader.line_num + 1
            if skip_blank and (not fields or (len(fields) == 1 and not fields[0].strip())):
                continue
            if max(map(len, fields), default=0) <= MAX_FIELD_CHARS:  # the common case, read at C speed
                rows.append(Row(line, fields))
                continue
            for index, value in enumerate(fields, 1):
                if len(value) > MAX_FIELD_CHARS:
                    raise FormatError(Problem(filename, line, index,
                                              f"field is {len(value):,} characters long (limit {MAX_FIELD_CHARS:,}); "
                                              "is a quote left open?"))
            rows.append(Row(line, fields))
    except csv.Error as exc:
        message = f"malformed CSV: {exc}"
        if "field larger than field limit" in str(exc):
            message = f"a field is longer than {csv.field_size_limit():,} characters; is a quote left open?"
        raise FormatError(Problem(filename, start, None, message)) from None
    return rows


def read_file(path, max_bytes=DEFAULT_MAX_BYTES, **kwargs):
    """:func:`read_rows` on a file path; the message names the file as given."""
    path = str(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise FormatError(Problem(path, None, None, f"cannot read file: {exc.strerror}")) from None
    return read_rows(data, path, max_bytes=max_bytes, **kwargs)


def safe_cell(value):
    """Neutralise a cell a spreadsheet would run as a formula (CSV injection)."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def write_csv(rows, header=None):
    """Rows to CSV text with every cell neutralised; used by every CSV export."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if header:
        writer.writerow([safe_cell(h) for h in header])
    for row in rows:
        writer.writerow([safe_cell(cell) for cell in row])
    return out.getvalue()
