"""Built-in scenario "CloudSync LBO, with the target's CFO and operations lead": the LBO meeting with several people.

The deal, its solver and the VP's script are the one-to-one LBO's (``modylbench.scenarios.builtin.lbo``); the CFO
and the operations lead join, talk to each other and to the VP, give figures that disagree, and ask the agent by
name (``script``). Seeds draw the deal as the LBO does.
"""

from __future__ import annotations

from .script import SCENARIO_ID, build

__all__ = ["SCENARIO_ID", "build"]
