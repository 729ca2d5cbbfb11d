"""The --campaign option shared by the results commands."""
from django.core.management.base import CommandError

from evalapp.models import Campaign


def add_campaign_argument(parser):
    parser.add_argument("--campaign", required=True, help="Name of the campaign.")


def campaign_named(name):
    """The campaign called ``name``, or a CommandError listing the campaigns that exist."""
    try:
        return Campaign.objects.get(name=name)
    except Campaign.DoesNotExist:
        known = ", ".join(Campaign.objects.order_by("name").values_list("name", flat=True)) or "none yet"
        raise CommandError(f"no campaign named {name!r} (campaigns: {known})") from None
