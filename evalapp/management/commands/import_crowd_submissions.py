"""manage.py import_crowd_submissions: reconcile a campaign's crowd sessions with the platform's own records."""
from django.core.management.base import BaseCommand

from core.crowd import CROWD_PLATFORMS
from core.problems import FormatError
from evalapp.management.commands._campaign_option import add_campaign_argument, campaign_named
from evalapp.management.commands._import_output import print_result, refuse
from evalapp.services.crowd import import_crowd_submissions


class Command(BaseCommand):
    help = ("Read the platform's record of the work (Mechanical Turk batch results CSV, Prolific submissions "
            "export) and mark each crowd session of the campaign verified (the same worker and assignment or "
            "session, submitted or approved), rejected (rejected, returned, timed out, or another worker: its "
            "ratings stop counting and its items reopen) or unverified. On any problem nothing changes.")

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("--platform", required=True, choices=CROWD_PLATFORMS)
        parser.add_argument("--file", required=True, help="The platform's CSV export.")
        parser.add_argument("--json", action="store_true",
                            help='Print {"platform", "verified", "unverified", "rejected", "ratings_excluded", '
                                 '"items_reopened", "not_in_campaign", "other_worker"}.')

    def handle(self, *args, **options):
        campaign = campaign_named(options["campaign"])
        try:
            result = import_crowd_submissions(campaign, options["platform"], options["file"])
        except FormatError as error:
            refuse(self, error, options["json"])
        print_result(self, result, options["json"], lambda result: (
            f"Read the {result.platform} records for campaign '{campaign.name}': {result.verified} sessions "
            f"verified, {result.unverified} unverified, {result.rejected} rejected "
            f"({result.ratings_excluded} ratings no longer count, {result.items_reopened} items reopened); "
            f"{len(result.not_in_campaign)} records match no session here, {len(result.other_worker)} sessions "
            "were listed under another worker."))
