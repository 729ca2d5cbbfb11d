"""What is wrong with a file or a request, and where: the one error type every import raises. No Django imports.

A user who fixes a file wants the whole list at once, not one error per attempt; but a file
from the wrong dataset can have a thousand bad rows, so the list is capped with a count.
The commands print these records, the web pages list them and the API returns them as JSON.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from core.defaults import MAX_REPORTED_PROBLEMS


@dataclass
class Problem:
    """One problem found in a file: where it is and what is wrong."""

    file: str
    line: int | None
    column: int | str | None
    message: str
    value: str | None = None

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f", line {self.line}"
        if self.column is not None:
            where += f", column {self.column}"
        return f"{where}: {self.message}"

    def as_dict(self) -> dict[str, str | int | None]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "value": self.value,
        }


class FormatError(ValueError):
    """A file cannot be imported. Carries every problem found; nothing was written."""

    def __init__(self, problems: Problem | Iterable[Problem]) -> None:
        if isinstance(problems, Problem):
            problems = [problems]
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class ProblemLog:
    """An ordered list of :class:`Problem` (errors or warnings) reported up to ``limit``."""

    def __init__(self, limit: int = MAX_REPORTED_PROBLEMS) -> None:
        self.limit = limit
        self.problems: list[Problem] = []

    def add(
        self, file: str, line: int | None, column: int | str | None, message: str, value: str | None = None
    ) -> None:
        self.problems.append(Problem(file, line, column, message, value))

    def extend(self, problems: Iterable[Problem]) -> None:
        self.problems.extend(problems)

    def __bool__(self) -> bool:
        return bool(self.problems)

    def __len__(self) -> int:
        return len(self.problems)

    def reported(self) -> list[Problem]:
        """The first ``limit`` problems, then one line saying how many more there are."""
        shown = self.problems[: self.limit]
        hidden = len(self.problems) - len(shown)
        if hidden > 0:
            shown.append(Problem(shown[-1].file, None, None, f"... and {hidden} more problems not shown"))
        return shown

    def raise_if_any(self) -> None:
        """Refuse the input with every (reported) problem; does nothing when there is none."""
        if self.problems:
            raise FormatError(self.reported())


class Refusal(Exception):
    """A rater's write that is refused with nothing written: ``message`` for the rater, ``code`` for programs."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.message, self.code = message, code
