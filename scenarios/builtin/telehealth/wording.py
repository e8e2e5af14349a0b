"""SEA telehealth: how figures and assumptions are written and said in the meeting (money, percentages,
scores, the persona's spoken numbers, the criteria's names)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from modylbench.scenarios._kit import money
from modylbench.scenarios._kit import pct as pct  # the meeting's percentages: the kit's, re-exported
from modylbench.scenarios._spoken import say_number
from modylbench.scenarios.builtin.telehealth.data import CRITERIA, Inputs

logger = logging.getLogger(__name__)


# ----------------------------------------------------------------------------- figures


def usd_m(value: float) -> str:
    """Money in USD millions the way it is said: $301.0M, $2.36M (two decimals below $10M)."""
    return money(value, "M", 1 if abs(value) >= 10 else 2)


def usd_m2(value: float) -> str:
    """Money in USD millions with two decimals, for valuation figures."""
    return money(value, "M", 2)


def points(value: float) -> str:
    """A 0-10 weighted score, or a gap between two."""
    return f"{value:.2f}"


def cell(value: float) -> float:
    """A figure as the products and slides hold it: two decimals."""
    return round(float(value), 2)


def words(value: float) -> str:
    """A figure as the persona says it: 22 -> twenty-two, 2.5 -> two and a half, 277 -> two hundred and seventy-seven."""
    return say_number(value, point=False)


def billions(usd_m: float) -> str:
    """$2B, $2.5B."""
    return f"${usd_m / 1000:g}B"


# ----------------------------------------------------------------------------- the criteria

CRITERION_LABELS: dict[str, str] = {
    "market_size": "Market size (SAM)",
    "growth": "Market growth",
    "digital": "Digital readiness",
    "regulatory": "Regulatory openness",
    "competition": "Competitive headroom",
    "affordability": "Affordability",
    "clinical_need": "Clinical need",
}
"""How the market model's weights sheet labels each criterion."""

CRITERION_METRICS: dict[str, str] = {
    "market_size": "SAM (US$ M)",
    "growth": "telehealth CAGR %",
    "digital": "smartphone penetration %",
    "regulatory": "counsel's openness score",
    "competition": "100 - top-3 share %",
    "affordability": "log health spend per capita",
    "clinical_need": "1 / physicians per 1,000",
}
"""The raw metric each criterion is scored on, as the weights sheet names it."""

# How each criterion is named when spoken, in short lists and in the paper.
SPOKEN = {
    "market_size": "market size",
    "growth": "growth",
    "digital": "digital readiness",
    "regulatory": "regulatory openness",
    "competition": "competitive headroom",
    "affordability": "affordability",
    "clinical_need": "clinical need",
}
SHORT = {
    "market_size": "size",
    "growth": "growth",
    "digital": "digital",
    "regulatory": "regulatory",
    "competition": "headroom",
    "affordability": "affordability",
    "clinical_need": "need",
}
WRITTEN = {**SHORT, "market_size": "market size", "clinical_need": "clinical need"}


def weight_groups(weights: dict[str, int]) -> list[tuple[int, list[str]]]:
    """Criteria grouped by weight, heaviest first, in CRITERIA order within a group."""
    groups: list[tuple[int, list[str]]] = []
    for name in sorted(CRITERIA, key=lambda name: (-weights[name], CRITERIA.index(name))):
        if groups and groups[-1][0] == weights[name]:
            groups[-1][1].append(name)
        else:
            groups.append((weights[name], [name]))
    return groups


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def weights_said(weights: dict[str, int]) -> str:
    """'market size at twenty-five percent, regulatory openness twenty, ..., and ten each for ...'."""
    parts = []
    for place, (weight, names) in enumerate(weight_groups(weights)):
        amount = f"{words(weight)} percent" if place == 0 else words(weight)
        if len(names) == 1:
            spoken = SPOKEN[names[0]]
            parts.append(f"{spoken} at {amount}" if place == 0 else f"{spoken} {amount}")
        else:
            parts.append(f"{amount} each for {_and([SPOKEN[name] for name in names])}")
    return ", ".join(parts[:-1]) + ", and " + parts[-1] if len(parts) > 1 else parts[0]


# ----------------------------------------------------------------------------- the stated assumptions


@dataclass(frozen=True)
class Stated:
    """The persona's assumptions written the way the script writes them (22%, 2.5, $2B ...)."""

    adoption: str
    consults: str  # consults per user a year
    capture: str  # the long-tail capture rate
    low_capture: str  # the cautious capture rate
    capture_share: str  # the capture rate in words: a quarter
    hurdle: str
    first_rate: str
    terminal_growth: str
    cap: str  # the foreign-ownership cap
    partner: str  # the local partner's minimum stake
    claim: str  # the persona's claimed Indonesian TAM
    ramp: str  # 15 / 35 / 60 / 85 / 100

    @classmethod
    def of(cls, inp: Inputs) -> Stated:
        capture = f"{inp.capture_of_tail_pct:.0f}%"
        return cls(
            adoption=f"{inp.adoption_pct:.0f}%",
            consults=f"{inp.consults_per_user:g}",
            capture=capture,
            low_capture=f"{inp.low_capture_pct:.0f}%",
            capture_share={20.0: "a fifth", 25.0: "a quarter", 30.0: "three in ten"}.get(
                inp.capture_of_tail_pct, f"{capture}"
            ),
            hurdle=f"{inp.discount_pct:.0f}%",
            first_rate=f"{inp.first_discount_pct:.0f}%",
            terminal_growth=f"{inp.terminal_growth_pct:g}%",
            cap=f"{inp.foreign_cap_pct:.0f}%",
            partner=f"{100 - inp.foreign_cap_pct:.0f}%",
            claim=billions(inp.claimed_tam_usd_m),
            ramp=" / ".join(f"{ramp:.0f}" for ramp in inp.ramp_pct),
        )
