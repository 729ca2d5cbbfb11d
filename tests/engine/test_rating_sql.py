"""The rating path's SQL at its seams: every column it names is a field of the model its alias stands for,
and every such column exists in the database, on SQLite and on PostgreSQL.

``core/rating_sql.py`` reads table and column names from the models' ``_meta`` (a renamed field
fails at import). These tests catch the rest: a column typed into a statement by hand, a
model field whose column no migration created, an alias pointing at the wrong table.
"""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core import engine, flags, rating_sql
from core.models import Assignment, Campaign, Instance, Item, Rater, RaterExclusion, Rating
from core.progress import rater_progress
from tests.engine.test_engine import T0, new_raters

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

# The aliases the statements use, and the model each stands for (derived tables m, w, l, slot excluded).
ALIASES = {
    "a": Assignment,
    "h": Assignment,
    "i": Item,
    "c": Item,
    "r": Rater,
    "e": RaterExclusion,
    "g": Rating,
    "s": Instance,
    "k": Campaign,
}
QUALIFIED_COLUMN = re.compile(r"(?<![\w.\"])([a-z])\.\"?([a-z_]+)\"?")


def columns_of(model):
    return {field.column for field in model._meta.concrete_fields}


def rating_path_statements(campaign):
    """Every statement one rater's whole cycle sends: lease, page, submit and lease, flag, late submit, progress."""
    first, second = new_raters(2)
    with CaptureQueriesContext(connection) as queries:
        lease = engine.next_assignment(campaign, first, T0)
        engine.live_lease_and_progress(campaign, first, T0)
        submitted = engine.submit_and_lease(lease.pk, first, 2, campaign, seconds=1.0, now=T0)
        flags.flag_item(submitted.next_assignment_id, first, campaign, now=T0)
        late = engine.next_assignment(campaign, second, T0)
        engine.submit_rating(late.pk, second, 1, now=T0 + timedelta(days=2), campaign=campaign)
        rater_progress(campaign, first)
        rating_sql.open_campaign(campaign.pk)
    return [query["sql"] for query in queries]


def test_every_qualified_column_belongs_to_the_aliased_model(campaign):
    statements = [sql for sql in rating_path_statements(campaign) if QUALIFIED_COLUMN.search(sql)]
    assert len(statements) >= 8
    for sql in statements:
        for alias, column in QUALIFIED_COLUMN.findall(sql):
            if alias in ALIASES:
                assert column in columns_of(ALIASES[alias]), (
                    f"{alias}.{column} is no column of {ALIASES[alias].__name__}: {sql}"
                )


def test_every_column_the_statements_name_exists_in_the_database():
    assert {"core.Assignment", "core.Item", "core.Rating", "core.Rater"} <= {
        label for label, _ in rating_sql.Table.used
    }
    with connection.cursor() as cursor:
        for label, field_name in sorted(rating_sql.Table.used):
            model = next(model for model in ALIASES.values() if model._meta.label == label)
            field = model._meta.get_field(field_name)
            described = connection.introspection.get_table_description(cursor, model._meta.db_table)
            assert field.column in {column.name for column in described}, (label, field_name)


def test_a_renamed_column_breaks_the_statements_at_once(monkeypatch):
    """What a model change that the SQL did not follow does: the Table lookup fails, it never guesses."""
    table = rating_sql.Table(Item, "i")
    with pytest.raises(Exception, match="has no field named 'active_count_renamed'"):
        table("active_count_renamed")
