"""Creating a rating campaign (protocol.md#sample): its sample, systems, items and control items.

The one path that ``manage.py create_campaign``, the organizer's campaign form and the API
use. Everything is checked before anything is written, every problem is reported at once
(naming the parameter, or the file and line of an instance list), and the campaign with all
its items is written in one transaction.

The seeded decisions (sample, shared reasons, controls, item order) are pure functions in
:mod:`evalapp.compute.campaign_plan`; a campaign always stores its seed, so the same seed and
dataset give the same campaign again.
"""

from __future__ import annotations

import math
import secrets
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Count

from core import item_order
from core.defaults import (
    BULK_CREATE_BATCH,
    CAMPAIGN_SEED_BOUND,
    DEFAULT_CONTROL_RATE,
    DEFAULT_LEASE_SECONDS,
    DEFAULT_RATERS_PER_ITEM,
    DEFAULT_TIE_MARGIN,
    DRAWN_SEED_BOUND,
    MAX_LEASE_SECONDS,
    MAX_RATERS_PER_ITEM,
    MAX_TIE_MARGIN,
    MIN_LEASE_SECONDS,
    MISSING_IDS_SHOWN,
    NAME_MAX_CHARS,
    REFERENCE_POSITIONS,
)
from core.models import (
    Campaign,
    CampaignInstance,
    Instance,
    Item,
    ItemOutput,
    Reference,
    System,
    SystemOutput,
    default_rubric,
)
from core.problems import MAX_REPORTED_PROBLEMS, FormatError, Problem
from evalapp.compute import campaign_plan
from evalapp.formats.instance_list import InstanceList
from evalapp.formats.rubric import NUL, normalise_rubric, rubric_problems
from evalapp.services.imports import get_dataset

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from core.models import Dataset

# A problem and the parameter it is about (``name``, ``sample``, ``instance_ids``, ...).
FieldProblem = tuple[str, Problem]


class CampaignError(FormatError):
    """The campaign cannot be created as asked; nothing was written.

    ``problems[i]`` is a :class:`Problem` and ``fields[i]`` the parameter it is about
    (``name``, ``sample``, ``instance_ids``, ``systems``, ...), so a form can show each
    message next to its field and a command next to its option.
    """

    def __init__(self, entries: Sequence[FieldProblem]) -> None:
        self.fields = [field for field, _ in entries]
        super().__init__([problem for _, problem in entries])

    def by_field(self) -> dict[str, list[Problem]]:
        grouped: defaultdict[str, list[Problem]] = defaultdict(list)
        for field, problem in zip(self.fields, self.problems):
            grouped[field].append(problem)
        return dict(grouped)


class _Problems:
    def __init__(self) -> None:
        self.entries: list[FieldProblem] = []

    def add(
        self,
        field: str,
        message: str,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        value: str | None = None,
    ) -> None:
        self.entries.append((field, Problem(file or field, line, column, message, value)))

    def __bool__(self) -> bool:
        return bool(self.entries)

    def about(self, *fields: str) -> bool:
        return any(field in fields for field, _ in self.entries)

    def raise_if_any(self) -> None:
        if self.entries:
            shown = self.entries[:MAX_REPORTED_PROBLEMS]
            hidden = len(self.entries) - len(shown)
            if hidden:
                field, last = shown[-1]
                shown.append((field, Problem(last.file, None, None, f"... and {hidden} more problems not shown")))
            raise CampaignError(shown)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_settings(
    problems: _Problems,
    name: str | None,
    sample: int | None,
    seed: int | None,
    instance_ids: InstanceList | Sequence[str] | None,
    raters_per_item: int,
    human_reference: int | None,
    rubric: object,
    lease_seconds: int,
    control_rate: float,
    instructions: str,
) -> str:
    name = (name or "").strip()
    if NUL in name:
        problems.add("name", "the name contains a NUL character")
    elif not name:
        problems.add("name", "a campaign needs a name")
    elif len(name) > NAME_MAX_CHARS:
        problems.add("name", f"is {len(name)} characters long; the limit is {NAME_MAX_CHARS}")
    elif Campaign.objects.filter(name=name).exists():
        problems.add("name", f"a campaign named '{name}' exists already")
    if sample is not None and instance_ids is not None:
        problems.add("instance_ids", "give either a sample size or an instance list, not both")
    if sample is not None and (not _is_int(sample) or sample < 1):
        problems.add("sample", f"the sample size must be a positive whole number (found {sample!r})")
    if seed is not None and (not _is_int(seed) or not 0 <= seed < CAMPAIGN_SEED_BOUND):
        problems.add("seed", f"the seed must be a whole number from 0 to {CAMPAIGN_SEED_BOUND - 1} (found {seed!r})")
    if not _is_int(raters_per_item) or not 1 <= raters_per_item <= MAX_RATERS_PER_ITEM:
        problems.add(
            "raters_per_item",
            f"raters per item must be a whole number from 1 to {MAX_RATERS_PER_ITEM} (found {raters_per_item!r})",
        )
    if human_reference is not None and human_reference not in REFERENCE_POSITIONS:
        problems.add(
            "human_reference", f"the Human pseudo-system takes reference 1, 2 or 3 (found {human_reference!r})"
        )
    if rubric is not None:
        for message in rubric_problems(rubric):
            problems.add("rubric", message)
    if not _is_int(lease_seconds) or not MIN_LEASE_SECONDS <= lease_seconds <= MAX_LEASE_SECONDS:
        problems.add(
            "lease_seconds",
            f"a lease must last from {MIN_LEASE_SECONDS} seconds to a week "
            f"({MAX_LEASE_SECONDS} seconds) (found {lease_seconds!r})",
        )
    if (
        isinstance(control_rate, bool)
        or not isinstance(control_rate, (int, float))
        or not (math.isfinite(control_rate) and 0 <= control_rate <= 1)
    ):
        problems.add("control_rate", f"the control rate must be a number from 0 to 1 (found {control_rate!r})")
    if NUL in instructions:
        problems.add("instructions", "the instructions contain a NUL character")
    return name


def _check_stopping(problems: _Problems, tie_margin: float, racing: bool) -> None:
    if (
        isinstance(tie_margin, bool)
        or not isinstance(tie_margin, (int, float))
        or not (math.isfinite(tie_margin) and 0 < tie_margin <= MAX_TIE_MARGIN)
    ):
        problems.add(
            "tie_margin",
            f"the tie margin must be a number above 0 and at most {MAX_TIE_MARGIN} "
            f"on the 0-3 scale (found {tie_margin!r})",
        )
    if not isinstance(racing, bool):
        problems.add("racing", f"racing is on or off (true or false), found {racing!r}")


def _select_instances(
    problems: _Problems,
    dataset: Dataset,
    sample: int | None,
    seed: int,
    instance_ids: InstanceList | Sequence[str] | None,
) -> list[Instance]:
    """The campaign's instances in sample order: a seeded sample, an explicit list, or all."""
    instances = list(Instance.objects.filter(dataset=dataset).order_by("position"))
    if not instances:
        problems.add("dataset", f"dataset '{dataset.name}' has no instances")
        return []
    if instance_ids is not None:
        listed = instance_ids if isinstance(instance_ids, InstanceList) else InstanceList.of(instance_ids)
        by_id = {instance.external_id: instance for instance in instances}
        first_line: dict[str, int] = {}
        for line, instance_id in listed.entries:
            if instance_id in first_line:
                problems.add(
                    "instance_ids",
                    f"id {instance_id!r} repeats line {first_line[instance_id]}",
                    file=listed.filename,
                    line=line,
                    column=1,
                    value=instance_id,
                )
            first_line.setdefault(instance_id, line)
            if instance_id not in by_id:
                problems.add(
                    "instance_ids",
                    f"unknown instance id {instance_id!r} (not in dataset '{dataset.name}')",
                    file=listed.filename,
                    line=line,
                    column=1,
                    value=instance_id,
                )
        if not listed.entries:
            problems.add("instance_ids", "the instance list is empty", file=listed.filename)
        return [by_id[instance_id] for _, instance_id in listed.entries if instance_id in by_id]
    if sample is not None:
        if sample > len(instances):
            problems.add("sample", f"cannot sample {sample} instances: dataset '{dataset.name}' has {len(instances)}")
            return []
        return [instances[position] for position in campaign_plan.draw_sample(len(instances), sample, seed)]
    return instances


def _select_systems(
    problems: _Problems, dataset: Dataset, systems: Sequence[str | System] | None, chosen: list[Instance]
) -> list[System]:
    """The team systems of the campaign: the ones named, or every one covering the sample."""
    team_systems = {system.name: system for system in System.objects.filter(dataset=dataset, is_human=False)}
    covered = dict(
        SystemOutput.objects.filter(system__in=team_systems.values(), instance__in=chosen)
        .values("system")
        .annotate(count=Count("pk"))
        .values_list("system", "count")
    )
    if systems is None:
        return [system for name, system in sorted(team_systems.items()) if covered.get(system.pk) == len(chosen)]
    selected = []
    for entry in systems:
        system = team_systems.get(entry.strip()) if isinstance(entry, str) else entry
        if system is None or system.dataset_id != dataset.pk or system.is_human:
            if isinstance(entry, str) and entry.strip() == System.HUMAN_NAME:
                problems.add("systems", "the Human pseudo-system is chosen with human_reference (--human-reference k)")
            else:
                known = ", ".join(sorted(team_systems)) or "none yet"
                problems.add("systems", f"dataset '{dataset.name}' has no system {str(entry)!r} (systems: {known})")
        elif system in selected:
            problems.add("systems", f"system '{system.name}' is listed twice")
        else:
            selected.append(system)
    for system in selected:
        if covered.get(system.pk, 0) < len(chosen):
            have = set(
                SystemOutput.objects.filter(system=system, instance__in=chosen).values_list("instance", flat=True)
            )
            missing = [instance.external_id for instance in chosen if instance.pk not in have]
            shown = ", ".join(missing[:MISSING_IDS_SHOWN]) + (", ..." if len(missing) > MISSING_IDS_SHOWN else "")
            problems.add(
                "systems",
                f"system '{system.name}' has no output for {len(missing)} of the "
                f"{len(chosen)} campaign instances (ids {shown})",
            )
    return selected


def _references(chosen: list[Instance]) -> defaultdict[int, dict[int, str]]:
    references: defaultdict[int, dict[int, str]] = defaultdict(dict)
    for instance_id, position, text in Reference.objects.filter(instance__in=chosen).values_list(
        "instance", "position", "text"
    ):
        references[instance_id][position] = text
    return references


def human_system(dataset: Dataset, reference: int) -> System:
    """The dataset's Human pseudo-system from reference k, created with its outputs on first use.

    Its outputs are copies of reference k for every instance of the dataset that has one.
    """
    system, _ = System.objects.get_or_create(
        dataset=dataset, is_human=True, human_reference=reference, defaults={"name": System.HUMAN_NAME}
    )
    SystemOutput.objects.bulk_create(
        [
            SystemOutput(system=system, instance_id=instance_id, text=text)
            for instance_id, text in Reference.objects.filter(
                instance__dataset=dataset, position=reference
            ).values_list("instance", "text")
        ],
        ignore_conflicts=True,
        batch_size=BULK_CREATE_BATCH,
    )
    return system


def create_campaign(
    dataset: Dataset | str,
    name: str,
    sample: int | None = None,
    seed: int | None = None,
    instance_ids: InstanceList | Sequence[str] | None = None,
    raters_per_item: int = DEFAULT_RATERS_PER_ITEM,
    systems: Sequence[str | System] | None = None,
    human_reference: int | None = None,
    rubric: list[dict[str, Any]] | None = None,
    lease_seconds: int = DEFAULT_LEASE_SECONDS,
    share_identical_outputs: bool = False,
    control_rate: float = DEFAULT_CONTROL_RATE,
    instructions: str = "",
    created_by: User | None = None,
    mturk_enabled: bool = False,
    prolific_enabled: bool = False,
    tie_margin: float = DEFAULT_TIE_MARGIN,
    racing: bool = False,
) -> Campaign:
    """Create a campaign and all its items; returns the :class:`Campaign`. Raises CampaignError.

    - instances: a seeded random ``sample`` of that many (``draw_sample``), or ``instance_ids``
      (an :class:`InstanceList` read from a file, or a list of ids), or else all of them;
    - systems: the named ones (names or System objects; each must have an output for every
      campaign instance), by default every team system of the dataset that has; plus the
      Human pseudo-system from reference ``human_reference`` when given;
    - one item per (instance, system), or with ``share_identical_outputs`` one item per
      (instance, identical reason) standing for every system that gave it;
    - ``round(control_rate * system items)`` control items (protocol.md#control-items), not counted in any score.

    ``seed`` seeds the sample, the controls and the item order; one is drawn (and stored)
    when none is given. Crowd workers may enter only from the platforms enabled here
    (``mturk_enabled``, ``prolific_enabled``; off by default), through addresses carrying the
    campaign's crowd key.

    The instances get a random rating order from the seed (``core.item_order``), which the engine
    follows; ``tie_margin`` (on the 0-3 scale) is the margin inside which the anytime-valid decisions
    may call two systems tied, fixed here before any rating; ``racing`` retires a system once every
    comparison it is part of is decided (off by default: the paper's protocol rates every system on
    every instance).
    """
    dataset = get_dataset(dataset)
    problems = _Problems()
    instructions = instructions or ""
    name = _check_settings(
        problems,
        name,
        sample,
        seed,
        instance_ids,
        raters_per_item,
        human_reference,
        rubric,
        lease_seconds,
        control_rate,
        instructions,
    )
    _check_stopping(problems, tie_margin, racing)
    if problems.about("sample", "seed", "instance_ids"):  # the instances cannot be chosen; the rest can wait
        problems.raise_if_any()
    if seed is None:
        seed = secrets.randbelow(DRAWN_SEED_BOUND)
    chosen = _select_instances(problems, dataset, sample, seed, instance_ids)
    problems.raise_if_any()
    selected = _select_systems(problems, dataset, systems, chosen)
    references = _references(chosen)
    if human_reference in REFERENCE_POSITIONS:
        lacking = [instance.external_id for instance in chosen if human_reference not in references[instance.pk]]
        if lacking:
            problems.add(
                "human_reference",
                f"{len(lacking)} campaign instances have no reference {human_reference} "
                f"(ids {', '.join(lacking[:MISSING_IDS_SHOWN])})",
            )
    elif not selected:
        problems.add(
            "systems",
            "no system has an output for every campaign instance; import submissions first, or name the systems",
        )
    problems.raise_if_any()
    try:
        with transaction.atomic():
            if human_reference is not None:
                selected = [human_system(dataset, human_reference)] + selected
            campaign = Campaign.objects.create(
                name=name,
                dataset=dataset,
                seed=seed,
                sample_size=len(chosen),
                raters_per_item=raters_per_item,
                rubric=normalise_rubric(rubric) if rubric is not None else default_rubric(),
                instructions=instructions,
                lease_seconds=lease_seconds,
                share_identical_outputs=share_identical_outputs,
                control_rate=control_rate,
                human_reference=human_reference,
                created_by=created_by,
                mturk_enabled=bool(mturk_enabled),
                prolific_enabled=bool(prolific_enabled),
                tie_margin=float(tie_margin),
                racing=racing,
            )
            campaign.systems.set(selected)
            places = item_order.instance_rating_order(len(chosen), seed)
            CampaignInstance.objects.bulk_create(
                [
                    CampaignInstance(campaign=campaign, instance=instance, position=position, rating_order=place)
                    for position, (instance, place) in enumerate(zip(chosen, places))
                ],
                batch_size=BULK_CREATE_BATCH,
            )
            _create_items(campaign, chosen, selected, references, places)
    except campaign_plan.PlanError as exc:
        raise CampaignError([("control_rate", Problem("control_rate", None, None, str(exc)))]) from None
    except IntegrityError:
        if Campaign.objects.filter(name=name).exists():  # created by someone else meanwhile
            taken = Problem("name", None, None, f"a campaign named '{name}' exists already")
            raise CampaignError([("name", taken)]) from None
        raise
    _refresh_item_statistics()
    return campaign


def _refresh_item_statistics() -> None:
    """PostgreSQL: fresh planner statistics for the items, so that the engine's queries on a
    campaign rated the minute it is created use the item index (before autovacuum's ANALYZE,
    the planner takes the new rows for a handful and chooses nested loops over all of them)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {connection.ops.quote_name(Item._meta.db_table)}")


def _create_items(
    campaign: Campaign,
    chosen: list[Instance],
    systems: list[System],
    references: defaultdict[int, dict[int, str]],
    places: Sequence[int],
) -> None:
    """System items (shared when asked), then control items; each with a seeded shuffle key that
    follows its instance's place in the rating order (``places``, by sample position)."""
    rank = {system.pk: index for index, system in enumerate(systems)}
    outputs: defaultdict[int, list[SystemOutput]] = defaultdict(list)
    for output in SystemOutput.objects.filter(system__in=systems, instance__in=chosen).only(
        "pk", "system_id", "instance_id", "text"
    ):
        outputs[output.instance_id].append(output)
    items: list[Item] = []
    groups: list[list[int]] = []
    for instance in chosen:
        mine = sorted(outputs[instance.pk], key=lambda output: rank[output.system_id])
        by_pk = {output.pk: output for output in mine}
        if campaign.share_identical_outputs:
            grouped = campaign_plan.group_identical([(output.pk, output.text) for output in mine])
        else:
            grouped = [[output.pk] for output in mine]
        for group in grouped:
            items.append(
                Item(
                    campaign=campaign,
                    instance=instance,
                    kind=Item.Kind.SYSTEM,
                    text=by_pk[group[0]].text,
                    needed=campaign.raters_per_item,
                )
            )
            groups.append(group)
    count = campaign_plan.control_count(campaign.control_rate, len(items))
    materials = [
        campaign_plan.InstanceMaterial(instance.pk, instance.false_sent, references[instance.pk]) for instance in chosen
    ]
    assert campaign.seed is not None, "a campaign's seed is drawn before its items are made"
    for plan in campaign_plan.plan_controls(materials, count, campaign.seed, campaign.human_reference):
        items.append(
            Item(
                campaign=campaign,
                instance_id=plan.instance,
                kind=Item.Kind.CONTROL,
                control_kind=plan.kind,
                text=plan.text,
                expected_min=plan.expected_min,
                expected_max=plan.expected_max,
                needed=campaign.raters_per_item,
            )
        )
    place_of = {instance.pk: place for instance, place in zip(chosen, places)}
    keys = item_order.ordered_shuffle_keys([place_of[item.instance_id] for item in items], len(chosen), campaign.seed)
    for item, key in zip(items, keys):
        item.shuffle_key = key
    Item.objects.bulk_create(items, batch_size=BULK_CREATE_BATCH)
    ItemOutput.objects.bulk_create(
        [
            ItemOutput(campaign=campaign, item=item, output_id=output_pk)
            for item, group in zip(items, groups)
            for output_pk in group
        ],
        batch_size=BULK_CREATE_BATCH,
    )


def set_campaign_status(campaign: Campaign, status: str) -> Campaign:
    """Open or close a campaign; a closed campaign hands out no items and accepts no ratings."""
    campaign.status = Campaign.Status(status)
    campaign.save(update_fields=["status"])
    return campaign


def campaign_summary(campaign: Campaign) -> dict[str, Any]:
    """The campaign's settings and size as plain data (``create_campaign --json``, the API)."""
    kinds = dict(Item.objects.filter(campaign=campaign).values("kind").annotate(n=Count("pk")).values_list("kind", "n"))
    system_items = kinds.get(Item.Kind.SYSTEM, 0)
    systems = list(campaign.systems.order_by("-is_human", "name"))
    included = {system.pk for system in systems}
    return {
        "campaign": campaign.name,
        "id": campaign.pk,
        "dataset": campaign.dataset.name,
        "status": campaign.status,
        "seed": campaign.seed,
        "sample_size": campaign.sample_size,
        "instances": list(
            CampaignInstance.objects.filter(campaign=campaign)
            .order_by("position")
            .values_list("instance__external_id", flat=True)
        ),
        "systems": [system.name for system in systems],
        "systems_not_included": list(
            System.objects.filter(dataset=campaign.dataset, is_human=False)
            .exclude(pk__in=included)
            .order_by("name")
            .values_list("name", flat=True)
        ),
        "human_reference": campaign.human_reference,
        "raters_per_item": campaign.raters_per_item,
        "items": system_items,
        "control_items": kinds.get(Item.Kind.CONTROL, 0),
        "shared_identical_outputs": campaign.share_identical_outputs,
        "outputs_sharing_an_item": ItemOutput.objects.filter(campaign=campaign).count() - system_items,
        "ratings_expected": system_items * campaign.raters_per_item,
        "control_rate": campaign.control_rate,
        "tie_margin": campaign.tie_margin,
        "racing": campaign.racing,
        "lease_seconds": campaign.lease_seconds,
        "rubric": campaign.rubric,
        "mturk_enabled": campaign.mturk_enabled,
        "prolific_enabled": campaign.prolific_enabled,
    }
