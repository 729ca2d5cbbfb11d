"""manage.py plan_study: instances and raters a campaign needs, from a pilot or a running campaign."""

import json

from django.core.management.base import BaseCommand, CommandError

from core.defaults import CLUSTER_RULES, DEFAULT_CLUSTER_RULE, DEFAULT_SEED, PLANNER_ALPHA, PLANNER_POWER
from evalapp.management.cli import add_campaign_argument, campaign_named
from evalapp.services import planning


class Command(BaseCommand):
    help = (
        "Plan a study from a pilot (or running) campaign: variance components, for each pair of systems "
        "adjacent by human score the instances needed under the clustering rule (normal approximation and "
        "simulation with the paired permutation test, with its Monte Carlo interval), and the minimum "
        "detectable difference for 50-1000 instances and 1, 3, 5 raters."
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument(
            "--alpha",
            type=float,
            default=PLANNER_ALPHA,
            help=f"Significance level of the clustering rule (default {PLANNER_ALPHA}).",
        )
        parser.add_argument(
            "--clusters",
            choices=CLUSTER_RULES,
            default=DEFAULT_CLUSTER_RULE,
            help="The clustering rule Table 6 will use: holm (pairs two-sided at alpha / pairs) or "
            f"wmt (one-sided at alpha). Default {DEFAULT_CLUSTER_RULE}.",
        )
        parser.add_argument("--power", type=float, default=PLANNER_POWER, help=f"Power (default {PLANNER_POWER}).")
        parser.add_argument(
            "--raters-per-item",
            type=int,
            default=None,
            metavar="M",
            help="Raters per item to plan for (default: the campaign's).",
        )
        parser.add_argument(
            "--seed", type=int, default=DEFAULT_SEED, help=f"Seed of the simulation (default {DEFAULT_SEED})."
        )
        parser.add_argument("--json", action="store_true", help="Print the plan as JSON.")

    def handle(self, *args, **options):
        campaign = campaign_named(options["campaign"])
        try:
            plan = planning.plan_study(
                campaign,
                options["alpha"],
                options["power"],
                options["raters_per_item"],
                options["seed"],
                options["clusters"],
            )
        except planning.BadPlan as error:
            raise CommandError(str(error)) from None
        if options["json"]:
            self.stdout.write(json.dumps(plan, indent=2, ensure_ascii=False))
            return
        self.stdout.write("\n".join(planning.plan_lines(plan)))
