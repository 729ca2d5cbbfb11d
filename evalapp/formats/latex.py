"""LaTeX helpers shared by every LaTeX export. No Django imports."""

_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}


def escape(text):
    """``text`` safe inside a LaTeX table cell (team names are user input)."""
    return "".join(_SPECIAL.get(char, char) for char in str(text))
