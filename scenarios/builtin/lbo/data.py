"""CloudSync LBO data: the deal inputs, their random draws, and the three files the VP pushes (written and read)."""

from __future__ import annotations

import csv
import io
import logging
from dataclasses import dataclass

import numpy as np

from modylbench.scenarios._kit import identity

logger = logging.getLogger(__name__)

IDENTITY = identity(__package__)
"""What this scenario is (its identity.toml): the registry, the tests and the benchmarks read the same."""
SCENARIO_ID = IDENTITY.scenario_id


SEED = 20260311  # the data seed of the committed instance (quarterly split and precedent deals)


YEARS = 5

FINANCIALS_FILE = "cloudsync_financials.csv"


TERM_SHEET_FILE = "cloudsync_term_sheet.csv"


QUARTERLY_FILE = "cloudsync_quarterly_ltm.csv"


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class DealInputs:
    """The raw figures a deal team brings to the room (the "data"); everything derived is solved.

    The defaults are the committed instance (``build(0)``); ``draw_inputs(seed)`` draws fresh ones.
    """

    data_seed: int = SEED
    # The sponsor's operating case (cloudsync_financials.csv).
    ltm_revenue: float = 50.0
    ltm_ebitda: float = 15.0
    revenue_growth_pct: float = 15.0
    ebitda_margin_pct: float = 30.0
    da_pct_revenue: float = 3.0
    capex_pct_revenue: float = 6.0
    nwc_pct_incremental_revenue: float = 10.0
    tax_rate_pct: float = 25.0
    # Price and the stapled financing (cloudsync_term_sheet.csv).
    entry_multiple: float = 12.0
    senior_multiple: float = 4.5
    senior_rate_pct: float = 9.0
    sofr_pct: float = 4.25
    senior_amort_pct: float = 5.0
    cash_sweep_pct: float = 100.0
    junior_multiple: float = 2.0
    junior_pik_rate_pct: float = 13.0
    # Said in the meeting, not in the files: the exit the VP first names, the fund policy she corrects
    # it to (one turn off entries at the threshold or above), the senior cap from the lender call, and
    # the fund's hurdles and checklist.
    exit_multiple_first_said: float = 12.0
    compression_threshold: float = 12.0
    exit_multiple_policy: float = 11.0
    senior_multiple_after_lender_call: float = 4.0
    fudge_exit_multiple: float = 11.5
    hurdle_irr_pct: float = 25.0
    hurdle_moic: float = 2.5
    max_total_leverage: float = 6.5
    min_equity_pct: float = 40.0
    min_coverage: float = 2.5
    leverage_watch: float = 4.0  # the total leverage lenders ask about
    # The CIM and management's case.
    management_margins_pct: tuple[float, ...] = (31.0, 32.0, 33.0, 34.0, 35.0)
    customers: int = 1400
    nrr_pct: float = 112.0
    gross_margin_pct: float = 78.0
    recurring_pct: float = 96.0
    quarterly_growth: float = 1.035
    one_offs: tuple[float, float] = (0.5, 0.7)  # Q2 severance, Q3 ERP migration ($M)
    # What-ifs the room asks for.
    downside_growth_pct: float = 10.0
    downside_exit_multiple: float = 10.0
    rate_shock_bps: float = 100.0
    recap_leverage: float = 5.5
    sensitivity_exits: tuple[float, ...] = (9.0, 10.0, 11.0, 12.0, 13.0)
    sensitivity_entries: tuple[float, ...] = (11.0, 12.0, 13.0)
    sensitivity_growths: tuple[float, ...] = (10.0, 12.5, 15.0, 17.5, 20.0)

    @property
    def growth_ic_wont_ask(self) -> float:
        """The growth rate the VP says IC won't ask about (a notch above the growth columns' middle)."""
        return self.revenue_growth_pct + 3.0


BASE_INPUTS = DealInputs()


def pick(rng: np.random.Generator, options: list[float]) -> float:
    return float(options[int(rng.integers(len(options)))])


def steps(lo: float, hi: float, step: float) -> list[float]:
    return [round(lo + k * step, 4) for k in range(int(round((hi - lo) / step)) + 1)]


def draw_candidate(rng: np.random.Generator) -> DealInputs:
    """One draw of fresh inputs; the fund's hurdles are set later, once the model says the story holds."""
    margin = pick(rng, steps(26.0, 34.0, 1.0))
    # LTM EBITDA = revenue x margin must be a one-decimal figure, so that the LTM margin equals the held margin.
    revenues = [r for r in steps(40.0, 62.0, 0.1) if round(r * 10) * int(margin) % 100 == 0]
    revenue = pick(rng, revenues)
    growth = pick(rng, steps(12.0, 18.0, 1.0))
    entry = pick(rng, steps(10.5, 13.5, 0.5))
    senior = pick(rng, steps(3.5, 5.5, 0.5))
    cut = pick(rng, [0.5, 1.0])
    junior = pick(rng, steps(1.5, 2.5, 0.5))
    policy = entry - 1.0
    return DealInputs(
        data_seed=int(rng.integers(1_000_000, 100_000_000)),
        ltm_revenue=revenue,
        ltm_ebitda=round(revenue * margin / 100.0, 1),
        revenue_growth_pct=growth,
        ebitda_margin_pct=margin,
        da_pct_revenue=pick(rng, steps(2.0, 4.0, 0.5)),
        capex_pct_revenue=pick(rng, steps(4.5, 7.5, 0.5)),
        nwc_pct_incremental_revenue=pick(rng, steps(7.0, 13.0, 1.0)),
        tax_rate_pct=pick(rng, steps(21.0, 28.0, 1.0)),
        entry_multiple=entry,
        senior_multiple=senior,
        senior_rate_pct=pick(rng, steps(7.5, 10.5, 0.5)),
        senior_amort_pct=pick(rng, steps(3.0, 7.0, 1.0)),
        junior_multiple=junior,
        junior_pik_rate_pct=pick(rng, steps(11.0, 15.0, 0.5)),
        exit_multiple_first_said=entry,
        compression_threshold=entry,
        exit_multiple_policy=policy,
        senior_multiple_after_lender_call=senior - cut,
        fudge_exit_multiple=policy + 0.5,
        max_total_leverage=senior + junior,
        min_equity_pct=pick(rng, [35.0, 40.0]),
        min_coverage=pick(rng, [2.0, 2.5]),
        management_margins_pct=tuple(margin + k for k in range(1, YEARS + 1)),
        customers=int(pick(rng, steps(1100.0, 1900.0, 100.0))),
        nrr_pct=pick(rng, steps(104.0, 120.0, 1.0)),
        gross_margin_pct=pick(rng, steps(70.0, 84.0, 1.0)),
        recurring_pct=pick(rng, steps(90.0, 98.0, 1.0)),
        quarterly_growth=round((1 + growth / 100.0) ** 0.25, 3),
        one_offs=(round(float(rng.uniform(0.3, 0.8)), 1), round(float(rng.uniform(0.4, 1.0)), 1)),
        downside_growth_pct=growth - 5.0,
        downside_exit_multiple=policy - 1.0,
        rate_shock_bps=pick(rng, [50.0, 75.0, 100.0, 125.0, 150.0]),
        recap_leverage=pick(rng, [5.0, 5.5, 6.0]),
        sensitivity_exits=tuple(entry + k for k in (-3.0, -2.0, -1.0, 0.0, 1.0)),
        sensitivity_entries=tuple(entry + k for k in (-1.0, 0.0, 1.0)),
        sensitivity_growths=tuple(growth + k for k in (-5.0, -2.5, 0.0, 2.5, 5.0)),
    )


@dataclass(frozen=True)
class OperatingCase:
    """The sponsor's operating case: LTM actuals and per-year drivers (percent units)."""

    ltm_revenue: float
    ltm_ebitda: float
    growth_pct: tuple[float, ...]
    margin_pct: tuple[float, ...]
    da_pct: float
    capex_pct: float
    nwc_pct: float
    tax_pct: float


@dataclass(frozen=True)
class DealTerms:
    """Price, capital structure and exit: multiples of LTM EBITDA, rates in percent."""

    entry_multiple: float
    senior_multiple: float
    senior_rate_pct: float
    senior_amort_pct: float
    sweep_pct: float
    junior_multiple: float
    junior_pik_pct: float
    exit_multiple: float
    exit_year: int = YEARS
    pik_deductible: bool = True


def operating_case(deal: DealInputs) -> OperatingCase:
    return OperatingCase(
        ltm_revenue=deal.ltm_revenue,
        ltm_ebitda=deal.ltm_ebitda,
        growth_pct=(deal.revenue_growth_pct,) * YEARS,
        margin_pct=(deal.ebitda_margin_pct,) * YEARS,
        da_pct=deal.da_pct_revenue,
        capex_pct=deal.capex_pct_revenue,
        nwc_pct=deal.nwc_pct_incremental_revenue,
        tax_pct=deal.tax_rate_pct,
    )


def deal_terms(deal: DealInputs, senior_multiple: float, exit_multiple: float) -> DealTerms:
    return DealTerms(
        entry_multiple=deal.entry_multiple,
        senior_multiple=senior_multiple,
        senior_rate_pct=deal.senior_rate_pct,
        senior_amort_pct=deal.senior_amort_pct,
        sweep_pct=deal.cash_sweep_pct,
        junior_multiple=deal.junior_multiple,
        junior_pik_pct=deal.junior_pik_rate_pct,
        exit_multiple=exit_multiple,
    )


@dataclass(frozen=True)
class Comp:
    """A precedent SaaS take-private the bankers list (EV and LTM EBITDA in $M)."""

    target: str
    acquirer: str
    year: int
    ev: float
    ltm_ebitda: float
    growth_pct: float


@dataclass(frozen=True)
class LboData:
    """Everything the meeting's numbers come from."""

    inputs: DealInputs
    operating: OperatingCase
    terms: DealTerms
    quarters: list[tuple[str, float, float, float]]  # (quarter, revenue, gross profit, reported EBITDA)
    ltm_row: tuple[float, float, float]  # the file's LTM line: revenue, gross profit, EBITDA
    comps: list[Comp]


def generate_data(inputs: DealInputs = BASE_INPUTS) -> LboData:
    """The deal inputs; quarterly split and precedent deals drawn from ``inputs.data_seed``."""
    deal = inputs
    rng = np.random.default_rng(deal.data_seed)
    operating = operating_case(deal)
    terms = deal_terms(deal, deal.senior_multiple, deal.exit_multiple_first_said)
    # Quarterly revenue grows ~3.5% q/q with noise; the four quarters must add to the LTM revenue.
    q_growth = deal.quarterly_growth + rng.normal(0.0, 0.006, size=4)
    raw = np.cumprod(q_growth)
    rev = _split_to_total(raw / raw.sum() * deal.ltm_revenue, deal.ltm_revenue)
    gp = _split_to_total(
        np.array(rev) * deal.gross_margin_pct / 100.0,
        round(deal.ltm_revenue * deal.gross_margin_pct / 100.0, 1),
    )
    # Reported EBITDA carries the one-offs (Q2 severance, Q3 ERP migration) that the CIM adds back;
    # the file's LTM line nevertheless shows the adjusted figure: that is the inconsistency.
    one_offs = np.array([0.0, *deal.one_offs, 0.0])
    margin_noise = rng.normal(0.0, 0.004, size=4)
    reported = np.array(rev) * (deal.ebitda_margin_pct / 100.0 + margin_noise) - one_offs
    reported_total = round(deal.ltm_ebitda - float(one_offs.sum()), 1)
    rep = _split_to_total(reported, reported_total)
    quarters = [(f"Q{i + 1} FY25", rev[i], gp[i], rep[i]) for i in range(4)]
    names = [
        ("Syncrova", "Northgate Partners"),
        ("Ledgerline", "Alder Peak Capital"),
        ("Vaultwise", "Crestmoor Equity"),
        ("Filament Cloud", "Brightwater PE"),
        ("DocuNest", "Summit Ridge Capital"),
        ("Boxlight Software", "Keel Harbor Partners"),
    ]
    comps = []
    for i, (target, acquirer) in enumerate(names):
        # Precedents sit around the banker's guidance, skewed above it.
        multiple = float(rng.uniform(deal.entry_multiple - 1.5, deal.entry_multiple + 3.5))
        ebitda = round(float(rng.uniform(8.0, 40.0)), 1)
        comps.append(
            Comp(
                target=target,
                acquirer=acquirer,
                year=2022 + i % 4,
                ev=round(multiple * ebitda, 0),
                ltm_ebitda=ebitda,
                growth_pct=round(float(rng.uniform(8.0, 24.0)), 0),
            )
        )
    ltm_row = (deal.ltm_revenue, round(deal.ltm_revenue * deal.gross_margin_pct / 100.0, 1), deal.ltm_ebitda)
    return LboData(
        inputs=deal, operating=operating, terms=terms, quarters=quarters, ltm_row=ltm_row, comps=comps
    )


def _split_to_total(parts: np.ndarray, total: float) -> list[float]:
    """Round to 0.1 and push the rounding residue into the last part so the parts add to ``total``."""
    out = [round(float(p), 1) for p in parts]
    out[-1] = round(total - sum(out[:-1]), 1)
    return out


# --------------------------------------------------------------------------- data files


def financials_csv(operating: OperatingCase) -> str:
    """The operating case as an analyst's wide table: line items by year."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["line_item", "unit", "LTM", *[f"year{i}" for i in range(1, YEARS + 1)]])
    writer.writerow(["revenue", "$M", f"{operating.ltm_revenue:.1f}", *[""] * YEARS])
    writer.writerow(["adjusted_ebitda", "$M", f"{operating.ltm_ebitda:.1f}", *[""] * YEARS])
    writer.writerow(["revenue_growth", "%", "", *[f"{g:.1f}" for g in operating.growth_pct]])
    writer.writerow(
        [
            "ebitda_margin",
            "%",
            f"{operating.ltm_ebitda / operating.ltm_revenue * 100:.1f}",
            *[f"{m:.1f}" for m in operating.margin_pct],
        ]
    )
    writer.writerow(["d_and_a", "% of revenue", "", *[f"{operating.da_pct:.1f}"] * YEARS])
    writer.writerow(
        ["capex_incl_capitalised_software", "% of revenue", "", *[f"{operating.capex_pct:.1f}"] * YEARS]
    )
    writer.writerow(
        ["net_working_capital_investment", "% of revenue increase", "", *[f"{operating.nwc_pct:.1f}"] * YEARS]
    )
    writer.writerow(["cash_tax_rate", "% of pre-tax income", "", *[f"{operating.tax_pct:.1f}"] * YEARS])
    return buf.getvalue()


def term_sheet_csv(terms: DealTerms, sofr_pct: float) -> str:
    """The lenders' stapled financing package and the price, one term a line."""
    spread_bps = (terms.senior_rate_pct - sofr_pct) * 100.0
    rows = [
        (
            "purchase_multiple",
            f"{terms.entry_multiple:.1f}",
            "x LTM adjusted EBITDA",
            "cash-free, debt-free; fees out of scope",
        ),
        ("senior_term_loan", f"{terms.senior_multiple:.1f}", "x LTM adjusted EBITDA", "first lien"),
        (
            "senior_interest_rate",
            f"{terms.senior_rate_pct:.1f}",
            "% cash, all-in",
            f"SOFR + {spread_bps:.0f} bps, floor ignored",
        ),
        (
            "senior_amortisation",
            f"{terms.senior_amort_pct:.1f}",
            "% of original principal per year",
            "mandatory",
        ),
        (
            "senior_excess_cash_flow_sweep",
            f"{terms.sweep_pct:.0f}",
            "% of excess cash flow",
            "after mandatory amortisation",
        ),
        (
            "mezzanine_notes",
            f"{terms.junior_multiple:.1f}",
            "x LTM adjusted EBITDA",
            "unsecured, subordinated",
        ),
        (
            "mezzanine_interest_rate",
            f"{terms.junior_pik_pct:.1f}",
            "% PIK, compounding annually",
            "no cash interest",
        ),
        ("mezzanine_repayment", "bullet", "", "principal plus accrued PIK repaid at exit"),
        ("interest_basis", "opening balance", "", "avoids a circular reference with the sweep"),
        ("minimum_cash", "0.0", "$M", "all excess cash sweeps to senior"),
    ]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["term", "value", "unit", "note"])
    writer.writerows(rows)
    return buf.getvalue()


def quarterly_csv(data: LboData) -> str:
    """Management's quarterly LTM build; its LTM line does not equal the sum of the quarters for EBITDA."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["period", "revenue_usd_m", "gross_profit_usd_m", "ebitda_usd_m"])
    for quarter, rev, gp, ebitda in data.quarters:
        writer.writerow([quarter, f"{rev:.1f}", f"{gp:.1f}", f"{ebitda:.1f}"])
    revenue, gross_profit, ebitda_ltm = data.ltm_row
    writer.writerow(["LTM", f"{revenue:.1f}", f"{gross_profit:.1f}", f"{ebitda_ltm:.1f}"])
    return buf.getvalue()


def parse_financials(text: str) -> OperatingCase:
    """Read ``cloudsync_financials.csv`` back into an operating case."""
    rows = {r["line_item"]: r for r in csv.DictReader(io.StringIO(text))}
    years = [f"year{i}" for i in range(1, YEARS + 1)]
    return OperatingCase(
        ltm_revenue=float(rows["revenue"]["LTM"]),
        ltm_ebitda=float(rows["adjusted_ebitda"]["LTM"]),
        growth_pct=tuple(float(rows["revenue_growth"][y]) for y in years),
        margin_pct=tuple(float(rows["ebitda_margin"][y]) for y in years),
        da_pct=float(rows["d_and_a"]["year1"]),
        capex_pct=float(rows["capex_incl_capitalised_software"]["year1"]),
        nwc_pct=float(rows["net_working_capital_investment"]["year1"]),
        tax_pct=float(rows["cash_tax_rate"]["year1"]),
    )


def parse_term_sheet(text: str, exit_multiple: float) -> DealTerms:
    """Read ``cloudsync_term_sheet.csv``; the exit multiple is fund policy, not a financing term."""
    value = {r["term"]: r["value"] for r in csv.DictReader(io.StringIO(text))}
    return DealTerms(
        entry_multiple=float(value["purchase_multiple"]),
        senior_multiple=float(value["senior_term_loan"]),
        senior_rate_pct=float(value["senior_interest_rate"]),
        senior_amort_pct=float(value["senior_amortisation"]),
        sweep_pct=float(value["senior_excess_cash_flow_sweep"]),
        junior_multiple=float(value["mezzanine_notes"]),
        junior_pik_pct=float(value["mezzanine_interest_rate"]),
        exit_multiple=exit_multiple,
    )
