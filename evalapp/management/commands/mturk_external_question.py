"""Print the Mechanical Turk ExternalQuestion XML of a campaign (no network call)."""

from django.core.management.base import BaseCommand, CommandError

from core.crowd import MTURK
from evalapp.formats.external_question import AUTO_FRAME_HEIGHT, ExternalQuestionError, external_question_xml
from evalapp.management.cli import add_campaign_argument, campaign_named
from evalapp.services import crowd


class Command(BaseCommand):
    help = (
        "Print the ExternalQuestion XML that shows the campaign's rater screens in a Mechanical Turk HIT "
        "(give it as the Question of CreateHIT)."
    )

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument(
            "--url",
            required=True,
            help="The site's public https:// address (with its path prefix, if any), e.g. https://eval.example.org",
        )
        parser.add_argument(
            "--frame-height",
            type=int,
            default=AUTO_FRAME_HEIGHT,
            help="Height of MTurk's frame in pixels; 0 (the default) fits the worker's window.",
        )

    def handle(self, *args, **options):
        campaign = campaign_named(options["campaign"])
        try:
            xml = external_question_xml(crowd.entry_url(options["url"], campaign, MTURK), options["frame_height"])
        except ExternalQuestionError as error:
            raise CommandError(f"--url/--frame-height: {error}") from None
        if not campaign.mturk_enabled:
            self.stderr.write(
                f"Note: Mechanical Turk is not enabled for campaign '{campaign.name}': its entry "
                "answers 404 until an organizer enables it (crowd page, or the API)."
            )
        self.stdout.write(xml, ending="")
