"""Malformed files: each is refused with a message naming file, line and column, and the
database is left exactly as it was (counts before == after)."""

import pytest

from core.problems import FormatError
from evalapp.services.imports import import_comve, import_submission
from tests.data.helpers import PAIR_ANSWERS, PAIRS, REFERENCES, STATEMENTS, SUBMISSION, db_counts, import_mini, source

SUB = "sub.csv"

# (id, submission bytes, expected (file, line, column) of the first problem, words of its message)
SUBMISSION_CASES = [
    ("missing-id", b"1,a\n2,b\n", (SUB, None, 1), "1 id(s) of dataset 'mini' are missing: '3'"),
    ("extra-id", SUBMISSION + b"99,extra\n", (SUB, 4, 1), "id '99' is not in dataset 'mini'"),
    ("repeated-id", b"1,a\n2,b\n2,c\n3,d\n", (SUB, 3, 1), "id '2' repeated (first on line 2)"),
    ("empty-id", b"1,a\n,b\n2,c\n3,d\n", (SUB, 2, 1), "empty id"),
    ("missing-column", b"1,a\n2\n3,c\n", (SUB, 2, 2), "missing column 2 (reason)"),
    ("unquoted-comma", b"1,a\n2,b, c\n3,c\n", (SUB, 2, 3), "enclosed in double quotes"),
    ("header-line", b"id,reason\n" + SUBMISSION, (SUB, 1, 1), "looks like one; remove it"),
    ("binary", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", (SUB, None, None), "looks binary"),
    ("not-utf8", b"1,a\n2,caf\xe9\n3,c\n", (SUB, 2, 6), "not valid UTF-8"),
    ("open-quote", b'1,a\n2,"never closed\n3,c\n', (SUB, 2, None), "malformed CSV"),
    ("empty-file", b"", (SUB, None, None), "the file has no rows"),
    ("blank-lines-only", b"\n\r\n  \n", (SUB, None, None), "the file has no rows"),
    ("wrong-dataset", b"501,a\n502,b\n503,c\n", (SUB, None, 1), "none of the 3 ids is in dataset 'mini'"),
    ("id-too-long", SUBMISSION + b"x" * 65 + b",a\n", (SUB, 4, 1), "id is 65 characters long; the limit is 64"),
    ("quote-left-open", b'1,a\n2,"' + b"x" * 100_001 + b'"\n3,c\n', (SUB, 2, 2), "is a quote left open?"),
]


@pytest.mark.django_db
@pytest.mark.postgres
@pytest.mark.parametrize(
    "data, where, words", [case[1:] for case in SUBMISSION_CASES], ids=[case[0] for case in SUBMISSION_CASES]
)
def test_malformed_submission_is_refused_and_nothing_is_written(data, where, words):
    dataset = import_mini()
    import_submission(dataset, "existing", source("ok.csv", SUBMISSION))
    before = db_counts()
    with pytest.raises(FormatError) as caught:
        import_submission(dataset, "existing", source(SUB, data))
    first = caught.value.problems[0]
    assert (first.file, first.line, first.column) == where
    assert words in first.message
    assert db_counts() == before


@pytest.mark.django_db
@pytest.mark.postgres
def test_oversized_submission_is_refused(settings):
    dataset = import_mini()
    before = db_counts()
    settings.COMVE_MAX_UPLOAD_BYTES = 64
    with pytest.raises(FormatError) as caught:
        import_submission(dataset, "big", source(SUB, SUBMISSION * 10))
    assert str(caught.value) == f"{SUB}: file is {len(SUBMISSION) * 10:,} bytes; the limit is 64 bytes"
    assert db_counts() == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    "dataset_name, system, words, field",
    [
        ("nope", "A", "there is no dataset named 'nope' (datasets: mini)", "dataset"),
        ("mini", "Human", "reserved for the human-reference pseudo-system", "system name"),
        ("mini", "  ", "must not be empty", "system name"),
    ],
    ids=["unknown-dataset", "reserved-name", "empty-name"],
)
def test_bad_options_name_the_field(dataset_name, system, words, field):
    import_mini()
    before = db_counts()
    with pytest.raises(FormatError) as caught:
        import_submission(dataset_name, system, source(SUB, SUBMISSION))
    assert caught.value.problems[0].file == field and words in caught.value.problems[0].message
    assert db_counts() == before


DATASET_CASES = [
    (
        "statements-no-header",
        STATEMENTS.split(b"\n", 1)[1],
        REFERENCES,
        ("statements.csv", 1, None),
        "the first line must be the header 'id,FalseSent'",
    ),
    (
        "statements-wrong-header",
        STATEMENTS.replace(b"FalseSent", b"Statement"),
        REFERENCES,
        ("statements.csv", 1, None),
        "expected the header 'id,FalseSent'; found 'id,Statement'",
    ),
    (
        "empty-statement",
        STATEMENTS.replace(b"Cats read newspapers.", b""),
        REFERENCES,
        ("statements.csv", 4, 2),
        "empty FalseSent for id '3'",
    ),
    ("repeated-statement-id", STATEMENTS + b"2,Again.\n", REFERENCES, ("statements.csv", 5, 1), "id '2' repeated"),
    (
        "references-missing-id",
        STATEMENTS,
        REFERENCES.rsplit(b"3,", 1)[0],
        ("references.csv", None, 1),
        "1 id(s) of the statements file statements.csv are missing: '3'",
    ),
    (
        "references-extra-id",
        STATEMENTS,
        REFERENCES + b"4,a,b,c\n",
        ("references.csv", 4, 1),
        "id '4' is not in the statements file statements.csv",
    ),
    (
        "references-all-empty",
        STATEMENTS,
        REFERENCES.replace(
            b"3,Cats cannot read.,A cat does not understand words.,Only people read newspapers.", b"3,,, "
        ),
        ("references.csv", 3, 2),
        "no reference for id '3'",
    ),
    (
        "references-too-few-columns",
        STATEMENTS,
        REFERENCES.replace(b",Elephants do not fit.", b""),
        ("references.csv", 1, 4),
        "missing column 4 (ref3)",
    ),
]


@pytest.mark.django_db
@pytest.mark.postgres
@pytest.mark.parametrize(
    "statements, references, where, words",
    [case[1:] for case in DATASET_CASES],
    ids=[case[0] for case in DATASET_CASES],
)
def test_malformed_dataset_is_refused_and_nothing_is_written(statements, references, where, words):
    before = db_counts()
    with pytest.raises(FormatError) as caught:
        import_comve("new", source("statements.csv", statements), source("references.csv", references))
    first = caught.value.problems[0]
    assert (first.file, first.line, first.column) == where
    assert words in first.message
    assert db_counts() == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    "pairs, answers, where, words",
    [
        (PAIRS, PAIR_ANSWERS.replace(b"2,1", b"2,2"), ("answers.csv", 2, 2), "k must be 0 or 1"),
        (PAIRS, None, ("pairs.csv", None, None), "the pairs file needs the pair answers file too"),
        (PAIRS + b"9,x,y\n", PAIR_ANSWERS + b"9,0\n", ("pairs.csv", 5, 1), "id '9' is not in the statements file"),
        (
            PAIRS,
            PAIR_ANSWERS.replace(b"3,0\n", b""),
            ("answers.csv", None, 1),
            "1 id(s) of the pairs file pairs.csv are missing: '3'",
        ),
    ],
    ids=["bad-k", "pairs-without-answers", "pair-extra-id", "answer-missing"],
)
def test_malformed_pairs_are_refused(pairs, answers, where, words):
    before = db_counts()
    with pytest.raises(FormatError) as caught:
        import_comve(
            "new",
            source("statements.csv", STATEMENTS),
            source("references.csv", REFERENCES),
            pairs=source("pairs.csv", pairs),
            pair_answers=answers and source("answers.csv", answers),
        )
    first = caught.value.problems[0]
    assert (first.file, first.line, first.column) == where
    assert words in first.message
    assert db_counts() == before


@pytest.mark.django_db
@pytest.mark.postgres
def test_a_dataset_name_is_never_overwritten():
    import_mini()
    before = db_counts()
    with pytest.raises(FormatError, match="a dataset named 'mini' already exists"):
        import_mini()
    assert db_counts() == before
