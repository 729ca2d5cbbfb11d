"""Printing a command's result or its problems, shared by the import commands and create_campaign."""

import json

from django.core.management.base import CommandError

from evalapp.formats.comve import problems_as_dicts

IMPORT_REFUSED = "import refused; nothing was written"


def refuse(command, error, as_json, headline=IMPORT_REFUSED, lines=None):
    """Turn a FormatError into a CommandError listing every problem (and, with --json, print
    ``{"error", "problems"}`` on stdout first so that a script can read it).

    ``lines`` replaces the problems' own wording in the error (one line per problem).
    """
    if as_json:
        command.stdout.write(json.dumps({"error": headline, "problems": problems_as_dicts(error.problems)}, indent=2))
    lines = [str(problem) for problem in error.problems] if lines is None else lines
    listed = "\n".join(f"  {line}" for line in lines)
    raise CommandError(f"{headline}. {len(lines)} problem(s):\n{listed}")


def print_warnings(command, warnings):
    for warning in warnings:
        command.stderr.write(f"warning: {warning}")


def print_result(command, result, as_json, summary):
    """With --json the result's ``as_json()``; otherwise its warnings (if any) on stderr and
    ``summary(result)`` as the success line."""
    if as_json:
        command.stdout.write(json.dumps(result.as_json(), indent=2))
        return
    print_warnings(command, getattr(result, "warnings", ()))
    command.stdout.write(command.style.SUCCESS(summary(result)))
