"""manage.py metric_report: how well metrics agree with the campaign's human scores (protocol.md#metric-study)."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from evalapp.management.cli import add_campaign_argument, campaign_named, write_export
from evalapp.metrics.bertscore import BertScoreUnavailable
from evalapp.models import MetricRun
from evalapp.options.interfaces import add_arguments, from_command
from evalapp.options.metric_study import MetricStudyOptions
from evalapp.services import exports
from evalapp.services.metric_study.runs import report_for
from evalapp.services.metric_study.texts import StudyError

FORMATS = exports.FORMATS[exports.METRIC_REPORT]


class Command(BaseCommand):
    help = (
        "Compute the built-in metrics (and use imported ones) for a campaign's systems and report their "
        "correlation with the human scores at system and segment level, with bootstrap intervals, Williams' "
        "and permutation tests and the top-k analysis, and the WMT statistics (pairwise accuracy, soft "
        "pairwise accuracy, acc_eq, metric ranking). Runs in this process (the web page runs it as a "
        "background job). The report is kept as a finished run: asked again with the same options while the "
        "ratings and texts are unchanged (e.g. in another --format), the stored report is rendered; metric "
        "scores are computed once per output and kept."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        add_campaign_argument(parser)
        add_arguments(parser, MetricStudyOptions)
        parser.add_argument("--format", choices=FORMATS, default="json", help="Output format (default json).")
        parser.add_argument("--out", help="Write to this file instead of standard output.")
        parser.add_argument("--quiet", action="store_true", help="No progress messages on standard error.")
        parser.add_argument(
            "--run",
            type=int,
            metavar="ID",
            help="Render the stored report of this finished run of the campaign (nothing is "
            "computed; the other options are ignored).",
        )
        parser.add_argument(
            "--fresh",
            action="store_true",
            help="Compute the report again even when an identical stored one exists (stored metric "
            "scores are still reused).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        study = from_command(MetricStudyOptions, options)
        campaign = campaign_named(options["campaign"])
        last: list[tuple[str, int] | None] = [None]

        def progress(fraction: float, message: str) -> None:
            if not options["quiet"] and (message, int(fraction * 10)) != last[0]:
                last[0] = (message, int(fraction * 10))
                self.stderr.write(f"{fraction:5.0%} {message}")

        if options["run"] is not None:
            run = MetricRun.objects.finished_run(campaign, options["run"])
            if run is None:
                raise CommandError(f"campaign '{campaign.name}' has no finished metric run {options['run']}")
            reused = True
        else:
            try:
                run, reused = report_for(
                    campaign, study.metric_names(), study.run_settings(), fresh=options["fresh"], progress=progress
                )
            except (StudyError, BertScoreUnavailable) as error:
                raise CommandError(str(error)) from None
        if not options["quiet"]:
            self.stderr.write(f"Run {run.pk}: " + ("the stored report" if reused else "computed and stored"))
        write_export(
            self,
            exports.metric_report_of(run, options["format"]),
            options["out"],
            f"Metric report of '{campaign.name}'",
        )
