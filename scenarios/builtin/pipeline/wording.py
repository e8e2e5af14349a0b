"""How the pipeline meeting writes its figures: percentages, money, p-values."""

from __future__ import annotations

import logging

logger = logging.getLogger(__name__)


def pc(x: float) -> str:
    return f"{x:.1f}%"


def r1(x: float) -> float:
    return round(float(x), 1)


def musd(x: float) -> str:
    return f"${x / 1e6:.2f}M"


def short_musd(x: float) -> str:
    """The memo's pipeline figure as a check matches it: one decimal when that is within 0.5% of the
    two-decimal text, else two."""
    written = round(x / 1e6, 2)
    one = round(x / 1e6, 1)
    return f"${one:.1f}" if abs(one - written) <= 0.005 * abs(written) else f"${written:.2f}"


def kusd(x: float) -> str:
    return f"${x / 1e3:.1f}K"


def p_text(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.2f}"
