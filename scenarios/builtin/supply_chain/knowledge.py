"""What Marisol knows about the Q4 network, from the instance's inputs: cost rules, overtime terms, the transit cap and
what the DC fixed costs are (both given only when asked)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from modylbench.scenarios._kit import Knowledge, KnowledgeItem, assemble
from modylbench.scenarios._schema import Scenario

from .data import MAX_OUTBOUND_DAYS
from .wording import words

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
        # Withheld: the service rule on outbound lanes (the agent asks before it prunes the lanes).
        KnowledgeItem(id="outbound_transit_cap", kind="constraint", label="transit-time cap on DC-to-customer lanes",
                      value=f"{words(MAX_OUTBOUND_DAYS)} days max, DC to customer: the OTIF commitment with the "
                            "big-box accounts",
                      aliases=["service-level cap", "transit cap", "max transit days", "OTIF rule",
                               "how long can outbound lanes take"],
                      withheld=True, turn=asked_at, ask="Is there a transit-time cap on the DC-to-customer lanes?",
                      answer="Outbound transit is {value}.",
                      keywords=[f"{words(MAX_OUTBOUND_DAYS)}-day", f"{MAX_OUTBOUND_DAYS}-day",
                                f"{words(MAX_OUTBOUND_DAYS)} days", f"{MAX_OUTBOUND_DAYS} days",
                                f"{MAX_OUTBOUND_DAYS} transit days"]),
    ]
    return assemble(scenario, items, unknown="I don't have that; use the files and call out what you assume.")
