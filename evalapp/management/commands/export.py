"""manage.py export: any download of a campaign, byte for byte as the web pages and the API give it."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.models import Campaign
from evalapp.management.cli import add_campaign_argument, campaign_named, write_export
from evalapp.management.commands.export_table6 import add_table6_arguments, check_table6_options, table6_options
from evalapp.models import MetricRun
from evalapp.services import exports


class Command(BaseCommand):
    help = (
        "Write one of a campaign's downloads: table6, agreement, ratings (long form), quality (rater quality), "
        "crowd-sessions or metric-report (a finished metric study's stored report). The same function makes "
        "the file for the web pages, the API and this command, so the three give the same bytes."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("kind", choices=list(exports.FORMATS), help="Which download.")
        add_campaign_argument(parser)
        parser.add_argument("--format", help="Its format (default: its first; see the manual's formats page).")
        parser.add_argument("--out", help="Write to this file instead of standard output.")
        add_table6_arguments(parser)
        parser.add_argument("--run", type=int, help="metric-report: this finished run (default: the latest).")

    def handle(self, *args: Any, **options: Any) -> None:
        kind = options["kind"]
        campaign = campaign_named(options["campaign"])
        try:
            fmt = exports.check_format(kind, options["format"])
            if kind == exports.TABLE6:
                check_table6_options({**options, "format": fmt})
                export = exports.table6(campaign, fmt, **table6_options(options))
            elif kind == exports.METRIC_REPORT:
                export = exports.metric_report_of(finished_run(campaign, options["run"]), fmt)
            else:
                export = EXPORTS[kind](campaign, fmt)
        except (exports.UnknownFormat, exports.BadOption) as error:
            raise CommandError(str(error)) from None
        write_export(self, export, options["out"], f"The {kind} export of '{campaign.name}'")


EXPORTS = {
    exports.AGREEMENT: exports.agreement,
    exports.RATINGS: exports.ratings,
    exports.QUALITY: exports.rater_quality,
    exports.CROWD_SESSIONS: exports.crowd_sessions,
}


def finished_run(campaign: Campaign, run_id: int | None = None) -> MetricRun:
    """A finished metric run of the campaign (the latest without ``run_id``), or a CommandError."""
    run = MetricRun.objects.finished_run(campaign, run_id)
    if run is None:
        raise CommandError(
            f"campaign '{campaign.name}' has no finished metric study"
            + (f" with id {run_id}" if run_id is not None else "")
            + "; run metric_report first"
        )
    return run
