"""manage.py create_campaign: sample instances and create a rating campaign (S2, S5)."""

import json

from django.conf import settings
from django.core.management.base import BaseCommand

from core.defaults import (
    DEFAULT_CONTROL_RATE,
    DEFAULT_LEASE_SECONDS,
    DEFAULT_RATERS_PER_ITEM,
    DEFAULT_TIE_MARGIN,
    SECONDS_PER_MINUTE,
)
from core.problems import FormatError, Problem
from evalapp.formats.csvfile import decode
from evalapp.formats.instance_list import read_instance_list
from evalapp.formats.rubric import read_rubric
from evalapp.management.cli import refuse
from evalapp.services.campaigns import campaign_summary, create_campaign

CAMPAIGN_REFUSED = "campaign not created; nothing was written"
# The option of each create_campaign parameter, to say where a problem is.
OPTIONS = {
    "dataset": "--dataset",
    "name": "--name",
    "sample": "--sample",
    "seed": "--seed",
    "instance_ids": "--instances",
    "raters_per_item": "--raters-per-item",
    "systems": "--systems",
    "human_reference": "--human-reference",
    "rubric": "--rubric",
    "lease_seconds": "--lease-minutes",
    "control_rate": "--control-rate",
    "tie_margin": "--tie-margin",
    "racing": "--racing",
}


def _read(path, reader):
    """The file at ``path`` through ``reader(data, filename)``; an unreadable file is a FormatError."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(settings.COMVE_MAX_UPLOAD_BYTES + 1)
    except OSError as exc:
        raise FormatError(Problem(path, None, None, f"cannot read file: {exc.strerror}")) from None
    return reader(data, path)


class Command(BaseCommand):
    help = (
        "Create a rating campaign: a seeded random sample of the dataset's instances (or an explicit "
        "list), the systems' outputs for them as items, each to be rated by M distinct raters. Atomic."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dataset", required=True, help="Name of the dataset.")
        parser.add_argument("--name", required=True, help="Name of the new campaign (unique).")
        which = parser.add_mutually_exclusive_group()
        which.add_argument("--sample", type=int, help="Sample this many instances at random (paper: 100).")
        which.add_argument(
            "--instances",
            metavar="FILE",
            help="Use exactly these instances: a file with one id a line. Default: all instances.",
        )
        parser.add_argument(
            "--seed",
            type=int,
            help="Seed of the sample, the control items and the item order (stored; drawn "
            "at random and printed when not given).",
        )
        parser.add_argument(
            "--raters-per-item",
            type=int,
            default=DEFAULT_RATERS_PER_ITEM,
            help=f"Distinct raters per item, M (default {DEFAULT_RATERS_PER_ITEM}).",
        )
        parser.add_argument(
            "--systems",
            help="Comma-separated system names. Default: every system of the "
            "dataset that has an output for every campaign instance.",
        )
        parser.add_argument(
            "--human-reference",
            type=int,
            choices=[1, 2, 3],
            metavar="K",
            help="Also rate reference K (1-3) as the pseudo-system 'Human'.",
        )
        parser.add_argument(
            "--lease-minutes",
            type=int,
            default=DEFAULT_LEASE_SECONDS // SECONDS_PER_MINUTE,
            help="How long an item stays reserved for the rater who got it (default "
            f"{DEFAULT_LEASE_SECONDS // SECONDS_PER_MINUTE}).",
        )
        parser.add_argument(
            "--control-rate",
            type=float,
            default=DEFAULT_CONTROL_RATE,
            help="Control items per system item, 0-1 (default 0: none).",
        )
        parser.add_argument(
            "--share-identical",
            action="store_true",
            help="Rate identical reasons of different systems for an instance once and "
            "share the scores (recorded in the exports).",
        )
        parser.add_argument(
            "--rubric",
            metavar="FILE",
            help="A JSON rubric [{score, label, description}] for scores 0-3. Default: Table 1 of the task paper.",
        )
        parser.add_argument("--instructions", metavar="FILE", help="A text file shown to raters before the rubric.")
        parser.add_argument(
            "--mturk",
            action="store_true",
            help="Let workers in from a Mechanical Turk HIT (entry address: mturk_external_question).",
        )
        parser.add_argument(
            "--prolific",
            action="store_true",
            help="Let participants in from a Prolific study (entry address on the campaign's crowd page).",
        )
        parser.add_argument(
            "--tie-margin",
            type=float,
            default=DEFAULT_TIE_MARGIN,
            metavar="EPSILON",
            help="Two systems closer than this on the 0-3 scale may be decided a tie by "
            f"sequential_status (default {DEFAULT_TIE_MARGIN}); fixed before rating starts.",
        )
        parser.add_argument(
            "--racing",
            action="store_true",
            help="Racing: a system whose comparisons are all decided stops receiving new items "
            "(off by default: every system is rated on every instance, as in the paper).",
        )
        parser.add_argument("--json", action="store_true", help="Print the campaign's summary as JSON.")

    def handle(self, *args, **options):
        try:
            instance_ids = _read(options["instances"], read_instance_list) if options["instances"] else None
            rubric = _read(options["rubric"], read_rubric) if options["rubric"] else None
            instructions = ""
            if options["instructions"]:
                instructions = _read(options["instructions"], decode)
            campaign = create_campaign(
                options["dataset"],
                options["name"],
                sample=options["sample"],
                seed=options["seed"],
                instance_ids=instance_ids,
                raters_per_item=options["raters_per_item"],
                systems=[name for name in options["systems"].split(",") if name.strip()]
                if options["systems"] is not None
                else None,
                human_reference=options["human_reference"],
                rubric=rubric,
                lease_seconds=options["lease_minutes"] * SECONDS_PER_MINUTE,
                share_identical_outputs=options["share_identical"],
                control_rate=options["control_rate"],
                instructions=instructions,
                mturk_enabled=options["mturk"],
                prolific_enabled=options["prolific"],
                tie_margin=options["tie_margin"],
                racing=options["racing"],
            )
        except FormatError as error:
            self._refuse(error, options["json"])
        summary = campaign_summary(campaign)
        if options["json"]:
            self.stdout.write(json.dumps(summary, indent=2))
            return
        controls = f" + {summary['control_items']} control items" if summary["control_items"] else ""
        shared = (
            f" ({summary['outputs_sharing_an_item']} identical reasons share an item)"
            if summary["shared_identical_outputs"]
            else ""
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"Created campaign '{campaign.name}' on dataset '{summary['dataset']}': {summary['sample_size']} "
                f"instances (seed {campaign.seed}) x {len(summary['systems'])} systems = {summary['items']} items"
                f"{shared}{controls}; {campaign.raters_per_item} raters per item -> "
                f"{summary['ratings_expected']:,} ratings to collect."
            )
        )
        if summary["systems_not_included"]:
            self.stdout.write(f"Systems not included: {', '.join(summary['systems_not_included'])}")

    def _refuse(self, error, as_json):
        """Problems of an option's value name the option (``--sample: ...``), file problems the file."""
        fields = getattr(error, "fields", [problem.file for problem in error.problems])
        lines = [
            f"{OPTIONS[field]}: {problem.message}" if problem.file == field and field in OPTIONS else str(problem)
            for field, problem in zip(fields, error.problems)
        ]
        refuse(self, error, as_json, headline=CAMPAIGN_REFUSED, lines=lines)
