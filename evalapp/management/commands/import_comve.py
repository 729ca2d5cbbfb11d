"""manage.py import_comve: load a ComVE dataset (statements, references, optional pairs)."""

from django.core.management.base import BaseCommand

from core.problems import FormatError
from evalapp.management.cli import print_result, refuse
from evalapp.options.imports import ComveImportOptions
from evalapp.options.interfaces import add_arguments, from_command
from evalapp.services.imports import import_comve_with


class Command(BaseCommand):
    help = (
        "Import a ComVE dataset: statements (header id,FalseSent), references (id,ref1,ref2,ref3, "
        "no header) and optionally the statement pairs (header id,sent0,sent1) with their answers (id,k). "
        "Atomic: on any problem nothing is written and every problem is listed."
    )

    def add_arguments(self, parser):
        add_arguments(parser, ComveImportOptions)
        parser.add_argument("--json", action="store_true", help="Print the result as JSON.")

    def handle(self, *args, **options):
        job = from_command(ComveImportOptions, options)
        try:
            result = import_comve_with(job)
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
