"""An explicit list of instance ids for a campaign: one id a line. No Django imports.

Blank lines are skipped and a first line reading ``id`` is taken as a header. Every entry
keeps its line number, so an id the dataset does not know is reported where it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from core.problems import ProblemLog
from evalapp.formats.csvfile import read_rows

HEADER = "id"


@dataclass
class InstanceList:
    """Ids in file order, each with the line it came from."""

    filename: str
    entries: list[tuple[int, str]] = field(default_factory=list)  # (line, id)

    @property
    def ids(self) -> list[str]:
        return [instance_id for _, instance_id in self.entries]

    @classmethod
    def of(cls, ids: Iterable[object], filename: str = "instance list") -> InstanceList:
        """A list given in code or a form: entry n is "line" n."""
        return cls(filename, [(line, str(instance_id).strip()) for line, instance_id in enumerate(ids, 1)])


def read_instance_list(data: bytes | str, filename: str) -> InstanceList:
    """Parse the bytes of an id list; raises FormatError naming file, line and column."""
    rows = read_rows(data, filename)
    log = ProblemLog()
    entries: list[tuple[int, str]] = []
    first_line: dict[str, int] = {}
    for index, row in enumerate(rows):
        values = [value.strip() for value in row.fields]
        if index == 0 and values == [HEADER]:
            continue
        if len(values) != 1:
            log.add(filename, row.line, 2, f"expected one id per line, found {len(values)} fields")
            continue
        instance_id = values[0]
        if not instance_id:
            log.add(filename, row.line, 1, "empty id")
        elif instance_id in first_line:
            log.add(filename, row.line, 1, f"id {instance_id!r} repeats line {first_line[instance_id]}", instance_id)
        else:
            first_line[instance_id] = row.line
            entries.append((row.line, instance_id))
    if not entries and not log:
        log.add(filename, None, None, "the file lists no instance ids")
    log.raise_if_any()
    return InstanceList(filename, entries)
