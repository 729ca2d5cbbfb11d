"""manage.py import_comve: load a ComVE dataset (statements, references, optional pairs)."""

from django.core.management.base import BaseCommand, CommandError

from core.models import Dataset
from core.problems import FormatError
from evalapp.management.cli import print_result, refuse
from evalapp.services.imports import import_comve


class Command(BaseCommand):
    help = (
        "Import a ComVE dataset: statements (header id,FalseSent), references (id,ref1,ref2,ref3, "
        "no header) and optionally the statement pairs (header id,sent0,sent1) with their answers (id,k). "
        "Atomic: on any problem nothing is written and every problem is listed."
    )

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True, help="Name of the new dataset (must not exist yet).")
        parser.add_argument("--statements", required=True, help="CSV with header id,FalseSent.")
        parser.add_argument("--references", required=True, help="CSV id,ref1,ref2,ref3 without header.")
        parser.add_argument("--pairs", help="Optional CSV with header id,sent0,sent1 (Subtask A data).")
        parser.add_argument("--pair-answers", help="CSV id,k (no header): sent<k> is the nonsensical one.")
        parser.add_argument(
            "--split",
            default=Dataset.Split.TEST,
            choices=Dataset.Split.values,
            help="Which split the files are (default: test).",
        )
        parser.add_argument("--json", action="store_true", help="Print the result as JSON.")

    def handle(self, *args, **options):
        if bool(options["pairs"]) != bool(options["pair_answers"]):
            raise CommandError("--pairs and --pair-answers go together")
        try:
            result = import_comve(
                options["name"],
                options["statements"],
                options["references"],
                pairs=options["pairs"],
                pair_answers=options["pair_answers"],
                split=options["split"],
            )
        except FormatError as error:
            refuse(self, error, options["json"])
        print_result(
            self,
            result,
            options["json"],
            lambda result: (
                f"Imported dataset '{result.dataset.name}' ({result.dataset.split}): {result.instances} instances, "
                f"{result.references} references, {result.true_sentences} sensical twins."
            ),
        )
