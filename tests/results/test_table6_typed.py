"""Table 6 as typed results (issue 21): a dataclass family with a versioned JSON form that reads back.

The renderers read attributes; the JSON export is :meth:`Table6.as_dict` with ``format_version`` added to the
keys it always had (the golden files differ from before by that line only).
"""

import json

import pytest

from core.models import System
from evalapp.compute import table6 as typed
from evalapp.compute.rater_uncertainty import TInterval
from evalapp.formats import table6 as table6_format
from evalapp.services import results
from tests.results.test_table6_golden import golden_campaign  # noqa: F401 (a fixture)


@pytest.mark.parametrize("bootstrap", [0, 200])
def test_the_json_form_reads_back_to_the_same_table(golden_campaign, bootstrap):  # noqa: F811
    table = results.table6(golden_campaign, bootstrap=bootstrap)
    document = json.loads(table6_format.to_json(table))
    assert document["format_version"] == typed.FORMAT_VERSION
    again = typed.Table6.from_dict(document)
    assert again.as_dict() == document
    assert table6_format.to_json(again) == table6_format.to_json(table)
    assert again.rows[0].is_human and not any(row.is_human for row in again.rows[1:])
    assert table6_format.to_csv(again) == table6_format.to_csv(table)
    if bootstrap:
        assert isinstance(table.significance, typed.Significance) and isinstance(table.rows[1].ci, TInterval)
        assert table6_format.to_markdown(again).splitlines()[:8] == table6_format.to_markdown(table).splitlines()[:8]


def test_another_version_is_refused():
    with pytest.raises(ValueError, match="format_version 2"):
        typed.Table6.from_dict({"format_version": 2, "campaign": "c", "rows": []})


def test_the_human_row_is_named_as_the_human_pseudo_system():
    assert typed.HUMAN_TEAM == System.HUMAN_NAME
