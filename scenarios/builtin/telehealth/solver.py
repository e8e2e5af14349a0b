"""SEA telehealth: the reference solution: TAM/SAM/SOM per market, the weighted country scores and their
sensitivity to the weights, a five-year projection and NPV of entry, and the ground truth by name."""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from modylbench.scenarios.builtin.telehealth.data import (
    CRITERIA,
    HORIZON,
    TODAY,
    Costs,
    Inputs,
    Market,
    MarketData,
    key,
)

logger = logging.getLogger(__name__)


@dataclass
class Projection:
    """Five-year P&L and valuation of entering one country."""

    country: str
    sam_by_year: list[float]
    share_pct_by_year: list[float]
    revenue: list[float]
    contribution: list[float]
    fixed_opex: list[float]
    ebitda: list[float]
    cumulative_cash: list[float]
    capex: float
    break_even_year: int  # 1-based; 0 when EBITDA never turns positive in the horizon
    funding_need: float  # deepest cumulative cash position, as a positive number
    npv: dict[float, float]  # discount rate % -> NPV (USD M), terminal value included
    pv_explicit: dict[float, float]  # discount rate % -> PV of capex and years 1-5 only
    terminal_value: dict[float, float]  # value at year 5 (undiscounted)
    pv_terminal: dict[float, float]


@dataclass
class Solution:
    """Every derived figure of the scenario."""

    inputs: Inputs
    countries: list[str]
    addressable_m: dict[str, float]
    consults_m: dict[str, float]
    tam: dict[str, float]
    sam_b2c: dict[str, float]
    sam_b2b2c: dict[str, float]
    sam: dict[str, float]
    top3_pct: dict[str, float]
    players: dict[str, int]
    target_share_pct: dict[str, float]
    som_y5: dict[str, float]
    criterion_scores: dict[str, dict[str, float]]  # country -> criterion -> 0..10
    score_base: dict[str, float]
    score_revised: dict[str, float]
    score_equal: dict[str, float]
    rank_base: dict[str, int]
    rank_revised: dict[str, int]
    leader_base: str
    runner_up_base: str
    leader_revised: str
    runner_up_revised: str
    leader_equal: str
    sam_weight_flip_pct: float  # market-size weight at which the base leader loses the top spot
    reg_weight_flip_pct: float  # regulatory weight at which the revised leader loses the top spot
    projection: Projection  # the recommended (revised-weights leader) country
    second_projection: Projection  # the runner-up, for the wave-2 discussion
    totals: dict[str, float] = field(default_factory=dict)
    misc: dict[str, float] = field(default_factory=dict)


def _minmax(values: dict[str, float]) -> dict[str, float]:
    """Each country's metric on a 0-10 scale, the worst at 0 and the best at 10."""
    lo, hi = min(values.values()), max(values.values())
    return {country: 10.0 * (value - lo) / (hi - lo) for country, value in values.items()}


def _weighted(scores: dict[str, dict[str, float]], weights: Mapping[str, float]) -> dict[str, float]:
    total = sum(weights.values())
    return {
        country: sum(weights[name] * own[name] for name in weights) / total for country, own in scores.items()
    }


def _ranks(scores: dict[str, float]) -> dict[str, int]:
    order = sorted(scores, key=lambda country: -scores[country])
    return {country: place + 1 for place, country in enumerate(order)}


def _flip_threshold(
    scores: dict[str, dict[str, float]], weights: Mapping[str, float], criterion: str, first: str, second: str
) -> float:
    """Weight (%) on ``criterion`` at which ``first`` and ``second`` tie, the other weights scaled proportionally.

    Each country's score is linear in that weight, so the tie point solves a linear equation.
    """
    weight = weights[criterion] / 100.0
    total = sum(weights.values()) / 100.0

    def parts(country: str) -> tuple[float, float]:
        own = scores[country][criterion]
        others = [name for name in weights if name != criterion]
        rest = sum(weights[name] / 100.0 * scores[country][name] for name in others) / (total - weight)
        return own, rest  # score(x) = x*own + (1-x)*rest

    (own_first, rest_first), (own_second, rest_second) = parts(first), parts(second)
    tie = (rest_second - rest_first) / ((own_first - rest_first) - (own_second - rest_second))
    return 100.0 * tie


def project(market: Market, sam0: float, target_share_pct: float, costs: Costs, inp: Inputs) -> Projection:
    """Revenue, EBITDA and NPV of entering ``market``; pre-tax (losses shelter profits through year 5)."""
    growth = market.cagr_pct / 100.0
    sam_by_year = [sam0 * (1 + growth) ** year for year in range(1, HORIZON + 1)]
    share = [target_share_pct * ramp / 100.0 for ramp in inp.ramp_pct]
    revenue = [sam * sh / 100.0 for sam, sh in zip(sam_by_year, share, strict=True)]
    contribution = [rev * costs.margin_pct / 100.0 for rev in revenue]
    fixed = [costs.opex_y1_usd_m * (1 + costs.opex_growth_pct / 100.0) ** year for year in range(HORIZON)]
    ebitda = [contrib - opex for contrib, opex in zip(contribution, fixed, strict=True)]
    cumulative, running = [], -costs.capex_usd_m
    for year_ebitda in ebitda:
        running += year_ebitda
        cumulative.append(running)
    break_even = next((year + 1 for year, value in enumerate(ebitda) if value >= 0), 0)
    funding = -min([-costs.capex_usd_m, *cumulative])
    npv, pv_explicit, terminal_value, pv_terminal = {}, {}, {}, {}
    terminal_growth = inp.terminal_growth_pct / 100.0
    for rate_pct in (inp.first_discount_pct, inp.discount_pct):
        rate = rate_pct / 100.0
        explicit = -costs.capex_usd_m + sum(
            value / (1 + rate) ** (year + 1) for year, value in enumerate(ebitda)
        )
        terminal = ebitda[-1] * (1 + terminal_growth) / (rate - terminal_growth)
        pv_explicit[rate_pct] = explicit
        terminal_value[rate_pct] = terminal
        pv_terminal[rate_pct] = terminal / (1 + rate) ** HORIZON
        npv[rate_pct] = explicit + pv_terminal[rate_pct]
    return Projection(
        market.country,
        sam_by_year,
        share,
        revenue,
        contribution,
        fixed,
        ebitda,
        cumulative,
        costs.capex_usd_m,
        break_even,
        funding,
        npv,
        pv_explicit,
        terminal_value,
        pv_terminal,
    )


def _named_leaders(data: MarketData, country: str) -> list[dict[str, Any]]:
    """The named players of ``country``, largest first (the long-tail row left out)."""
    return sorted(
        (row for row in data.competitors if row["country"] == country and row["players"] == 1),
        key=lambda row: -row["share_pct"],
    )


def solve(data: MarketData, inp: Inputs = TODAY) -> Solution:
    """Size every market top-down, score and rank them, and value entry into the leader."""
    markets = {market.country: market for market in data.markets}
    countries = [market.country for market in data.markets]
    addressable, consults, tam, b2c, b2b, sam = {}, {}, {}, {}, {}, {}
    for country, market in markets.items():
        # Addressable = urban smartphone users: the people a GP-consult app can actually reach.
        addressable[country] = market.population_m * market.urban_pct / 100 * market.smartphone_pct / 100
        consults[country] = addressable[country] * inp.adoption_pct / 100 * inp.consults_per_user
        tam[country] = consults[country] * market.price_usd
        # SAM excludes public-scheme consults; self-pay patients pay no more than they are willing to.
        b2c[country] = consults[country] * market.oop_pct / 100 * min(market.price_usd, market.wtp_usd)
        b2b[country] = consults[country] * market.private_pct / 100 * market.price_usd
        sam[country] = b2c[country] + b2b[country]
    top3: dict[str, float] = {}
    players: dict[str, int] = {}
    for country in countries:
        top3[country] = sum(row["share_pct"] for row in _named_leaders(data, country)[:3])
        players[country] = sum(row["players"] for row in data.competitors if row["country"] == country)
    target = {country: inp.capture_of_tail_pct / 100 * (100 - top3[country]) for country in countries}
    som = {
        country: sam[country] * (1 + markets[country].cagr_pct / 100) ** HORIZON * target[country] / 100
        for country in countries
    }

    raw = {
        "market_size": sam,
        "growth": {country: markets[country].cagr_pct for country in countries},
        "digital": {country: markets[country].smartphone_pct for country in countries},
        "regulatory": {country: markets[country].regulatory for country in countries},
        "competition": {country: 100 - top3[country] for country in countries},
        # Log scale: Singapore's spend is ten times the next, and linear scaling would flatten the rest.
        "affordability": {country: math.log(markets[country].spend_usd) for country in countries},
        "clinical_need": {country: 1 / markets[country].physicians_per_1000 for country in countries},
    }
    normalised = {criterion: _minmax(values) for criterion, values in raw.items()}
    scores = {country: {name: normalised[name][country] for name in CRITERIA} for country in countries}
    base = _weighted(scores, inp.base_weights)
    revised = _weighted(scores, inp.revised_weights)
    equal = _weighted(scores, dict.fromkeys(CRITERIA, 1.0))
    rank_base, rank_revised = _ranks(base), _ranks(revised)
    order_base = sorted(countries, key=lambda country: rank_base[country])
    order_revised = sorted(countries, key=lambda country: rank_revised[country])
    sam_flip = _flip_threshold(scores, inp.base_weights, "market_size", order_base[0], order_base[1])
    reg_flip = _flip_threshold(scores, inp.revised_weights, "regulatory", order_revised[0], order_revised[1])

    lead, second = order_revised[0], order_revised[1]
    projection = project(markets[lead], sam[lead], target[lead], data.costs[lead], inp)
    second_projection = project(markets[second], sam[second], target[second], data.costs[second], inp)

    thai = markets["Thailand"]
    quoted_local = round(thai.spend_usd * thai.fx)  # the figure the persona reads off a baht table
    lead_market = markets[lead]
    totals = {
        "population_m": sum(market.population_m for market in data.markets),
        "addressable_m": sum(addressable.values()),
        "consults_m": sum(consults.values()),
        "tam": sum(tam.values()),
        "sam": sum(sam.values()),
    }
    misc = {
        "thai_spend_quoted_local": float(quoted_local),
        "thai_spend_converted_usd": quoted_local / thai.fx,
        "thai_spend_ratio_vs_indonesia": quoted_local / markets["Indonesia"].spend_usd,
        "claimed_tam_required_adoption_pct": 100
        * inp.claimed_tam_usd_m
        / (addressable[lead] * inp.consults_per_user * lead_market.price_usd),
        "claimed_tam_multiple": inp.claimed_tam_usd_m / tam[lead],
        "tam_whole_population": lead_market.population_m
        * inp.adoption_pct
        / 100
        * inp.consults_per_user
        * lead_market.price_usd,
        "thai_sam_share_of_tam_pct": 100 * sam["Thailand"] / tam["Thailand"],
        "base_margin_leader": base[order_base[0]] - base[order_base[1]],
        "revised_margin_leader": revised[order_revised[0]] - revised[order_revised[1]],
        "y5_ebitda_margin_pct": 100 * projection.ebitda[-1] / projection.revenue[-1],
        "tv_share_of_npv_pct": 100
        * projection.pv_terminal[inp.discount_pct]
        / projection.npv[inp.discount_pct],
        "break_even_calendar_year": float(inp.launch_year + projection.break_even_year - 1),
        "opex_y5": projection.fixed_opex[-1],
        "local_partner_min_pct": 100.0 - inp.foreign_cap_pct,
        "foreign_cap_pct": inp.foreign_cap_pct,
    }
    return Solution(
        inp,
        countries,
        addressable,
        consults,
        tam,
        b2c,
        b2b,
        sam,
        top3,
        players,
        target,
        som,
        scores,
        base,
        revised,
        equal,
        rank_base,
        rank_revised,
        order_base[0],
        order_base[1],
        order_revised[0],
        order_revised[1],
        max(equal, key=lambda country: equal[country]),
        sam_flip,
        reg_flip,
        projection,
        second_projection,
        totals,
        misc,
    )


def ground_truth(sol: Solution) -> dict[str, float | str]:
    """The key derived values by name."""
    truth: dict[str, float | str] = {}
    for country in sol.countries:
        row = key(country)
        truth[f"addressable_m_{row}"] = sol.addressable_m[country]
        truth[f"tam_usd_m_{row}"] = sol.tam[country]
        truth[f"sam_usd_m_{row}"] = sol.sam[country]
        truth[f"top3_share_pct_{row}"] = sol.top3_pct[country]
        truth[f"target_share_pct_{row}"] = sol.target_share_pct[country]
        truth[f"som_y5_usd_m_{row}"] = sol.som_y5[country]
        truth[f"score_base_{row}"] = sol.score_base[country]
        truth[f"score_revised_{row}"] = sol.score_revised[country]
    truth["tam_usd_m_total"] = sol.totals["tam"]
    truth["sam_usd_m_total"] = sol.totals["sam"]
    truth["leader_base"] = sol.leader_base
    truth["leader_revised"] = sol.leader_revised
    truth["leader_equal_weights"] = sol.leader_equal
    truth["recommended_country"] = sol.leader_revised
    truth["sam_weight_flip_pct"] = sol.sam_weight_flip_pct
    truth["regulatory_weight_flip_pct"] = sol.reg_weight_flip_pct
    projection = sol.projection
    for year in range(HORIZON):
        truth[f"revenue_usd_m_y{year + 1}"] = projection.revenue[year]
        truth[f"ebitda_usd_m_y{year + 1}"] = projection.ebitda[year]
    truth["break_even_year"] = float(projection.break_even_year)
    truth["funding_need_usd_m"] = projection.funding_need
    inp = sol.inputs
    # The key keeps its seed-0 name: ground-truth keys are stable across instances.
    truth["npv_usd_m_at_10pct"] = projection.npv[inp.first_discount_pct]
    truth["npv_usd_m"] = projection.npv[inp.discount_pct]
    truth["pv_terminal_usd_m"] = projection.pv_terminal[inp.discount_pct]
    truth["pv_explicit_usd_m"] = projection.pv_explicit[inp.discount_pct]
    truth["npv_usd_m_second_country"] = sol.second_projection.npv[inp.discount_pct]
    truth["discount_rate_pct"] = inp.discount_pct
    return truth


# ----------------------------------------------------------------------------- what the meeting quotes


@dataclass(frozen=True)
class Figures:
    """The data and the solution as the meeting script reads them: orders, the chosen market and the
    derived figures its lines quote, each by name."""

    inputs: Inputs
    data: MarketData
    sol: Solution
    markets: dict[str, Market]
    lead: str  # the recommended country: first on the revised weights
    runner_up: str  # second on the revised weights, the wave-2 market
    base_lead: str
    base_second: str
    by_tam: list[str]  # countries, largest first
    by_sam: list[str]
    by_som: list[str]
    by_base_score: list[str]
    by_revised_score: list[str]
    named_leaders: dict[str, list[dict[str, Any]]]  # country -> its named players, largest first
    npv: float  # at the hurdle rate
    npv_first_rate: float  # at the rate the persona first gives
    pv_terminal: float  # at the hurdle rate
    pv_explicit: float  # capex and years 1-5 at the hurdle rate
    break_even_calendar_year: int
    trough_year: int  # projection year of the deepest cumulative cash position
    revenue_growth_y5_pct: float
    philippine_som_low_capture: float  # year-5 SOM at the cautious capture rate
    claimed_tam_price_usd: float  # the consult price the persona's claimed TAM would need

    @property
    def projection(self) -> Projection:
        """The recommended market's projection."""
        return self.sol.projection

    @property
    def second_projection(self) -> Projection:
        """The wave-2 market's projection."""
        return self.sol.second_projection

    @property
    def lead_market(self) -> Market:
        return self.markets[self.lead]

    @property
    def lead_costs(self) -> Costs:
        return self.data.costs[self.lead]

    @property
    def misc(self) -> dict[str, float]:
        return self.sol.misc


def figures(data: MarketData, sol: Solution) -> Figures:
    """The named figures of the meeting, from the data and its solution."""
    inp = sol.inputs
    markets = {market.country: market for market in data.markets}
    projection = sol.projection

    def ordered(values: dict[str, float]) -> list[str]:
        return sorted(sol.countries, key=lambda country: -values[country])

    return Figures(
        inputs=inp,
        data=data,
        sol=sol,
        markets=markets,
        lead=sol.leader_revised,
        runner_up=sol.runner_up_revised,
        base_lead=sol.leader_base,
        base_second=sol.runner_up_base,
        by_tam=ordered(sol.tam),
        by_sam=ordered(sol.sam),
        by_som=ordered(sol.som_y5),
        by_base_score=sorted(sol.countries, key=lambda country: sol.rank_base[country]),
        by_revised_score=sorted(sol.countries, key=lambda country: sol.rank_revised[country]),
        named_leaders={country: _named_leaders(data, country) for country in sol.countries},
        npv=projection.npv[inp.discount_pct],
        npv_first_rate=projection.npv[inp.first_discount_pct],
        pv_terminal=projection.pv_terminal[inp.discount_pct],
        pv_explicit=projection.pv_explicit[inp.discount_pct],
        break_even_calendar_year=int(sol.misc["break_even_calendar_year"]),
        trough_year=min(range(HORIZON), key=lambda year: projection.cumulative_cash[year]) + 1,
        revenue_growth_y5_pct=100 * (projection.revenue[-1] / projection.revenue[-2] - 1),
        philippine_som_low_capture=sol.som_y5["Philippines"] * inp.low_capture_pct / inp.capture_of_tail_pct,
        claimed_tam_price_usd=markets[sol.leader_revised].price_usd * sol.misc["claimed_tam_multiple"],
    )
