"""Upgrading a database made before the shared models moved to the core app.

The database is taken back to the last layout of the old apps (evalapp 0004, annotators 0002),
filled through that layout's models, given a leftover table of a model the product no longer
has, and migrated forward: every row must arrive under the core app's tables, the content types
must follow, and the leftover table must be gone.
"""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

BEFORE_THE_MOVE = [
    ("evalapp", "0004_perf_item_pick_index"),
    ("annotators", "0002_crowd_session"),
    ("contenttypes", "0002_remove_content_type_name"),
    ("auth", "0012_alter_user_first_name_max_length"),
]
LEFTOVER = "evalapp_benchprobe"


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def latest():
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()


def tables():
    with connection.cursor() as cursor:
        return set(connection.introspection.table_names(cursor))


def test_an_old_database_keeps_every_row_and_loses_the_leftover_table():
    old = migrate(BEFORE_THE_MOVE)
    assert {"evalapp_campaign", "annotators_rating"} <= tables() and "core_campaign" not in tables()
    Dataset, Instance = old.get_model("evalapp", "Dataset"), old.get_model("evalapp", "Instance")
    Campaign, Item = old.get_model("evalapp", "Campaign"), old.get_model("evalapp", "Item")
    Rater, Rating = old.get_model("annotators", "Rater"), old.get_model("annotators", "Rating")
    ContentType = old.get_model("contenttypes", "ContentType")
    dataset = Dataset.objects.create(name="old")
    instance = Instance.objects.create(dataset=dataset, external_id="1", position=0, false_sent="An old statement.")
    campaign = Campaign.objects.create(name="old-campaign", dataset=dataset, rubric=[])
    item = Item.objects.create(
        campaign=campaign, instance=instance, text="An old reason.", needed=3, active_count=1, done_count=1
    )
    rater = Rater.objects.create(platform="import", external_id="w1")
    Rating.objects.create(item=item, rater=rater, campaign=campaign, score=2, source="long")
    ContentType.objects.get_or_create(app_label="annotators", model="rating")
    with connection.schema_editor() as editor:
        editor.execute(f"CREATE TABLE {editor.quote_name(LEFTOVER)} (id integer PRIMARY KEY, value integer)")
        editor.execute(f"INSERT INTO {editor.quote_name(LEFTOVER)} (id, value) VALUES (1, 3)")

    new = migrate(latest())

    assert LEFTOVER not in tables()
    assert not {table for table in tables() if table.startswith("annotators_")}
    assert {"evalapp_submission", "evalapp_metricscore", "evalapp_metricrun"} <= tables()
    rating = new.get_model("core", "Rating").objects.select_related("item__campaign__dataset", "rater").get()
    assert (rating.score, rating.item.text, rating.item.campaign.name, rating.rater.external_id) == (
        2,
        "An old reason.",
        "old-campaign",
        "w1",
    )
    assert rating.item.campaign.dataset.name == "old" and rating.item.done_count == 1
    content_types = new.get_model("contenttypes", "ContentType").objects
    assert content_types.filter(app_label="core", model="rating").exists()
    assert not content_types.filter(app_label="annotators", model="rating").exists()
