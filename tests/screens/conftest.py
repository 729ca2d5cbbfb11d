"""A small campaign made by the real service, and rater accounts, for the screen tests."""

import pytest

from tests.engine.builders import build_dataset

# Distinctive system names: no rater page may ever contain them.
SYSTEM_NAMES = ("SysAlphaQZ", "SysBetaQZ")
INSTANCES = 6
CONTROL_RATE = 0.25  # 12 system items -> 3 control items


def reason_text(system_name, index):
    """Outputs that do not mention their system (a system's name in its own text is not a leak)."""
    return f"Reason number {index + 1} from team {SYSTEM_NAMES.index(system_name) + 1}."


def make_campaign(name="Screens", raters_per_item=2, control_rate=CONTROL_RATE, **options):
    from evalapp.services.campaigns import create_campaign

    dataset = build_dataset(name=f"ds-{name}", instances=INSTANCES, systems=SYSTEM_NAMES, outputs=reason_text)
    return create_campaign(
        dataset, name, seed=2020, raters_per_item=raters_per_item, control_rate=control_rate, **options
    )


@pytest.fixture
def campaign(db):
    return make_campaign()


def make_rater(django_user_model, username, **profile):
    from core.models import Rater

    user = django_user_model.objects.create_user(username=username, password="pw-" + username)
    Rater.objects.create(user=user, order_seed=len(username) * 7919, **profile)
    return user


@pytest.fixture
def other_rater_user(django_user_model):
    return make_rater(django_user_model, "rater2")


@pytest.fixture
def rater_client(client, rater_user):
    client.force_login(rater_user)
    return client
