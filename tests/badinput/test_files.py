"""Malformed files through the import commands: a clear error naming file, line and column;
nothing written; the campaign exactly as before."""

from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from tests.badinput.cases import BAD_FILES
from tests.badinput.world import CAMPAIGN, DATASET, REFERENCES, STATEMENTS, build_world, snapshot

# Atomicity is the database's: the same cases run again on PostgreSQL.
pytestmark = pytest.mark.postgres

FILES = Path(__file__).resolve().parent / "files"
# The real limit is 20 MB; the tests lower it so that the oversized file stays small.
TEST_UPLOAD_LIMIT = 64 * 1024


def importers(tmp_path):
    """importer name -> function(path) -> the management command's arguments."""
    statements, references = tmp_path / "statements.csv", tmp_path / "references.csv"
    statements.write_bytes(STATEMENTS)
    references.write_bytes(REFERENCES)
    new_dataset = ["import_comve", "--name", "new-dataset"]
    return {
        "statements": lambda path: [*new_dataset, "--statements", path, "--references", str(references)],
        "references": lambda path: [*new_dataset, "--statements", str(statements), "--references", path],
        "submission": lambda path: ["import_submission", "--dataset", DATASET, "--system", "gamma", "--file", path],
        "mturk": lambda path: [
            "import_ratings",
            "--campaign",
            CAMPAIGN,
            "--format",
            "mturk",
            "--file",
            path,
            "--reason-column",
            "Input.reason",
        ],
        "long": lambda path: ["import_ratings", "--campaign", CAMPAIGN, "--format", "long", "--file", path],
        "metric_system": lambda path: [
            "import_metric_scores",
            "--campaign",
            CAMPAIGN,
            "--metric",
            "mine",
            "--level",
            "system",
            "--file",
            path,
        ],
        "metric_segment": lambda path: [
            "import_metric_scores",
            "--campaign",
            CAMPAIGN,
            "--metric",
            "mine",
            "--level",
            "segment",
            "--file",
            path,
        ],
    }


def refused(args):
    """Run a command that must refuse its input; returns the error message."""
    with pytest.raises(CommandError) as caught:
        call_command(*args)
    return str(caught.value)


def test_every_file_is_in_the_table():
    assert sorted(path.name for path in FILES.iterdir()) == sorted(case.name for case in BAD_FILES)
    assert len(BAD_FILES) >= 30


@pytest.mark.django_db
@pytest.mark.parametrize("case", BAD_FILES, ids=[case.name for case in BAD_FILES])
def test_bad_file_is_refused_and_changes_nothing(case, tmp_path):
    build_world()
    before = snapshot()
    path = str(FILES / case.name)
    message = refused(importers(tmp_path)[case.importer](path))
    located = f"{path}, {case.where}:" if case.where else f"{path}:"
    assert located in message, message
    assert case.says in message, message
    assert "nothing was written" in message
    assert snapshot() == before


@pytest.mark.django_db
@override_settings(COMVE_MAX_UPLOAD_BYTES=TEST_UPLOAD_LIMIT)
@pytest.mark.parametrize("importer", ["statements", "submission", "metric_system"])
def test_oversized_file_is_refused_before_parsing(importer, tmp_path):
    build_world()
    before = snapshot()
    path = tmp_path / "oversized.csv"
    path.write_bytes(b"1,reason\n" * (TEST_UPLOAD_LIMIT // len(b"1,reason\n") + 1))
    message = refused(importers(tmp_path)[importer](str(path)))
    assert f"{path}: file is {path.stat().st_size:,} bytes; the limit is {TEST_UPLOAD_LIMIT:,} bytes" in message
    assert snapshot() == before
