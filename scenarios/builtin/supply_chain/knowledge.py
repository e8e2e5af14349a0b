"""What Marisol knows about the Q4 network, from the instance's inputs: cost rules, overtime terms, and what
the DC fixed costs are (given only when asked)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from modylbench.scenarios._kit import Knowledge, KnowledgeItem, assemble
from modylbench.scenarios._schema import Scenario

if TYPE_CHECKING:
    from .script import Meeting


def knowledge(meeting: Meeting, scenario: Scenario) -> Knowledge:
    """The persona's knowledge for this instance."""
    inp = meeting.inputs
    asked_at = next(i for i, t in enumerate(scenario.turns) if "DC fixed costs in scope" in t.reference_response)
    items = [
        KnowledgeItem(id="overtime_cases", kind="constraint", label="overtime capacity", value=inp.overtime_cases,
                      unit="cases", aliases=["overtime cases available"]),
        KnowledgeItem(id="intermodal_discount", kind="input", label="intermodal discount",
                      value=inp.intermodal_discount * 100.0, unit="%", aliases=["rail discount"]),
        KnowledgeItem(id="dc_fixed_costs", kind="input", label="what the DC fixed costs are",
                      value="the quarter's lease and core staffing, committed whatever flows",
                      aliases=["DC fixed costs", "fixed cost column", "are DC fixed costs in scope"],
                      withheld=True, turn=asked_at, ask="Are DC fixed costs in scope for Q4?",
                      answer="The fixed cost column in the DC file is {value}.",
                      keywords=["lease and core staffing", "committed whatever flows", "lease"]),
    ]
    return assemble(scenario, items, unknown="I don't have that; use the files and call out what you assume.")
