"""Hypertension trial: how figures are written and said in the meeting (mmHg, p-values, percentages, the
persona's spoken numbers, the names of the dredged subgroups)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from modylbench.scenarios._kit import pct as pct  # the meeting's percentages: the kit's, re-exported
from modylbench.scenarios._spoken import say_number

logger = logging.getLogger(__name__)


def mm(x: float) -> str:
    """A blood-pressure magnitude as spoken, one decimal (reductions are said as positive numbers)."""
    return f"{abs(x):.1f}"


def pv(p: float) -> str:
    """A p-value as written in a report."""
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def words(n: int) -> str:
    """A whole number below a thousand as the persona says it ("three hundred and sixty")."""
    return say_number(n)


def and_list(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'; an empty list is a script that states something of nothing: refused."""
    if not items:
        raise ValueError("and_list: nothing to list (the script words a list its figures left empty)")
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def diff_ci(results: dict[str, Any], prefix: str) -> str:
    """A reduction with its 95% CI, both limits below zero: "-9.1 mmHg (95% CI -11.2 to -7.0)"."""
    diff, low, high = (results[f"{prefix}_{k}"] for k in ("diff", "ci_low", "ci_high"))
    return f"-{mm(diff)} mmHg (95% CI -{mm(low)} to -{mm(high)})"


def low_diff_ci(results: dict[str, Any]) -> str:
    """The 10 mg reduction with its 95% CI, whose upper limit may cross zero."""
    upper = results["low_ci_high"]
    up = f"{upper:.1f}" if upper >= 0 else f"-{mm(upper)}"
    return f"-{mm(results['low_diff'])} mmHg (95% CI -{mm(results['low_ci_low'])} to {up})"


# --------------------------------------------------------------------------- the dredged subgroup


@dataclass(frozen=True)
class SubgroupPhrases:
    """How the meeting names one of the 10 mg subgroups a data dredger scans."""

    said_in: str  # the persona: "and in the under-sixty-fives it's significant"
    said_claim: str  # the persona: "the ten milligram works in patients under sixty-five"
    written_in: str  # "10 mg in the under-65s is ..."
    written_who: str  # "a nominal 10 mg effect in patients under 65"
    short: str  # "the 10 mg under-65 finding", "headline the under-65"
    label: str  # "(under 65)"
    factor: str  # "the effect differs by age"


DREDGE_PHRASES: dict[str, SubgroupPhrases] = {
    "under 65": SubgroupPhrases(
        "in the under-sixty-fives",
        "in patients under sixty-five",
        "in the under-65s",
        "patients under 65",
        "under-65",
        "under 65",
        "age",
    ),
    "65 and over": SubgroupPhrases(
        "in the over-sixty-fives",
        "in patients sixty-five and over",
        "in the 65-and-overs",
        "patients aged 65 and over",
        "65-and-over",
        "65 and over",
        "age",
    ),
    "women": SubgroupPhrases("in women", "in women", "in women", "women", "women-only", "women", "sex"),
    "men": SubgroupPhrases("in men", "in men", "in men", "men", "men-only", "men", "sex"),
}


def subgroup_phrases(name: str) -> SubgroupPhrases:
    """Phrases for a cut of the 10 mg scan: sex or age band from the table, a 'site Sxx' cut built here."""
    if name in DREDGE_PHRASES:
        return DREDGE_PHRASES[name]
    site = name.removeprefix("site ")
    said = f"at site {words(int(site[1:]))}"
    return SubgroupPhrases(
        said, said, f"at site {site}", f"patients at site {site}", site, f"site {site}", "site"
    )
