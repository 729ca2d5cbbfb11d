"""The pure file parsers: records, cross-file checks, collected and capped problems."""

import pytest

from core.problems import MAX_REPORTED_PROBLEMS, FormatError
from evalapp.formats.comve import parse_dataset, parse_submission
from tests.data.helpers import PAIR_ANSWERS, PAIRS, REFERENCES, STATEMENTS, SUBMISSION, source

IDS = ["1", "2", "3"]


def test_dataset_with_pairs_gives_statements_references_and_twins():
    parsed = parse_dataset(
        source("s.csv", STATEMENTS), source("r.csv", REFERENCES), source("p.csv", PAIRS), source("a.csv", PAIR_ANSWERS)
    )
    assert [i.id for i in parsed.instances] == IDS
    first = parsed.instances[0]
    assert first.false_sent == "He put an elephant into the fridge."
    assert first.true_sent == "He put a turkey into the fridge."
    assert parsed.instances[1].references[2] == "In the west, the sun sets."
    assert parsed.warnings == []


def test_pair_that_differs_from_the_statement_is_a_warning():
    pairs = PAIRS.replace(b"Cats read newspapers.,People", b"Cats read the news.,People")
    parsed = parse_dataset(
        source("s.csv", STATEMENTS), source("r.csv", REFERENCES), source("p.csv", pairs), source("a.csv", PAIR_ANSWERS)
    )
    (warning,) = parsed.warnings
    assert (warning.file, warning.line, warning.column) == ("p.csv", 4, 2)
    assert "differs from the statement" in warning.message
    assert parsed.instances[2].true_sent == "People read newspapers."


def test_an_empty_reference_is_a_warning_and_is_left_out():
    references = REFERENCES.replace(b",Elephants do not fit.", b",")
    parsed = parse_dataset(source("s.csv", STATEMENTS), source("r.csv", references))
    (warning,) = parsed.warnings
    assert (warning.line, warning.column) == (1, 4)
    assert parsed.instances[0].references[2] == ""


def test_header_names_are_case_insensitive_and_spaces_around_ids_are_trimmed():
    statements = b"ID , falsesent\n 1 ,A.\n2,B.\n3,C.\n"
    parsed = parse_dataset(source("s.csv", statements), source("r.csv", REFERENCES))
    assert [i.id for i in parsed.instances] == IDS


def test_submission_records_in_file_order():
    parsed = parse_submission(source("sub.csv", SUBMISSION), IDS)
    assert list(parsed.reasons) == IDS
    assert not parsed.partial and parsed.warnings == []


def test_trailing_empty_columns_are_tolerated():
    parsed = parse_submission(source("sub.csv", SUBMISSION.replace(b"\n", b",,\n")), IDS)
    assert parsed.reasons["3"] == "Cats cannot read."


def test_empty_reason_is_a_warning_with_line_and_column():
    parsed = parse_submission(source("sub.csv", b"1,x\n2,\n3,  \n"), IDS)
    assert [(w.line, w.column) for w in parsed.warnings] == [(2, 2), (3, 2)]
    assert "empty reason for id '2'" in parsed.warnings[0].message


def test_partial_submission_lists_the_missing_ids():
    parsed = parse_submission(source("sub.csv", b"2,x\n"), IDS, allow_partial=True)
    assert parsed.partial and parsed.missing == ["1", "3"]


def test_every_problem_is_collected_not_only_the_first():
    data = b"1,a\n1,b\n,c\n4,d\n2\n"
    with pytest.raises(FormatError) as caught:
        parse_submission(source("sub.csv", data), IDS)
    where = [(p.line, p.column) for p in caught.value.problems]
    assert where == [(2, 1), (3, 1), (5, 2), (4, 1), (None, 1)]
    assert "'3'" in caught.value.problems[-1].message  # 2 had a broken row, so only 3 is missing


def test_problems_are_capped_with_a_count():
    data = b"".join(b"1,x\n" for _ in range(MAX_REPORTED_PROBLEMS + 12))
    with pytest.raises(FormatError) as caught:
        parse_submission(source("sub.csv", data), ["1"])
    problems = caught.value.problems
    assert len(problems) == MAX_REPORTED_PROBLEMS + 1
    assert problems[-1].message == "... and 11 more problems not shown"


def test_all_files_of_a_dataset_are_checked_together():
    with pytest.raises(FormatError) as caught:
        parse_dataset(
            source("s.csv", STATEMENTS.replace(b"The sun rises in the west.", b"")), source("r.csv", b"\x00bin")
        )
    statement_problem, reference_problem = caught.value.problems
    assert (statement_problem.file, statement_problem.line, statement_problem.column) == ("s.csv", 3, 2)
    assert reference_problem.file == "r.csv" and "binary" in reference_problem.message


def test_a_refused_submission_lists_every_problem_in_one_pass():
    """One non-UTF-8 line, an unclosed quote, an empty reason, a repeated id, an unknown id: all five, with lines."""
    data = (
        b"1,Elephants are too big.\n"
        b"2,Caf\xe9 reasons are not UTF-8.\n"
        b'3,"The quote is never closed.\n'
        b"4,\n"
        b"4,Second reason for 4.\n"
        b"99,No such instance.\n"
    )
    with pytest.raises(FormatError) as error:
        parse_submission(source("sub.csv", data), ["1", "2", "3", "4"])
    found = sorted((p.line, p.column, p.message.split(";")[0].split(" (")[0]) for p in error.value.problems)
    assert found == [
        (2, 6, "not valid UTF-8"),
        (3, None, "malformed CSV: unexpected end of data"),
        (4, 2, "empty reason for id '4'"),
        (5, 1, "id '4' repeated"),
        (6, 1, "id '99' is not in the dataset"),
    ]


def test_many_problems_are_capped_with_a_count_of_the_rest():
    data = b"".join(b"%d,\xff\n" % number for number in range(1, 81))
    with pytest.raises(FormatError) as error:
        parse_submission(source("sub.csv", data), [str(number) for number in range(1, 81)])
    problems = error.value.problems
    assert len(problems) == 51 and problems[-1].message == "... and 30 more problems not shown"
    assert [p.line for p in problems[:3]] == [1, 2, 3]
