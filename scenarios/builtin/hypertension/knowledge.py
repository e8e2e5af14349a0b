"""What the trial lead knows about the CVT study, from the instance: the SAP's analysis choices she confirms
only when asked, and the files."""

from __future__ import annotations

from typing import TYPE_CHECKING

from modylbench.scenarios._kit import Knowledge, KnowledgeItem, assemble
from modylbench.scenarios._schema import Scenario

from .data import RESPONDER_SBP

if TYPE_CHECKING:
    from .script import Meeting


def knowledge(meeting: Meeting, scenario: Scenario) -> Knowledge:
    """The persona's knowledge for this instance."""
    primary_at = next(i for i, t in enumerate(scenario.turns) if "Shall I run the ANCOVA" in t.reference_response)
    responder_at = next(i for i, t in enumerate(scenario.turns) if "Do you want the SAP definition" in t.reference_response)
    items = [
        KnowledgeItem(id="primary_analysis", kind="preference", label="which analysis is primary",
                      value="ANCOVA primary, Welch supportive, both doses under Hochberg",
                      aliases=["primary analysis", "ANCOVA or t-test", "run the ANCOVA as primary"],
                      withheld=True, turn=primary_at, ask="Shall I run the ANCOVA as primary for both doses?",
                      answer="{value}.", keywords=["ANCOVA primary", "ANCOVA as primary", "ANCOVA as the primary"]),
        KnowledgeItem(id="responder_definition", kind="preference", label="which responder definition to use",
                      value=f"the SAP definition: systolic under {RESPONDER_SBP:g}, dropouts count as failures",
                      aliases=["responder definition", "SAP definition or the composite", "responders"],
                      withheld=True, turn=responder_at, ask="Do you want the SAP responder definition or the composite?",
                      answer="Use {value}.", keywords=["SAP definition", "dropouts as non-responders",
                                                       "dropouts count as failures"]),
    ]
    return assemble(scenario, items, unknown="I don't have that; follow the SAP and state what you assumed.")
