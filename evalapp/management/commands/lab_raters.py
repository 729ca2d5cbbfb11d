"""manage.py lab_raters: a campaign's lab rater accounts: list, create (one or from a CSV), renew, deactivate."""

from django.core.management.base import BaseCommand, CommandError

from core.problems import FormatError
from evalapp.formats.csvfile import write_csv
from evalapp.formats.rater_list import RaterEntry, read_rater_file
from evalapp.management.cli import add_campaign_argument, campaign_named, refuse
from evalapp.services import lab_raters

NOT_CREATED = "No account was created"


class Command(BaseCommand):
    help = (
        "A campaign's lab rater accounts. Without an action: list them. --add NAME EMAIL or --csv FILE "
        "(header name,email) creates accounts (all or nothing) and prints each one's sign-in once, as CSV; "
        "--renew USERNAME gives a new link or password; --deactivate USERNAME stops a sign-in."
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        action = parser.add_mutually_exclusive_group()
        action.add_argument("--add", nargs=2, metavar=("NAME", "EMAIL"), help="Create one account.")
        action.add_argument("--csv", metavar="FILE", help="Create an account for every line of a CSV name,email.")
        action.add_argument("--renew", metavar="USERNAME", help="A new sign-in for this account.")
        action.add_argument("--deactivate", metavar="USERNAME", help="Deactivate this account.")
        parser.add_argument(
            "--sign-in",
            choices=[lab_raters.LINK, lab_raters.PASSWORD],
            default=lab_raters.LINK,
            help="A one-time sign-in link (default) or a printed password.",
        )
        parser.add_argument(
            "--base-url",
            default="",
            help="The site's address (e.g. https://eval.example.org), put before each link's path.",
        )

    def handle(self, *args, **options):
        campaign = campaign_named(options["campaign"])
        base = options["base_url"].rstrip("/")
        if options["add"] or options["csv"]:
            try:
                if options["csv"]:
                    path = options["csv"]
                    entries = read_rater_file(path)
                else:
                    entries, path = [RaterEntry(None, *options["add"])], "--add"
                made = lab_raters.add_lab_raters(campaign, entries, options["sign_in"], filename=path)
            except FormatError as error:
                refuse(self, error, False, headline=NOT_CREATED)
            self._print(made, base)
            self.stderr.write(
                f"Created {len(made)} account(s) in '{campaign.name}'; their sign-in is printed only now."
            )
            return
        username = options["renew"] or options["deactivate"]
        if username:
            rater_id = campaign.lab_raters.filter(user__username=username.lower()).values_list("pk", flat=True).first()
            if rater_id is None:
                raise CommandError(f"{username!r} is not a lab account of '{campaign.name}'")
            if options["renew"]:
                self._print([lab_raters.reset_sign_in(campaign, rater_id, options["sign_in"])], base)
            else:
                done = lab_raters.deactivate(campaign, rater_id)
                assert done is not None  # rater_id is a lab account of the campaign (found above)
                _, changed = done
                self.stdout.write(f"Deactivated {username}." if changed else f"{username} was already deactivated.")
            return
        rows = [
            [r.name, r.username, r.ratings, "yes" if r.active else "no", r.last_login or ""]
            for r in lab_raters.lab_raters(campaign)
        ]
        self.stdout.write(write_csv(rows, ["name", "username", "ratings", "active", "last_login"]), ending="")

    def _print(self, made, base):
        rows = [[c.name, c.username, c.password or "", f"{base}{c.link}" if c.link else ""] for c in made]
        self.stdout.write(write_csv(rows, ["name", "username", "password", "link"]), ending="")
