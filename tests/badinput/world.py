"""A small, fully set-up world for the bad-input tests, and a snapshot of everything in the database.

Dataset ``comve-mini`` (ids 1-5, three references each), systems ``alpha`` and ``beta`` whose
reason for id N is "Reason of <system> for N.", campaign ``bad-input`` over all five ids with
three raters per item, a rater who has rated one item and holds a lease on another, and a
second rater holding a lease. A
refused input must leave :func:`snapshot` exactly as it was.
"""

from django.apps import apps
from django.contrib.auth import get_user_model

from core import engine
from core.models import Rater
from evalapp.formats.comve import SourceFile
from evalapp.services.campaigns import create_campaign
from evalapp.services.imports import import_comve, import_submission

DATASET = "comve-mini"
CAMPAIGN = "bad-input"
SYSTEMS = ("alpha", "beta")
IDS = ("1", "2", "3", "4", "5")
STATEMENTS = (
    b"id,FalseSent\n1,He put an elephant into the fridge.\n2,She drank a cup of rocks.\n"
    b"3,The sun rises in the west.\n4,He wore a fish on his head to work.\n5,Cats can fly over the ocean.\n"
)
REFERENCES = b"".join(f"{i},First reason {i}.,Second reason {i}.,Third reason {i}.\n".encode() for i in IDS)
RATER_USERNAME = "world-rater"
OTHER_RATER_USERNAME = "other-rater"
PASSWORD = "world-password"
# The tables a refused input must not touch (the whole domain, accounts and sessions excepted).
SNAPSHOT_APPS = ("evalapp", "annotators")


def reason(system, instance_id):
    return f"Reason of {system} for {instance_id}."


def build_world():
    """Create the world; returns (campaign, rater, other rater), each rater holding a live lease."""
    import_comve(DATASET, SourceFile("statements.csv", STATEMENTS), SourceFile("references.csv", REFERENCES))
    for system in SYSTEMS:
        rows = "".join(f"{i},{reason(system, i)}\n" for i in IDS).encode()
        import_submission(DATASET, system, SourceFile(f"{system}.csv", rows))
    campaign = create_campaign(DATASET, CAMPAIGN, raters_per_item=3, seed=7)
    rater, other = (
        Rater.objects.create(user=get_user_model().objects.create_user(name, password=PASSWORD), order_seed=seed)
        for name, seed in ((RATER_USERNAME, 99), (OTHER_RATER_USERNAME, 98))
    )
    first = engine.next_assignment(campaign, rater)
    engine.submit_rating(first.pk, rater, 2, seconds=4.0)
    engine.next_assignment(campaign, rater)  # holds a lease on a second item
    engine.next_assignment(campaign, other)
    return campaign, rater, other


def snapshot():
    """Every row of every domain table, as plain tuples in primary-key order."""
    return {
        model._meta.label: list(model.objects.order_by("pk").values_list())
        for app in SNAPSHOT_APPS
        for model in apps.get_app_config(app).get_models()
    }
