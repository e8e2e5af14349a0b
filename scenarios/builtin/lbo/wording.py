"""How the CloudSync meeting says its figures: money, percentages and multiples as written and as spoken,
and ``Said``, the deal's figures written once for the whole script."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from modylbench.scenarios._kit import fewest_decimals, money, pct
from modylbench.scenarios._spoken import say_number

from .data import YEARS, DealInputs
from .solver import LboSolution

logger = logging.getLogger(__name__)


def usd_m(v: float) -> str:
    """Money in $M as said in the room, to the fewest decimals that keep it: $57.5M, $6.075M."""
    return money(v, "M", None)


def pct_fewest(v: float) -> str:
    """A percentage already in percent units, to the fewest decimals that keep it: 24.6%."""
    return pct(v, None)


def mult(v: float, min_dp: int = 1) -> str:
    """A multiple: 12.0x, 3.00x (MOIC is said to two decimals)."""
    return fewest_decimals(v, "x", min_dp=min_dp)


def spoken_usd(v: float) -> str:
    """Money as the persona says it: '17.25 million', '207 million'."""
    return f"{v:,.2f}".rstrip("0").rstrip(".") + " million"


def spoken_pct(v: float) -> str:
    """A percentage as the persona says it: '24.6 percent'."""
    return f"{v:.1f} percent"


def words(v: float) -> str:
    """A figure as the persona says it: 12 'twelve', 4.5 'four and a half', 14.4 'fourteen point four',
    1,700 'seventeen hundred'."""
    return say_number(v, hundreds="always")


def spoken_nrr(v: float) -> str:
    """Net retention the way deal people say it: 112% 'one-twelve', 105% 'one-oh-five'."""
    rest = int(v) - 100
    return f"one-{words(rest)}" if rest >= 10 else f"one-oh-{words(rest)}"


def article(figure: str) -> str:
    """The article a spoken figure takes: 'an 11.9x', 'an $82.5M', 'a 12.0x'."""
    whole = figure.lstrip("$").split(".")[0].replace(",", "")
    vowel = whole in ("8", "11", "18") or (whole.startswith("8") and len(whole) in (2, 3))
    return "an" if vowel else "a"


def versus_median(entry: float, median: float) -> str:
    """Where the banker's multiple sits against the precedents' median."""
    if abs(entry - median) <= 0.25:
        return "is right at the median, not a discount"
    return "is above the median, a premium" if entry > median else "is below the median, a discount"


def comfortably(headroom_x: float) -> str:
    return "comfortably" if headroom_x >= 0.3 else "with a little room"


def irr_move(delta_pp: float) -> str:
    """How a year-4 exit's IRR compares with the year-5 one."""
    if abs(delta_pp) < 0.5:
        return "IRR is about flat"
    return f"IRR rises {delta_pp:.1f} points" if delta_pp > 0 else f"IRR dips only {-delta_pp:.1f} points"


@dataclass(frozen=True)
class Said:
    """The deal's figures as the room writes them ("12.0x", "25%", "$57.5M"), computed once for every phase."""

    entry_x: str
    first_exit_x: str
    policy_x: str
    fudge_x: str
    threshold_x: str
    senior_x: str
    cut_x: str
    junior_x: str
    lev_close_x: str
    ltm_rev: str
    ltm_ebitda: str
    growth: str
    growth1: str
    margin: str
    margin1: str
    hurdle: str
    hurdle_moic: str
    senior_rate: str
    pik_rate: str
    amort: str
    sweep: str
    shock: str
    downside: str
    revenue_path: str
    revenue_path_of: str
    irr: str
    moic: str
    eq: str
    max_entry: str
    max_price: str

    @classmethod
    def of(cls, deal: DealInputs, sol: LboSolution) -> Said:
        """The wording of ``deal`` solved as ``sol`` (the final case is the one the meeting lands on)."""
        final = sol.final
        downside = f"{deal.downside_growth_pct:g}% growth and {article(mult(deal.downside_exit_multiple))} "
        downside += f"{mult(deal.downside_exit_multiple)} exit"
        rev_growth_total = final.revenue[YEARS - 1] / deal.ltm_revenue
        revenue_path = (
            "doubles" if abs(rev_growth_total - 2.0) < 0.15 else f"grows {(rev_growth_total - 1) * 100:.0f}%"
        )
        return cls(
            entry_x=mult(deal.entry_multiple),
            first_exit_x=mult(deal.exit_multiple_first_said),
            policy_x=mult(deal.exit_multiple_policy),
            fudge_x=mult(deal.fudge_exit_multiple),
            threshold_x=mult(deal.compression_threshold),
            senior_x=mult(deal.senior_multiple),
            cut_x=mult(deal.senior_multiple_after_lender_call),
            junior_x=mult(deal.junior_multiple),
            lev_close_x=mult(deal.senior_multiple + deal.junior_multiple),
            ltm_rev=usd_m(deal.ltm_revenue),
            ltm_ebitda=usd_m(deal.ltm_ebitda),
            growth=f"{deal.revenue_growth_pct:g}%",
            growth1=f"{deal.revenue_growth_pct:.1f}%",
            margin=f"{deal.ebitda_margin_pct:g}%",
            margin1=f"{deal.ebitda_margin_pct:.1f}%",
            hurdle=f"{deal.hurdle_irr_pct:.0f}%",
            hurdle_moic=mult(deal.hurdle_moic),
            senior_rate=f"{deal.senior_rate_pct:.1f}%",
            pik_rate=f"{deal.junior_pik_rate_pct:.1f}%",
            amort=f"{deal.senior_amort_pct:g}%",
            sweep=f"{deal.cash_sweep_pct:g}%",
            shock=f"+{deal.rate_shock_bps:.0f} bps",
            downside=downside,
            revenue_path=revenue_path,
            revenue_path_of=(
                "doubles revenue" if revenue_path == "doubles" else revenue_path.replace(" ", " revenue ", 1)
            ),
            irr=pct_fewest(final.irr_pct),
            moic=mult(final.moic, 2),
            eq=usd_m(final.equity),
            max_entry=mult(sol.max_entry),
            max_price=usd_m(sol.values["max_entry_price"]),
        )
