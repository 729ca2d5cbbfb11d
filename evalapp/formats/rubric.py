"""A campaign's rubric: one labelled description per score 0-3 (protocol.md#rubric). No Django imports.

JSON form, as ``--rubric FILE`` takes it and the campaign stores it::

    [{"score": 0, "label": "Not a reason", "description": "..."}, ... one entry per score 0-3]
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, TypedDict

from core.defaults import RUBRIC_DESCRIPTION_MAX_CHARS, RUBRIC_LABEL_MAX_CHARS
from core.problems import FormatError, Problem
from evalapp.formats.csvfile import decode

SCORES = (0, 1, 2, 3)
KEYS = {"score", "label", "description"}
NUL = "\x00"  # PostgreSQL cannot store it in text or JSON


class RubricEntry(TypedDict):
    """One entry of the JSON form above."""

    score: int
    label: str
    description: str


def rubric_problems(entries: object) -> list[str]:
    """Everything wrong with a rubric (a list of dicts), as messages; empty when it is valid."""
    if not isinstance(entries, list):
        return ["the rubric must be a list with one entry per score 0-3"]
    problems: list[str] = []
    seen: set[int] = set()
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            problems.append(f"entry {number} must be an object with score, label and description")
            continue
        unknown = sorted(set(entry) - KEYS)
        if unknown:
            problems.append(f"entry {number}: unknown key(s) {', '.join(unknown)} (allowed: {', '.join(sorted(KEYS))})")
        score = entry.get("score")
        if isinstance(score, bool) or score not in SCORES:
            problems.append(f"entry {number}: score must be one of 0, 1, 2, 3 (found {score!r})")
        elif score in seen:
            problems.append(f"entry {number}: score {score} is described twice")
        else:
            seen.add(score)
        label, description = entry.get("label"), entry.get("description", "")
        if not isinstance(label, str) or not label.strip():
            problems.append(f"entry {number}: a label is required")
        elif len(label) > RUBRIC_LABEL_MAX_CHARS:
            problems.append(f"entry {number}: the label is longer than {RUBRIC_LABEL_MAX_CHARS} characters")
        if not isinstance(description, str):
            problems.append(f"entry {number}: the description must be text")
        elif len(description) > RUBRIC_DESCRIPTION_MAX_CHARS:
            problems.append(f"entry {number}: the description is longer than {RUBRIC_DESCRIPTION_MAX_CHARS} characters")
        if any(NUL in text for text in (label, description) if isinstance(text, str)):
            problems.append(f"entry {number}: the text contains a NUL character")
    missing = [str(score) for score in SCORES if score not in seen]
    if missing and not problems:
        problems.append(f"the rubric must describe every score 0-3; missing: {', '.join(missing)}")
    return problems


def normalise_rubric(entries: Iterable[Mapping[str, Any]]) -> list[RubricEntry]:
    """A valid rubric in score order, text trimmed (call after :func:`rubric_problems` found nothing)."""
    return [
        {"score": entry["score"], "label": entry["label"].strip(), "description": entry.get("description", "").strip()}
        for entry in sorted(entries, key=lambda entry: entry["score"])
    ]


def read_rubric(data: bytes | str, filename: str) -> list[RubricEntry]:
    """Parse a rubric JSON file; raises FormatError with the line and column of the problem."""
    text = decode(data, filename) if isinstance(data, (bytes, bytearray)) else data
    try:
        entries = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(Problem(filename, exc.lineno, exc.colno, f"not valid JSON: {exc.msg}")) from None
    problems = rubric_problems(entries)
    if problems:
        raise FormatError([Problem(filename, None, None, message) for message in problems])
    return normalise_rubric(entries)
