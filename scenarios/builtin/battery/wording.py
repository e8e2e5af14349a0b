"""The battery briefing: how figures are written and said in the meeting (numbers, money, the persona's
spoken numbers and their articles)."""

from __future__ import annotations

import logging

from modylbench.scenarios._kit import money
from modylbench.scenarios._kit import pct as pct  # the meeting's percentages: the kit's, re-exported
from modylbench.scenarios._spoken import say_number

logger = logging.getLogger(__name__)


def one_decimal(value: float) -> float:
    return float(round(value, 1))


def figure(value: float, decimals: int = 1) -> str:
    """A number as people say it: integers without decimals, thousands separated."""
    if abs(value - round(value)) < 1e-9:
        return f"{int(round(value)):,}"
    return f"{value:,.{decimals}f}"


def usd(value: float) -> str:
    """Whole dollars: $92."""
    return money(value)


def eur_m(millions: int) -> str:
    """Euros in millions: €150M."""
    return money(millions, "M", symbol="€")


def spoken(value: int) -> str:
    """A whole number as the persona says it: 'ninety-two', 'five hundred and twenty', 'eleven hundred'."""
    return say_number(value, hundreds="round")


def article(value: float) -> str:
    """The article before a number said aloud: 'an 80 kWh pack', 'a 75 kWh pack'."""
    return "an" if spoken(int(value))[0] in "aeio" else "a"
