"""LaTeX helpers shared by every LaTeX export. No Django imports."""

from __future__ import annotations

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def escape(text: object) -> str:
    """``text`` safe inside a LaTeX table cell or a ``%`` comment line (team and campaign names are user
    input): the special characters escaped, and line breaks and other control characters made spaces,
    since a line break ends a comment and would let the rest of a name run as LaTeX."""
    return "".join(_SPECIAL.get(char, " " if _is_control(char) else char) for char in str(text))


def _is_control(char: str) -> bool:
    return ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0 or char in "\u2028\u2029"
