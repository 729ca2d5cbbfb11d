"""The malformed files of ``files/``, what each one is fed to, and what its error must say.

``where`` is the location the message must name (``"line 3, column 1"``, ``"line 2"``, or
``None`` for a whole-file problem); ``says`` a fragment of the message itself. Every file is
refused as a whole: nothing written, the campaign exactly as before.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class BadFile:
    name: str
    importer: str  # a key of tests.badinput.test_files.IMPORTERS
    where: str | None
    says: str


NOT_UTF8 = "not valid UTF-8"
BINARY = "file looks binary (it contains NUL bytes)"
OPEN_QUOTE = "malformed CSV: unexpected end of data"
UNQUOTED_COMMA = "a text containing a comma must be enclosed in double quotes"

BAD_FILES = [
    # statements (import_comve --statements)
    BadFile("statements_empty.csv", "statements", None, "the file has no rows"),
    BadFile("statements_no_header.csv", "statements", "line 1", "the first line must be the header 'id,FalseSent'"),
    BadFile("statements_wrong_header.csv", "statements", "line 1", "expected the header 'id,FalseSent'"),
    BadFile("statements_latin1.csv", "statements", "line 2, column 14", NOT_UTF8),
    BadFile("statements_utf16.csv", "statements", None, "file is UTF-16 text; save it as UTF-8"),
    BadFile("statements_binary.png", "statements", None, BINARY),
    BadFile("statements_open_quote.csv", "statements", "line 2", OPEN_QUOTE),
    BadFile("statements_duplicate_id.csv", "statements", "line 4, column 1", "id '1' repeated (first on line 2)"),
    BadFile("statements_missing_column.csv", "statements", "line 3, column 2", "missing column 2 (FalseSent)"),
    BadFile("statements_extra_column.csv", "statements", "line 3, column 3", UNQUOTED_COMMA),
    BadFile("statements_empty_id.csv", "statements", "line 3, column 1", "empty id"),
    BadFile("statements_empty_statement.csv", "statements", "line 3, column 2", "empty FalseSent for id '2'"),
    BadFile("statements_huge_line.csv", "statements", "line 3", "is a quote left open?"),
    # references (import_comve --references)
    BadFile("references_with_header.csv", "references", "line 1, column 1", "looks like one; remove it"),
    BadFile("references_no_reference.csv", "references", "line 2, column 2", "no reference for id '2'"),
    BadFile("references_too_many_columns.csv", "references", "line 2, column 5", "expected 4 columns"),
    BadFile("references_crlf_open_quote.csv", "references", "line 2", OPEN_QUOTE),
    BadFile("references_nul_bytes.csv", "references", None, BINARY),
    # submissions (import_submission)
    BadFile("submission_empty.csv", "submission", None, "the file has no rows"),
    BadFile("submission_missing_id.csv", "submission", "column 1", "1 id(s) of dataset 'comve-mini' are missing: '5'"),
    BadFile("submission_extra_id.csv", "submission", "line 6, column 1", "id '6' is not in dataset 'comve-mini'"),
    BadFile("submission_repeated_id.csv", "submission", "line 4, column 1", "id '3' repeated (first on line 3)"),
    BadFile("submission_empty_id.csv", "submission", "line 3, column 1", "empty id"),
    BadFile("submission_unquoted_comma.csv", "submission", "line 2, column 3", UNQUOTED_COMMA),
    BadFile("submission_formula_id.csv", "submission", "line 5, column 1", "id '=HYPERLINK("),
    BadFile("submission_zip.zip", "submission", None, BINARY),
    BadFile("submission_missing_column.csv", "submission", "line 2, column 2", "missing column 2 (reason)"),
    BadFile("submission_header_line.csv", "submission", "line 1, column 1", "looks like one; remove it"),
    BadFile("submission_cp1252.csv", "submission", "line 2, column 5", NOT_UTF8),
    BadFile("submission_open_quote.csv", "submission", "line 2", OPEN_QUOTE),
    # Mechanical Turk batch results (import_ratings --format mturk --reason-column Input.reason)
    BadFile("mturk_empty.csv", "mturk", None, "the file is empty"),
    BadFile(
        "mturk_missing_score_column.csv",
        "mturk",
        "line 1, column Answer.score",
        "required score column 'Answer.score' is missing",
    ),
    BadFile("mturk_unknown_instance.csv", "mturk", "line 3, column Input.id", "no item for instance '99'"),
    BadFile("mturk_reason_mismatch.csv", "mturk", "line 3, column Input.reason", "reason does not match"),
    BadFile("mturk_results.xlsx", "mturk", None, BINARY),
    BadFile("mturk_open_quote.csv", "mturk", "line 2", OPEN_QUOTE),
    # long-form ratings (import_ratings --format long)
    BadFile("long_missing_system_column.csv", "long", "line 1, column system", "required system column 'system'"),
    BadFile("long_no_header.csv", "long", "line 1, column instance_id", "required instance column 'instance_id'"),
    BadFile("long_unknown_system.csv", "long", "line 3, column instance_id", "of system 'gamma'"),
    BadFile("long_formula_system.csv", "long", "line 3, column instance_id", 'of system "=cmd|'),
    BadFile("long_latin1.csv", "long", "line 2, column 12", NOT_UTF8),
    # a researcher's metric scores (import_metric_scores)
    BadFile(
        "metric_system_unknown_system.csv",
        "metric_system",
        "line 3, column 1",
        "'gamma' is not a system of campaign 'bad-input'",
    ),
    BadFile("metric_system_not_a_number.csv", "metric_system", "line 3, column 2", "score is not a finite number"),
    BadFile("metric_system_nan.csv", "metric_system", "line 2, column 2", "score is not a finite number"),
    BadFile("metric_system_duplicate.csv", "metric_system", "line 3, column 1", "second score for system 'alpha'"),
    BadFile("metric_system_only_header.csv", "metric_system", None, "no scores found"),
    BadFile("metric_segment_missing_column.csv", "metric_segment", "line 3", "expected 3 columns"),
    BadFile(
        "metric_segment_unknown_instance.csv",
        "metric_segment",
        "line 2, column 1",
        "'42' is not an instance id of dataset 'comve-mini'",
    ),
    BadFile("metric_segment_empty_system.csv", "metric_segment", "line 2, column 2", "system is empty"),
]
