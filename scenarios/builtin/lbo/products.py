"""CloudSync LBO products: the model's sheets and the debt chart as rows computed from a case, the templates
the VP sets up, and what each product must contain (the expected outputs and their checks)."""

from __future__ import annotations

import logging
from typing import Any

from modylbench.scenarios._kit import criterion
from modylbench.scenarios._schema import ExpectedOutput, VerificationCriterion

from .data import FINANCIALS_FILE, TERM_SHEET_FILE, YEARS, DealInputs, DealTerms, OperatingCase
from .solver import CaseResult, LboSolution
from .wording import mult, usd_m

logger = logging.getLogger(__name__)


def cell(truth: float) -> float:
    """Cell precision: $M to the thousand dollars, rates and multiples to three decimals."""
    return round(float(truth), 3) + 0.0  # + 0.0 turns a rounded -0.0 into 0.0


def assumptions_rows(
    operating: OperatingCase, terms: DealTerms, deal: DealInputs
) -> dict[str, dict[str, Any]]:
    """The assumptions tab: every input with its unit and where it came from."""

    def row(truth: float | str, unit: str, source: str) -> dict[str, Any]:
        return {"value": truth, "unit": unit, "source": source}

    fin, ts, dana = FINANCIALS_FILE, TERM_SHEET_FILE, "Fund IV policy (VP)"
    return {
        "ltm_revenue": row(operating.ltm_revenue, "$M", fin),
        "ltm_adjusted_ebitda": row(operating.ltm_ebitda, "$M", fin),
        "revenue_growth": row(operating.growth_pct[0], "%", fin),
        "ebitda_margin": row(operating.margin_pct[0], "%", fin + "; held flat (management case is upside)"),
        "da_pct_revenue": row(operating.da_pct, "%", fin),
        "capex_pct_revenue": row(operating.capex_pct, "%", fin),
        "nwc_pct_incremental_revenue": row(operating.nwc_pct, "%", fin),
        "tax_rate": row(operating.tax_pct, "%", fin),
        "entry_multiple": row(terms.entry_multiple, "x", ts),
        "senior_multiple": row(terms.senior_multiple, "x", ts),
        "senior_rate": row(terms.senior_rate_pct, "%", ts + "; cash, on opening balance"),
        "senior_amortisation": row(terms.senior_amort_pct, "% of original principal", ts),
        "cash_sweep": row(terms.sweep_pct, "% of excess cash flow", ts),
        "junior_multiple": row(terms.junior_multiple, "x", ts),
        "junior_pik_rate": row(terms.junior_pik_pct, "% PIK", ts + "; bullet at exit, deductible as accrued"),
        "exit_year": row(float(terms.exit_year), "year", dana),
        "exit_multiple": row(terms.exit_multiple, "x", dana),
        "hurdle_irr": row(deal.hurdle_irr_pct, "%", dana),
        "hurdle_moic": row(deal.hurdle_moic, "x", dana),
    }


def sources_uses_rows(case: CaseResult, ltm_ebitda: float) -> dict[str, dict[str, Any]]:
    """Sources and uses at close: amount, turns of EBITDA and share of the total."""

    def row(amount: float) -> dict[str, Any]:
        return {
            "amount": cell(amount),
            "x_ebitda": cell(amount / ltm_ebitda),
            "pct_of_total": cell(amount / case.ev * 100),
        }

    return {
        "senior_term_loan": row(case.senior0),
        "mezzanine_notes": row(case.junior0),
        "sponsor_equity": row(case.equity),
        "total_sources": row(case.senior0 + case.junior0 + case.equity),
        "purchase_enterprise_value": row(case.ev),
    }


def income_rows(case: CaseResult, below_ebit: bool) -> dict[str, dict[str, Any]]:
    """Income statement by year; ``below_ebit`` adds interest, tax and net income."""
    out: dict[str, dict[str, Any]] = {}
    for y in range(len(case.revenue)):
        row: dict[str, Any] = {
            "revenue": cell(case.revenue[y]),
            "ebitda": cell(case.ebitda[y]),
            "da": cell(case.da[y]),
            "ebit": cell(case.ebit[y]),
        }
        if below_ebit:
            row |= {
                "senior_interest": cell(case.senior_interest[y]),
                "junior_pik_interest": cell(case.junior_pik[y]),
                "pretax_income": cell(case.pretax[y]),
                "taxes": cell(case.taxes[y]),
                "net_income": cell(case.net_income[y]),
            }
        out[f"year{y + 1}"] = row
    return out


def cash_flow_rows(case: CaseResult) -> dict[str, dict[str, Any]]:
    """Levered free cash flow available for debt repayment, by year."""
    return {
        f"year{y + 1}": {
            "net_income": cell(case.net_income[y]),
            "da": cell(case.da[y]),
            "pik_addback": cell(case.junior_pik[y]),
            "capex": cell(-case.capex[y]),
            "change_nwc": cell(-case.change_nwc[y]),
            "fcf": cell(case.fcf[y]),
        }
        for y in range(len(case.revenue))
    }


def debt_rows(case: CaseResult, credit_stats: bool = False) -> dict[str, dict[str, Any]]:
    """Debt schedule by year: senior roll-forward with the sweep, mezz PIK accretion, cash."""
    out: dict[str, dict[str, Any]] = {}
    for y in range(len(case.revenue)):
        row: dict[str, Any] = {
            "senior_opening": cell(case.senior_open[y]),
            "mandatory_amortisation": cell(case.mandatory[y]),
            "cash_sweep": cell(case.sweep[y]),
            "senior_closing": cell(case.senior_close[y]),
            "junior_opening": cell(case.junior_open[y]),
            "junior_pik": cell(case.junior_pik[y]),
            "junior_closing": cell(case.junior_close[y]),
            "cash_closing": cell(case.cash[y]),
        }
        if credit_stats:
            row |= {
                "total_leverage": cell(case.total_debt(y) / case.ebitda[y]),
                "interest_coverage": cell(case.ebitda[y] / case.senior_interest[y]),
            }
        out[f"year{y + 1}"] = row
    return out


def returns_base_row(case: CaseResult, terms: DealTerms) -> dict[str, Any]:
    """The exit waterfall and sponsor returns of one case."""
    LAST = len(case.revenue) - 1
    return {
        "exit_ebitda": cell(case.exit_ebitda),
        "exit_multiple": cell(terms.exit_multiple),
        "exit_ev": cell(case.exit_ev),
        "senior_at_exit": cell(case.senior_close[LAST]),
        "junior_at_exit": cell(case.junior_close[LAST]),
        "cash_at_exit": cell(case.cash[LAST]),
        "exit_equity": cell(case.exit_equity),
        "equity_invested": cell(case.equity),
        "moic": cell(case.moic),
        "irr_pct": cell(case.irr_pct),
    }


def _sens_key(v: float, prefix: str, suffix: str) -> str:
    text = f"{v:g}".replace(".", "_")
    return f"{prefix}_{text}{suffix}"


def sensitivity_rows(
    grid: dict[float, dict[float, float]], col_prefix: str, col_suffix: str
) -> dict[str, dict[str, Any]]:
    """IRR (%) grid: exit multiple rows, entry-multiple or growth columns."""
    return {
        _sens_key(ex, "exit", "x"): {
            _sens_key(k, col_prefix, col_suffix): cell(irr) for k, irr in row.items()
        }
        for ex, row in grid.items()
    }


def paydown_chart(case: CaseResult) -> dict[str, Any]:
    """Stacked bars of senior and accreted mezzanine from close to exit."""
    return {
        "chart_type": "stacked_bar",
        "title": "CloudSync debt paydown ($M)",
        "x_label": "",
        "y_label": "$M",
        "categories": ["Close", *[f"Year {y + 1}" for y in range(len(case.revenue))]],
        "series": [
            {
                "name": "Senior term loan",
                "values": [cell(case.senior0), *[cell(truth) for truth in case.senior_close]],
            },
            {
                "name": "Mezzanine notes (incl. PIK)",
                "values": [cell(case.junior0), *[cell(truth) for truth in case.junior_close]],
            },
        ],
    }


LBO_SKELETON: dict[str, Any] = {
    "assumptions": {},
    "sources_uses": {},
    "income_statement": {},
    "cash_flow": {},
    "debt_schedule": {},
    "returns": {},
    "sensitivity": {},
}


MEMO_SECTIONS = ("Investment thesis", "Transaction", "Returns", "Key risks", "Recommendation")


MEMO_SKELETON: dict[str, Any] = {
    "title": "CloudSync: Investment Committee Memo (Fund IV)",
    "sections": [{"title": t, "text": ""} for t in MEMO_SECTIONS],
}


def expected_outputs(sol: LboSolution) -> list[ExpectedOutput]:
    final, truth, deal = sol.final, sol.values, sol.inputs
    LAST = YEARS - 1
    cut_x, policy_x = mult(deal.senior_multiple_after_lender_call), mult(deal.exit_multiple_policy)
    hurdle = f"{deal.hurdle_irr_pct:.0f}%"
    corner_exit, corner_entry = deal.sensitivity_exits[0], deal.sensitivity_entries[-1]
    model: list[VerificationCriterion | str] = [
        criterion(
            "lbo_senior_multiple",
            f"Senior leverage follows the lender cut to {cut_x}",
            "numeric_equality",
            "/assumptions/senior_multiple/value",
            deal.senior_multiple_after_lender_call,
            0.0,
        ),
        criterion(
            "lbo_exit_multiple",
            f"Exit multiple is the {policy_x} fund policy (not raised to clear the hurdle)",
            "numeric_equality",
            "/assumptions/exit_multiple/value",
            deal.exit_multiple_policy,
            0.0,
        ),
        criterion(
            "lbo_senior_amount",
            "Senior term loan at close",
            "numeric_equality",
            "/sources_uses/senior_term_loan/amount",
            final.senior0,
        ),
        criterion(
            "lbo_equity",
            "Sponsor equity at close",
            "numeric_equality",
            "/sources_uses/sponsor_equity/amount",
            final.equity,
        ),
        criterion(
            "lbo_ev",
            "Purchase enterprise value",
            "numeric_equality",
            "/sources_uses/purchase_enterprise_value/amount",
            final.ev,
        ),
        criterion(
            "lbo_revenue_y1",
            "Year-1 revenue",
            "numeric_equality",
            "/income_statement/year1/revenue",
            final.revenue[0],
        ),
        criterion(
            "lbo_ebitda_y5",
            "Year-5 EBITDA",
            "numeric_equality",
            "/income_statement/year5/ebitda",
            final.exit_ebitda,
        ),
        criterion(
            "lbo_net_income_y1",
            f"Year-1 net income on the {cut_x} structure",
            "numeric_equality",
            "/income_statement/year1/net_income",
            final.net_income[0],
            2.0,
        ),
        criterion(
            "lbo_fcf_y1",
            "Year-1 free cash flow",
            "numeric_equality",
            "/cash_flow/year1/fcf",
            final.fcf[0],
            2.0,
        ),
        criterion(
            "lbo_junior_exit",
            "Mezzanine balance at exit incl. PIK",
            "numeric_equality",
            "/debt_schedule/year5/junior_closing",
            final.junior_close[LAST],
            1.0,
        ),
        criterion(
            "lbo_senior_exit",
            "Senior balance at exit",
            "numeric_range",
            "/debt_schedule/year5/senior_closing",
            [round(final.senior_close[LAST] - 1.5, 3), round(final.senior_close[LAST] + 1.5, 3)],
        ),
        criterion(
            "lbo_exit_equity",
            "Exit equity value",
            "numeric_equality",
            "/returns/base_case/exit_equity",
            final.exit_equity,
            1.0,
        ),
        criterion("lbo_moic", "Gross MOIC", "numeric_equality", "/returns/base_case/moic", final.moic, 1.0),
        criterion(
            "lbo_irr",
            "Gross IRR (percent)",
            "numeric_equality",
            "/returns/base_case/irr_pct",
            final.irr_pct,
            1.0,
        ),
        criterion(
            "lbo_breakeven_exit",
            f"Exit multiple that gives {hurdle}",
            "numeric_range",
            "/returns/breakeven/exit_multiple_for_hurdle",
            [round(sol.breakeven_exit - 0.05, 3), round(sol.breakeven_exit + 0.05, 3)],
        ),
        criterion(
            "lbo_max_entry",
            f"Entry multiple that gives {hurdle} at the {policy_x} exit",
            "numeric_range",
            "/returns/breakeven/max_entry_multiple_for_hurdle",
            [round(sol.max_entry - 0.05, 3), round(sol.max_entry + 0.05, 3)],
        ),
        criterion(
            "lbo_sens_base_cell",
            f"Sensitivity cell {policy_x} exit / {mult(deal.entry_multiple)} entry equals the base IRR",
            "numeric_equality",
            f"/sensitivity/{_sens_key(deal.exit_multiple_policy, 'exit', 'x')}/{_sens_key(deal.entry_multiple, 'entry', 'x')}",
            final.irr_pct,
            1.0,
        ),
        criterion(
            "lbo_sens_corner",
            f"Sensitivity cell {mult(corner_exit)} exit / {mult(corner_entry)} entry",
            "numeric_equality",
            f"/sensitivity/{_sens_key(corner_exit, 'exit', 'x')}/{_sens_key(corner_entry, 'entry', 'x')}",
            sol.sens_entry[corner_exit][corner_entry],
            2.0,
        ),
        criterion(
            "lbo_sens_rows",
            "Sensitivity has the five exit-multiple rows",
            "count_at_least",
            "/sensitivity",
            5,
        ),
        criterion(
            "lbo_is_rows",
            "Income statement has five projection years",
            "count_at_least",
            "/income_statement",
            5,
        ),
        criterion(
            "lbo_leverage_y3",
            "Total leverage end of year 3",
            "numeric_equality",
            "/debt_schedule/year3/total_leverage",
            truth["total_leverage_year3"],
            2.0,
        ),
        criterion(
            "lbo_downside_irr",
            "Downside case IRR",
            "numeric_equality",
            "/returns/downside_case/irr_pct",
            sol.downside.irr_pct,
            2.0,
        ),
    ]
    memo: list[VerificationCriterion | str] = [
        criterion("memo_sections", "All five memo sections", "count_at_least", "/sections", 5),
        criterion("memo_title", "Memo names the company", "contains", "/title", "CloudSync"),
        criterion(
            "memo_thesis_nrr",
            "Thesis cites net revenue retention",
            "contains",
            "/sections/0/text",
            f"{deal.nrr_pct:.0f}%",
        ),
        criterion(
            "memo_transaction_leverage",
            f"Transaction section on the {cut_x} senior structure",
            "contains",
            "/sections/1/text",
            cut_x,
        ),
        criterion(
            "memo_transaction_equity",
            f"Transaction section states the {usd_m(final.equity)} cheque",
            "contains",
            "/sections/1/text",
            f"{final.equity:.1f}",
        ),
        criterion(
            "memo_returns_irr",
            "Returns section states the IRR",
            "contains",
            "/sections/2/text",
            f"{final.irr_pct:.1f}",
        ),
        criterion(
            "memo_returns_moic",
            "Returns section states the MOIC",
            "contains",
            "/sections/2/text",
            f"{final.moic:.2f}x",
        ),
        criterion(
            "memo_risks_addbacks",
            "Risks cover the EBITDA add-backs",
            "contains",
            "/sections/3/text",
            "add-back",
        ),
        criterion("memo_risks_pik", "Risks cover the PIK mezzanine", "contains", "/sections/3/text", "PIK"),
        criterion(
            "memo_rec_price",
            "Recommendation names the bid ceiling",
            "contains",
            "/sections/4/text",
            mult(sol.max_entry),
        ),
        criterion(
            "memo_returns_no_fudge",
            f"Returns section does not use the {mult(deal.fudge_exit_multiple)} exit",
            "not_contains",
            "/sections/2/text",
            mult(deal.fudge_exit_multiple),
        ),
    ]
    chart: list[VerificationCriterion | str] = [
        criterion("chart_type", "Debt paydown as bars", "one_of", "/chart_type", ["stacked_bar", "bar"]),
        criterion("chart_categories", "Close plus five years", "count_at_least", "/categories", 6),
        criterion("chart_series", "Senior and mezzanine series", "count_at_least", "/series", 2),
        criterion(
            "chart_senior_close",
            f"Senior at close on the {cut_x} structure",
            "numeric_equality",
            "/series/0/values/0",
            final.senior0,
        ),
        criterion(
            "chart_senior_y3",
            "Senior end of year 3",
            "numeric_equality",
            "/series/0/values/3",
            final.senior_close[2],
            2.0,
        ),
        criterion(
            "chart_junior_exit",
            "Mezzanine at exit incl. PIK",
            "numeric_equality",
            "/series/1/values/5",
            final.junior_close[LAST],
            1.0,
        ),
    ]
    return [
        ExpectedOutput(
            output_type="spreadsheet",
            product_id="lbo_model",
            description="Five-year LBO model: assumptions, sources and uses, income statement, cash flow, debt "
            "schedule with credit statistics, returns with cases, and an exit x entry IRR sensitivity.",
            verification_criteria=[
                *model,
                "Each sheet's figures follow from the assumptions tab without hard-coded plugs.",
            ],
        ),
        ExpectedOutput(
            output_type="document",
            product_id="ic_memo",
            description="Investment-committee memo: thesis, transaction, returns, risks, recommendation.",
            verification_criteria=[
                *memo,
                "The recommendation is conditional on price and consistent with the model.",
            ],
        ),
        ExpectedOutput(
            output_type="chart",
            product_id="debt_paydown",
            description="Stacked bar chart of senior and accreted mezzanine balances from close to exit.",
            verification_criteria=chart,
        ),
    ]
