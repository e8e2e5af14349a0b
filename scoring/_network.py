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
