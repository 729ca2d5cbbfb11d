"""Collecting every problem of a file before refusing it. No Django imports.

A user who fixes a file wants the whole list at once, not one error per attempt; but a file
from the wrong dataset can have a thousand bad rows, so the list is capped with a count.
"""
from evalapp.formats.csvfile import FormatError, Problem

MAX_REPORTED_PROBLEMS = 50


class ProblemLog:
    """An ordered list of :class:`Problem` (errors or warnings) reported up to ``limit``."""

    def __init__(self, limit=MAX_REPORTED_PROBLEMS):
        self.limit = limit
        self.problems = []

    def add(self, file, line, column, message, value=None):
        self.problems.append(Problem(file, line, column, message, value))

    def extend(self, problems):
        self.problems.extend(problems)

    def __bool__(self):
        return bool(self.problems)

    def __len__(self):
        return len(self.problems)

    def reported(self):
        """The first ``limit`` problems, then one line saying how many more there are."""
        shown = self.problems[: self.limit]
        hidden = len(self.problems) - len(shown)
        if hidden > 0:
            shown.append(Problem(shown[-1].file, None, None, f"... and {hidden} more problems not shown"))
        return shown

    def raise_if_any(self):
        """Refuse the input with every (reported) problem; does nothing when there is none."""
        if self.problems:
            raise FormatError(self.reported())
