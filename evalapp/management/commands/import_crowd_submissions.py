"""manage.py import_crowd_submissions: reconcile a campaign's crowd sessions with the platform's own records."""

from django.core.management.base import BaseCommand

from core.crowd import CROWD_PLATFORMS
from core.problems import FormatError
from evalapp.management.cli import add_campaign_argument, campaign_named, print_result, refuse
from evalapp.services.crowd import import_crowd_submissions


class Command(BaseCommand):
    help = (
        "Read the platform's record of the work (Mechanical Turk batch results CSV, Prolific submissions "
        "export) and mark each crowd session of the campaign verified (the same worker and assignment or "
        "session, submitted or approved), rejected (rejected, returned, timed out, or another worker: its "
        "ratings stop counting and its items reopen) or unverified. A verified session stays verified "
        "unless a file rejects it (or --replace). On any problem nothing changes."
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("--platform", required=True, choices=CROWD_PLATFORMS)
        parser.add_argument("--file", required=True, help="The platform's CSV export.")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="The file is the whole record: a verified session it does not confirm becomes "
            "unverified again (by default a session stays verified until a file rejects it).",
        )
        parser.add_argument(
            "--json",
            action="store_true",
            help='Print {"platform", "replace", "records", "verified", "unverified", "rejected", '
            '"kept_unlisted", "unverified_unlisted", "ratings_excluded", "items_reopened", '
            '"not_in_campaign_count", "not_in_campaign" (the first 50), "other_worker_count", '
            '"other_worker" (the first 50), "notes"}.',
        )

    def handle(self, *args, **options):
        campaign = campaign_named(options["campaign"])
        try:
            result = import_crowd_submissions(
                campaign, options["platform"], options["file"], replace=options["replace"]
            )
        except FormatError as error:
            refuse(self, error, options["json"])
        print_result(
            self,
            result,
            options["json"],
            lambda result: " ".join(
                [
                    (
                        f"Read the {result.platform} records for campaign '{campaign.name}': "
                        f"{result.verified} sessions verified, {result.unverified} unverified, "
                        f"{result.rejected} rejected "
                        f"({result.ratings_excluded} ratings no longer count, {result.items_reopened} items reopened)."
                    )
                ]
                + [f"{note}." for note in result.notes()]
            ),
        )
