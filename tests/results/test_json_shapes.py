"""The JSON documents of the pure layers have the shapes their TypedDicts declare.

A TypedDict is a promise to mypy only: nothing checks it when the program runs. These tests hold the
documents the API, the exports and the commands print (the study plan, the agreement report, the
ranking's stability, a rubric) to their declared shapes, key for key and type for type, so that a key
added, renamed or left out in the code fails here as well as in a reader of the JSON.
"""

import json
import types
import typing
from collections.abc import Hashable
from dataclasses import replace

import numpy as np
import pytest

from evalapp.compute import agreement, ranking_stability, study_planner
from evalapp.formats import rubric
from evalapp.options.planner import PlanOptions
from evalapp.services import planning
from evalapp.services.results import agreement_report
from tests.results.factories import rated_campaign
from tests.results.test_study_planner import _pilot_scores


def shape_problems(value, hint, where="$"):
    """Where ``value`` differs from the type ``hint`` (a TypedDict, ``list[...]``, ``dict[...]``, a union
    or a plain type), as ``path: what`` lines; empty when it fits. JSON numbers: an int is a float too."""
    if typing.is_typeddict(hint):
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, expected an object"]
        fields = typing.get_type_hints(hint)
        problems = [f"{where}: key {key!r} missing" for key in sorted(hint.__required_keys__ - value.keys())]
        problems += [f"{where}: key {key!r} not declared" for key in sorted(value.keys() - fields.keys())]
        for key in sorted(value.keys() & fields.keys()):
            problems += shape_problems(value[key], fields[key], f"{where}.{key}")
        return problems
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        arms = [shape_problems(value, arm, where) for arm in args]
        return [] if any(not found for found in arms) else [f"{where}: {value!r} fits none of {hint}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: {type(value).__name__}, expected a list"]
        return [problem for i, item in enumerate(value) for problem in shape_problems(item, args[0], f"{where}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, expected an object"]
        return [problem for key, item in value.items() for problem in shape_problems(item, args[1], f"{where}.{key}")]
    if hint is type(None):
        return [] if value is None else [f"{where}: {value!r}, expected null"]
    if hint is float:
        fits = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif hint is int:
        fits = isinstance(value, int) and not isinstance(value, bool)
    elif hint is Hashable:
        fits = isinstance(value, Hashable)
    else:
        fits = isinstance(value, hint)
    return [] if fits else [f"{where}: {value!r} ({type(value).__name__}), expected {hint.__name__}"]


def test_the_checker_finds_a_missing_an_extra_and_a_mistyped_key():
    class Shape(typing.TypedDict):
        name: str
        score: float | None
        rows: list[int]

    assert shape_problems({"name": "a", "score": None, "rows": [1, 2]}, Shape) == []
    assert shape_problems({"name": "a", "score": 2, "rows": []}, Shape) == []  # a JSON number
    assert shape_problems({"name": "a", "rows": [1], "extra": 0}, Shape) == [
        "$: key 'score' missing",
        "$: key 'extra' not declared",
    ]
    assert shape_problems({"name": 1, "score": "x", "rows": [True, np.int64(3)]}, Shape) == [
        "$.name: 1 (int), expected str",
        "$.rows[0]: True (bool), expected int",
        "$.rows[1]: np.int64(3) (int64), expected int",
        "$.score: 'x' fits none of float | None",
    ]


@pytest.mark.postgres
def test_the_study_plan_has_its_declared_shape(db):
    campaign, _ = rated_campaign(_pilot_scores(), name="shape-pilot")
    plan = planning.plan_study(campaign, PlanOptions(alpha=0.05, power=0.8))
    assert plan["pairs"] and plan["pairs"][0]["instances_needed_simulated"] is not None
    assert shape_problems(plan, study_planner.Plan) == []
    assert shape_problems(json.loads(json.dumps(plan)), study_planner.Plan) == []  # and it is JSON


def test_a_plan_with_an_unmeasurable_pair_keeps_its_shape():
    means = np.array([[3.0, 2.0, np.nan], [2.0, np.nan, 1.0], [1.0, 1.0, 0.0]])
    counts = np.where(np.isfinite(means), 3, 0)
    settings = study_planner.SimulationSettings(50, 50, 200, 7)
    plan = study_planner.plan(
        ["A", "B", "C"], means, counts, study_planner.Components({"A": 0.3}, 0.1, 0.2, 0.5), 0.05, 0.8, 3, settings
    )
    assert plan["pairs"][0]["delta"] is None  # A and B share one instance only
    assert shape_problems(plan, study_planner.Plan) == []


@pytest.mark.postgres
def test_the_agreement_report_has_its_declared_shape(db):
    campaign, _ = rated_campaign({"A": [[3, 3, 2], [1, 2, 2]], "B": [[0, 1, 1], [2, None, 2]]}, name="shape-agree")
    report = agreement_report(campaign)
    assert {"campaign", "units_are"} <= report.keys()  # the service's own keys, declared NotRequired
    assert shape_problems(report, agreement.AgreementReport) == []
    units, raters, scores = [1, 1, 2, 2, 3], [7, 8, 7, 8, 7], [3, 2, 0, 0, 1]
    assert shape_problems(agreement.agreement(units, raters, scores, 2), agreement.AgreementReport) == []


def test_the_stability_report_has_its_declared_shape():
    scores = np.array([[[3, 3, 2], [2, 3, 3]], [[1, 0, 1], [1, 2, None]]], dtype=float)
    mask = np.isfinite(scores)
    sums, counts = np.where(mask, scores, 0).sum(axis=2), mask.sum(axis=2)
    score_counts = np.array([[((scores[k] == v) & mask[k]).sum() for v in range(4)] for k in range(2)])
    found = ranking_stability.stability(["a", "b"], sums, counts, score_counts, 3, 20, 50, 1, 0.05, 0.95)
    report = replace(found, unrated=("never rated",)).as_dict()
    assert [entry["system"] for entry in report["systems"]] == ["a", "b", "never rated"]
    assert shape_problems(report, ranking_stability.StabilityReport) == []


def test_a_rubric_has_its_declared_shape():
    entries = [{"score": s, "label": f" Label {s} ", "description": f"What {s} means."} for s in (3, 2, 1, 0)]
    read = rubric.read_rubric(json.dumps(entries).encode(), "rubric.json")
    assert [entry["score"] for entry in read] == [0, 1, 2, 3] and read[0]["label"] == "Label 0"
    assert shape_problems(read, list[rubric.RubricEntry]) == []
