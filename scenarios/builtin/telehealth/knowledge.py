"""What the strategy lead knows about the Southeast Asia entry, from the instance's inputs: the assumptions she
holds, the fund's rates, and the two projection conventions she gives only when asked."""

from __future__ import annotations

from modylbench.scenarios._kit import Knowledge, KnowledgeItem, assemble
from modylbench.scenarios._schema import Scenario

from .data import Inputs


def knowledge(inp: Inputs, scenario: Scenario) -> Knowledge:
    """The persona's knowledge for this instance."""
    asked_at = next(i for i, t in enumerate(scenario.turns) if "should I model tax" in t.reference_response)
    items = [
        KnowledgeItem(id="launch_year", kind="input", label="launch year", value=float(inp.launch_year),
                      aliases=["year one of the projection", "when do we launch"]),
        KnowledgeItem(id="adoption", kind="input", label="telehealth adoption rate", value=inp.adoption_pct, unit="%",
                      aliases=["adoption", "share of urban smartphone users who consult"],
                      source="the Australian service"),
        KnowledgeItem(id="consults_per_user", kind="input", label="consults per user a year",
                      value=inp.consults_per_user, aliases=["consultations per user", "visits per user"],
                      source="the Australian service"),
        KnowledgeItem(id="foreign_cap", kind="constraint", label="foreign ownership cap in Indonesia",
                      value=inp.foreign_cap_pct, unit="%", aliases=["foreign ownership limit"], source="counsel"),
        KnowledgeItem(id="discount_rate", kind="constraint", label="treasury hurdle rate", value=inp.discount_pct,
                      unit="%", aliases=["discount rate", "WACC", "hurdle rate"], source="treasury"),
        # Withheld: the projection's conventions (the agent asks before projecting).
        KnowledgeItem(id="tax_basis", kind="preference", label="whether to model tax", value="pre-tax",
                      aliases=["tax", "pre-tax or after-tax", "tax treatment"], withheld=True, turn=asked_at,
                      ask="Should I model tax in the projection?",
                      answer="Pre-tax; we'll carry losses through year five anyway.",
                      keywords=["pre-tax", "pretax", "before tax"]),
        KnowledgeItem(id="terminal_value", kind="preference", label="terminal value method",
                      value=inp.terminal_growth_pct, unit="%",
                      aliases=["terminal value", "perpetuity growth rate", "exit multiple or perpetuity growth",
                               "terminal growth"], withheld=True, turn=asked_at,
                      ask="Do you want the terminal value on a perpetuity growth rate or an exit multiple?",
                      answer="Terminal value on perpetuity growth at {value}."),
    ]
    return assemble(scenario, items, unknown="I don't have that; take the client's files, and say what you assume.")
