"""The demo: a small dataset written for this repository, four systems of clearly different
quality, demo accounts for every role and a ready-to-rate campaign.

The systems: ``demo-good`` gives solid explanations (rubric 3), ``demo-fair`` relevant ones
with grammatical errors (2), ``demo-negation`` negates the statement (1) and ``demo-poor``
says something unrelated (0). BLEU ranks ``demo-fair`` below ``demo-negation``: the paper's
point that BLEU and people disagree, in miniature.

A second campaign, ``demo-study``, is already rated (closed; three ratings per output from
three panel raters, imported as a long-form ratings file whose scores follow each system's
quality with seeded noise), so a researcher has human scores to study metrics against.

Everything goes through the same services as real data (imports, campaigns, ratings), and
running it again changes nothing that exists: accounts get their demo password back, nothing else.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from core import roles
from core.defaults import (
    DEFAULT_RATERS_PER_ITEM,
    DEFAULT_SEED,
    DEMO_CONTROL_RATE,
    DEMO_HUMAN_REFERENCE,
    DEMO_RATER_ACCOUNTS,
    DEMO_STUDY_NOISE,
    DEMO_STUDY_SEED,
)
from core.engine import rater_for_user
from core.models import Campaign, Dataset, System
from evalapp.formats.ratings import LONG
from evalapp.services.campaigns import create_campaign, set_campaign_status
from evalapp.services.imports import import_comve, import_submission
from evalapp.services.ratings_import import import_ratings

if TYPE_CHECKING:
    from django.contrib.auth.models import User

DEMO_DATA = Path(__file__).resolve().parent.parent / "demo_data"
DATASET_NAME = "demo"
CAMPAIGN_NAME = "demo"
# (system name, file under demo_data/systems, Table 6 marker)
SYSTEMS = [
    ("demo-good", "demo-good.csv", System.Marker.NONE),
    ("demo-fair", "demo-fair.csv", System.Marker.NONE),
    ("demo-negation", "demo-negation.csv", System.Marker.NOT_SUBTASK_C),
    ("demo-poor", "demo-poor.csv", System.Marker.NO_PAPER),
]
STUDY_CAMPAIGN_NAME = "demo-study"
# the mean rating each system's outputs get from the panel of the rated campaign (rubric 0-3)
STUDY_QUALITY = {System.HUMAN_NAME: 2.8, "demo-good": 2.5, "demo-fair": 1.8, "demo-negation": 1.1, "demo-poor": 0.3}


@dataclass(frozen=True)
class DemoAccount:
    username: str
    password: str
    role: str


ACCOUNTS = [
    DemoAccount("organizer", "demo-organizer", roles.ORGANIZER),
    DemoAccount("researcher", "demo-researcher", roles.RESEARCHER),
    *[DemoAccount(f"rater{n}", f"demo-rater{n}", roles.RATER) for n in range(1, DEMO_RATER_ACCOUNTS + 1)],
]


@dataclass
class DemoResult:
    dataset: Dataset
    campaign: Campaign
    accounts: list[DemoAccount]
    created: list[str] = field(default_factory=list)


def _account(spec: DemoAccount) -> User:
    user, _ = get_user_model().objects.get_or_create(username=spec.username)
    user.set_password(spec.password)
    user.save()
    if spec.role == roles.RATER:
        rater_for_user(user)
    else:
        user.groups.add(Group.objects.get_or_create(name=spec.role)[0])
    return user


@transaction.atomic
def load_demo() -> DemoResult:
    """Create what is missing of the demo (dataset, systems, accounts, campaign)."""
    created: list[str] = []
    users = {spec.username: _account(spec) for spec in ACCOUNTS}
    dataset = Dataset.objects.filter(name=DATASET_NAME).first()
    if dataset is None:
        dataset = import_comve(DATASET_NAME, DEMO_DATA / "statements.csv", DEMO_DATA / "references.csv").dataset
        created.append(f"dataset '{DATASET_NAME}'")
    for name, filename, marker in SYSTEMS:
        if not System.objects.filter(dataset=dataset, name=name, is_human=False).exists():
            import_submission(dataset, name, DEMO_DATA / "systems" / filename, marker=marker)
            created.append(f"system '{name}'")
    if not Campaign.objects.filter(name=STUDY_CAMPAIGN_NAME).exists():  # first, so 'demo' is the newest
        create_study_campaign(dataset, users["organizer"])
        created.append(f"rated campaign '{STUDY_CAMPAIGN_NAME}'")
    campaign = Campaign.objects.filter(name=CAMPAIGN_NAME).first()
    if campaign is None:
        campaign = create_campaign(
            dataset,
            CAMPAIGN_NAME,
            seed=DEFAULT_SEED,
            raters_per_item=DEFAULT_RATERS_PER_ITEM,
            systems=[name for name, _, _ in SYSTEMS],
            human_reference=DEMO_HUMAN_REFERENCE,
            control_rate=DEMO_CONTROL_RATE,
            created_by=users["organizer"],
        )
        created.append(f"campaign '{CAMPAIGN_NAME}'")
    # The demo raters are the campaign's own lab accounts (its rater accounts page lists them).
    campaign.lab_raters.add(*[users[spec.username].rater for spec in ACCOUNTS if spec.role == roles.RATER])
    return DemoResult(dataset, campaign, ACCOUNTS, created)


def study_ratings_csv(campaign: Campaign) -> bytes:
    """A long-form ratings file: every output of ``campaign`` rated by its M panel raters.

    Each score is the system's quality plus seeded Gaussian noise, rounded and clipped to 0-3.
    """
    rng = random.Random(DEMO_STUDY_SEED)
    lines = ["instance_id,system,rater,score"]
    instances = list(campaign.sampled.order_by("position").values_list("instance__external_id", flat=True))
    for system in campaign.systems.order_by("name"):
        for external_id in instances:
            for rater in range(1, campaign.raters_per_item + 1):
                score = round(STUDY_QUALITY[system.name] + rng.gauss(0, DEMO_STUDY_NOISE))
                lines.append(f"{external_id},{system.name},panel{rater},{min(3, max(0, score))}")
    return ("\n".join(lines) + "\n").encode()


def create_study_campaign(dataset: Dataset, organizer: User) -> Campaign:
    """The rated, closed campaign a researcher studies metrics on."""
    campaign = create_campaign(
        dataset,
        STUDY_CAMPAIGN_NAME,
        seed=DEMO_STUDY_SEED,
        raters_per_item=DEFAULT_RATERS_PER_ITEM,
        systems=[name for name, _, _ in SYSTEMS],
        human_reference=DEMO_HUMAN_REFERENCE,
        created_by=organizer,
    )
    import_ratings(campaign, study_ratings_csv(campaign), "demo-study-ratings.csv", LONG)
    set_campaign_status(campaign, Campaign.Status.CLOSED)
    return campaign
