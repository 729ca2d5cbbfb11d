"""manage.py import_submission: load a system's official-format submission and score its BLEU."""

from django.core.management.base import BaseCommand

from core.problems import FormatError
from evalapp.management.cli import print_result, refuse
from evalapp.options.imports import SubmissionImportOptions
from evalapp.options.interfaces import add_arguments, from_command
from evalapp.services.imports import import_submission_with


class Command(BaseCommand):
    help = (
        "Import a system's submission (id,reason per line, no header, UTF-8) into a dataset and compute "
        "its official Subtask C BLEU. Re-importing a system replaces its outputs. Atomic."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dataset", required=True, help="Name of the dataset the ids belong to.")
        add_arguments(parser, SubmissionImportOptions)
        parser.add_argument(
            "--json", action="store_true", help='Print {"system", "rows", "official_bleu", "warnings", ...} as JSON.'
        )

    def handle(self, *args, **options):
        job = from_command(SubmissionImportOptions, options)
        try:
            result = import_submission_with(options["dataset"], job)
        except FormatError as error:
            refuse(self, error, options["json"])
        print_result(self, result, options["json"], _summary)


def _summary(result):
    bleu = "not computed (partial submission)" if result.official_bleu is None else f"{result.official_bleu:.4f}"
    return (
        f"Imported {result.rows} reasons of system '{result.system.display_name}' into dataset "
        f"'{result.system.dataset.name}'; official BLEU {bleu}."
    )
