"""manage.py sequential_status: the anytime-valid decisions per pair of systems of a running campaign."""

import json

from django.core.management.base import BaseCommand

from evalapp.management.cli import add_campaign_argument, campaign_named
from evalapp.services import sequential


class Command(BaseCommand):
    help = (
        "The anytime-valid decisions per pair of systems (better / tie / open) from the campaign's ratings "
        "so far, whether the ranking is settled, and with --retire (racing campaigns) retire every system "
        "whose pairs are all decided. The same figures as the dashboard and GET /api/campaigns/{id}/sequential/."
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("--json", action="store_true", help="Print the decisions as JSON.")
        parser.add_argument(
            "--retire",
            action="store_true",
            help="Racing: first retire every system whose pairs are all decided (racing campaigns "
            "only; the others are left as they are).",
        )

    def handle(self, *args, **options):
        campaign = campaign_named(options["campaign"])
        if options["retire"]:
            done = sequential.retire_decided_systems(campaign)
            if not options["json"]:
                self.stdout.write(_retired_line(campaign, done))
        status = sequential.sequential_status(campaign)
        if options["json"]:
            self.stdout.write(json.dumps(status.as_dict(), indent=2, ensure_ascii=False))
            return
        self.stdout.write("\n".join(status_lines(status)))


def _retired_line(campaign, done):
    if not campaign.racing:
        return f"Racing is off for campaign '{campaign.name}': no system retired."
    if not done.systems:
        return "No system to retire."
    return f"Retired {', '.join(done.systems)} ({done.items_closed} items closed)."


def status_lines(status):
    """The status as text: the settings, then one line per pair."""
    lines = [
        f"alpha {status.alpha} (family-wise), tie margin {status.epsilon}; {status.method}",
        (
            f"instances seen: {status.instances_seen}; "
            f"{'settled' if status.settled else 'not settled'}; {status.decided()} of {len(status.pairs)} pairs decided"
        ),
    ]
    for name, count in status.retired.items():
        lines.append(f"retired by racing: {name} after {count} instances")
    for pair in status.pairs:
        difference = "-" if pair.difference is None else f"{pair.difference:+.3f}"
        lines.append(
            f"{pair.better} vs {pair.worse}: {difference} [{pair.lower:+.3f}, {pair.upper:+.3f}] {pair.decision}"
        )
    return lines
