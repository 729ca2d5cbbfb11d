"""manage.py export_table6: Table 6 of the task paper for a campaign."""

from django.core.management.base import BaseCommand

from evalapp.management.cli import add_campaign_argument, campaign_named, write_export
from evalapp.options.base import OptionError
from evalapp.options.interfaces import add_arguments, command_error, from_command
from evalapp.options.table6 import Table6Options
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
        add_arguments(parser, Table6Options)
        parser.add_argument("--out", help="Write to this file instead of standard output.")
        parser.add_argument(
            "--wait-adjusted",
            action="store_true",
            help="Fit the mixed model of the human_adjusted column now when the background worker "
            "has not yet (a large campaign's first export otherwise says 'being computed').",
        )

    def handle(self, *args, **options):
        table6_options = from_command(Table6Options, options)
        try:
            table6_options.check_format(options["format"])
        except OptionError as error:
            raise command_error(Table6Options, error) from None
        campaign = campaign_named(options["campaign"])
        if options["wait_adjusted"]:
            results.rater_effects(campaign, wait=True)  # the export below reads the fit from the cache
        export = exports.table6(campaign, options["format"], table6_options)
        write_export(self, export, options["out"], f"Table 6 of '{campaign.name}'")
