"""The supply-chain meeting's work products as the reference solution writes them: the plan's rows, the memo's
sections, and the checks each deliverable must pass."""

from __future__ import annotations

import logging
from typing import Any

from modylbench.scenarios._kit import criterion
from modylbench.scenarios._schema import ExpectedOutput, ProductSpec
from modylbench.scenarios.builtin.supply_chain.data import Inputs, Network
from modylbench.scenarios.builtin.supply_chain.solver import TOL, GreedyResult, LPResult, utilisation
from modylbench.scenarios.builtin.supply_chain.wording import (
    figure,
    rate,
    usd,
)

logger = logging.getLogger(__name__)

MEMO_SECTIONS = (
    "Executive summary",
    "Problem and scope",
    "Model formulation",
    "Results: plan of record",
    "Comparison with the current planning method",
    "Sensitivities and shadow prices",
    "Scenario: Columbus capacity",
    "Risk: peak promo uplift",
    "Recommendation and next steps",
)
PLAN, MEMO, CHART = "distribution_plan", "optimization_memo", "capacity_utilization"


def flow_row(net: Network, lane: tuple[str, str], cases: float) -> dict[str, Any]:
    ln = net.lane(*lane)
    return {
        "origin": ln.origin,
        "destination": ln.destination,
        "leg": ln.leg,
        "cases": cases,
        "rate_per_case": ln.cost,
        "freight_cost": round(cases * ln.cost, 2),
    }


def memo_skeleton() -> dict[str, Any]:
    """The memo as Marisol drops it into the doc: her section titles, no text."""
    return {
        "title": "Q4 distribution plan: optimisation memo",
        "sections": [{"title": t, "text": ""} for t in MEMO_SECTIONS],
    }


def product_specs(contents: dict[str, Any]) -> list[ProductSpec]:
    """The three products, their reference contents as the script's edits leave them."""
    return [
        ProductSpec(
            product_id=PLAN,
            output_type="spreadsheet",
            title="Q4 distribution plan",
            skeleton=None,
            reference=contents[PLAN],
        ),
        ProductSpec(
            product_id=MEMO,
            output_type="document",
            title="Q4 distribution optimisation memo",
            skeleton=memo_skeleton(),
            reference=contents[MEMO],
        ),
        ProductSpec(
            product_id=CHART,
            output_type="chart",
            title="Q4 capacity utilisation",
            skeleton=None,
            reference=contents[CHART],
        ),
    ]


def deliverables(
    inputs: Inputs, net: Network, solution: dict[str, Any], contents: dict[str, Any]
) -> list[ExpectedOutput]:
    """One deliverable per product, each with programmatic checks whose values come from the solution."""
    base: LPResult = solution["base"]
    cut: LPResult = solution["cut"]
    peak: LPResult = solution["peak"]
    cgreedy: GreedyResult = solution["cut_greedy"]
    cut_net: Network = solution["cut_net"]
    peak_net: Network = solution["peak_net"]
    shortfall = sum(peak.unmet.values())
    cut_u_cmh = utilisation(cut.dc_throughput["CMH"], cut_net.dc("CMH").capacity)
    return [
        ExpectedOutput(
            output_type="spreadsheet",
            product_id=PLAN,
            description="Distribution plan: inputs, lane flows, plant and DC utilisation with shadow prices, and a "
            "cost summary across baseline, Columbus cut and peak promo.",
            verification_criteria=[
                criterion(
                    "sc_plan_por_cost",
                    "Plan-of-record (Columbus cut) landed cost",
                    "numeric_equality",
                    "/summary/total_landed_cost/columbus_cut",
                    cut.cost,
                    0.1,
                ),
                criterion(
                    "sc_plan_base_cost",
                    "Baseline optimal landed cost at the contract Dallas rate",
                    "numeric_equality",
                    "/summary/total_landed_cost/baseline",
                    base.cost,
                    0.1,
                ),
                criterion(
                    "sc_plan_savings",
                    "Savings vs cheapest-lane-first, Columbus-cut case",
                    "numeric_equality",
                    "/summary/savings_vs_current/columbus_cut",
                    cgreedy.cost - cut.cost,
                    1.0,
                ),
                criterion(
                    "sc_plan_short",
                    "Peak-case shortfall",
                    "numeric_equality",
                    "/summary/shortfall_cases/peak_uplift",
                    shortfall,
                    1.0,
                ),
                criterion(
                    "sc_plan_jol_abe",
                    "Joliet → Allentown flow in the plan of record",
                    "numeric_equality",
                    "/flows/JOL-ABE/cases",
                    cut.flows[("JOL", "ABE")],
                    0.5,
                ),
                criterion(
                    "sc_plan_cmh_dual",
                    "Columbus shadow price in the plan of record",
                    "numeric_equality",
                    "/dcs/CMH/shadow_price",
                    round(cut.dc_dual["CMH"], 2),
                    2.0,
                ),
                criterion(
                    "sc_plan_dal_rate",
                    "Dallas handling at the contract rate",
                    "numeric_equality",
                    "/dcs/DAL/handling_cost",
                    inputs.dallas_contract_handling,
                    0.5,
                ),
                criterion(
                    "sc_plan_dal_util",
                    "Dallas full in the plan of record",
                    "numeric_range",
                    "/dcs/DAL/utilisation_pct",
                    [99.5, 100.5],
                ),
                criterion(
                    "sc_plan_flows",
                    "Every used lane listed",
                    "count_at_least",
                    "/flows",
                    sum(1 for q in cut.flows.values() if q > TOL),
                ),
            ],
        ),
        ExpectedOutput(
            output_type="document",
            product_id=MEMO,
            description="Optimisation memo: problem, model, plan of record, comparison with the current method, "
            "sensitivities, Columbus scenario, peak-promo risk and recommendation, with an honest exec summary.",
            verification_criteria=[
                criterion(
                    "sc_memo_sections",
                    "All nine sections present",
                    "count_at_least",
                    "/sections",
                    len(MEMO_SECTIONS),
                ),
                criterion(
                    "sc_memo_exec_short",
                    "Executive summary states the peak shortfall",
                    "contains",
                    "/sections/0/text",
                    figure(shortfall),
                ),
                criterion(
                    "sc_memo_exec_por",
                    "Executive summary states the plan-of-record cost",
                    "contains",
                    "/sections/0/text",
                    usd(cut.cost),
                ),
                criterion(
                    "sc_memo_model",
                    "Model section names the method",
                    "contains",
                    "/sections/2/text",
                    "linear program",
                ),
                criterion(
                    "sc_memo_sens",
                    "Sensitivities give the Columbus shadow price",
                    "contains",
                    "/sections/5/text",
                    rate(cut.dc_dual["CMH"]),
                ),
                criterion(
                    "sc_memo_risk",
                    "Risk section states the lost-sale penalty",
                    "contains",
                    "/sections/7/text",
                    usd(peak.penalty_cost),
                ),
                criterion("sc_memo_reco", "Recommendation written", "present", "/sections/8/text", None),
            ],
        ),
        ExpectedOutput(
            output_type="chart",
            product_id=CHART,
            description="Utilisation by facility (plants and DCs) for baseline, Columbus cut and peak promo.",
            verification_criteria=[
                criterion("sc_chart_type", "A bar chart", "one_of", "/chart_type", ["bar", "stacked_bar"]),
                criterion("sc_chart_series", "Three cases shown", "count_at_least", "/series", 3),
                criterion(
                    "sc_chart_cats",
                    "All seven facilities",
                    "count_at_least",
                    "/categories",
                    len(net.plants) + len(net.dcs),
                ),
                criterion(
                    "sc_chart_stk_base",
                    "Stockton baseline utilisation",
                    "numeric_equality",
                    "/series/0/values/3",
                    utilisation(base.dc_throughput["STK"], net.dc("STK").capacity),
                    0.5,
                ),
                criterion(
                    "sc_chart_abe_cut",
                    "Allentown utilisation in the plan of record",
                    "numeric_equality",
                    "/series/1/values/6",
                    utilisation(cut.dc_throughput["ABE"], cut_net.dc("ABE").capacity),
                    0.5,
                ),
                criterion(
                    "sc_chart_cmh_cut",
                    "Columbus full after the cut",
                    "numeric_range",
                    "/series/1/values/5",
                    [cut_u_cmh - 0.5, cut_u_cmh + 0.5],
                ),
                criterion(
                    "sc_chart_stk_peak",
                    "Stockton peak utilisation",
                    "numeric_equality",
                    "/series/2/values/3",
                    utilisation(peak.dc_throughput["STK"], peak_net.dc("STK").capacity),
                    0.5,
                ),
            ],
        ),
    ]
