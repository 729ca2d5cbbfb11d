"""The ComVE Subtask C files (protocol.md#imports): statements, references, statement pairs and answers, and
submissions. No Django imports.

Each parser returns plain records that keep their line numbers, or raises
:class:`~evalapp.formats.csvfile.FormatError` listing every problem found (capped, see
:mod:`evalapp.formats.problems`). The error classes of a submission are those of the
official scorer ``taskC_scorer.py``: missing, extra, repeated or empty id, and a missing
column; an empty reason is only a warning. Stricter than the official scorer, a row with
a non-empty third column is an error (it almost always is a reason with an unquoted comma,
which the official scorer would silently cut). Ids are compared after trimming surrounding
spaces.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from core.defaults import INSTANCE_ID_MAX_CHARS
from core.problems import FormatError, Problem, ProblemLog
from evalapp.formats.csvfile import DEFAULT_MAX_BYTES, Row, scan_rows

STATEMENTS_HEADER = ("id", "FalseSent")
REFERENCES_COLUMNS = ("id", "ref1", "ref2", "ref3")
PAIRS_HEADER = ("id", "sent0", "sent1")
PAIR_ANSWERS_COLUMNS = ("id", "k")
SUBMISSION_COLUMNS = ("id", "reason")
ID_COLUMN = 1
# Instance.external_id holds at most this many characters.
PAIR_CHOICES = ("0", "1")
# Ids quoted in a one-line summary of missing ids.
EXAMPLE_IDS = 5


@dataclass(frozen=True)
class SourceFile:
    """A file to import: the name used in messages and its raw bytes."""

    name: str
    data: bytes

    @classmethod
    def from_path(cls, path: str | os.PathLike[str], max_bytes: int = DEFAULT_MAX_BYTES) -> SourceFile:
        """Read a file; one larger than ``max_bytes`` is refused without reading it."""
        path = str(path)
        try:
            with open(path, "rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                if size > max_bytes:
                    raise FormatError(Problem(path, None, None, too_large_message(size, max_bytes)))
                return cls(path, handle.read(max_bytes + 1))
        except OSError as exc:
            raise FormatError(Problem(path, None, None, f"cannot read file: {exc.strerror}")) from None


def too_large_message(size: int, max_bytes: int) -> str:
    return f"file is {size:,} bytes; the limit is {max_bytes:,} bytes"


@dataclass(frozen=True)
class Record:
    """One data row: its line, its id and the remaining cells."""

    line: int
    id: str
    values: tuple[str, ...]


@dataclass
class DatasetInstance:
    """An instance as the dataset files describe it, in statements-file order."""

    id: str
    false_sent: str
    references: tuple[str, ...]  # three strings, "" where the file leaves a reference empty
    true_sent: str = ""


@dataclass
class ParsedDataset:
    instances: list[DatasetInstance]
    warnings: list[Problem] = field(default_factory=list)


@dataclass
class ParsedSubmission:
    """A submission checked against the dataset's ids; ``reasons`` maps id to reason."""

    reasons: dict[str, str]
    missing: list[str]
    warnings: list[Problem] = field(default_factory=list)

    @property
    def partial(self) -> bool:
        return bool(self.missing)


def _quoted_ids(ids: Sequence[str]) -> str:
    shown = ", ".join(f"'{i}'" for i in ids[:EXAMPLE_IDS])
    return shown + (f" and {len(ids) - EXAMPLE_IDS} more" if len(ids) > EXAMPLE_IDS else "")


def _header_of(header: Iterable[str]) -> str:
    return ",".join(header)


def _check_header(rows: list[Row], filename: str, header: tuple[str, ...], log: ProblemLog) -> None:
    """Pop and check the header row; a missing header is the commonest mistake, so say so."""
    first = rows[0]
    found = tuple(cell.strip() for cell in first.fields)
    if not found or found[0].lower() != header[0]:
        log.add(
            filename,
            first.line,
            None,
            f"the first line must be the header '{_header_of(header)}'; found '{','.join(found)}'",
        )
        return
    rows.pop(0)
    if tuple(cell.lower() for cell in found) != tuple(h.lower() for h in header):
        log.add(filename, first.line, None, f"expected the header '{_header_of(header)}'; found '{','.join(found)}'")


@dataclass
class _Table:
    """The valid records of a file, plus the ids of rows refused for another reason (so that
    those ids are not reported a second time as missing)."""

    records: list[Record]
    refused_ids: set[str]


def _keyed_records(rows: list[Row], filename: str, columns: tuple[str, ...], log: ProblemLog) -> _Table:
    """Rows to :class:`Record`: exact column count, a non-empty id that is not repeated."""
    table = _Table([], set())
    first_line: dict[str, int] = {}
    width = len(columns)
    for row in rows:
        cells = row.fields
        key = cells[0].strip()
        if len(cells) < width:
            log.add(
                filename,
                row.line,
                len(cells) + 1,
                f"missing column {len(cells) + 1} ({columns[len(cells)]}); expected {width} columns "
                f"({_header_of(columns)}), found {len(cells)}",
            )
        elif any(cell.strip() for cell in cells[width:]):
            column = next(i for i, cell in enumerate(cells[width:], width + 1) if cell.strip())
            log.add(
                filename,
                row.line,
                column,
                f"expected {width} columns ({_header_of(columns)}), found {len(cells)}; "
                "a text containing a comma must be enclosed in double quotes",
                cells[column - 1],
            )
        elif not key:
            log.add(filename, row.line, ID_COLUMN, "empty id")
        elif len(key) > INSTANCE_ID_MAX_CHARS:
            log.add(
                filename,
                row.line,
                ID_COLUMN,
                f"id is {len(key)} characters long; the limit is {INSTANCE_ID_MAX_CHARS}",
                key[:INSTANCE_ID_MAX_CHARS],
            )
        elif key in first_line:
            log.add(filename, row.line, ID_COLUMN, f"id '{key}' repeated (first on line {first_line[key]})", key)
        else:
            first_line[key] = row.line
            table.records.append(Record(row.line, key, tuple(cells[1:width])))
            continue
        if key:
            table.refused_ids.add(key)
    return table


def _read(
    source: SourceFile,
    columns: tuple[str, ...],
    log: ProblemLog,
    header: tuple[str, ...] | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> _Table | None:
    """Read one file into a :class:`_Table`, adding its problems to ``log``; None when the file
    is not readable CSV or has no rows (its problem is then already in ``log``)."""
    try:
        rows, problems = scan_rows(source.data, source.name, max_bytes=max_bytes)
    except FormatError as exc:
        log.extend(exc.problems)
        return None
    # Encoding and quoting problems, and then the rows' own problems: the whole list in one pass.
    log.extend(problems)
    if not rows:
        log.add(source.name, None, None, f"the file has no rows; expected '{_header_of(columns)}' rows")
        return None
    if header:
        _check_header(rows, source.name, header, log)
    elif rows[0].fields[0].strip().lower() == columns[0]:
        log.add(
            source.name,
            rows[0].line,
            ID_COLUMN,
            f"this file has no header line, but line {rows[0].line} looks like one; remove it "
            f"(the columns are {_header_of(columns)})",
        )
        rows.pop(0)
    return _keyed_records(rows, source.name, columns, log)


def _check_nonempty(
    table: _Table, filename: str, columns: tuple[str, ...], log: ProblemLog, value_index: int = 0
) -> None:
    column = value_index + 2
    for record in table.records:
        if not record.values[value_index].strip():
            log.add(filename, record.line, column, f"empty {columns[column - 1]} for id '{record.id}'")


def parse_statements(source: SourceFile, log: ProblemLog, max_bytes: int = DEFAULT_MAX_BYTES) -> _Table | None:
    table = _read(source, STATEMENTS_HEADER, log, header=STATEMENTS_HEADER, max_bytes=max_bytes)
    if table:
        _check_nonempty(table, source.name, STATEMENTS_HEADER, log)
    return table


def parse_references(
    source: SourceFile, log: ProblemLog, warnings: ProblemLog, max_bytes: int = DEFAULT_MAX_BYTES
) -> _Table | None:
    """References ``id,ref1,ref2,ref3``; an empty reference is a warning, none at all an error."""
    table = _read(source, REFERENCES_COLUMNS, log, max_bytes=max_bytes)
    for record in table.records if table else []:
        empty = [column for column, text in enumerate(record.values, 2) if not text.strip()]
        if len(empty) == len(record.values):
            log.add(source.name, record.line, 2, f"no reference for id '{record.id}'")
            continue
        for column in empty:
            warnings.add(
                source.name,
                record.line,
                column,
                f"empty {REFERENCES_COLUMNS[column - 1]} for id '{record.id}'; BLEU uses the other references",
            )
    return table


def parse_pairs(source: SourceFile, log: ProblemLog, max_bytes: int = DEFAULT_MAX_BYTES) -> _Table | None:
    table = _read(source, PAIRS_HEADER, log, header=PAIRS_HEADER, max_bytes=max_bytes)
    if table:
        for index in range(len(PAIRS_HEADER) - 1):
            _check_nonempty(table, source.name, PAIRS_HEADER, log, value_index=index)
    return table


def parse_pair_answers(source: SourceFile, log: ProblemLog, max_bytes: int = DEFAULT_MAX_BYTES) -> _Table | None:
    table = _read(source, PAIR_ANSWERS_COLUMNS, log, max_bytes=max_bytes)
    for record in table.records if table else []:
        if record.values[0].strip() not in PAIR_CHOICES:
            log.add(
                source.name,
                record.line,
                2,
                f"k must be 0 or 1 (which of sent0/sent1 is against common sense); found '{record.values[0]}'",
                record.values[0],
            )
    return table


def check_ids(
    table: _Table, expected_ids: Sequence[str], filename: str, log: ProblemLog, what: str, require_all: bool = True
) -> list[str]:
    """Report each record whose id ``expected_ids`` lacks and, if ``require_all``, the expected
    ids that no row of the file has (one summary). Returns the missing ids."""
    expected = set(expected_ids)
    extra = [record for record in table.records if record.id not in expected]
    if len(extra) > 1 and len(extra) == len(table.records):
        log.add(
            filename,
            None,
            ID_COLUMN,
            f"none of the {len(extra)} ids is in {what}; is the file for another "
            f"dataset? (ids: {_quoted_ids([record.id for record in extra])})",
        )
        return list(expected_ids)
    for record in extra:
        log.add(filename, record.line, ID_COLUMN, f"id '{record.id}' is not in {what}", record.id)
    present = {record.id for record in table.records} | table.refused_ids
    missing = [i for i in expected_ids if i not in present]
    if missing and require_all:
        log.add(filename, None, ID_COLUMN, f"{len(missing)} id(s) of {what} are missing: {_quoted_ids(missing)}")
    return missing


def parse_dataset(
    statements: SourceFile,
    references: SourceFile,
    pairs: SourceFile | None = None,
    pair_answers: SourceFile | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> ParsedDataset:
    """Parse and cross-check the files of a dataset; raises FormatError listing every problem."""
    log, warnings = ProblemLog(), ProblemLog()
    if (pairs is None) != (pair_answers is None):
        given, needed = ("pairs", "pair answers") if pairs is not None else ("pair answers", "pairs")
        lone = pairs if pairs is not None else pair_answers
        assert lone is not None  # exactly one of the two is given
        log.add(lone.name, None, None, f"the {given} file needs the {needed} file too")
    statement_table = parse_statements(statements, log, max_bytes)
    reference_table = parse_references(references, log, warnings, max_bytes)
    statement_ids = [record.id for record in statement_table.records] if statement_table else []
    in_statements = f"the statements file {statements.name}"
    if statement_table and reference_table:
        check_ids(reference_table, statement_ids, references.name, log, in_statements)
    true_sents: dict[str, str] = {}
    if pairs is not None and pair_answers is not None:
        pair_table = parse_pairs(pairs, log, max_bytes)
        answer_table = parse_pair_answers(pair_answers, log, max_bytes)
        if statement_table and pair_table:
            check_ids(pair_table, statement_ids, pairs.name, log, in_statements, require_all=False)
        if pair_table and answer_table:
            check_ids(
                answer_table, [r.id for r in pair_table.records], pair_answers.name, log, f"the pairs file {pairs.name}"
            )
        log.raise_if_any()
        # _read returns None only after logging a problem, on which raise_if_any has raised.
        assert statement_table is not None and pair_table is not None and answer_table is not None
        true_sents = _true_sentences(statement_table, pair_table, answer_table, pairs.name, warnings)
    log.raise_if_any()
    assert statement_table is not None and reference_table is not None  # as above: a None table has raised
    references_by_id = {record.id: record.values for record in reference_table.records}
    instances = [
        DatasetInstance(
            record.id,
            record.values[0].strip(),
            tuple(text.strip() for text in references_by_id[record.id]),
            true_sents.get(record.id, ""),
        )
        for record in statement_table.records
    ]
    return ParsedDataset(instances, warnings.reported())


def _true_sentences(
    statement_table: _Table, pair_table: _Table, answer_table: _Table, pairs_name: str, warnings: ProblemLog
) -> dict[str, str]:
    """The sensical twin of each statement: the pair's sentence that the answer does not name.

    A pair whose nonsensical sentence differs from the statement is kept with a warning (the
    official test set has one: id 1698, "swimming to" / "swimming in" Hawaii).
    """
    statements = {record.id: record.values[0].strip() for record in statement_table.records}
    answers = {record.id: int(record.values[0].strip()) for record in answer_table.records}
    true_sents: dict[str, str] = {}
    for record in pair_table.records:
        k = answers[record.id]
        nonsensical, sensical = record.values[k].strip(), record.values[1 - k].strip()
        if nonsensical != statements[record.id]:
            warnings.add(
                pairs_name,
                record.line,
                k + 2,
                f"sent{k} of id '{record.id}' ('{nonsensical}') differs from the statement ('{statements[record.id]}')",
            )
        true_sents[record.id] = sensical
    return true_sents


def parse_submission(
    source: SourceFile,
    expected_ids: Sequence[str],
    allow_partial: bool = False,
    max_bytes: int = DEFAULT_MAX_BYTES,
    dataset_label: str = "the dataset",
) -> ParsedSubmission:
    """Parse an ``id,reason`` file (no header) against the dataset's ids.

    Missing ids are an error unless ``allow_partial``; extra, repeated and empty ids always
    are. Empty reasons are warnings (the official scorer scores them as empty hypotheses).
    """
    log, warnings = ProblemLog(), ProblemLog()
    table = _read(source, SUBMISSION_COLUMNS, log, max_bytes=max_bytes)
    missing = (
        check_ids(table, expected_ids, source.name, log, dataset_label, require_all=not allow_partial) if table else []
    )
    for record in table.records if table else ():
        if not record.values[0].strip():
            warnings.add(source.name, record.line, 2, f"empty reason for id '{record.id}'", record.id)
    if log:
        # A refused file lists its empty reasons too, so that one fix of the file is the last.
        log.extend(
            replace(warning, message=f"{warning.message} (a warning: it alone would not refuse the file)")
            for warning in warnings.problems
        )
    log.raise_if_any()
    assert table is not None  # _read returns None only after logging a problem, on which raise_if_any has raised
    return ParsedSubmission(
        {record.id: record.values[0].strip() for record in table.records}, missing, warnings.reported()
    )


def problems_as_dicts(problems: Iterable[Problem]) -> list[dict[str, str | int | None]]:
    return [problem.as_dict() for problem in problems]
