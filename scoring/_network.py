"""The scorecard's reading of the network a session had (docs/network.md): what the network destroyed is
flagged as the network's, so a score is read against the network it was earned on."""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger(__name__)

NETWORK_IMPAIRED_FLAG = "network_impaired"
"""Scenario flag: the network destroyed part of the meeting (speech that did not arrive, a file that could
not); the details are the responses' ``measurements.network.impaired``, shown in the report."""


def network_flags(measurements: dict[str, Any]) -> list[str]:
    """``[NETWORK_IMPAIRED_FLAG]`` when the derived measurements say the network destroyed something."""
    network = measurements.get("network")
    if isinstance(network, dict) and network.get("impaired"):
        return [NETWORK_IMPAIRED_FLAG]
    return []


NETWORK_EXCUSED_FLAG = "network_excused"
"""Turn flag: the network impaired this turn (speech or a file toward or from the agent) and it scored below
the agent's other turns, so it is left out of the journey (docs/network.md, "Faults placed right")."""


def network_excused(measurements: dict[str, Any], turns: list[Any]) -> set[int]:
    """Turns the network impaired whose score is below the mean of the turns it did not: left out of the
    journey. A turn the agent answered well despite the network keeps its score (the network excuses, it
    never lifts), and an agent cannot choose its network: the harness applies the profile."""
    network = measurements.get("network")
    impaired = network.get("impaired") if isinstance(network, dict) else None
    if not isinstance(impaired, list):
        return set()
    hit = {e.get("turn_index") for e in impaired if isinstance(e, dict) and isinstance(e.get("turn_index"), int)}
    scored = [t for t in turns if t.score is not None]
    clean = [t.score for t in scored if t.turn_index not in hit]
    if not hit or not clean:
        return set()
    base = sum(clean) / len(clean)
    return {t.turn_index for t in scored if t.turn_index in hit and t.score < base}
