"""manage.py agreement: inter-rater agreement of a campaign (S8)."""

from django.core.management.base import BaseCommand

from evalapp.management.cli import add_campaign_argument, campaign_named
from evalapp.services import exports
from evalapp.services.results import agreement_report

LABELS = (
    ("krippendorff_alpha_ordinal", "Krippendorff's alpha (ordinal)"),
    ("krippendorff_alpha_interval", "Krippendorff's alpha (interval)"),
    ("fleiss_kappa", "Fleiss' kappa (items with exactly M ratings)"),
    ("exact_agreement", "Exact agreement (share of agreeing rating pairs)"),
    ("mean_pairwise_qwk", "Mean pairwise quadratic-weighted Cohen's kappa"),
)


def _figure(value):
    return "undefined" if value is None else f"{value:.4f}"


class Command(BaseCommand):
    help = "Agreement of a campaign's raters on its system items: alpha, Fleiss' kappa, exact agreement, QWK."

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument(
            "--json", action="store_true", help="Print the full report (with per-rater figures) as JSON."
        )

    def handle(self, *args, **options):
        campaign = campaign_named(options["campaign"])
        if options["json"]:
            self.stdout.write(exports.agreement(campaign).text, ending="")
            return
        report = agreement_report(campaign)
        self.stdout.write(
            f"Agreement of campaign '{report['campaign']}': {report['ratings']} ratings on "
            f"{report['units']} items ({report['pairable_units']} with two or more ratings)"
        )
        for key, label in LABELS:
            self.stdout.write(f"  {label}: {_figure(report[key])}")
        self.stdout.write(
            f"  Fleiss' kappa used {report['fleiss_units']} items; QWK averaged over "
            f"{report['qwk_rater_pairs']} rater pairs sharing >= {report['qwk_min_shared_units']} items"
        )
