"""SEA telehealth: the three products: what their rows, charts and sections hold, and the checks a delivered
product must pass (the expected outputs)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from modylbench.scenarios._kit import criterion as kit_criterion
from modylbench.scenarios._schema import CheckType, ExpectedOutput, ProductSpec, VerificationCriterion
from modylbench.scenarios.builtin.telehealth.data import CRITERIA, Market, key
from modylbench.scenarios.builtin.telehealth.solver import Figures, Projection, Solution
from modylbench.scenarios.builtin.telehealth.wording import cell

logger = logging.getLogger(__name__)

MODEL = "market_model"
STRATEGY = "entry_strategy"
SCORECARD = "country_scorecard"

CRITERION_TOLERANCE_PCT = 1.0
"""Relative tolerance of this scenario's numeric product checks, in %."""


def criterion(cid: str, description: str, check: CheckType, target: str, expected: Any = None,
              tol: float = CRITERION_TOLERANCE_PCT) -> VerificationCriterion:  # fmt: skip
    """The kit's check at this scenario's default tolerance (its figures are said to 1 %)."""
    return kit_criterion(cid, description, check, target, expected, tol)


# ----------------------------------------------------------------------------- rows, charts, sections


def input_row(market: Market, sol: Solution) -> dict[str, Any]:
    """A country's row of the inputs sheet: the research table plus the concentration from the competitor file."""
    return {
        "population_m": market.population_m,
        "urban_share_pct": market.urban_pct,
        "smartphone_penetration_pct": market.smartphone_pct,
        "internet_users_m": market.internet_users_m,
        "health_spend_per_capita_usd": market.spend_usd,
        "physicians_per_1000": market.physicians_per_1000,
        "regulatory_openness": market.regulatory,
        "telehealth_cagr_pct": market.cagr_pct,
        "out_of_pocket_share_pct": market.oop_pct,
        "private_insured_pct": market.private_pct,
        "wtp_per_consult_usd": market.wtp_usd,
        "consult_price_usd": market.price_usd,
        "top3_share_pct": sol.top3_pct[market.country],
        "players": sol.players[market.country],
    }


def sizing_row(country: str, sol: Solution) -> dict[str, Any]:
    """A country's TAM chain on the sizing sheet."""
    return {
        "addressable_pop_m": {
            "value": cell(sol.addressable_m[country]),
            "formula": "=population_m*urban_share_pct*smartphone_penetration_pct",
        },
        "consults_m": {
            "value": cell(sol.consults_m[country]),
            "formula": "=addressable_pop_m*adoption_rate*consults_per_user",
        },
        "tam_usd_m": {"value": cell(sol.tam[country]), "formula": "=consults_m*consult_price_usd"},
    }


def sizing_total(sol: Solution) -> dict[str, Any]:
    """The six-market total row of the sizing sheet."""
    return {
        "addressable_pop_m": cell(sol.totals["addressable_m"]),
        "consults_m": cell(sol.totals["consults_m"]),
        "tam_usd_m": cell(sol.totals["tam"]),
    }


def score_row(country: str, sol: Solution) -> dict[str, Any]:
    """A country's criterion scores and its base-weight score and rank."""
    row: dict[str, Any] = {name: cell(sol.criterion_scores[country][name]) for name in CRITERIA}
    row["score_base"] = {
        "value": cell(sol.score_base[country]),
        "formula": "=SUMPRODUCT(criteria, weights!base_pct)/100",
    }
    row["rank_base"] = sol.rank_base[country]
    return row


def revised_score(country: str, sol: Solution) -> dict[str, Any]:
    """A country's score on the revised weights, as the scores sheet holds it."""
    return {
        "value": cell(sol.score_revised[country]),
        "formula": "=SUMPRODUCT(criteria, weights!revised_pct)/100",
    }


def som_cell(country: str, sol: Solution) -> dict[str, Any]:
    """A country's year-5 SOM on the sizing sheet."""
    return {
        "value": cell(sol.som_y5[country]),
        "formula": "=sam_usd_m*(1+telehealth_cagr_pct)^5*target_share_pct",
    }


def projection_row(proj: Projection, year: int, launch_year: int) -> dict[str, Any]:
    """Projection year ``year + 1`` of the projection sheet."""
    return {
        "calendar_year": launch_year + year,
        "sam_usd_m": cell(proj.sam_by_year[year]),
        "share_pct": round(proj.share_pct_by_year[year], 3),
        "revenue_usd_m": {"value": cell(proj.revenue[year]), "formula": "=sam_usd_m*share_pct"},
        "contribution_usd_m": cell(proj.contribution[year]),
        "fixed_opex_usd_m": cell(proj.fixed_opex[year]),
        "ebitda_usd_m": {"value": cell(proj.ebitda[year]), "formula": "=contribution_usd_m-fixed_opex_usd_m"},
    }


def score_chart(sol: Solution, revised: bool) -> dict[str, Any]:
    """The scorecard's bar chart of weighted scores, with the revised series once the weights changed."""
    series = [
        {"name": "Base weights", "values": [cell(sol.score_base[country]) for country in sol.countries]}
    ]
    if revised:
        series.append(
            {
                "name": "Revised weights",
                "values": [cell(sol.score_revised[country]) for country in sol.countries],
            }
        )
    return {
        "chart_type": "bar",
        "title": "Weighted country score (0-10)",
        "x_label": "Country",
        "y_label": "Score",
        "categories": list(sol.countries),
        "series": series,
    }


def section(title: str, text: str) -> dict[str, str]:
    """A section of the strategy paper."""
    return {"title": title, "text": text}


def kpi(title: str, value: Any) -> dict[str, Any]:
    """A headline figure on the scorecard."""
    return {"type": "kpi", "title": title, "value": value}


def note(title: str, text: str) -> dict[str, Any]:
    """A text widget on the scorecard."""
    return {"type": "text", "title": title, "value": text}


# ----------------------------------------------------------------------------- the products


def product_specs(contents: Mapping[str, Any]) -> list[ProductSpec]:
    """The three products, each with the reference the script's edits build."""
    return [
        ProductSpec(
            product_id=MODEL,
            output_type="spreadsheet",
            title="SEA telehealth market model",
            reference=contents[MODEL],
        ),
        ProductSpec(
            product_id=STRATEGY,
            output_type="document",
            title="SEA telehealth entry strategy",
            reference=contents[STRATEGY],
        ),
        ProductSpec(
            product_id=SCORECARD,
            output_type="dashboard",
            title="Country scorecard",
            reference=contents[SCORECARD],
        ),
    ]


def expected_outputs(fig: Figures) -> list[ExpectedOutput]:
    """The three deliverables and their programmatic checks, values from ``solve()``."""
    sol, proj, inp = fig.sol, fig.projection, fig.inputs
    hurdle, cap = f"{inp.discount_pct:.0f}%", f"{inp.foreign_cap_pct:.0f}%"
    lead = fig.lead
    lead_row = key(lead)
    npv = fig.npv
    break_even_calendar = fig.break_even_calendar_year
    model = ExpectedOutput(
        product_id=MODEL,
        output_type="spreadsheet",
        description="Market model: inputs, assumptions, sizing per country, weights, scores, sensitivity, costs, "
        "five-year projection and valuation.",
        verification_criteria=[
            criterion("mm_inputs", "All six countries in the inputs sheet", "count_at_least", "/inputs", 6),
            criterion(
                "mm_tam_id",
                "Indonesia TAM",
                "numeric_equality",
                "/sizing/indonesia/tam_usd_m",
                sol.tam["Indonesia"],
            ),
            criterion(
                "mm_tam_total",
                "Six-market TAM",
                "numeric_equality",
                "/sizing/total/tam_usd_m",
                sol.totals["tam"],
            ),
            criterion(
                "mm_sam_total",
                "Six-market SAM",
                "numeric_equality",
                "/sizing/total/sam_usd_m",
                sol.totals["sam"],
            ),
            criterion(
                "mm_sam_vn",
                "Vietnam SAM with self-pay at willingness to pay",
                "numeric_equality",
                "/sizing/vietnam/sam_usd_m",
                sol.sam["Vietnam"],
            ),
            criterion(
                "mm_som_ph",
                "Philippine year-5 SOM",
                "numeric_equality",
                "/sizing/philippines/som_y5_usd_m",
                sol.som_y5["Philippines"],
            ),
            criterion(
                "mm_score_base_ph",
                "Philippine score on base weights",
                "numeric_equality",
                "/scores/philippines/score_base",
                sol.score_base["Philippines"],
            ),
            criterion(
                "mm_score_rev_id",
                "Indonesia score on revised weights",
                "numeric_equality",
                f"/scores/{lead_row}/score_revised",
                sol.score_revised[lead],
            ),
            criterion(
                "mm_rank_rev_id",
                "Indonesia ranked first on revised weights",
                "one_of",
                f"/scores/{lead_row}/rank_revised",
                [1],
            ),
            criterion(
                "mm_rev_y5",
                "Year-5 revenue",
                "numeric_equality",
                "/projection/year5/revenue_usd_m",
                proj.revenue[-1],
            ),
            criterion(
                "mm_ebitda_y1",
                "Year-1 EBITDA is a loss of the right size",
                "numeric_range",
                "/projection/year1/ebitda_usd_m",
                [round(proj.ebitda[0] * 1.02, 3), round(proj.ebitda[0] * 0.98, 3)],
            ),
            criterion(
                "mm_discount",
                f"Valued at the {hurdle} hurdle rate",
                "numeric_equality",
                "/valuation/discount_rate_pct/value",
                inp.discount_pct,
                0.01,
            ),
            criterion("mm_npv", f"NPV at {hurdle}", "numeric_equality", "/valuation/npv_usd_m/value", npv),
            criterion(
                "mm_break_even",
                "Break-even year",
                "numeric_equality",
                "/valuation/break_even_year/value",
                float(proj.break_even_year),
                0.01,
            ),
            criterion("mm_sensitivity", "Sensitivity of the ranking recorded", "present", "/sensitivity"),
        ],
    )
    paper = ExpectedOutput(
        product_id=STRATEGY,
        output_type="document",
        description="Entry-strategy paper: recommendation, market sizing, ranking, financials, entry mode, regulatory, "
        "risks and roadmap.",
        verification_criteria=[
            criterion("doc_sections", "At least eight sections", "count_at_least", "/sections", 8),
            criterion(
                "doc_rec_country", "Recommendation names the country", "contains", "/sections/0/text", lead
            ),
            criterion(
                "doc_rec_jv",
                "Recommendation names the entry mode",
                "contains",
                "/sections/0/text",
                "joint venture",
            ),
            criterion(
                "doc_rec_no_y1", "No year-1 profitability claim", "not_contains", "", "profitable in year 1"
            ),
            criterion(
                "doc_sizing_tam",
                "Market sizing carries Indonesia's TAM",
                "contains",
                "/sections/1/text",
                f"{sol.tam['Indonesia']:.1f}",
            ),
            criterion(
                "doc_reg_cap",
                "Regulatory section discloses the ownership cap",
                "contains",
                "/sections/5/text",
                f"{cap}",
            ),
            criterion(
                "doc_reg_data",
                "Regulatory section discloses data localisation",
                "contains",
                "/sections/5/text",
                "localisation",
            ),
            criterion(
                "doc_fin_be",
                "Financial section gives the break-even year",
                "contains",
                "/sections/3/text",
                str(break_even_calendar),
            ),
            criterion(
                "doc_fin_npv", "Financial section gives the NPV", "contains", "/sections/3/text", f"{npv:.2f}"
            ),
        ],
    )
    board = ExpectedOutput(
        product_id=SCORECARD,
        output_type="dashboard",
        description="Country scorecard for the board: recommendation, KPIs, weighted-score chart, weight sensitivity.",
        verification_criteria=[
            criterion("dash_widgets", "At least eight widgets", "count_at_least", "/widgets", 8),
            criterion(
                "dash_country", "Recommended country", "one_of", "/widgets/recommended_country/value", [lead]
            ),
            criterion("dash_tam", "TAM KPI", "numeric_equality", "/widgets/tam/value", sol.tam[lead]),
            criterion("dash_sam", "SAM KPI", "numeric_equality", "/widgets/sam/value", sol.sam[lead]),
            criterion("dash_npv", "NPV KPI", "numeric_equality", "/widgets/npv/value", npv),
            criterion(
                "dash_be",
                "Break-even KPI",
                "numeric_equality",
                "/widgets/break_even_year/value",
                float(proj.break_even_year),
                0.01,
            ),
            criterion(
                "dash_chart_rev",
                "Chart carries Indonesia's revised score",
                "numeric_equality",
                f"/widgets/score_chart/value/series/1/values/{sol.countries.index(lead)}",
                sol.score_revised[lead],
            ),
            criterion("dash_sensitivity", "Weight sensitivity note", "present", "/widgets/sensitivity/value"),
        ],
    )
    return [model, paper, board]
