"""manage.py import_ratings: ratings from Mechanical Turk batch results or a long-form CSV (S4, S5)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from core.problems import FormatError
from evalapp.formats.ratings import DEFAULT_COLUMNS, FORMATS, LONG, MTURK
from evalapp.management.cli import add_campaign_argument, campaign_named, print_result, refuse
from evalapp.services.ratings_import import import_ratings

COLUMN_OPTIONS = ("instance", "reason", "score", "worker", "status", "system", "seconds", "assignment")


def _default(option):
    mturk, long_form = getattr(DEFAULT_COLUMNS[MTURK], option), getattr(DEFAULT_COLUMNS[LONG], option)
    return f"default: mturk {mturk or 'none'}, long {long_form or 'none'}"


class Command(BaseCommand):
    help = (
        "Import ratings into a campaign. Scores that are not an integer 0-3 are rejected row by row "
        "(the valid rows are kept); rejected Mechanical Turk assignments are skipped; a row naming an "
        "instance/system without an item, or a reason that differs from the stored output, refuses the file."
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("--file", required=True, help="The CSV file.")
        parser.add_argument(
            "--format",
            required=True,
            choices=FORMATS,
            help="mturk: Mechanical Turk batch results; long: instance_id,system,rater,score[,seconds].",
        )
        parser.add_argument("--system", help="mturk only: the system every row rates (else the system column).")
        for option in COLUMN_OPTIONS:
            parser.add_argument(
                f"--{option}-column", dest=f"{option}_column", help=f"Column holding the {option} ({_default(option)})."
            )
        parser.add_argument(
            "--json",
            action="store_true",
            help='Print {"accepted", "rejected": [{"line", "value", "reason"}], "skipped", "unknown", ...} as JSON.',
        )

    def handle(self, *args, **options):
        campaign = campaign_named(options["campaign"])
        path = Path(options["file"])
        try:
            data = path.read_bytes()
        except OSError as error:
            raise CommandError(f"{path}: cannot read file: {error.strerror}") from None
        columns = {option: options[f"{option}_column"] for option in COLUMN_OPTIONS}
        try:
            result = import_ratings(
                campaign, data, str(path), options["format"], system=options["system"], columns=columns
            )
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
