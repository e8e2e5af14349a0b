"""Built-in scenario: optimise a consumer-goods company's Q4 plant → DC → region distribution plan.

The network generated from ``Inputs`` and the files the persona pushes (``data``); the transshipment LP solved
with HiGHS, with flows, duals, reduced costs, the planners' greedy plan, a DC capacity cut and a peak-demand
re-solve (``solver``); fresh instances (``instances``); the work products (``products``) and the meeting that builds
them (``script``). ``build(seed)``: seed 0 is the meeting as written; other seeds draw new inputs under the
same script.
"""

from __future__ import annotations

from modylbench.scenarios.builtin.supply_chain.data import (
    CUT_DC,
    EXTRA_CMH_CASES,
    SCENARIO_ID,
    Inputs,
    Network,
    contract_network,
    generate,
)
from modylbench.scenarios.builtin.supply_chain.instances import instance
from modylbench.scenarios.builtin.supply_chain.products import MEMO
from modylbench.scenarios.builtin.supply_chain.script import build
from modylbench.scenarios.builtin.supply_chain.solver import ground_truth, solve, solve_lp, story_breaks

__all__ = [
    "CUT_DC",
    "EXTRA_CMH_CASES",
    "MEMO",
    "SCENARIO_ID",
    "Inputs",
    "Network",
    "build",
    "contract_network",
    "generate",
    "ground_truth",
    "instance",
    "solve",
    "solve_lp",
    "story_breaks",
]
