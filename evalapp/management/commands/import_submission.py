"""manage.py import_submission: load a system's official-format submission and score its BLEU."""

from django.core.management.base import BaseCommand

from core.models import System
from core.problems import FormatError
from evalapp.management.cli import print_result, refuse
from evalapp.services.imports import import_submission

MARKER_NONE = "none"


class Command(BaseCommand):
    help = (
        "Import a system's submission (id,reason per line, no header, UTF-8) into a dataset and compute "
        "its official Subtask C BLEU. Re-importing a system replaces its outputs. Atomic."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dataset", required=True, help="Name of the dataset the ids belong to.")
        parser.add_argument("--system", required=True, help="Team/system name as it appears in Table 6.")
        parser.add_argument("--file", required=True, help="The submission file.")
        parser.add_argument(
            "--marker",
            choices=["*", "+", MARKER_NONE],
            help="Table 6 marker: '*' no system description paper, '+' paper without "
            f"Subtask C, '{MARKER_NONE}' to clear it. Default: keep the current marker.",
        )
        parser.add_argument(
            "--allow-partial",
            action="store_true",
            help="Accept a subset of the ids (its BLEU is then not a Table 6 figure: null).",
        )
        parser.add_argument(
            "--json", action="store_true", help='Print {"system", "rows", "official_bleu", "warnings", ...} as JSON.'
        )

    def handle(self, *args, **options):
        marker = options["marker"]
        if marker == MARKER_NONE:
            marker = System.Marker.NONE
        try:
            result = import_submission(
                options["dataset"],
                options["system"],
                options["file"],
                marker=marker,
                allow_partial=options["allow_partial"],
            )
        except FormatError as error:
            refuse(self, error, options["json"])
        print_result(self, result, options["json"], _summary)


def _summary(result):
    bleu = "not computed (partial submission)" if result.official_bleu is None else f"{result.official_bleu:.4f}"
    return (
        f"Imported {result.rows} reasons of system '{result.system.display_name}' into dataset "
        f"'{result.system.dataset.name}'; official BLEU {bleu}."
    )
