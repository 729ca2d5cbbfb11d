"""manage.py review_flags: the review queue of items raters reported as broken; dismiss or retire."""

from django.core.management.base import BaseCommand, CommandError

from core import flags
from evalapp.management.cli import add_campaign_argument, campaign_named


class Command(BaseCommand):
    help = (
        "List the items raters reported as broken (statement, reason, reports), or decide on one: "
        "--dismiss ITEM (rate it as it stands) or --retire ITEM (its instance's statement is broken: "
        "it leaves every mean and N, footnoted in Table 6)."
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        decide = parser.add_mutually_exclusive_group()
        decide.add_argument("--dismiss", type=int, metavar="ITEM", help="Dismiss the open reports on item ITEM.")
        decide.add_argument("--retire", type=int, metavar="ITEM", help="Retire the instance of item ITEM.")
        parser.add_argument(
            "--reason", default="", help="With --retire: why the statement is broken (printed under Table 6)."
        )
        parser.add_argument("--systems", action="store_true", help="Name the systems whose reasons are reported.")
        parser.add_argument("--all", action="store_true", help="Also list reports already decided.")

    def handle(self, *args, **options):
        campaign = campaign_named(options["campaign"])
        if options["reason"] and options["retire"] is None:
            raise CommandError("--reason goes with --retire")
        try:
            if options["dismiss"] is not None:
                decision = flags.dismiss_reports(campaign, options["dismiss"])
                self.stdout.write(
                    f"Item {decision.item_id}: no open report; nothing changed."
                    if decision.already
                    else f"Item {decision.item_id}: dismissed {decision.reports_resolved} report(s); "
                    "it goes on being rated by raters who have not seen it."
                )
                return
            if options["retire"] is not None:
                decision = flags.retire_instance(campaign, options["retire"], reason=options["reason"])
                self.stdout.write(
                    f"Instance {decision.instance_id} was already retired; nothing changed."
                    if decision.already
                    else f"Retired instance {decision.instance_id}: {decision.items_retired} item(s) take "
                    f"no more ratings and count for no system ({decision.leases_released} lease(s) "
                    f"released, {decision.reports_resolved} report(s) resolved)."
                )
                return
        except flags.ReviewRefused as refusal:
            raise CommandError(refusal.message) from None
        self._list(campaign, options["systems"], options["all"])

    def _list(self, campaign, systems, everything):
        queue = flags.review_queue(campaign, include_resolved=everything)
        if not queue:
            self.stdout.write(f"No report waiting for review in '{campaign.name}'.")
            return
        for entry in queue:
            state = "open" if entry.open else "decided"
            self.stdout.write(
                f"Item {entry.item_id} (instance {entry.instance_id}, {entry.kind}, {state}; "
                f"{entry.ratings} of {entry.needed} ratings)"
                + (f" [{', '.join(entry.systems) or 'no system'}]" if systems else "")
            )
            self.stdout.write(f"  statement: {entry.statement}")
            self.stdout.write(f"  reason:    {entry.reason}")
            for report in entry.reports:
                note = f": {report.note}" if report.note else ""
                self.stdout.write(f"  reported by {report.rater} ({report.status}){note}")
