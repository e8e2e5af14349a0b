"""What Dana knows about CloudSync and the fund, from the deal's data: inputs, fund rules, the add-backs she
gives only when asked."""

from __future__ import annotations

from modylbench.scenarios._kit import Knowledge, KnowledgeItem, assemble
from modylbench.scenarios._schema import Scenario

from .data import LboData
from .solver import LboSolution
from .wording import usd_m


def knowledge(data: LboData, sol: LboSolution, scenario: Scenario) -> Knowledge:
    """Dana's knowledge for this instance of the deal."""
    deal = data.inputs
    asked_at = next(t.turn_index for t in scenario.turns if t.edge_case == "ltm_file_does_not_tie")
    severance, erp = deal.one_offs
    items = [
        KnowledgeItem(id="hurdle_irr", kind="constraint", label="fund IRR hurdle", value=deal.hurdle_irr_pct, unit="%",
                      aliases=["target IRR", "required return", "hurdle rate"], source="fund policy"),
        KnowledgeItem(id="hurdle_moic", kind="constraint", label="fund MOIC hurdle", value=deal.hurdle_moic, unit="x",
                      aliases=["target multiple of money", "required MOIC"], source="fund policy"),
        KnowledgeItem(id="max_leverage", kind="constraint", label="maximum total leverage", value=deal.max_total_leverage,
                      unit="x", aliases=["leverage cap", "max debt to EBITDA"], source="fund policy"),
        KnowledgeItem(id="min_equity", kind="constraint", label="minimum equity share of enterprise value",
                      value=deal.min_equity_pct, unit="%", aliases=["equity cushion", "minimum equity cheque"],
                      source="fund policy"),
        KnowledgeItem(id="min_coverage", kind="constraint", label="minimum interest coverage", value=deal.min_coverage,
                      unit="x", aliases=["coverage covenant", "EBITDA to interest floor"], source="fund policy"),
        KnowledgeItem(id="exit_policy", kind="constraint", label="exit multiple policy",
                      value=f"one turn of compression on entries at {deal.compression_threshold:g}x or above",
                      aliases=["exit multiple rule", "multiple compression"], source="Fund IV policy"),
        KnowledgeItem(id="hold_period", kind="input", label="holding period", value=float(data.terms.exit_year),
                      unit="years", aliases=["exit year", "how long we hold"]),
        KnowledgeItem(id="customers", kind="input", label="number of customers", value=float(deal.customers),
                      aliases=["customer count"], source="the CIM"),
        KnowledgeItem(id="nrr", kind="input", label="net revenue retention", value=deal.nrr_pct, unit="%",
                      aliases=["NRR", "net retention"], source="the CIM"),
        KnowledgeItem(id="gross_margin", kind="input", label="gross margin", value=deal.gross_margin_pct, unit="%",
                      source="the CIM"),
        KnowledgeItem(id="recurring_share", kind="input", label="recurring revenue share", value=deal.recurring_pct,
                      unit="%", aliases=["share of revenue that is recurring"], source="the CIM"),
        # Withheld: what the add-backs are and whether QoE supports them (the quarterly file shows only the gap).
        KnowledgeItem(id="addbacks_items", kind="input", label="what the EBITDA add-backs are",
                      value=f"Q3 ERP migration ({usd_m(erp)}) and severance from the Q2 reduction in force "
                            f"({usd_m(severance)})",
                      aliases=["add-backs", "one-offs", "reported versus adjusted EBITDA gap", "adjustments"],
                      source="the QoE report", withheld=True, turn=asked_at,
                      ask="What are the add-backs between reported and adjusted EBITDA?",
                      answer="They are the {value}.", keywords=["ERP migration", "severance"]),
        KnowledgeItem(id="addbacks_qoe", kind="input", label="whether QoE supports the add-backs",
                      value="QoE has both as supportable add-backs",
                      aliases=["quality of earnings view", "are the add-backs supportable", "QoE"],
                      source="the QoE report", withheld=True, turn=asked_at,
                      ask="Does the QoE support those add-backs?",
                      keywords=["supportable", "QoE supports", "QoE backs"]),
    ]
    return assemble(scenario, items, organisation="Harborview Capital Partners",
                    unknown="I don't have that to hand; use the term sheet and the files, and flag what you assume.")
