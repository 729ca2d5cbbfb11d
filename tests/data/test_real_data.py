"""The real ComVE test set (1,000 instances, 3,000 references) and all 17 shared test-set
systems (plus the 5 dev systems on the dev set) through the import services."""

import re

import pytest

from core.models import Instance, Reference, SystemOutput
from evalapp.services.imports import import_comve, import_submission
from tests.conftest import shared_file

pytestmark = [pytest.mark.shared, pytest.mark.django_db, pytest.mark.postgres]

TEST_INSTANCES = 1000
DEV_INSTANCES = 997
REFERENCES_PER_INSTANCE = 3
TEST_SYSTEMS = 17
DEV_SYSTEMS = 5


def official_figures(split):
    text = shared_file("SOURCES.md").read_text(encoding="utf-8")
    return {
        m.group(1): float(m.group(2))
        for m in re.finditer(rf"^\| (\S+\.csv) \| {split} \| \d+ \| ([\d.]+) \|", text, re.M)
    }


def import_split(split):
    return import_comve(
        f"comve-{split}",
        shared_file(f"{split}_statements.csv"),
        shared_file(f"{split}_references.csv"),
        pairs=shared_file(f"{split}_statement_pairs.csv"),
        pair_answers=shared_file(f"{split}_statement_pairs_answers.csv"),
        split=split,
    )


def test_full_test_set_and_all_17_systems():
    result = import_split("test")
    dataset = result.dataset
    assert (result.instances, result.references, result.true_sentences) == (TEST_INSTANCES, 3000, TEST_INSTANCES)
    assert Instance.objects.filter(dataset=dataset).count() == TEST_INSTANCES
    assert Reference.objects.filter(instance__dataset=dataset).count() == TEST_INSTANCES * REFERENCES_PER_INSTANCE
    first = Instance.objects.get(dataset=dataset, position=0)
    assert (first.external_id, first.false_sent) == ("1175", "He loves to stroll at the park with his bed")
    assert first.true_sent == "He loves to stroll at the park with his dog."
    # the one pair of the official test set whose nonsensical sentence differs from the statement
    (warning,) = result.warnings
    assert "id '1698'" in warning.message and warning.column == 3

    figures = official_figures("test")
    assert len(figures) == TEST_SYSTEMS
    for filename, official in figures.items():
        imported = import_submission(dataset, filename.removesuffix("_test.csv"), shared_file("systems", filename))
        assert imported.rows == TEST_INSTANCES and imported.warnings == []
        assert f"{imported.official_bleu:.4f}" == f"{official:.4f}", filename
    assert SystemOutput.objects.filter(system__dataset=dataset).count() == TEST_SYSTEMS * TEST_INSTANCES


def test_dev_set_and_its_5_systems():
    dataset = import_split("dev").dataset
    figures = official_figures("dev")
    assert len(figures) == DEV_SYSTEMS
    for filename, official in figures.items():
        imported = import_submission(dataset, filename.removesuffix("_dev.csv"), shared_file("systems", filename))
        assert imported.rows == DEV_INSTANCES
        assert f"{imported.official_bleu:.4f}" == f"{official:.4f}", filename
