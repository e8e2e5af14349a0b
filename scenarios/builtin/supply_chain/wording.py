"""The supply-chain meeting: how figures are written and said (money, rates, case counts, the persona's spoken
numbers, lists of names)."""

from __future__ import annotations

import logging
from typing import Any

from modylbench.scenarios._kit import money
from modylbench.scenarios._kit import pct as pct  # the meeting's percentages: the kit's, re-exported
from modylbench.scenarios._spoken import say_number

logger = logging.getLogger(__name__)


def usd(x: float) -> str:
    """Whole dollars: $1,234,567."""
    return money(x)


def rate(x: float) -> str:
    """A $/case rate: $0.94."""
    return money(x, decimals=2)


def figure(x: float) -> str:
    return f"{x:,.0f}"


def words(n: int) -> str:
    """A whole number under a thousand as the persona says it: 26 → 'twenty-six', 150 → 'a hundred and fifty'."""
    return say_number(n, a_hundred=True)


def say_rate(x: float) -> str:
    """A $/case rate spoken: 0.94 → '94 cents', 1.14 → 'a dollar fourteen', 2.05 → 'two dollars oh five'."""
    cents = int(round(x * 100))
    dollars, rest = divmod(cents, 100)
    if dollars == 0:
        return f"{rest} cents"
    said = "a dollar" if dollars == 1 else words(dollars) + " dollars"
    return said if rest == 0 else said + (" oh " if rest < 10 else " ") + words(rest)


def say_thousands(x: float) -> str:
    """Dollars rounded down to ten thousand, spoken: 156,527 → 'a hundred and fifty grand'."""
    return words(int(x // 10_000) * 10) + " grand"


def say_millions(x: float) -> str:
    return words(int(round(x / 1e6))) + " million"


def listed(items: Any) -> str:
    """'A, B and C' from names."""
    xs = list(items)
    return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]
