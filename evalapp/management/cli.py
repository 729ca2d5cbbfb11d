"""What the management commands share of the command line: the ``--campaign`` option, writing an export
out, printing a result or the problems of a refused import.

Commands call services and this module, never one another (``tests/architecture/test_commands.py``):
a command module holds one command and nothing another command needs.
"""

from __future__ import annotations

import json
from argparse import ArgumentParser
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn, Protocol

from django.core.management.base import BaseCommand, CommandError

from core.models import Campaign
from core.problems import FormatError
from evalapp.formats.comve import problems_as_dicts

IMPORT_REFUSED = "import refused; nothing was written"


class Export(Protocol):
    """A download as ``evalapp/services/exports.py`` makes it: its exact text."""

    @property
    def text(self) -> str: ...


def add_campaign_argument(parser: ArgumentParser) -> None:
    parser.add_argument("--campaign", required=True, help="Name of the campaign.")


def campaign_named(name: str) -> Campaign:
    """The campaign called ``name`` (``Campaign.objects.named``), or a CommandError listing the campaigns
    that exist."""
    try:
        return Campaign.objects.named(name)
    except Campaign.DoesNotExist as missing:
        raise CommandError(str(missing)) from None


def write_export(command: BaseCommand, export: Export, out: str | None, what: str) -> None:
    """An export's exact text to ``out`` (a path) or to standard output, byte for byte as the web serves it."""
    if out:
        Path(out).write_text(export.text, encoding="utf-8")
        command.stderr.write(f"{what} written to {out}")
    else:
        command.stdout.write(export.text, ending="")


def refuse(
    command: BaseCommand,
    error: FormatError,
    as_json: bool,
    headline: str = IMPORT_REFUSED,
    lines: Sequence[str] | None = None,
) -> NoReturn:
    """Turn a FormatError into a CommandError listing every problem (and, with --json, print
    ``{"error", "problems"}`` on stdout first so that a script can read it).

    ``lines`` replaces the problems' own wording in the error (one line per problem).
    """
    if as_json:
        command.stdout.write(json.dumps({"error": headline, "problems": problems_as_dicts(error.problems)}, indent=2))
    lines = [str(problem) for problem in error.problems] if lines is None else lines
    listed = "\n".join(f"  {line}" for line in lines)
    raise CommandError(f"{headline}. {len(lines)} problem(s):\n{listed}")


def print_warnings(command: BaseCommand, warnings: Iterable[str]) -> None:
    for warning in warnings:
        command.stderr.write(f"warning: {warning}")


def print_result(command: BaseCommand, result: Any, as_json: bool, summary: Callable[[Any], str]) -> None:
    """With --json the result's ``as_json()``; otherwise its warnings (if any) on stderr and
    ``summary(result)`` as the success line."""
    if as_json:
        command.stdout.write(json.dumps(result.as_json(), indent=2))
        return
    print_warnings(command, getattr(result, "warnings", ()))
    command.stdout.write(command.style.SUCCESS(summary(result)))
