"""What Helena knows about the solid-state briefing, from the instance's inputs: the board's rules, the NX
platform, and the comparison basis and readiness weights she gives only when asked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from modylbench.scenarios._kit import Knowledge, KnowledgeItem, assemble
from modylbench.scenarios._schema import Scenario

from .data import SOP_YEAR, TRL_WEIGHT
from .wording import figure, spoken

if TYPE_CHECKING:
    from .script import Meeting


def knowledge(meeting: Meeting, scenario: Scenario) -> Knowledge:
    """The persona's knowledge for this instance."""
    inp = meeting.inputs
    asked_at = next(i for i, t in enumerate(scenario.turns) if "cell level or pack level" in t.reference_response)
    # The readiness weights are needed on the readiness turn; the turn before names the score.
    weights_at = next(i for i, t in enumerate(scenario.turns) if "board's readiness score" in t.human_utterance)
    trl, cyc = round(100 * TRL_WEIGHT), round(100 * (1 - TRL_WEIGHT))
    items = [
        KnowledgeItem(id="sop_year", kind="input", label="NX start of production", value=float(SOP_YEAR),
                      aliases=["SOP", "when does NX start production"]),
        KnowledgeItem(id="cycle_target", kind="constraint", label="NX warranty cycle target",
                      value=float(inp.cycle_target), unit="cycles", aliases=["cycle life target", "warranty cycles"]),
        KnowledgeItem(id="conflict_threshold", kind="constraint", label="conflict threshold",
                      value=inp.conflict_threshold_pct, unit="%",
                      aliases=["how far a claim may sit from the peer-reviewed median"]),
        KnowledgeItem(id="equity_stake", kind="input", label="proposed equity stake in Halden",
                      value=float(inp.equity_eur_m), unit="€M", aliases=["equity ticket", "Halden investment"]),
        # Withheld: the comparison basis (the agent asks before it compares).
        KnowledgeItem(id="comparison_level", kind="preference", label="cell level or pack level comparison",
                      value="cell level", aliases=["comparison level", "cell or pack", "normalise to cell or pack"],
                      withheld=True, turn=asked_at, ask="Do you want the comparison at cell level or pack level?",
                      answer="Cell level; pack integration is a different fight.",
                      keywords=["cell level", "cell-level"]),
        # Withheld: the board's readiness convention (the agent asks before it scores readiness).
        KnowledgeItem(id="readiness_weights", kind="preference", label="how the board weights readiness",
                      value=f"{trl}% technology readiness, {cyc}% cycle life against the warranty spec",
                      aliases=["readiness weights", "readiness score weighting", "TRL against cycle life",
                               "how to weight TRL and cycle life"],
                      source="the board's scoring convention", withheld=True, turn=weights_at,
                      ask="How does the board weight the readiness score, TRL against cycle life?",
                      answer="The board weights it {value}.",
                      keywords=[f"{trl}% technology readiness", f"{trl}% TRL", f"{trl}/{cyc}",
                                f"{spoken(trl)}-{spoken(cyc)}", f"{figure(TRL_WEIGHT)} x TRL"]),
    ]
    return assemble(scenario, items, others=[("Kenji", "the partner's engineer who sent the intel update")],
                    unknown="I don't know that one; go with the sources file and label it as your assumption.")
