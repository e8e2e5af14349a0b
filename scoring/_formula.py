"""The published scorecard formula: weights, panel consensus, hard floors, tiers and pass^k."""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence

logger = logging.getLogger(__name__)

TURN_WEIGHTS: dict[str, float] = {
    "context_accuracy": 0.25,
    "task_progress": 0.25,
    "iteration_quality": 0.20,
    "adaptability": 0.15,
    "presentation_quality": 0.10,
    "social_quality": 0.05,
}
PRODUCT_WEIGHTS: dict[str, float] = {
    "correctness": 0.30,
    "completeness": 0.25,
    "actionability": 0.20,
    "professional_quality": 0.15,
    "format_presentation": 0.10,
}
TURN_DIMENSIONS: tuple[str, ...] = tuple(TURN_WEIGHTS)
PRODUCT_DIMENSIONS: tuple[str, ...] = tuple(PRODUCT_WEIGHTS)

HARD_FLOOR = 4.0
SCENARIO_FLOOR = 4.0  # the least a scenario's caps come down to for its curveballs
BALANCE_MARGIN = 1.0  # a scenario scores at most its weaker half (journey or destination) plus this
DISAGREEMENT_RANGE = 3.0
DISAGREEMENT_STD = 2.0
JOURNEY_WEIGHT = 0.4
DESTINATION_WEIGHT = 0.6
TIERS: tuple[tuple[str, float], ...] = (("Consultant", 9.0), ("Mentor", 7.5), ("Peer", 6.0))
BELOW_PEER = "Below Peer"


def tier_threshold(tier: str) -> float:
    """Lowest score of a named tier (a scenario's ``quality_tier``)."""
    for name, low in TIERS:
        if name == tier:
            return low
    raise ValueError(f"unknown tier {tier!r}")


def tier_of(score: float) -> str:
    """Tier name of a score: >= 9.0 Consultant, >= 7.5 Mentor, >= 6.0 Peer, else Below Peer."""
    for name, low in TIERS:
        if score >= low:
            return name
    return BELOW_PEER


def consensus(values: Sequence[float]) -> tuple[float, bool]:
    """Panel consensus of one dimension and whether the judges disagree.

    If max - min > 3 the minimum (pessimistic), else the mean; disagreement when the population
    standard deviation (ddof=0) exceeds 2.
    """
    if not values:
        raise ValueError("consensus of no values")
    lo, hi = min(values), max(values)
    mean = sum(values) / len(values)
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    value = lo if hi - lo > DISAGREEMENT_RANGE else mean
    return value, std > DISAGREEMENT_STD


def panel_consensus(
    panel: Sequence[Mapping[str, float]], dimensions: Sequence[str]
) -> tuple[dict[str, float], bool]:
    """Consensus per dimension across judges' dimension maps; True when any dimension disagrees."""
    out: dict[str, float] = {}
    disagree = False
    for d in dimensions:
        value, flag = consensus([p[d] for p in panel])
        out[d] = value
        disagree = disagree or flag
    return out, disagree


def weighted(dimensions: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """Σ weight × dimension."""
    return sum(w * dimensions[d] for d, w in weights.items())


def turn_score(dimensions: Mapping[str, float]) -> tuple[float, bool]:
    """Turn score and whether the hard floor applied (context_accuracy or task_progress < 4)."""
    raw = weighted(dimensions, TURN_WEIGHTS)
    floor = dimensions["context_accuracy"] < HARD_FLOOR or dimensions["task_progress"] < HARD_FLOOR
    return (min(raw, HARD_FLOOR) if floor else raw), floor


def product_score(dimensions: Mapping[str, float]) -> tuple[float, bool]:
    """Product score and whether the hard floor applied (correctness < 4)."""
    raw = weighted(dimensions, PRODUCT_WEIGHTS)
    floor = dimensions["correctness"] < HARD_FLOOR
    return (min(raw, HARD_FLOOR) if floor else raw), floor


def correctness_bound(passed: int, required: int) -> float | None:
    """Upper bound on correctness from programmatic checks: 1 + 9 × passed / required."""
    if required <= 0:
        return None
    return 1.0 + 9.0 * passed / required


def evidence_cap(on_time: float, expected: float) -> float | None:
    """The most a product may score for the share of its expected edits made in time, or None (no cap).

    A slope, not a cliff: 1 + 9 × share, so 10 with every edit shown in time, 5.5 with half, 1.0 with
    none; a final state handed over without the work shown earns the minimum, however it was split,
    and holding back part of the work costs in proportion.
    """
    if expected <= 0 or on_time >= expected:
        return None
    return 1.0 + 9.0 * on_time / expected


def combine(journey: float | None, destination: float | None) -> float | None:
    """modylbench_score = 0.4 × journey + 0.6 × destination; one part alone when the other is absent."""
    if journey is None and destination is None:
        return None
    if destination is None:
        return journey
    if journey is None:
        return destination
    return JOURNEY_WEIGHT * journey + DESTINATION_WEIGHT * destination


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased pass^k estimator C(c, k) / C(n, k): chance that k trials drawn from n all pass."""
    if not 1 <= k <= n or not 0 <= c <= n:
        raise ValueError(f"need 1 <= k <= n and 0 <= c <= n (n={n}, c={c}, k={k})")
    return math.comb(c, k) / math.comb(n, k)
