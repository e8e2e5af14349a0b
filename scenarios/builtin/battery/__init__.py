"""Built-in scenario: a solid-state battery evidence briefing for an automotive OEM's board.

The intel team's claims table (with a retracted paper, stale and conflicting claims), a partner update with a
unit swap and a corrupt row, and analyst cost estimates (``data``); the claims reconciled by explicit evidence
rules and the cost curves fitted with numpy (``solver``); fresh instances redrawn around today's figures
(``instances``); the work products (``products``) and the meeting that builds them (``script``). ``build(seed)``:
seed 0 is the committed scenario, any other seed plays the same meeting on figures the story still fits.
"""

from __future__ import annotations

from modylbench.scenarios.builtin.battery.data import (
    BASELINE,
    CANDIDATES,
    CHEMISTRIES,
    HALDEN_CLAIM_ID,
    RETRACTED_CLAIM_ID,
    SCENARIO_ID,
    SOP_YEAR,
    SWAPPED_CONFIRMED,
    TODAY,
    Inputs,
    cost_csv,
    parse_claims,
    sources_csv,
    swapped_units,
    update_csv,
)
from modylbench.scenarios.builtin.battery.instances import draw_inputs
from modylbench.scenarios.builtin.battery.script import build
from modylbench.scenarios.builtin.battery.solver import Solution, ground_truth, solve, story_breaks
from modylbench.scenarios.builtin.battery.wording import spoken

# The name the scenario's tests know the persona's number words by.
_spoken = spoken

__all__ = [
    "BASELINE",
    "CANDIDATES",
    "CHEMISTRIES",
    "HALDEN_CLAIM_ID",
    "RETRACTED_CLAIM_ID",
    "SCENARIO_ID",
    "SOP_YEAR",
    "SWAPPED_CONFIRMED",
    "TODAY",
    "Inputs",
    "Solution",
    "build",
    "cost_csv",
    "draw_inputs",
    "ground_truth",
    "parse_claims",
    "solve",
    "sources_csv",
    "spoken",
    "story_breaks",
    "swapped_units",
    "update_csv",
]
