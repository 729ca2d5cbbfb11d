"""manage.py plan_study: instances and raters a campaign needs, from a pilot or a running campaign."""

import json

from django.core.management.base import BaseCommand

from evalapp.management.cli import add_campaign_argument, campaign_named
from evalapp.options.interfaces import add_arguments, from_command
from evalapp.options.planner import PlanOptions
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
        add_arguments(parser, PlanOptions)
        parser.add_argument("--json", action="store_true", help="Print the plan as JSON.")

    def handle(self, *args, **options):
        plan_options = from_command(PlanOptions, options)
        plan = planning.plan_study(campaign_named(options["campaign"]), plan_options)
        if options["json"]:
            self.stdout.write(json.dumps(plan, indent=2, ensure_ascii=False))
            return
        self.stdout.write("\n".join(planning.plan_lines(plan)))
