"""Built-in scenario "Q4 distribution plan, with ops and finance": the supply-chain meeting with several people.

The network, its solver and the planner's script are the one-to-one meeting's
(``modylbench.scenarios.builtin.supply_chain``); the Columbus operations manager and an FP&A analyst join, give the
Dallas rate two ways, bring the Columbus cut in a side conversation and ask the agent by name (``script``).
"""

from __future__ import annotations

from .script import SCENARIO_ID, build

__all__ = ["SCENARIO_ID", "build"]
