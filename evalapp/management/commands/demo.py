"""manage.py demo: a ready-to-rate demo campaign with demo accounts; prints where to log in."""

import os

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.models import Item
from core.problems import FormatError
from core.roles import ROLE_DESCRIPTIONS
from evalapp.services.demo import STUDY_CAMPAIGN_NAME, load_demo

DEFAULT_ADDRESS = "127.0.0.1:8000"


class Command(BaseCommand):
    help = (
        "Load the demo: dataset 'demo' (20 statements, 3 references each), four systems, accounts "
        "organizer/researcher/rater1-3, campaign 'demo' (3 raters per item, Human = reference 1) and the "
        "rated, closed campaign 'demo-study' for the metric study. "
        "Idempotent. The accounts have well-known passwords, so outside DEBUG it needs --force."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--force", action="store_true", help="Load the demo even with DEBUG off (its passwords are public)."
        )

    def handle(self, *args, **options):
        if not settings.DEBUG and not options["force"]:
            raise CommandError("DEBUG is off: the demo accounts have public passwords. Use --force to load it anyway.")
        try:
            result = load_demo()
        except FormatError as error:
            raise CommandError(f"the demo could not be loaded:\n{error}") from None
        campaign = result.campaign
        items = Item.objects.filter(campaign=campaign)
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo ready: dataset '{result.dataset.name}' ({result.dataset.instances.count()} instances), "
                f"campaign '{campaign.name}' ({items.filter(kind=Item.Kind.SYSTEM).count()} items, "
                f"{items.filter(kind=Item.Kind.CONTROL).count()} control items, "
                f"{campaign.raters_per_item} raters per item); campaign '{STUDY_CAMPAIGN_NAME}' is rated, "
                "for a metric study (Metrics page)."
            )
        )
        self.stdout.write("Created: " + (", ".join(result.created) if result.created else "nothing (already loaded)"))
        address = os.environ.get("COMVE_DEMO_ADDR", DEFAULT_ADDRESS)
        self.stdout.write(f"\nOpen http://{address}/ and log in as:")
        for account in result.accounts:
            self.stdout.write(
                f"  {account.username:<11} password {account.password:<16} "
                f"({account.role}: {ROLE_DESCRIPTIONS[account.role]})"
            )
