"""Competition ranks on displayed values, as Table 6 of the task paper shows them. No Django imports.

Ranks are taken on the rounded values a reader sees (BLEU one decimal, Human two), so two
teams showing 1.84 share rank 4 and the next team is 6th ("1, 2, 2, 4" ranking). Higher is
better. Rounding is half-up on the shortest decimal representation of the float, so 1.845
shows as 1.85 (Python's ``round`` would give 1.84 from the binary value 1.84499...).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal

BLEU_DIGITS = 1
HUMAN_DIGITS = 2


def display_round(value: float | None, digits: int) -> Decimal | None:
    """``value`` rounded half-up to ``digits`` decimals as a Decimal; None stays None."""
    if value is None:
        return None
    return Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)


def display(value: float | None, digits: int, missing: str = "-") -> str:
    """The text shown for ``value``: rounded to ``digits`` decimals, ``missing`` for None."""
    rounded = display_round(value, digits)
    return missing if rounded is None else f"{rounded:.{digits}f}"


def competition_ranks(values: Sequence[float | None], digits: int) -> list[int | None]:
    """Competition ranks (1 = highest) of ``values`` after rounding to ``digits``; None ranks None.

    ``competition_ranks([2.1, 1.84, 1.8444, 1.5], 2) == [1, 2, 2, 4]``.
    """
    shown = [display_round(v, digits) for v in values]
    present = [v for v in shown if v is not None]
    return [None if v is None else 1 + sum(1 for other in present if other > v) for v in shown]
