"""Each job's options through its three doors: the web form, the API serializer and the command's arguments.

The same inputs, accepted and refused (wrong types, out of range, unknown choices, huge numbers, NUL bytes,
empty values), go to the generated form, the generated serializer and the real management command's parser
(then :func:`evalapp.options.interfaces.from_command`). Every door that offers the inputs must accept the
same ones with equal options objects, and refuse the same ones naming the same field. The one declared
difference: a value above a request cap (``request_maximum``, ``core/defaults.py``) is refused by the web
and the API and accepted by the command line, which has no cap.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, load_command_class
from django.utils.datastructures import MultiValueDict

from core.defaults import (
    DEFAULT_CLUSTER_RULE,
    DEFAULT_PERMUTATIONS,
    DEFAULT_SEED,
    MAX_REQUEST_PERMUTATIONS,
    MAX_REQUEST_RESAMPLES,
    MAX_STUDY_PERMUTATIONS,
    MAX_TOP_K,
    NAME_MAX_CHARS,
    PLANNER_ALPHA,
    PLANNER_POWER,
    REQUEST_SEED_BOUND,
)
from evalapp.formats.comve import SourceFile
from evalapp.options.base import Door, Kind, OptionError, Options
from evalapp.options.imports import (
    ComveImportOptions,
    CrowdSubmissionsOptions,
    MetricScoresImportOptions,
    RatingsImportOptions,
    SubmissionImportOptions,
)
from evalapp.options.interfaces import flag_of, from_command, options_form, options_serializer
from evalapp.options.metric_study import MetricStudyOptions
from evalapp.options.planner import PlanOptions
from evalapp.options.table6 import Table6Options

HUGE = "9" * 30
NUL = "\x00"
CSV = ("upload.csv", b"id,value\n1,2\n")


@dataclass
class Job:
    options: type[Options]
    command: str
    command_argv: list[str]
    base: dict[str, Any] = field(default_factory=dict)


JOBS = {
    "table6": Job(Table6Options, "export_table6", ["--campaign", "c", "--format", "latex"]),
    "plan": Job(PlanOptions, "plan_study", ["--campaign", "c"]),
    "metric-study": Job(MetricStudyOptions, "metric_report", ["--campaign", "c"]),
    "comve": Job(ComveImportOptions, "import_comve", [], {"name": "mini", "statements": CSV, "references": CSV}),
    "submission": Job(SubmissionImportOptions, "import_submission", ["--dataset", "d"], {"system": "S", "file": CSV}),
    "ratings": Job(RatingsImportOptions, "import_ratings", ["--campaign", "c"], {"file": CSV, "format": "long"}),
    "crowd": Job(
        CrowdSubmissionsOptions, "import_crowd_submissions", ["--campaign", "c"], {"platform": "mturk", "file": CSV}
    ),
    "metric-scores": Job(
        MetricScoresImportOptions,
        "import_metric_scores",
        ["--campaign", "c"],
        {"metric": "m", "level": "system", "file": CSV},
    ),
}

ACCEPTED, CAPPED = "accepted", "capped"

# (job, inputs over the job's base inputs (None removes one), expected): expected is a dict of the options'
# values when every door accepts, ("refused", field) when every door refuses naming field, or
# (CAPPED, field) when the request doors refuse and the command accepts.
CASES = [
    # Table 6
    ("table6", {}, {"halves": False, "bootstrap": 0, "seed": DEFAULT_SEED, "clusters": DEFAULT_CLUSTER_RULE}),
    (
        "table6",
        {"halves": "true", "latex_intervals": "1", "bootstrap": "1000", "clusters": "wmt"},
        {"halves": True, "latex_intervals": True, "bootstrap": 1000, "clusters": "wmt"},
    ),
    ("table6", {"halves": "false", "bootstrap": " 7 ", "seed": "0"}, {"halves": False, "bootstrap": 7, "seed": 0}),
    ("table6", {"bootstrap": "", "permutations": ""}, {"bootstrap": 0, "permutations": DEFAULT_PERMUTATIONS}),
    ("table6", {"halves": "maybe"}, ("refused", "halves")),
    ("table6", {"halves": "yes\x00"}, ("refused", "halves")),
    ("table6", {"bootstrap": "abc"}, ("refused", "bootstrap")),
    ("table6", {"bootstrap": "2.5"}, ("refused", "bootstrap")),
    ("table6", {"bootstrap": "-1"}, ("refused", "bootstrap")),
    ("table6", {"bootstrap": "1\x00"}, ("refused", "bootstrap")),
    ("table6", {"bootstrap": "\u0663"}, ("refused", "bootstrap")),  # an Arabic-Indic three
    ("table6", {"bootstrap": str(MAX_REQUEST_RESAMPLES)}, {"bootstrap": MAX_REQUEST_RESAMPLES}),
    ("table6", {"bootstrap": str(MAX_REQUEST_RESAMPLES + 1)}, (CAPPED, "bootstrap")),
    ("table6", {"bootstrap": HUGE}, (CAPPED, "bootstrap")),
    ("table6", {"permutations": "0"}, ("refused", "permutations")),
    ("table6", {"permutations": str(MAX_REQUEST_PERMUTATIONS + 1)}, (CAPPED, "permutations")),
    ("table6", {"seed": str(REQUEST_SEED_BOUND - 1)}, {"seed": REQUEST_SEED_BOUND - 1}),
    ("table6", {"seed": str(REQUEST_SEED_BOUND)}, ("refused", "seed")),
    ("table6", {"seed": HUGE}, ("refused", "seed")),
    ("table6", {"seed": "-1"}, ("refused", "seed")),
    ("table6", {"clusters": "bogus"}, ("refused", "clusters")),
    ("table6", {"clusters": "holm\x00"}, ("refused", "clusters")),
    # the planner
    ("plan", {}, {"alpha": PLANNER_ALPHA, "power": PLANNER_POWER, "raters_per_item": None}),
    (
        "plan",
        {"alpha": "0.01", "power": "0.9", "raters_per_item": "5", "clusters": "wmt"},
        {"alpha": 0.01, "power": 0.9, "raters_per_item": 5, "clusters": "wmt"},
    ),
    ("plan", {"alpha": "abc"}, ("refused", "alpha")),
    ("plan", {"alpha": "nan"}, ("refused", "alpha")),
    ("plan", {"alpha": "inf"}, ("refused", "alpha")),
    ("plan", {"alpha": "0.6"}, ("refused", "alpha")),
    ("plan", {"alpha": "0.05\x00"}, ("refused", "alpha")),
    ("plan", {"power": "1e999"}, ("refused", "power")),
    ("plan", {"power": "-0"}, ("refused", "power")),
    ("plan", {"power": "1"}, ("refused", "power")),
    ("plan", {"raters_per_item": HUGE}, ("refused", "raters_per_item")),
    ("plan", {"raters_per_item": "0"}, ("refused", "raters_per_item")),
    ("plan", {"raters_per_item": "3.0"}, ("refused", "raters_per_item")),
    ("plan", {"clusters": "x"}, ("refused", "clusters")),
    ("plan", {"seed": "12"}, {"seed": 12}),  # not on the web page: API and command only
    ("plan", {"seed": "-1"}, ("refused", "seed")),
    # the metric study
    ("metric-study", {}, {"metrics": None, "bootstrap": 1000, "top_k": None, "corpus_scope": "dataset"}),
    (
        "metric-study",
        {"metrics": ["sacrebleu", "chrf"], "bootstrap": "10", "seed": "4", "corpus_scope": "campaign"},
        {"metrics": ("sacrebleu", "chrf"), "bootstrap": 10, "seed": 4, "corpus_scope": "campaign"},
    ),
    (
        "metric-study",
        {"bertscore_model": " models/mini ", "bertscore_layer": "6", "top_k": "3"},
        {"bertscore_model": "models/mini", "bertscore_layer": 6, "top_k": 3},
    ),
    ("metric-study", {"bootstrap": "999999"}, (CAPPED, "bootstrap")),
    ("metric-study", {"permutations": str(MAX_STUDY_PERMUTATIONS + 1)}, (CAPPED, "permutations")),
    ("metric-study", {"top_k": str(MAX_TOP_K + 1)}, (CAPPED, "top_k")),
    ("metric-study", {"top_k": "1"}, ("refused", "top_k")),
    ("metric-study", {"bertscore_layer": "101"}, ("refused", "bertscore_layer")),
    ("metric-study", {"bertscore_layer": "-1"}, ("refused", "bertscore_layer")),
    ("metric-study", {"bertscore_model": "a\x00b"}, ("refused", "bertscore_model")),
    ("metric-study", {"bertscore_model": "m" * 201}, ("refused", "bertscore_model")),
    ("metric-study", {"metrics": ["sacre\x00bleu"]}, ("refused", "metrics")),
    ("metric-study", {"metrics": ["x" * (NAME_MAX_CHARS + 1)]}, ("refused", "metrics")),
    ("metric-study", {"corpus_scope": "everything"}, ("refused", "corpus_scope")),
    ("metric-study", {"seed": "seed"}, ("refused", "seed")),
    # the imports
    ("comve", {}, {"name": "mini", "split": "test", "pairs": None}),
    ("comve", {"split": "dev", "pairs": CSV, "pair_answers": CSV}, {"split": "dev"}),
    ("comve", {"name": None}, ("refused", "name")),
    ("comve", {"name": "a\x00b"}, ("refused", "name")),
    ("comve", {"name": "n" * (NAME_MAX_CHARS + 1)}, ("refused", "name")),
    ("comve", {"split": "holdout"}, ("refused", "split")),
    ("comve", {"statements": None}, ("refused", "statements")),
    ("comve", {"pairs": CSV}, ("refused", "pair_answers")),
    ("submission", {}, {"system": "S", "marker": None, "allow_partial": False}),
    ("submission", {"marker": "*", "allow_partial": "on"}, {"marker": "*", "allow_partial": True}),
    ("submission", {"marker": "none"}, {"marker": "none"}),
    ("submission", {"marker": ""}, {"marker": "none"}),
    ("submission", {"marker": "#"}, ("refused", "marker")),
    ("submission", {"system": "Sys\x00"}, ("refused", "system")),
    ("submission", {"allow_partial": "2"}, ("refused", "allow_partial")),
    ("submission", {"file": None}, ("refused", "file")),
    ("ratings", {}, {"format": "long", "system": None, "score_column": None}),
    (
        "ratings",
        {"format": "mturk", "system": "S", "score_column": "Answer.rating"},
        {"format": "mturk", "system": "S", "score_column": "Answer.rating"},
    ),
    ("ratings", {"format": "xlsx"}, ("refused", "format")),
    ("ratings", {"format": None}, ("refused", "format")),
    ("ratings", {"worker_column": "w\x00"}, ("refused", "worker_column")),
    ("ratings", {"system": "s" * (NAME_MAX_CHARS + 1)}, ("refused", "system")),
    ("crowd", {}, {"platform": "mturk", "replace": False}),
    ("crowd", {"platform": "prolific", "replace": "true"}, {"platform": "prolific", "replace": True}),
    ("crowd", {"platform": "upwork"}, ("refused", "platform")),
    ("crowd", {"platform": None}, ("refused", "platform")),
    ("crowd", {"replace": "sure"}, ("refused", "replace")),
    ("metric-scores", {}, {"metric": "m", "level": "system"}),
    ("metric-scores", {"level": "segment", "metric": "bleurt-20"}, {"level": "segment", "metric": "bleurt-20"}),
    ("metric-scores", {"level": "corpus"}, ("refused", "level")),
    ("metric-scores", {"metric": None}, ("refused", "metric")),
    ("metric-scores", {"metric": "m\x00"}, ("refused", "metric")),
]


def _inputs(job, overrides):
    inputs = {**job.base, **overrides}
    return {name: value for name, value in inputs.items() if value is not None}


def _doors(job, inputs):
    """The doors that offer every given input (a web form without the planner's seed, say, is left out)."""
    return [door for door in Door if all(name in job.options.offered_at(door) for name in inputs)]


def _request(inputs):
    """A request's fields and uploads, as Django hands them to a form (several values of a name: a list)."""
    data, files = MultiValueDict(), MultiValueDict()
    for name, value in inputs.items():
        if isinstance(value, tuple):
            files[name] = SimpleUploadedFile(*value)
        elif isinstance(value, list):
            data.setlist(name, value)
        else:
            data[name] = value
    return data, files


def _through_form(job, inputs):
    form = options_form(job.options)(*_request(inputs))
    if form.is_valid():
        return form.options
    return ("refused", next(iter(form.errors)))


def _through_serializer(job, inputs):
    data, files = _request(inputs)
    data.update(files)  # DRF's request.data holds both
    serializer = options_serializer(job.options)(data=data)
    if serializer.is_valid():
        return serializer.options
    return ("refused", next(iter(serializer.errors)))


def _argv(job, inputs, tmp_path):
    argv = list(job.command_argv)
    specs = job.options.specs()
    for name, value in inputs.items():
        spec, flag = specs[name], flag_of(name, specs[name])
        if spec.kind is Kind.BOOL:
            word = value.strip().lower()
            if word in ("1", "true", "on", "yes"):
                argv.append(flag)
            elif word not in ("0", "false", "off", "no"):
                argv.append(f"{flag}={value}")  # what a user could type: refused by argparse
        elif isinstance(value, tuple):
            path = tmp_path / f"{name}-{value[0]}"
            path.write_bytes(value[1])
            argv += [flag, str(path)]
        elif isinstance(value, list):
            argv += [flag, ",".join(value)]
        else:
            argv.append(f"{flag}={value}")
    return argv


def _through_command(job, inputs, tmp_path):
    command = load_command_class("evalapp", job.command)
    parser = command.create_parser("manage.py", job.command)
    flags = {flag_of(name, spec): name for name, spec in job.options.specs().items()}
    try:
        parsed = parser.parse_args(_argv(job, inputs, tmp_path))
        return from_command(job.options, vars(parsed))
    except CommandError as error:
        named = [flags[flag] for flag in re.findall(r"--[a-z][a-z-]*", str(error)) if flag in flags]
        return ("refused", named[0] if named else str(error))


def _comparable(options):
    """Options with each file as its bytes (an upload at the web and API, a path on the command line)."""
    if isinstance(options, tuple):
        return options
    values = options.as_dict()
    for name, spec in options.specs().items():
        value = values[name]
        if spec.kind is Kind.FILE and value is not None:
            values[name] = value.data if isinstance(value, SourceFile) else Path(value).read_bytes()
    return values


@pytest.mark.parametrize(("job_name", "overrides", "expected"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_the_three_doors_agree(job_name, overrides, expected, tmp_path):
    job = JOBS[job_name]
    inputs = _inputs(job, overrides)
    doors = _doors(job, inputs)
    assert len(doors) >= 2, "a case must reach at least two doors"
    through = {
        Door.WEB: lambda: _through_form(job, inputs),
        Door.API: lambda: _through_serializer(job, inputs),
        Door.COMMAND: lambda: _through_command(job, inputs, tmp_path),
    }
    got = {door: _comparable(through[door]()) for door in doors}
    if isinstance(expected, dict):
        first = got[doors[0]]
        assert not isinstance(first, tuple), got
        for door in doors:
            assert got[door] == first, (door, got)
        for name, value in expected.items():
            assert first[name] == (list(value) if isinstance(value, tuple) else value), (name, first)
    elif expected[0] == CAPPED:
        for door in doors:
            if door is Door.COMMAND:
                assert not isinstance(got[door], tuple), got
            else:
                assert got[door] == ("refused", expected[1]), (door, got)
        assert job.options.specs()[expected[1]].request_maximum is not None
    else:
        for door in doors:
            assert got[door] == expected, (door, got)


def test_every_job_has_refusals_at_every_door_it_has():
    """The cases reach every door of every job, refusing as well as accepting there."""
    for name, job in JOBS.items():
        for door in Door:
            if not job.options.offered_at(door):
                continue
            cases = [c for c in CASES if c[0] == name and door in _doors(job, _inputs(job, c[1]))]
            assert any(isinstance(c[2], dict) for c in cases), (name, door)
            assert any(not isinstance(c[2], dict) for c in cases), (name, door)


def test_a_direct_construction_is_checked_as_the_doors_check():
    """A service called from Python gets the same refusals (``__post_init__``)."""
    with pytest.raises(OptionError) as refused:
        Table6Options(bootstrap=-1)
    assert refused.value.field == "bootstrap"
    with pytest.raises(OptionError) as refused:
        PlanOptions(clusters="bogus")
    assert refused.value.field == "clusters"
    with pytest.raises(OptionError) as refused:
        ComveImportOptions(name="x", statements="s.csv", references="r.csv", pairs="p.csv")
    assert refused.value.field == "pair_answers"
    # above the request cap, as the command line may ask
    assert Table6Options(bootstrap=MAX_REQUEST_RESAMPLES * 10).bootstrap == MAX_REQUEST_RESAMPLES * 10


def test_the_format_rule_of_table6_names_the_option():
    options = Table6Options(halves=True)
    options.check_format("latex")
    with pytest.raises(OptionError) as refused:
        options.check_format("csv")
    assert (refused.value.field, refused.value.message) == ("halves", "applies to the LaTeX format only")


def test_generated_doors_carry_the_declaration():
    """Labels, help, bounds and choices of the web form, the API and the command come from the one spec."""
    form = options_form(PlanOptions)()
    assert list(form.fields) == ["alpha", "power", "raters_per_item", "clusters"]  # the seed is API and command only
    assert form.fields["alpha"].label == "Significance level (alpha)"
    assert form.fields["alpha"].widget.attrs == {"min": 1e-06, "max": 0.5, "step": "any"}
    serializer = options_serializer(Table6Options)()
    assert serializer.fields["bootstrap"].max_value == MAX_REQUEST_RESAMPLES
    assert serializer.fields["clusters"].default == DEFAULT_CLUSTER_RULE
    parser = load_command_class("evalapp", "export_table6").create_parser("manage.py", "export_table6")
    help_text = parser.format_help()
    assert "--latex-intervals" in help_text and "--clusters {holm,wmt}" in help_text
