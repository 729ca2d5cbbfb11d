"""manage.py import_metric_scores: a researcher's own metric for a campaign (S5, S10)."""

from django.core.management.base import BaseCommand

from core.problems import FormatError
from evalapp.formats.metric_scores import SEGMENT_LEVEL, SYSTEM_LEVEL
from evalapp.management.cli import add_campaign_argument, campaign_named, print_result, refuse
from evalapp.services.metric_study.score_import import import_metric_scores


class Command(BaseCommand):
    help = (
        "Import scores of your own metric; they then enter every metric report, plot and significance test "
        "like the built-in metrics. Re-importing a metric and level replaces it; on any problem nothing is "
        "written."
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("--metric", required=True, help="Name of the metric in reports (e.g. bleurt-20).")
        parser.add_argument(
            "--level",
            required=True,
            choices=(SYSTEM_LEVEL, SEGMENT_LEVEL),
            help="system: rows 'system,score'; segment: rows 'instance_id,system,score'. A header row is optional.",
        )
        parser.add_argument("--file", required=True, help="The CSV file.")
        parser.add_argument("--json", action="store_true", help='Print {"metric", "level", "scores", "systems"}.')

    def handle(self, *args, **options):
        campaign = campaign_named(options["campaign"])
        try:
            result = import_metric_scores(campaign, options["metric"], options["level"], options["file"])
        except FormatError as error:
            refuse(self, error, options["json"])
        print_result(
            self,
            result,
            options["json"],
            lambda result: (
                f"Imported {result.scores} {result.level}-level scores of '{result.metric}' for {result.systems} "
                f"system(s) into campaign '{campaign.name}'."
            ),
        )
