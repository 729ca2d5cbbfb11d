"""The engine tests' campaign: 8 items (4 instances x 2 systems), 2 raters each."""

import pytest

from evalapp.services.campaigns import create_campaign
from tests.engine.builders import build_dataset


@pytest.fixture
def campaign():
    dataset = build_dataset(instances=4, systems=("alpha", "beta"))
    return create_campaign(dataset, "c", sample=4, seed=1, raters_per_item=2)
