"""Printing an import's result or its problems, shared by the import commands."""
import json

from django.core.management.base import CommandError

from evalapp.formats.comve import problems_as_dicts


def refuse(command, error, as_json):
    """Turn a FormatError into a CommandError listing every problem (and, with --json, print
    ``{"error", "problems"}`` on stdout first so that a script can read it)."""
    if as_json:
        command.stdout.write(json.dumps({"error": "import refused; nothing was written",
                                         "problems": problems_as_dicts(error.problems)}, indent=2))
    lines = "\n".join(f"  {problem}" for problem in error.problems)
    raise CommandError(f"import refused; nothing was written. {len(error.problems)} problem(s):\n{lines}")


def print_warnings(command, warnings):
    for warning in warnings:
        command.stderr.write(f"warning: {warning}")
