"""How the pipeline meeting writes its figures: percentages, money, p-values."""

from __future__ import annotations

import logging

from modylbench.scenarios._kit import money
from modylbench.scenarios._kit import pct as pct  # the meeting's percentages: the kit's, re-exported

logger = logging.getLogger(__name__)


def r1(x: float) -> float:
    return round(float(x), 1)


def musd(x: float) -> str:
    """Dollars written in $M, two decimals: $4.12M."""
    return money(x / 1e6, "M", 2)


def short_musd(x: float) -> str:
    """The memo's pipeline figure as a check matches it: one decimal when that is within 0.5% of the
    two-decimal text, else two."""
    written = round(x / 1e6, 2)
    one = round(x / 1e6, 1)
    return money(one, "", 1) if abs(one - written) <= 0.005 * abs(written) else money(written, "", 2)


def kusd(x: float) -> str:
    """Dollars written in $K, one decimal: $38.5K."""
    return money(x / 1e3, "K", 1)


def p_text(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.2f}"
