"""The declarative layer of a job's options: one frozen dataclass per job, each field carrying its spec.

A job (a Table 6 export, a metric study, the study planner, an import) has options that arrive through
three doors: a web form, the REST API and a management command. They are declared once, here, as an
:class:`Options` dataclass whose fields carry an :class:`Spec` (made by :func:`option`): kind, label,
help, choices, bounds (from ``core/defaults.py``) and the doors that offer the option.
:mod:`evalapp.options.interfaces` generates the Django form, the DRF serializer and the command's
argparse arguments from that one declaration, and all three hand the raw values to the same
:meth:`Options.build`, so a value is accepted, defaulted or refused (naming the same field with the same
message) whichever door it comes through. Constructing the dataclass directly (a service called from
Python) runs the same checks in ``__post_init__``.

No Django here: this module is importable and testable alone.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Self

from core.defaults import NUL, OPTION_NUMBER_MAX_CHARS
from evalapp.formats.comve import SourceFile

SPEC_KEY = "option"
TRUE_WORDS = frozenset({"1", "true", "on", "yes"})
FALSE_WORDS = frozenset({"0", "false", "off", "no"})
REQUIRED = "This field is required."  # as Django and DRF say it


class Kind(StrEnum):
    """What an option's value is: each kind has one parser, shared by every door."""

    BOOL = "bool"
    INT = "int"
    FLOAT = "float"
    CHOICE = "choice"
    TEXT = "text"
    TEXTS = "texts"  # a list of names (a command takes them comma-separated)
    FILE = "file"  # an upload (web, API: a SourceFile, size-checked by its door) or a path (a command)


class Door(StrEnum):
    """Where a value comes from: a web form, the REST API or a management command."""

    WEB = "web"
    API = "api"
    COMMAND = "command"


ALL_DOORS = frozenset(Door)
REQUEST_DOORS = frozenset({Door.WEB, Door.API})
API_AND_COMMAND = frozenset({Door.API, Door.COMMAND})


class OptionError(ValueError):
    """A value refused, or options that do not go together; ``field`` names the option."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


@dataclass(frozen=True)
class Spec:
    """How one option is offered and checked (the metadata of its dataclass field).

    ``maximum`` holds at every door; ``request_maximum`` only for the web and the API (one request may not
    queue unbounded work; the command line, run by someone with a shell, has no cap: ``core/defaults.py``).
    """

    kind: Kind
    label: str
    help: str
    minimum: float | None = None
    maximum: float | None = None
    request_maximum: float | None = None
    choices: tuple[tuple[str, str], ...] = ()
    max_length: int | None = None
    required: bool = False
    doors: frozenset[Door] = ALL_DOORS
    flag: str = ""  # the command's flag, e.g. "--top-k" (default: from the name)
    web_help: str | None = None  # the web form's help under the field (default: ``help``)
    blank_value: str | None = None  # the value empty text stands for (default: none, the default applies)
    metavar: str | None = None

    def maximum_at(self, door: Door | None) -> float | None:
        """The upper bound that holds at ``door`` (None: a direct construction, the hard bound only)."""
        if door in REQUEST_DOORS and self.request_maximum is not None:
            return self.request_maximum
        return self.maximum

    @property
    def choice_values(self) -> tuple[str, ...]:
        return tuple(value for value, _ in self.choices)

    def parse(self, raw: object, door: Door | None) -> Any:
        """The value of ``raw`` (text from a form, a query or a command line, or JSON), None when it is not
        given (absent, None or empty text: the default applies), else :class:`ValueError` with the message."""
        if isinstance(raw, str) and raw.strip() == "" and self.blank_value is not None:
            return self.blank_value
        if raw is None or (isinstance(raw, str) and raw.strip() == ""):
            return None
        if self.kind is Kind.TEXTS:
            return self._texts(raw)
        if isinstance(raw, (list, tuple)):
            raise ValueError("give one value, not a list")
        value = _PARSERS[self.kind](self, raw)
        self.check(value, door)
        return value

    def check(self, value: Any, door: Door | None) -> None:
        """Bounds, choices and length of a parsed value (a :class:`ValueError` says what is wrong)."""
        if value is None:
            return
        if self.kind in (Kind.INT, Kind.FLOAT):
            maximum = self.maximum_at(door)
            if self.minimum is not None and value < self.minimum:
                raise ValueError(f"must be at least {_number(self.minimum)}")
            if maximum is not None and value > maximum:
                raise ValueError(f"must be at most {_number(maximum)}")
        elif self.kind is Kind.CHOICE and value not in self.choice_values:
            raise ValueError(f"must be one of {', '.join(repr(c) for c in self.choice_values)}")
        elif self.kind is Kind.TEXT:
            _check_text(value, self.max_length)
        elif self.kind is Kind.TEXTS:
            for name in value:
                _check_text(name, self.max_length)

    def _texts(self, raw: object) -> tuple[str, ...] | None:
        if isinstance(raw, str):
            items: Sequence[object] = raw.split(",")
        elif isinstance(raw, (list, tuple)):
            items = raw
        else:
            raise ValueError("must be a list of names")
        names = []
        for item in items:
            if not isinstance(item, str):
                raise ValueError("must be a list of names")
            if item.strip():
                names.append(item.strip())
        value = tuple(names)
        self.check(value, None)
        return value or None


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else repr(value)


def _check_text(value: object, max_length: int | None) -> None:
    if not isinstance(value, str):
        raise ValueError("must be text")
    if NUL in value:
        raise ValueError("must not contain a NUL character")
    if max_length is not None and len(value) > max_length:
        raise ValueError(f"is {len(value)} characters long; the limit is {max_length}")


def _bool(spec: Spec, raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, int) and raw in (0, 1):
        return bool(raw)
    if isinstance(raw, str):
        word = raw.strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
    raise ValueError("must be true or false")


def _int(spec: Spec, raw: object) -> int:
    if isinstance(raw, bool):
        raise ValueError("must be a whole number")
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float) and raw.is_integer():
        return int(raw)
    if isinstance(raw, str):
        text = raw.strip()
        digits = text[1:] if text[:1] in "+-" else text
        if digits.isascii() and digits.isdigit():
            if len(digits) > OPTION_NUMBER_MAX_CHARS:
                raise ValueError(f"must be at most {_number(spec.maximum)}" if spec.maximum else "is too large")
            return int(text)
    raise ValueError("must be a whole number")


def _float(spec: Spec, raw: object) -> float:
    if isinstance(raw, bool):
        raise ValueError("must be a number")
    if isinstance(raw, (int, float)):
        value = float(raw)
    elif isinstance(raw, str) and len(raw) <= OPTION_NUMBER_MAX_CHARS and raw.strip().isascii():
        try:
            value = float(raw.strip())
        except ValueError:
            raise ValueError("must be a number") from None
    else:
        raise ValueError("must be a number")
    if not math.isfinite(value):
        raise ValueError("must be a finite number")
    return value + 0.0  # -0.0 is 0.0


def _choice(spec: Spec, raw: object) -> str:
    if not isinstance(raw, str):
        raise ValueError(f"must be one of {', '.join(repr(c) for c in spec.choice_values)}")
    return raw.strip()


def _file(spec: Spec, raw: object) -> SourceFile | str:
    if isinstance(raw, SourceFile):
        return raw
    if isinstance(raw, str):
        _check_text(raw, None)
        return raw.strip()
    raise ValueError("must be a file")


def _text(spec: Spec, raw: object) -> str:
    if not isinstance(raw, str):
        raise ValueError("must be text")
    return raw.strip()


_PARSERS = {
    Kind.BOOL: _bool,
    Kind.INT: _int,
    Kind.FLOAT: _float,
    Kind.CHOICE: _choice,
    Kind.TEXT: _text,
    Kind.FILE: _file,
}


def option(default: Any = None, **spec: Any) -> Any:
    """A dataclass field of an :class:`Options` class: its default and its :class:`Spec`."""
    return dataclasses.field(default=default, metadata={SPEC_KEY: Spec(**spec)})


def choices_of(values: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """Choices whose labels are their values."""
    return tuple((value, value) for value in values)


@dataclass(frozen=True)
class Options:
    """The base of every job's options: a frozen dataclass of :func:`option` fields.

    Subclasses add cross-field rules in :meth:`check` (raise :class:`OptionError` naming a field).
    """

    job: ClassVar[str] = ""
    # The API schema's name of the generated serializer (drf-spectacular drops "Serializer", adds "Request").
    api_name: ClassVar[str] = ""

    def __post_init__(self) -> None:
        for name, spec in self.specs().items():
            value = getattr(self, name)
            if value is None and spec.required:
                raise OptionError(name, REQUIRED)
            try:
                spec.check(value, None)
            except ValueError as error:
                raise OptionError(name, str(error)) from None
        self.check()

    def check(self) -> None:
        """Rules between options (none by default)."""

    @classmethod
    def specs(cls) -> dict[str, Spec]:
        """Every option's spec, in declaration order."""
        return {f.name: f.metadata[SPEC_KEY] for f in dataclasses.fields(cls) if SPEC_KEY in f.metadata}

    @classmethod
    def offered_at(cls, door: Door) -> dict[str, Spec]:
        """The options ``door`` offers (the others keep their defaults there)."""
        return {name: spec for name, spec in cls.specs().items() if door in spec.doors}

    @classmethod
    def parse_one(cls, name: str, raw: object, door: Door) -> Any:
        """One option's value from ``raw`` at ``door`` (None: not given), or :class:`OptionError`."""
        try:
            return cls.specs()[name].parse(raw, door)
        except ValueError as error:
            raise OptionError(name, str(error)) from None

    @classmethod
    def build(cls, raw: Mapping[str, object], door: Door) -> Self:
        """The options from the raw values of ``door`` (text or JSON; missing or empty: the default).

        Keys that are not options of the job, or not offered at ``door``, are ignored (a query string
        also carries the format, a command its other arguments). The first refused value raises
        :class:`OptionError` naming it, in declaration order; then the rules between options.
        """
        values = {}
        for name in cls.offered_at(door):
            value = cls.parse_one(name, raw.get(name), door)
            if value is not None:
                values[name] = value
            elif cls.specs()[name].required:
                raise OptionError(name, REQUIRED)
        return cls(**values)

    def as_dict(self) -> dict[str, Any]:
        """The options as plain values (lists for TEXTS), e.g. to store or to print as JSON."""
        return {
            name: list(value) if isinstance(value, tuple) else value
            for name, value in ((name, getattr(self, name)) for name in self.specs())
        }
