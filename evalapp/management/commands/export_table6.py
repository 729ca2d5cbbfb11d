"""manage.py export_table6: Table 6 of the task paper for a campaign."""
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from evalapp.compute.significance import DEFAULT_PERMUTATIONS
from evalapp.formats.table6 import FORMATS, render
from evalapp.management.commands._campaign_option import add_campaign_argument, campaign_named
from evalapp.services.results import DEFAULT_BOOTSTRAP_SEED, table6


class Command(BaseCommand):
    help = ("Export Table 6 (Team, BLEU, BLEU rank, Human, Human rank) of a campaign: the Human pseudo-system "
            "first, competition ranks on the displayed values, incomplete systems marked.")

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("--format", choices=FORMATS, default="markdown", help="Output format (default markdown).")
        parser.add_argument("--halves", action="store_true",
                            help="LaTeX only: two side-by-side halves, as in the task paper.")
        parser.add_argument("--out", help="Write to this file instead of standard output.")
        parser.add_argument("--bootstrap", type=int, default=0, metavar="N",
                            help="Add 95%% bootstrap intervals (N resamples of the instances) and significance "
                                 "clusters. Default 0: none.")
        parser.add_argument("--seed", type=int, default=DEFAULT_BOOTSTRAP_SEED,
                            help=f"Seed of the bootstrap and of the permutation test (default {DEFAULT_BOOTSTRAP_SEED}).")
        parser.add_argument("--permutations", type=int, default=DEFAULT_PERMUTATIONS,
                            help=f"Permutations of the paired significance test (default {DEFAULT_PERMUTATIONS}).")

    def handle(self, *args, **options):
        if options["halves"] and options["format"] != "latex":
            raise CommandError("--halves applies to --format latex only")
        if options["bootstrap"] < 0 or options["permutations"] < 1:
            raise CommandError("--bootstrap must be >= 0 and --permutations >= 1")
        campaign = campaign_named(options["campaign"])
        table = table6(campaign, bootstrap=options["bootstrap"], seed=options["seed"],
                       permutations=options["permutations"])
        text = render(table, options["format"], halves=options["halves"])
        if options["out"]:
            Path(options["out"]).write_text(text, encoding="utf-8")
            self.stderr.write(f"Table 6 of '{campaign.name}' written to {options['out']}")
        else:
            self.stdout.write(text, ending="")
