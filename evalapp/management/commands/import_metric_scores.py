"""manage.py import_metric_scores: a researcher's own metric for a campaign (protocol.md#metrics)."""

from django.core.management.base import BaseCommand

from core.problems import FormatError
from evalapp.management.cli import add_campaign_argument, campaign_named, print_result, refuse
from evalapp.options.imports import MetricScoresImportOptions
from evalapp.options.interfaces import add_arguments, from_command
from evalapp.services.metric_study.score_import import import_metric_scores


class Command(BaseCommand):
    help = (
        "Import scores of your own metric; they then enter every metric report, plot and significance test "
        "like the built-in metrics. Re-importing a metric and level replaces it; on any problem nothing is "
        "written."
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        add_arguments(parser, MetricScoresImportOptions)
        parser.add_argument("--json", action="store_true", help='Print {"metric", "level", "scores", "systems"}.')

    def handle(self, *args, **options):
        job = from_command(MetricScoresImportOptions, options)
        campaign = campaign_named(options["campaign"])
        try:
            result = import_metric_scores(campaign, job.metric, job.level, job.file)
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
