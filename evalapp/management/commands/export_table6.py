"""manage.py export_table6: Table 6 of the task paper for a campaign."""

from django.core.management.base import BaseCommand, CommandError

from core.defaults import (
    CLUSTER_RULES,
    DEFAULT_CLUSTER_RULE,
    DEFAULT_PERMUTATIONS,
    DEFAULT_SEED,
    DEFAULT_TABLE6_RESAMPLES,
)
from evalapp.management.cli import add_campaign_argument, campaign_named, write_export
from evalapp.services import exports, results


class Command(BaseCommand):
    help = (
        "Export Table 6 (Team, BLEU, BLEU rank, Human, Human rank) of a campaign: the Human pseudo-system "
        "first, competition ranks on the displayed values, incomplete systems marked."
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument(
            "--format",
            choices=exports.FORMATS[exports.TABLE6],
            default="markdown",
            help="Output format (default markdown).",
        )
        add_table6_arguments(parser)
        parser.add_argument("--out", help="Write to this file instead of standard output.")
        parser.add_argument(
            "--wait-adjusted",
            action="store_true",
            help="Fit the mixed model of the human_adjusted column now when the background worker "
            "has not yet (a large campaign's first export otherwise says 'being computed').",
        )

    def handle(self, *args, **options):
        check_table6_options(options)
        campaign = campaign_named(options["campaign"])
        if options["wait_adjusted"]:
            results.rater_effects(campaign, wait=True)  # the export below reads the fit from the cache
        export = exports.table6(campaign, options["format"], **table6_options(options))
        write_export(self, export, options["out"], f"Table 6 of '{campaign.name}'")


def add_table6_arguments(parser):
    """The options of a Table 6 export (shared with ``manage.py export table6``)."""
    parser.add_argument(
        "--halves", action="store_true", help="LaTeX only: two side-by-side halves, as in the task paper."
    )
    parser.add_argument(
        "--latex-intervals",
        action="store_true",
        help="LaTeX only: each interval beside its score, 1.84 {\\small [1.71, 1.97]}, instead of a 95%% CI column.",
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=DEFAULT_TABLE6_RESAMPLES,
        metavar="N",
        help="N > 0: add the rater-aware 95%% intervals (two-way cluster-robust over raters and "
        "instances, analytic: N is not a resample count) and significance clusters. "
        "Default 0: none.",
    )
    parser.add_argument(
        "--clusters",
        choices=CLUSTER_RULES,
        default=DEFAULT_CLUSTER_RULE,
        help="The clustering rule: holm (every system above significantly better than every system "
        "below, Holm-corrected) or wmt (mt-metrics-eval's AssignRanks on one-sided p, no "
        f"correction). Default {DEFAULT_CLUSTER_RULE}.",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        help=f"Kept for former scripts; the rater-aware figures use no seed (default {DEFAULT_SEED}).",
    )
    parser.add_argument(
        "--permutations",
        type=int,
        default=DEFAULT_PERMUTATIONS,
        help=f"Kept for former scripts; the rater-aware test draws no permutations (default {DEFAULT_PERMUTATIONS}).",
    )


def table6_options(options):
    """The keyword arguments of :func:`evalapp.services.exports.table6` from the parsed options."""
    return {
        name: options[name] for name in ("halves", "bootstrap", "seed", "permutations", "latex_intervals", "clusters")
    }


def check_table6_options(options):
    if options["halves"] and options["format"] != "latex":
        raise CommandError("--halves applies to --format latex only")
    if options["latex_intervals"] and options["format"] != "latex":
        raise CommandError("--latex-intervals applies to --format latex only")
    if options["bootstrap"] < 0 or options["permutations"] < 1:
        raise CommandError("--bootstrap must be >= 0 and --permutations >= 1")
