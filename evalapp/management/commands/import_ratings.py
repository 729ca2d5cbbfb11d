"""manage.py import_ratings: ratings from Mechanical Turk batch results or a long-form CSV (protocol.md#imports)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from core.problems import FormatError
from evalapp.management.cli import add_campaign_argument, campaign_named, print_result, refuse
from evalapp.options.imports import RatingsImportOptions
from evalapp.options.interfaces import add_arguments, from_command
from evalapp.services.ratings_import import import_ratings


class Command(BaseCommand):
    help = (
        "Import ratings into a campaign. Scores that are not an integer 0-3 are rejected row by row "
        "(the valid rows are kept); rejected Mechanical Turk assignments are skipped; a row naming an "
        "instance/system without an item, or a reason that differs from the stored output, refuses the file."
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        add_arguments(parser, RatingsImportOptions)
        parser.add_argument(
            "--json",
            action="store_true",
            help='Print {"accepted", "rejected": [{"line", "value", "reason"}], "skipped", "unknown", ...} as JSON.',
        )

    def handle(self, *args, **options):
        job = from_command(RatingsImportOptions, options)
        campaign = campaign_named(options["campaign"])
        path = Path(str(job.file))
        try:
            data = path.read_bytes()
        except OSError as error:
            raise CommandError(f"{path}: cannot read file: {error.strerror}") from None
        try:
            result = import_ratings(campaign, data, str(path), job.format, system=job.system, columns=job.columns())
        except FormatError as error:
            refuse(self, error, options["json"])
        if not options["json"]:
            for line in result.unknown:
                self.stderr.write(f"unknown: {line}")
            for rejection in result.rejected:
                self.stderr.write(f"{path}, line {rejection.line}: rejected {rejection.value!r}: {rejection.reason}")
        print_result(
            self,
            result,
            options["json"],
            lambda result: (
                f"Imported {result.accepted} ratings into campaign '{campaign.name}'; {len(result.rejected)} rejected, "
                f"{len(result.skipped)} skipped (rejected assignments)."
            ),
        )
