"""What the campaign commands share: the --campaign option, and writing an export out."""

from pathlib import Path

from django.core.management.base import CommandError

from core.models import Campaign


def add_campaign_argument(parser):
    parser.add_argument("--campaign", required=True, help="Name of the campaign.")


def campaign_named(name):
    """The campaign called ``name``, or a CommandError listing the campaigns that exist."""
    try:
        return Campaign.objects.get(name=name)
    except Campaign.DoesNotExist:
        known = ", ".join(Campaign.objects.order_by("name").values_list("name", flat=True)) or "none yet"
        raise CommandError(f"no campaign named {name!r} (campaigns: {known})") from None


def write_export(command, export, out, what):
    """An export's exact text to ``out`` (a path) or to standard output, byte for byte as the web serves it."""
    if out:
        Path(out).write_text(export.text, encoding="utf-8")
        command.stderr.write(f"{what} written to {out}")
    else:
        command.stdout.write(export.text, ending="")
