"""CloudSync LBO solver: the five-year model (debt schedule with sweep, PIK mezzanine, exit returns, IRR by
root-finding), the sensitivities and what-ifs and the ground truth (``instances`` draws the deals whose solved
story holds)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.optimize import brentq

from .data import (
    YEARS,
    DealInputs,
    DealTerms,
    LboData,
    OperatingCase,
)

logger = logging.getLogger(__name__)


# --------------------------------------------------------------------------- the model


@dataclass
class CaseResult:
    """One run of the LBO: year-by-year lines (index 0 = year 1) and the returns."""

    ev: float
    senior0: float
    junior0: float
    equity: float
    revenue: list[float] = field(default_factory=list)
    ebitda: list[float] = field(default_factory=list)
    da: list[float] = field(default_factory=list)
    ebit: list[float] = field(default_factory=list)
    senior_interest: list[float] = field(default_factory=list)
    junior_pik: list[float] = field(default_factory=list)
    pretax: list[float] = field(default_factory=list)
    taxes: list[float] = field(default_factory=list)
    net_income: list[float] = field(default_factory=list)
    capex: list[float] = field(default_factory=list)
    change_nwc: list[float] = field(default_factory=list)
    fcf: list[float] = field(default_factory=list)
    senior_open: list[float] = field(default_factory=list)
    mandatory: list[float] = field(default_factory=list)
    sweep: list[float] = field(default_factory=list)
    senior_close: list[float] = field(default_factory=list)
    junior_open: list[float] = field(default_factory=list)
    junior_close: list[float] = field(default_factory=list)
    cash: list[float] = field(default_factory=list)
    exit_ebitda: float = 0.0
    exit_ev: float = 0.0
    exit_equity: float = 0.0
    moic: float = 0.0
    irr_pct: float = 0.0

    def total_debt(self, i: int) -> float:
        """Senior plus accreted mezzanine at the end of year ``i + 1``."""
        return self.senior_close[i] + self.junior_close[i]

    def net_debt(self, i: int) -> float:
        """Total debt less cash at the end of year ``i + 1``."""
        return self.total_debt(i) - self.cash[i]


def irr_pct(flows: list[float]) -> float:
    """IRR of annual cash flows (t = 0, 1, ...) by Brent's root-finding on NPV, in percent."""

    def npv(r: float) -> float:
        return sum(cf / (1.0 + r) ** t for t, cf in enumerate(flows))

    return float(brentq(npv, -0.99, 10.0, xtol=1e-12)) * 100.0


def run_case(operating: OperatingCase, terms: DealTerms) -> CaseResult:
    """The five-year LBO: interest on opening balances, mandatory amortisation, then the sweep."""
    ev = terms.entry_multiple * operating.ltm_ebitda
    senior0 = terms.senior_multiple * operating.ltm_ebitda
    junior0 = terms.junior_multiple * operating.ltm_ebitda
    result = CaseResult(ev=ev, senior0=senior0, junior0=junior0, equity=ev - senior0 - junior0)
    senior, junior, cash, prev_rev = senior0, junior0, 0.0, operating.ltm_revenue
    for year in range(terms.exit_year):
        rev = prev_rev * (1 + operating.growth_pct[year] / 100.0)
        ebitda = rev * operating.margin_pct[year] / 100.0
        da = rev * operating.da_pct / 100.0
        ebit = ebitda - da
        s_int = senior * terms.senior_rate_pct / 100.0
        pik = junior * terms.junior_pik_pct / 100.0
        pretax = ebit - s_int - pik
        taxable = pretax if terms.pik_deductible else pretax + pik
        taxes = max(taxable, 0.0) * operating.tax_pct / 100.0
        ni = pretax - taxes
        capex = rev * operating.capex_pct / 100.0
        d_nwc = (rev - prev_rev) * operating.nwc_pct / 100.0
        fcf = ni + da + pik - capex - d_nwc
        mandatory = min(senior0 * terms.senior_amort_pct / 100.0, senior)
        sweep = min(max(fcf - mandatory, 0.0) * terms.sweep_pct / 100.0, senior - mandatory)
        result.senior_open.append(senior)
        result.junior_open.append(junior)
        senior -= mandatory + sweep
        junior += pik
        cash += fcf - mandatory - sweep
        for name, v in (
            ("revenue", rev),
            ("ebitda", ebitda),
            ("da", da),
            ("ebit", ebit),
            ("senior_interest", s_int),
            ("junior_pik", pik),
            ("pretax", pretax),
            ("taxes", taxes),
            ("net_income", ni),
            ("capex", capex),
            ("change_nwc", d_nwc),
            ("fcf", fcf),
            ("mandatory", mandatory),
            ("sweep", sweep),
            ("senior_close", senior),
            ("junior_close", junior),
            ("cash", cash),
        ):
            getattr(result, name).append(v)
        prev_rev = rev
    last = terms.exit_year - 1
    result.exit_ebitda = result.ebitda[last]
    result.exit_ev = terms.exit_multiple * result.exit_ebitda
    result.exit_equity = result.exit_ev - result.net_debt(last)
    result.moic = result.exit_equity / result.equity
    result.irr_pct = irr_pct([-result.equity, *[0.0] * (terms.exit_year - 1), result.exit_equity])
    return result


@dataclass
class LboSolution:
    """Every derived value the meeting quotes."""

    inputs: DealInputs
    initial: CaseResult  # 4.5x senior, exit at the fund-policy multiple (the model before the lender call)
    final: CaseResult  # 4.0x senior after the lender call: the case that goes to IC
    initial_terms: DealTerms
    final_terms: DealTerms
    exit_ev_first_said: float
    comps_multiples: list[float]
    comps_median: float
    reported_ebitda: float
    addbacks: float
    sens_entry: dict[float, dict[float, float]]  # exit -> entry -> IRR %
    sens_growth: dict[float, dict[float, float]]  # exit -> growth -> IRR %
    breakeven_exit: float
    max_entry: float
    management: CaseResult
    year4_exit: CaseResult
    rate_shock: CaseResult
    pik_non_deductible: CaseResult
    downside: CaseResult
    fudge: CaseResult
    recap_capacity: float
    values: dict[str, float] = field(default_factory=dict)


def breakeven_exit_for(op: OperatingCase, terms: DealTerms, hurdle_irr_pct: float) -> float:
    """The exit multiple at which ``terms`` return exactly the hurdle IRR."""

    def gap_exit(m: float) -> float:
        return run_case(op, replace(terms, exit_multiple=m)).irr_pct - hurdle_irr_pct

    return float(brentq(gap_exit, 5.0, 25.0, xtol=1e-10))


def max_entry_for(op: OperatingCase, terms: DealTerms, hurdle_irr_pct: float) -> float:
    """The entry multiple at which ``terms`` return exactly the hurdle IRR."""

    def gap_entry(m: float) -> float:
        return run_case(op, replace(terms, entry_multiple=m)).irr_pct - hurdle_irr_pct

    # Below total leverage + 1x the equity cheque vanishes and the IRR with it.
    lowest_entry = max(7.0, terms.senior_multiple + terms.junior_multiple + 1.0)
    return float(brentq(gap_entry, lowest_entry, 20.0, xtol=1e-10))


def _with_growth(op: OperatingCase, growth_pct: float) -> OperatingCase:
    return replace(op, growth_pct=(growth_pct,) * len(op.growth_pct))


def solve(data: LboData) -> LboSolution:
    """Run the model for both capital structures, the sensitivities and the what-ifs."""
    deal, operating = data.inputs, data.operating
    initial_terms = replace(data.terms, exit_multiple=deal.exit_multiple_policy)
    final_terms = replace(initial_terms, senior_multiple=deal.senior_multiple_after_lender_call)
    initial = run_case(operating, initial_terms)
    final = run_case(operating, final_terms)
    multiples = [c.ev / c.ltm_ebitda for c in data.comps]
    reported = round(sum(q[3] for q in data.quarters), 1)

    sens_entry = {
        ex: {
            en: run_case(operating, replace(final_terms, entry_multiple=en, exit_multiple=ex)).irr_pct
            for en in deal.sensitivity_entries
        }
        for ex in deal.sensitivity_exits
    }
    sens_growth = {
        ex: {
            g: run_case(_with_growth(operating, g), replace(final_terms, exit_multiple=ex)).irr_pct
            for g in deal.sensitivity_growths
        }
        for ex in deal.sensitivity_exits
    }

    breakeven_exit = breakeven_exit_for(operating, final_terms, deal.hurdle_irr_pct)
    max_entry = max_entry_for(operating, final_terms, deal.hurdle_irr_pct)
    management = run_case(replace(operating, margin_pct=deal.management_margins_pct), final_terms)
    year4 = run_case(operating, replace(final_terms, exit_year=4))
    shock = run_case(
        operating,
        replace(final_terms, senior_rate_pct=final_terms.senior_rate_pct + deal.rate_shock_bps / 100.0),
    )
    no_pik_shield = run_case(operating, replace(final_terms, pik_deductible=False))
    downside = run_case(
        _with_growth(operating, deal.downside_growth_pct),
        replace(final_terms, exit_multiple=deal.downside_exit_multiple),
    )
    fudge = run_case(operating, replace(final_terms, exit_multiple=deal.fudge_exit_multiple))
    recap = deal.recap_leverage * final.ebitda[2] - final.net_debt(2)
    sol = LboSolution(
        inputs=deal,
        initial=initial,
        final=final,
        initial_terms=initial_terms,
        final_terms=final_terms,
        exit_ev_first_said=deal.exit_multiple_first_said * final.exit_ebitda,
        comps_multiples=multiples,
        comps_median=float(np.median(multiples)),
        reported_ebitda=reported,
        addbacks=round(operating.ltm_ebitda - reported, 1),
        sens_entry=sens_entry,
        sens_growth=sens_growth,
        breakeven_exit=breakeven_exit,
        max_entry=max_entry,
        management=management,
        year4_exit=year4,
        rate_shock=shock,
        pik_non_deductible=no_pik_shield,
        downside=downside,
        fudge=fudge,
        recap_capacity=recap,
    )
    sol.values = _ground_truth(sol, data)
    return sol


def _ground_truth(sol: LboSolution, data: LboData) -> dict[str, float]:
    final, initial, deal = sol.final, sol.initial, sol.inputs
    operating = data.operating
    truth: dict[str, float] = {
        "enterprise_value": final.ev,
        "ltm_ebitda_margin_pct": operating.ltm_ebitda / operating.ltm_revenue * 100.0,
        "revenue_per_customer_k": operating.ltm_revenue / deal.customers * 1000.0,
        "initial_senior_debt": initial.senior0,
        "initial_sponsor_equity": initial.equity,
        "initial_equity_pct_of_ev": initial.equity / initial.ev * 100.0,
        "junior_debt": final.junior0,
        "senior_debt": final.senior0,
        "sponsor_equity": final.equity,
        "equity_pct_of_ev": final.equity / final.ev * 100.0,
        "total_leverage_at_close": (final.senior0 + final.junior0) / operating.ltm_ebitda,
        "forward_ebitda_ev_claimed": deal.entry_multiple * initial.ebitda[0],
        "forward_claim_implied_ltm_multiple": deal.entry_multiple * initial.ebitda[0] / operating.ltm_ebitda,
        "hurdle_implied_moic": (1 + deal.hurdle_irr_pct / 100.0) ** YEARS,
        "hurdle_exit_equity_initial": initial.equity * (1 + deal.hurdle_irr_pct / 100.0) ** YEARS,
        "comps_median_multiple": sol.comps_median,
        "comps_min_multiple": min(sol.comps_multiples),
        "comps_max_multiple": max(sol.comps_multiples),
        "exit_ev_at_first_said_multiple": sol.exit_ev_first_said,
        "reported_ltm_ebitda": sol.reported_ebitda,
        "ebitda_addbacks": sol.addbacks,
        "addbacks_pct_of_adjusted": sol.addbacks / operating.ltm_ebitda * 100.0,
        "entry_multiple_on_reported": final.ev / sol.reported_ebitda,
        "initial_leverage_on_reported": (initial.senior0 + initial.junior0) / sol.reported_ebitda,
        "rule_of_40": operating.growth_pct[0] + operating.margin_pct[0],
        "initial_coverage_year1": initial.ebitda[0] / initial.senior_interest[0],
        "coverage_year1": final.ebitda[0] / final.senior_interest[0],
        "initial_irr_pct": initial.irr_pct,
        "initial_moic": initial.moic,
        "initial_exit_equity": initial.exit_equity,
        "irr_pct": final.irr_pct,
        "moic": final.moic,
        "exit_equity": final.exit_equity,
        "exit_ev": final.exit_ev,
        "exit_ebitda": final.exit_ebitda,
        "irr_gap_to_hurdle_bps": (deal.hurdle_irr_pct - final.irr_pct) * 100.0,
        "breakeven_exit_multiple": sol.breakeven_exit,
        "max_entry_multiple": sol.max_entry,
        "max_entry_price": sol.max_entry * operating.ltm_ebitda,
        "fudge_irr_pct": sol.fudge.irr_pct,
        "management_case_irr_pct": sol.management.irr_pct,
        "management_case_moic": sol.management.moic,
        "year4_exit_irr_pct": sol.year4_exit.irr_pct,
        "year4_exit_moic": sol.year4_exit.moic,
        "equity_value_per_exit_turn": final.exit_ebitda,
        "moic_per_exit_turn": final.exit_ebitda / final.equity,
        "bridge_ebitda_growth": (final.exit_ebitda - operating.ltm_ebitda) * deal.entry_multiple,
        "bridge_multiple_change": (deal.exit_multiple_policy - deal.entry_multiple) * final.exit_ebitda,
        "bridge_deleveraging": (final.senior0 + final.junior0) - final.net_debt(YEARS - 1),
        "bridge_total": final.exit_equity - final.equity,
        "rate_shock_irr_pct": sol.rate_shock.irr_pct,
        "pik_non_deductible_irr_pct": sol.pik_non_deductible.irr_pct,
        "downside_irr_pct": sol.downside.irr_pct,
        "downside_moic": sol.downside.moic,
        "recap_capacity_year3": sol.recap_capacity,
        "cumulative_fcf": sum(final.fcf),
        "cumulative_senior_repaid": final.senior0 - final.senior_close[-1],
        "cash_at_exit": final.cash[-1],
        "senior_paid_down_pct": (final.senior0 - final.senior_close[-1]) / final.senior0 * 100.0,
        "initial_senior_at_exit": initial.senior_close[-1],
        "mezz_share_of_debt_at_exit_pct": final.junior_close[-1] / final.total_debt(YEARS - 1) * 100.0,
        "initial_junior_at_exit": initial.junior_close[-1],
        "sensitivity_cells_clearing_hurdle": float(
            sum(1 for row in sol.sens_entry.values() for v in row.values() if v >= deal.hurdle_irr_pct)
        ),
    }
    for year in range(YEARS):
        number = year + 1
        truth[f"revenue_year{number}"] = final.revenue[year]
        truth[f"ebitda_year{number}"] = final.ebitda[year]
        truth[f"fcf_year{number}"] = final.fcf[year]
        truth[f"senior_closing_year{number}"] = final.senior_close[year]
        truth[f"junior_closing_year{number}"] = final.junior_close[year]
        truth[f"total_leverage_year{number}"] = final.total_debt(year) / final.ebitda[year]
        truth[f"initial_fcf_year{number}"] = initial.fcf[year]
        truth[f"initial_sweep_year{number}"] = initial.sweep[year]
    truth["initial_senior_interest_year1"] = initial.senior_interest[0]
    truth["initial_junior_pik_year1"] = initial.junior_pik[0]
    truth["initial_mandatory_amortisation"] = initial.mandatory[0]
    truth["taxes_year1"] = final.taxes[0]
    truth["first_year_leverage_below_4x"] = float(
        next(
            (
                year + 1
                for year in range(YEARS)
                if final.total_debt(year) / final.ebitda[year] < deal.leverage_watch
            ),
            0,
        )
    )
    truth["first_year_mezz_exceeds_senior"] = float(
        next((year + 1 for year in range(YEARS) if final.junior_close[year] > final.senior_close[year]), 0)
    )
    return truth
