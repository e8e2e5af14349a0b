"""What the RevOps VP knows about the Q3 pipeline, from the instance: how conversion is defined and which deal size
values the impact (both given only when asked), the quarter compared with, the people and the files."""

from __future__ import annotations

from typing import TYPE_CHECKING

from modylbench.scenarios._kit import Knowledge, KnowledgeItem, assemble
from modylbench.scenarios._schema import Scenario

from .data import SEGMENTS

if TYPE_CHECKING:
    from .script import Meeting


def knowledge(meeting: Meeting, scenario: Scenario) -> Knowledge:
    """The persona's knowledge for this instance."""
    asked_at = next(i for i, t in enumerate(scenario.turns) if "how do you define conversion" in t.reference_response)
    baseline, segment = "Q2", SEGMENTS[1]  # the comparison quarter; the segment the routing change hit
    sized_at = next(i for i, t in enumerate(scenario.turns) if "size what it cost" in t.human_utterance)
    items = [
        KnowledgeItem(id="conversion_definition", kind="preference", label="how conversion is defined",
                      value="stage-to-stage, on the cohort created in the quarter",
                      aliases=["conversion definition", "define conversion", "stage-to-stage or cumulative", "creation cohort"],
                      withheld=True, turn=asked_at, ask="How do you define conversion?",
                      answer="Conversion is {value}.", keywords=["stage-to-stage", "stage to stage"]),
        KnowledgeItem(id="comparison_quarter", kind="preference", label="which quarter to compare against",
                      value=baseline, aliases=["baseline quarter", "compare Q3 with"], answer="Compare Q3 with {value}."),
        # Withheld: the valuation convention for the impact (the agent asks before it sizes the cost).
        KnowledgeItem(id="deal_size_basis", kind="preference", label="which deal size to value lost pipeline at",
                      value=f"the average {baseline} {segment.lower()} closed-won deal",
                      aliases=["deal size basis", "average deal size", "what deal size to use", "value of a lost opportunity"],
                      source="finance's forecast model", withheld=True, turn=sized_at,
                      ask="When we size the cost, what deal size should I value a lost opportunity at?",
                      answer="Value them at {value}, same basis as the forecast model.",
                      keywords=[f"{baseline} {segment.lower()} closed-won", f"{segment.lower()} closed-won"]),
    ]
    return assemble(scenario, items, others=[("Renata", "the CRO")],
                    unknown="Not something I have; work from the CRM export and flag the assumption.")
