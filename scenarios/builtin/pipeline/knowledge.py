"""What the RevOps VP knows about the Q3 pipeline, from the instance: how conversion is defined (given only when
asked), the quarter compared with, the people and the files."""

from __future__ import annotations

from typing import TYPE_CHECKING

from modylbench.scenarios._kit import Knowledge, KnowledgeItem, assemble
from modylbench.scenarios._schema import Scenario

if TYPE_CHECKING:
    from .script import Meeting


def knowledge(meeting: Meeting, scenario: Scenario) -> Knowledge:
    """The persona's knowledge for this instance."""
    asked_at = next(i for i, t in enumerate(scenario.turns) if "how do you define conversion" in t.reference_response)
    items = [
        KnowledgeItem(id="conversion_definition", kind="preference", label="how conversion is defined",
                      value="stage-to-stage, on the cohort created in the quarter",
                      aliases=["conversion definition", "define conversion", "stage-to-stage or cumulative", "creation cohort"],
                      withheld=True, turn=asked_at, ask="How do you define conversion?",
                      answer="Conversion is {value}.", keywords=["stage-to-stage", "stage to stage"]),
        KnowledgeItem(id="comparison_quarter", kind="preference", label="which quarter to compare against",
                      value="Q2", aliases=["baseline quarter", "compare Q3 with"], answer="Compare Q3 with {value}."),
    ]
    return assemble(scenario, items, others=[("Renata", "the CRO")],
                    unknown="Not something I have; work from the CRM export and flag the assumption.")
