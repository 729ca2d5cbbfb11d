"""The options of the study planner, declared once for its page, the API and ``plan_study``."""

from __future__ import annotations

from dataclasses import dataclass

from core.defaults import (
    CLUSTER_RULES,
    DEFAULT_CLUSTER_RULE,
    DEFAULT_SEED,
    MAX_RATERS_PER_ITEM,
    PLANNER_ALPHA,
    PLANNER_MAX_ALPHA,
    PLANNER_MAX_POWER,
    PLANNER_MIN_ALPHA,
    PLANNER_MIN_POWER,
    PLANNER_POWER,
    REQUEST_SEED_BOUND,
)
from evalapp.options.base import API_AND_COMMAND, Kind, Options, choices_of, option


@dataclass(frozen=True)
class PlanOptions(Options):
    """What a study plan is made for: the test's level and power, raters per item, the clustering rule."""

    job = "plan"
    api_name = "StudyPlanOptions"

    alpha: float = option(
        PLANNER_ALPHA,
        kind=Kind.FLOAT,
        label="Significance level (alpha)",
        help="Significance level of the clustering rule (holm: the family's).",
        minimum=PLANNER_MIN_ALPHA,
        maximum=PLANNER_MAX_ALPHA,
        web_help="",
    )
    power: float = option(
        PLANNER_POWER,
        kind=Kind.FLOAT,
        label="Power",
        help="The chance of telling two systems apart that the plan is made for.",
        minimum=PLANNER_MIN_POWER,
        maximum=PLANNER_MAX_POWER,
        web_help="",
    )
    raters_per_item: int | None = option(
        None,
        kind=Kind.INT,
        label="Raters per item (M)",
        help="Raters per item to plan for. Empty: the campaign's.",
        minimum=1,
        maximum=MAX_RATERS_PER_ITEM,
        metavar="M",
        web_help="Empty: the campaign's.",
    )
    clusters: str = option(
        DEFAULT_CLUSTER_RULE,
        kind=Kind.CHOICE,
        label="Clustering rule",
        help="The clustering rule Table 6 will use: holm (each pair two-sided at alpha / pairs) or wmt "
        "(one-sided at alpha).",
        choices=choices_of(CLUSTER_RULES),
        web_help="holm: each pair two-sided at alpha / pairs; wmt: one-sided at alpha.",
    )
    seed: int = option(
        DEFAULT_SEED,
        kind=Kind.INT,
        label="Seed",
        help="Seed of the simulation.",
        minimum=0,
        maximum=REQUEST_SEED_BOUND - 1,
        doors=API_AND_COMMAND,
    )
