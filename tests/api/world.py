"""A small dataset, two systems and a campaign made by the real services, and one account per role.

Everything the API tests need, built the way an organizer builds it: ``import_comve``,
``import_submission``, ``create_campaign``; then the first rater leases an item.
"""

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from knox.models import AuthToken
from rest_framework.test import APIClient

from core import engine, roles
from core.models import Rater
from evalapp.formats.comve import SourceFile
from evalapp.models import MetricRun
from evalapp.services.campaigns import create_campaign
from evalapp.services.imports import import_comve, import_submission
from evalapp.services.metric_study.runs import execute_run
from evalapp.services.ratings_import import import_ratings

STATEMENTS = (
    b"id,FalseSent\n"
    b"1,He put an elephant into the fridge.\n"
    b"2,The sun rises in the west.\n"
    b"3,Cats read newspapers.\n"
    b"4,She drank a cup of sand.\n"
)
REFERENCES = (
    b"1,An elephant is bigger than a fridge.,A fridge is too small for an elephant.,Elephants do not fit.\n"
    b"2,The sun rises in the east.,The sun comes up in the east.,The sun sets in the west.\n"
    b"3,Cats cannot read.,A cat does not understand words.,Only people read newspapers.\n"
    b"4,Sand is not a drink.,People cannot drink sand.,Sand is not a liquid.\n"
)
# Distinctive names: no rater response may ever contain them.
SYSTEMS = {
    "SysAlphaQZ": b"1,An elephant is too big for a fridge.\n2,The sun rises in the east.\n"
    b"3,Cats cannot read.\n4,Sand is not something to drink.\n",
    "SysBetaQZ": b"1,Fridges are small.\n2,The sun is hot.\n3,Cats like newspapers.\n4,A cup holds drinks.\n",
}
MARKERS = {"SysAlphaQZ": "", "SysBetaQZ": "*"}
RATERS_PER_ITEM = 2
CAMPAIGN_SEED = 2020
# Two outside raters fill every item of instances 1-3; the items of instance 4 stay open for the app's raters.
RATED_INSTANCES = ("1", "2", "3")
OUTSIDE_SCORES = {  # (system, rater) -> scores of instances 1-3
    ("Human", "ext-1"): (3, 3, 2),
    ("Human", "ext-2"): (3, 2, 2),
    ("SysAlphaQZ", "ext-1"): (2, 3, 3),
    ("SysAlphaQZ", "ext-2"): (2, 2, 3),
    ("SysBetaQZ", "ext-1"): (0, 1, 0),
    ("SysBetaQZ", "ext-2"): (1, 1, 0),
}
STUDY_METRICS = ["comve_bleu"]
ROLES = ("anonymous", "rater", "rater2", "researcher", "organizer", "admin")


def source(name, data):
    return SourceFile(name, data)


@dataclass
class World:
    dataset: object
    campaign: object
    users: dict
    assignment: object  # the first rater's leased assignment
    metric_run: object  # a finished metric study

    def client(self, role):
        """An API client authenticated by token as ``role`` (none for anonymous)."""
        client = APIClient()
        user = self.users.get(role)
        if user is not None:
            client.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user=user)[1]}")
        return client

    def rater(self, role="rater"):
        return self.users[role].rater


def make_user(username, group=None, superuser=False, rater=False):
    user = get_user_model().objects.create_user(username=username, password="pw-" + username)
    if superuser:
        user.is_superuser = user.is_staff = True
        user.save()
    if group:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    if rater:
        Rater.objects.create(user=user, order_seed=len(username) * 7919)
    return user


def make_users():
    return {
        "rater": make_user("api-rater1", rater=True),
        "rater2": make_user("api-rater2", rater=True),
        "researcher": make_user("api-researcher", group=roles.RESEARCHER),
        "organizer": make_user("api-organizer", group=roles.ORGANIZER),
        "admin": make_user("api-admin", superuser=True),
    }


def make_dataset(name="mini"):
    dataset = import_comve(name, source("statements.csv", STATEMENTS), source("references.csv", REFERENCES)).dataset
    for system, data in SYSTEMS.items():
        import_submission(dataset, system, source(f"{system}.csv", data), marker=MARKERS[system])
    return dataset


def outside_ratings():
    """The long-form ratings file of the two outside raters."""
    lines = ["instance_id,system,rater,score"]
    for (system, rater), scores in OUTSIDE_SCORES.items():
        lines += [f"{instance},{system},{rater},{score}" for instance, score in zip(RATED_INSTANCES, scores)]
    return ("\n".join(lines) + "\n").encode()


def finished_study(campaign, user):
    run = MetricRun.objects.create(
        campaign=campaign, metrics=STUDY_METRICS, created_by=user, options={"bootstrap": 0, "permutations": 1}
    )
    execute_run(run.pk)
    run.refresh_from_db()
    return run


def build_world(campaign_name="pilot"):
    users = make_users()
    dataset = make_dataset()
    campaign = create_campaign(
        dataset,
        campaign_name,
        seed=CAMPAIGN_SEED,
        raters_per_item=RATERS_PER_ITEM,
        human_reference=1,
        created_by=users["organizer"],
    )
    import_ratings(campaign, outside_ratings(), "outside.csv", "long")
    assignment = engine.next_assignment(campaign, users["rater"].rater)
    return World(dataset, campaign, users, assignment, finished_study(campaign, users["organizer"]))


def fuzzing_seed():
    """Build the world in the configured database; the ids and tokens a fuzzer needs, as plain data."""
    world = build_world()
    tokens = {role: AuthToken.objects.create(user=user)[1] for role, user in world.users.items()}
    return {
        "tokens": tokens,
        "dataset_id": world.dataset.pk,
        "campaign_id": world.campaign.pk,
        "rater_id": world.rater().pk,
        "assignment_id": world.assignment.pk,
        "run_id": world.metric_run.pk,
        "item_id": world.assignment.item_id,
    }
