"""Built-in scenario: optimise a consumer-goods company's Q4 plant → DC → region distribution plan.

Generates a shipment network from ``Inputs``, solves the transshipment LP with HiGHS (flows, duals, reduced
costs, the planners' greedy plan, a DC capacity cut and a peak-demand re-solve) and builds the meeting.
``build(seed)``: seed 0 is the meeting as written; other seeds draw new inputs under the same script.
"""

from __future__ import annotations

import csv
import io
import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from scipy.optimize import linprog

from modylbench.scenarios._pointer import make_pointer
from modylbench.scenarios._products import apply_mutations
from modylbench.scenarios._schema import (
    ChartSeries,
    ChartSpec,
    DataFile,
    EdgeCase,
    ExpectedFact,
    ExpectedMutation,
    ExpectedOutput,
    HumanPersona,
    PersonaVoice,
    ProductSpec,
    Scenario,
    Slide,
    TableSpec,
    Turn,
    Verification,
    VerificationCriterion,
)
from modylbench.scenarios._spoken import say_number

logger = logging.getLogger(__name__)

SCENARIO_ID = "optimization_solver_supply_chain"

# The story's fixed points: who is who in the network, and the rules the persona states. These do not
# change between instances (build(seed) varies the numbers, never the cast or the plot).
MAX_OUTBOUND_DAYS = 3  # retailer OTIF commitment: DC → region transit at most 3 days
DALLAS_FILE_HANDLING = "DAL"  # the DC whose handling rate in dcs.csv is stale
CUT_DC = "CMH"  # the DC whose WMS cutover slips
OVERTIME_PLANT = "RNO"
PEAK_OVERTIME_PLANT = "JOL"
PROTECTED_REGION = "PNW"  # the persona's key account region she does not want shorted
EXTRA_CMH_CASES = 10_000.0  # the block of extra Columbus throughput the reference values after the cut
WEEKS_IN_Q4 = 13
INTERMODAL_LANE = ("RNO", "CMH")
DUPLICATE_REGION = "NEA"  # the promo file lists Northeast twice; the second row is a digit-swap typo

# code, name, latitude, longitude
_PLANT_SITES = (
    ("RNO", "Reno NV", 39.53, -119.81),
    ("JOL", "Joliet IL", 41.53, -88.08),
    ("MCN", "Macon GA", 32.84, -83.63),
)
_DC_SITES = (
    ("STK", "Stockton CA", 37.96, -121.29),
    ("DAL", "Dallas TX", 32.78, -96.80),
    ("CMH", "Columbus OH", 39.96, -83.00),
    ("ABE", "Allentown PA", 40.60, -75.49),
)
_REGION_SITES = (
    ("PNW", "Pacific Northwest", 47.61, -122.33),
    ("CAL", "California", 34.05, -118.24),
    ("MTN", "Mountain", 39.74, -104.99),
    ("SCN", "South Central", 29.76, -95.37),
    ("UMW", "Upper Midwest", 44.98, -93.27),
    ("GLK", "Great Lakes", 42.33, -83.05),
    ("NEA", "Northeast", 40.71, -74.01),
    ("SEA", "Southeast", 33.75, -84.39),
)
# Road miles are great-circle miles times a circuity factor; rates are $/case with carrier noise.
_CIRCUITY = 1.2
_TOL = 1e-6


@dataclass(frozen=True)
class Inputs:
    """Every raw number the meeting starts from; ``Inputs()`` is the scenario as first written (seed 0).

    Network figures are nominal: ``generate`` adds the generator's noise to them. Policy figures are
    what the persona says in the meeting.
    """

    generator_seed: int = 19
    # Nominal Q4 capacity (cases) and standard production cost ($/case) by plant.
    plant_capacity: Mapping[str, float] = field(
        default_factory=lambda: {"RNO": 500_000, "JOL": 800_000, "MCN": 640_000}
    )
    production_cost: Mapping[str, float] = field(
        default_factory=lambda: {"RNO": 11.05, "JOL": 10.70, "MCN": 9.65}
    )
    # Nominal Q4 throughput (cases), handling ($/case) and fixed Q4 cost ($) by DC.
    dc_capacity: Mapping[str, float] = field(
        default_factory=lambda: {"STK": 540_000, "DAL": 500_000, "CMH": 600_000, "ABE": 460_000}
    )
    handling_cost: Mapping[str, float] = field(
        default_factory=lambda: {"STK": 1.05, "DAL": 0.92, "CMH": 0.88, "ABE": 1.12}
    )
    fixed_cost: Mapping[str, float] = field(
        default_factory=lambda: {"STK": 1_850_000, "DAL": 1_420_000, "CMH": 1_610_000, "ABE": 1_540_000}
    )
    # Nominal Q4 demand (cases) by region.
    demand: Mapping[str, float] = field(
        default_factory=lambda: {
            "PNW": 142_000, "CAL": 365_000, "MTN": 118_000, "SCN": 226_000,
            "UMW": 164_000, "GLK": 241_000, "NEA": 318_000, "SEA": 262_000,
        }
    )  # fmt: skip
    # Freight rate card: $/case = base + per-mile x road miles (full truckloads inbound, multi-stop LTL outbound).
    inbound_base: float = 0.30
    inbound_per_mile: float = 0.00105
    outbound_base: float = 0.50
    outbound_per_mile: float = 0.00185
    # Lost-sale penalty = lost gross margin + average retailer short-ship fine, $/case.
    gross_margin: float = 24.10
    short_ship_fine: float = 7.40
    dallas_contract_handling: float = 1.14  # new 3PL contract rate from 1 October, $/case
    cut_capacity: float = 455_000.0  # Columbus Q4 throughput after the WMS cutover slipped, cases
    overtime_cases: float = 25_000.0  # Reno Saturday overtime on offer
    overtime_premium: float = 1.10  # $/case
    peak_overtime_cases: float = 30_000.0  # Joliet weekend shifts on offer in the peak case
    peak_overtime_premium: float = 1.80  # $/case
    intermodal_discount: float = 0.15  # the rail carrier's pitch: this fraction below the truck rate
    # Sales' peak-promo uplift on Q4 demand, by region (fraction added).
    uplift: Mapping[str, float] = field(
        default_factory=lambda: {"GLK": 0.10, "NEA": 0.13, "SEA": 0.09, "UMW": 0.06, "CAL": 0.03, "SCN": 0.03}
    )

    @property
    def penalty(self) -> float:
        """Lost-sale penalty, $/case."""
        return round(self.gross_margin + self.short_ship_fine, 2)


def _level(rng: np.random.Generator, low: float, high: float) -> float:
    """A factor in [low, high], at least 5% away from 1 so the instance's figures really move."""
    x = float(rng.uniform(low, high - 0.1))
    return x if x < 0.95 else x + 0.1


def _step(x: float, step: float) -> float:
    """Rounded to a multiple of step, the way the persona would say it."""
    return float(round(round(x / step) * step, 6))


def _fresh(x: float, today: float, step: float, up: bool = True) -> float:
    """x, moved one step if it rounded onto today's figure (a new instance should not repeat the persona's numbers)."""
    return x if abs(x - today) > step / 2 else _step(x + (step if up else -step), step)


def _draw(rng: np.random.Generator) -> Inputs:
    """The network and the persona's free figures: company size and cost levels move together, each figure a little.

    The lane-noise seed stays: with a fresh one, the plan's shape (which plant feeds which DC, what
    binds) changes, and the script's walk through it no longer holds.
    """
    today = Inputs()
    volume, cost_level, freight_level = 1.0, 1.0, 1.0
    # Dollar totals scale with volume x cost: keep those products away from 1 as well.
    while min(abs(volume * cost_level - 1), abs(volume * freight_level - 1)) < 0.05:
        volume = _level(rng, 0.8, 1.2)  # a bigger or smaller company: all volumes move together
        cost_level = _level(rng, 0.85, 1.15)
        freight_level = _level(rng, 0.8, 1.2)

    def each(values: Mapping[str, float], level: float, spread: float, digits: int) -> dict[str, float]:
        return {
            k: float(round(v * level * rng.uniform(1 - spread, 1 + spread), digits))
            for k, v in values.items()
        }

    def near(value: float, spread: float, step: float) -> float:
        return _step(value * rng.uniform(1 - spread, 1 + spread), step)

    return replace(
        today,
        plant_capacity=each(today.plant_capacity, volume, 0.03, -3),
        production_cost=each(today.production_cost, cost_level, 0.03, 2),
        dc_capacity=each(today.dc_capacity, volume, 0.05, -3),
        handling_cost=each(today.handling_cost, cost_level, 0.03, 2),
        fixed_cost=each(today.fixed_cost, cost_level, 0.15, -4),
        demand=each(today.demand, volume, 0.03, -3),
        inbound_base=round(today.inbound_base * freight_level * rng.uniform(0.95, 1.05), 2),
        inbound_per_mile=round(today.inbound_per_mile * freight_level * rng.uniform(0.95, 1.05), 6),
        outbound_base=round(today.outbound_base * freight_level * rng.uniform(0.95, 1.05), 2),
        outbound_per_mile=round(today.outbound_per_mile * freight_level * rng.uniform(0.95, 1.05), 6),
        gross_margin=_fresh(near(today.gross_margin * cost_level, 0.1, 0.1), today.gross_margin, 0.1),
        short_ship_fine=_fresh(
            near(today.short_ship_fine * cost_level, 0.2, 0.1), today.short_ship_fine, 0.1
        ),
        cut_capacity=_fresh(near(today.cut_capacity * volume, 0.03, 5_000), today.cut_capacity, 5_000),
        peak_overtime_premium=_fresh(
            near(today.peak_overtime_premium * cost_level, 0.2, 0.05), today.peak_overtime_premium, 0.05
        ),
        intermodal_discount=_fresh(
            near(today.intermodal_discount, 0.3, 0.01), today.intermodal_discount, 0.01
        ),
        uplift={k: near(v, 0.15, 0.01) for k, v in today.uplift.items()},
    )


def _fit(rng: np.random.Generator, inputs: Inputs, net: Network, s: dict[str, Any]) -> Inputs:
    """The figures the persona hears from others, sized the way the story has them against the first solve.

    Dallas' new contract is a rise on the file rate; Reno's overtime offer is more than the plan can
    use, at a premium under Reno's shadow price; the promo overshoots plant capacity a little, and
    Joliet's weekend shifts are more than that gap.
    """
    today = Inputs()
    today_rise = today.dallas_contract_handling - 0.94  # seed 0's file rate
    rno_dual = s["base"].plant_dual[OVERTIME_PLANT]
    usable = s["base"].flows[(PEAK_OVERTIME_PLANT, "STK")]  # the Joliet volume Reno overtime would displace
    # Sales' uplift, scaled as a whole so the promo overshoots plant capacity by about what it does today.
    plant_capacity = s["total_plant_capacity"]
    target = plant_capacity * rng.uniform(1.008, 1.016) - s["total_demand"]
    lifted = sum(r.demand * inputs.uplift.get(r.code, 0.0) for r in net.regions)
    uplift = {k: _step(v * target / lifted, 0.01) for k, v in inputs.uplift.items()}
    gap = sum(r.demand * (1 + uplift.get(r.code, 0.0)) for r in net.regions) - plant_capacity
    return replace(
        inputs,
        uplift=uplift,
        dallas_contract_handling=_fresh(
            _step(net.dc(DALLAS_FILE_HANDLING).handling_cost + today_rise * rng.uniform(0.7, 1.3), 0.01),
            today.dallas_contract_handling,
            0.01,
        ),
        overtime_cases=_fresh(
            math.ceil(usable * rng.uniform(1.3, 1.8) / 5_000) * 5_000.0, today.overtime_cases, 5_000
        ),
        overtime_premium=_fresh(
            _step(rno_dual * rng.uniform(0.75, 0.92), 0.05), today.overtime_premium, 0.05, up=False
        ),
        peak_overtime_cases=_fresh(
            math.ceil(gap * rng.uniform(1.1, 1.45) / 5_000) * 5_000.0, today.peak_overtime_cases, 5_000
        ),
    )


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Plant:
    """A manufacturing plant: Q4 capacity and standard production cost."""

    code: str
    name: str
    capacity: float
    production_cost: float


@dataclass(frozen=True)
class DC:
    """A distribution centre: Q4 throughput capacity, handling rate and (sunk) fixed cost."""

    code: str
    name: str
    capacity: float
    handling_cost: float
    fixed_cost: float


@dataclass(frozen=True)
class Region:
    """A customer region and its Q4 demand in cases."""

    code: str
    name: str
    demand: float


@dataclass(frozen=True)
class Lane:
    """A freight lane: plant → DC (inbound) or DC → region (outbound)."""

    origin: str
    destination: str
    leg: str
    cost: float
    transit_days: int
    miles: int


@dataclass(frozen=True)
class Network:
    """The whole Q4 network as the persona's files describe it."""

    plants: tuple[Plant, ...]
    dcs: tuple[DC, ...]
    regions: tuple[Region, ...]
    lanes: tuple[Lane, ...]

    def plant(self, code: str) -> Plant:
        return next(p for p in self.plants if p.code == code)

    def dc(self, code: str) -> DC:
        return next(d for d in self.dcs if d.code == code)

    def region(self, code: str) -> Region:
        return next(r for r in self.regions if r.code == code)

    def lane(self, origin: str, destination: str) -> Lane:
        return next(ln for ln in self.lanes if ln.origin == origin and ln.destination == destination)

    def with_dc(
        self, code: str, *, capacity: float | None = None, handling_cost: float | None = None
    ) -> Network:
        """The network with one DC's capacity and/or handling rate changed."""

        def changed(d: DC) -> DC:
            return DC(
                d.code,
                d.name,
                d.capacity if capacity is None else capacity,
                d.handling_cost if handling_cost is None else handling_cost,
                d.fixed_cost,
            )

        return replace(self, dcs=tuple(changed(d) if d.code == code else d for d in self.dcs))

    def with_plant(self, code: str, *, capacity: float) -> Network:
        """The network with one plant's capacity changed."""
        return replace(
            self, plants=tuple(replace(p, capacity=capacity) if p.code == code else p for p in self.plants)
        )

    def with_demand(self, demand: dict[str, float]) -> Network:
        return replace(
            self, regions=tuple(replace(r, demand=demand.get(r.code, r.demand)) for r in self.regions)
        )


def _road_miles(a: tuple[float, float], b: tuple[float, float]) -> float:
    la1, lo1, la2, lo2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return _CIRCUITY * 3958.8 * 2 * math.asin(math.sqrt(h))


def generate(inputs: Inputs | None = None) -> Network:
    """The Q4 network from the inputs' generator seed: capacities, costs, demand and lane rates."""
    inp = inputs or Inputs()
    rng = np.random.default_rng(inp.generator_seed)
    plants = tuple(
        Plant(
            c,
            n,
            float(round(inp.plant_capacity[c] * rng.uniform(0.97, 1.03), -3)),
            round(float(inp.production_cost[c] * rng.uniform(0.98, 1.02)), 2),
        )
        for c, n, _la, _lo in _PLANT_SITES
    )
    dcs = tuple(
        DC(
            c,
            n,
            float(round(inp.dc_capacity[c] * rng.uniform(0.97, 1.03), -3)),
            round(float(inp.handling_cost[c] * rng.uniform(0.97, 1.03)), 2),
            float(inp.fixed_cost[c]),
        )
        for c, n, _la, _lo in _DC_SITES
    )
    regions = tuple(
        Region(c, n, float(round(inp.demand[c] * rng.uniform(0.95, 1.05), -2)))
        for c, n, _la, _lo in _REGION_SITES
    )
    lanes: list[Lane] = []
    for p in _PLANT_SITES:
        for d in _DC_SITES:
            m = _road_miles((p[2], p[3]), (d[2], d[3]))
            cost = round(float((inp.inbound_base + inp.inbound_per_mile * m) * rng.uniform(0.85, 1.15)), 2)
            lanes.append(Lane(p[0], d[0], "inbound", cost, 1 + int(m // 600), round(m)))
    for d in _DC_SITES:
        for r in _REGION_SITES:
            m = _road_miles((d[2], d[3]), (r[2], r[3]))
            cost = round(float((inp.outbound_base + inp.outbound_per_mile * m) * rng.uniform(0.85, 1.15)), 2)
            lanes.append(Lane(d[0], r[0], "outbound", cost, 1 + int(m // 550), round(m)))
    return Network(plants, dcs, regions, tuple(lanes))


def contract_network(net: Network, inputs: Inputs) -> Network:
    """The network with the persona's mid-meeting correction: Dallas at the new 3PL handling rate."""
    return net.with_dc(DALLAS_FILE_HANDLING, handling_cost=inputs.dallas_contract_handling)


def uplift_demand(net: Network, inputs: Inputs) -> dict[str, float]:
    """Sales' peak-promo Q4 demand by region (cases, rounded to 100 as sales sends it)."""
    return {r.code: float(round(r.demand * (1 + inputs.uplift.get(r.code, 0.0)), -2)) for r in net.regions}


def _typo(value: float) -> float:
    """The Northeast typo in the promo file: the first two digits swapped (343,100 → 433,100)."""
    digits = list(f"{int(value):06d}")
    digits[0], digits[1] = digits[1], digits[0]
    return float("".join(digits))


# --------------------------------------------------------------------------- files


def _csv(header: list[str], rows: list[list[Any]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def _fmt(x: float) -> str:
    return f"{x:.0f}" if float(x).is_integer() else f"{x:.2f}"


def plants_csv(net: Network) -> str:
    return _csv(
        ["plant_id", "plant", "q4_capacity_cases", "production_cost_per_case"],
        [[p.code, p.name, _fmt(p.capacity), f"{p.production_cost:.2f}"] for p in net.plants],
    )


def dcs_csv(net: Network) -> str:
    return _csv(
        ["dc_id", "dc", "q4_throughput_capacity_cases", "handling_cost_per_case", "fixed_cost_q4"],
        [[d.code, d.name, _fmt(d.capacity), f"{d.handling_cost:.2f}", _fmt(d.fixed_cost)] for d in net.dcs],
    )


def demand_csv(net: Network) -> str:
    return _csv(
        ["region_id", "region", "q4_demand_cases"], [[r.code, r.name, _fmt(r.demand)] for r in net.regions]
    )


def lanes_csv(net: Network) -> str:
    return _csv(
        ["origin", "destination", "leg", "cost_per_case", "transit_days", "miles"],
        [
            [ln.origin, ln.destination, ln.leg, f"{ln.cost:.2f}", ln.transit_days, ln.miles]
            for ln in net.lanes
        ],
    )


def promo_demand_csv(net: Network, inputs: Inputs) -> str:
    """Sales' promo forecast as they sent it: Northeast appears twice, the second row with a typo."""
    dem = uplift_demand(net, inputs)
    rows: list[list[Any]] = [[r.code, r.name, _fmt(dem[r.code])] for r in net.regions]
    dup = net.region(DUPLICATE_REGION)
    rows.append([dup.code, dup.name, _fmt(_typo(dem[dup.code]))])
    return _csv(["region_id", "region", "q4_demand_cases"], rows)


# --------------------------------------------------------------------------- solving


@dataclass
class LPResult:
    """An optimal transshipment plan and its sensitivity information."""

    cost: float
    production_cost: float
    flows: dict[tuple[str, str], float]  # (origin, destination) → cases, inbound and outbound lanes
    unmet: dict[str, float]
    plant_output: dict[str, float]
    dc_throughput: dict[str, float]
    plant_dual: dict[str, float]  # $ saved per extra case of capacity (≥ 0)
    dc_dual: dict[str, float]
    reduced_cost: dict[tuple[str, str], float]  # $/case a lane must get cheaper before it carries volume
    eligible_outbound: int
    excluded_outbound: int
    penalty: float  # $/case the shortfall was priced at

    @property
    def penalty_cost(self) -> float:
        return self.penalty * sum(self.unmet.values())

    @property
    def logistics_cost(self) -> float:
        """Inbound freight + handling + outbound freight (total less production and shortfall penalty)."""
        return self.cost - self.production_cost - self.penalty_cost


def path_cost(net: Network, p: str, d: str, r: str) -> float:
    """Landed cost of one case made at plant p, handled at DC d and delivered to region r."""
    return net.plant(p).production_cost + net.lane(p, d).cost + net.dc(d).handling_cost + net.lane(d, r).cost


def eligible_outbound(net: Network) -> list[Lane]:
    return [ln for ln in net.lanes if ln.leg == "outbound" and ln.transit_days <= MAX_OUTBOUND_DAYS]


@dataclass(frozen=True)
class _Program:
    """The transshipment LP in matrix form: inbound lanes, eligible outbound lanes, then one shortfall per region."""

    inbound: list[Lane]
    outbound: list[Lane]
    cost: np.ndarray
    a_ub: np.ndarray
    b_ub: np.ndarray
    a_eq: np.ndarray
    b_eq: np.ndarray
    bounds: list[tuple[float, float | None]]

    def solve(self, objective: np.ndarray | None = None, max_cost: float | None = None) -> Any:
        """HiGHS on this program; optionally another objective with the landed cost capped."""
        a_ub, b_ub = self.a_ub, self.b_ub
        if max_cost is not None:
            a_ub, b_ub = np.vstack([a_ub, self.cost]), np.append(b_ub, max_cost)
        c = self.cost if objective is None else objective
        return linprog(
            c, A_ub=a_ub, b_ub=b_ub, A_eq=self.a_eq, b_eq=self.b_eq, bounds=self.bounds, method="highs"
        )


def _program(net: Network, penalty: float, protect: tuple[str, ...] = ()) -> _Program:
    inb = [ln for ln in net.lanes if ln.leg == "inbound"]
    out = eligible_outbound(net)
    n_in, n_out, n_r = len(inb), len(out), len(net.regions)
    nv = n_in + n_out + n_r
    cost = np.array(
        [net.plant(ln.origin).production_cost + ln.cost for ln in inb]
        + [net.dc(ln.origin).handling_cost + ln.cost for ln in out]
        + [penalty] * n_r
    )
    a_ub = np.zeros((len(net.plants) + len(net.dcs), nv))
    b_ub = np.zeros(a_ub.shape[0])
    for i, p in enumerate(net.plants):
        for j, ln in enumerate(inb):
            a_ub[i, j] = ln.origin == p.code
        b_ub[i] = p.capacity
    for k, d in enumerate(net.dcs):
        row = len(net.plants) + k
        for j, ln in enumerate(inb):
            a_ub[row, j] = ln.destination == d.code
        b_ub[row] = d.capacity
    a_eq = np.zeros((len(net.dcs) + n_r, nv))
    b_eq = np.zeros(a_eq.shape[0])
    for k, d in enumerate(net.dcs):
        for j, ln in enumerate(inb):
            a_eq[k, j] = ln.destination == d.code
        for j, ln in enumerate(out):
            a_eq[k, n_in + j] = -(ln.origin == d.code)
    for k, r in enumerate(net.regions):
        row = len(net.dcs) + k
        for j, ln in enumerate(out):
            a_eq[row, n_in + j] = ln.destination == r.code
        a_eq[row, n_in + n_out + k] = 1.0
        b_eq[row] = r.demand
    bounds: list[tuple[float, float | None]] = [(0.0, None)] * (n_in + n_out) + [
        (0.0, 0.0 if r.code in protect else None) for r in net.regions
    ]
    return _Program(inb, out, cost, a_ub, b_ub, a_eq, b_eq, bounds)


def solve_lp(net: Network, penalty: float, protect: tuple[str, ...] = ()) -> LPResult:
    """Minimum landed cost plan: arc formulation with DC flow balance, solved by HiGHS.

    Regions in ``protect`` may not be short-shipped (their shortfall variable is fixed at zero).
    """
    prog = _program(net, penalty, protect)
    inb, out = prog.inbound, prog.outbound
    n_in, n_out = len(inb), len(out)
    res = prog.solve()
    if res.status != 0:
        raise RuntimeError(f"transshipment LP did not solve: {res.message}")
    x = res.x
    flows = {(ln.origin, ln.destination): float(x[j]) for j, ln in enumerate(inb)}
    flows.update({(ln.origin, ln.destination): float(x[n_in + j]) for j, ln in enumerate(out)})
    rc = {(ln.origin, ln.destination): float(res.lower.marginals[j]) for j, ln in enumerate(inb)}
    rc.update({(ln.origin, ln.destination): float(res.lower.marginals[n_in + j]) for j, ln in enumerate(out)})
    marg = res.ineqlin.marginals
    production = sum(net.plant(ln.origin).production_cost * x[j] for j, ln in enumerate(inb))
    n_total_out = sum(1 for ln in net.lanes if ln.leg == "outbound")
    return LPResult(
        cost=float(res.fun),
        production_cost=float(production),
        flows=flows,
        unmet={r.code: float(x[n_in + n_out + k]) for k, r in enumerate(net.regions)},
        plant_output={
            p.code: float(sum(x[j] for j, ln in enumerate(inb) if ln.origin == p.code)) for p in net.plants
        },
        dc_throughput={
            d.code: float(sum(x[j] for j, ln in enumerate(inb) if ln.destination == d.code)) for d in net.dcs
        },
        plant_dual={p.code: float(-marg[i]) + 0.0 for i, p in enumerate(net.plants)},
        dc_dual={d.code: float(-marg[len(net.plants) + k]) + 0.0 for k, d in enumerate(net.dcs)},
        reduced_cost=rc,
        eligible_outbound=n_out,
        excluded_outbound=n_total_out - n_out,
        penalty=penalty,
    )


@dataclass
class GreedyResult:
    """The planners' 'cheapest lane first' plan: whole paths taken in order of landed cost."""

    cost: float
    unmet: float
    path_flows: dict[tuple[str, str, str], float] = field(default_factory=dict)

    def dc_throughput(self, code: str) -> float:
        return sum(q for (_p, d, _r), q in self.path_flows.items() if d == code)

    def plant_output(self, code: str) -> float:
        return sum(q for (p, _d, _r), q in self.path_flows.items() if p == code)


def greedy_plan(net: Network, penalty: float) -> GreedyResult:
    """Fill the cheapest plant→DC→region path as far as capacity allows, then the next, and so on."""
    plant_left = {p.code: p.capacity for p in net.plants}
    dc_left = {d.code: d.capacity for d in net.dcs}
    demand_left = {r.code: r.demand for r in net.regions}
    paths = sorted(
        (round(path_cost(net, p.code, ln.origin, ln.destination), 6), p.code, ln.origin, ln.destination)
        for p in net.plants
        for ln in eligible_outbound(net)
    )
    out = GreedyResult(0.0, 0.0)
    for c, p, d, r in paths:
        q = min(plant_left[p], dc_left[d], demand_left[r])
        if q <= 0:
            continue
        plant_left[p] -= q
        dc_left[d] -= q
        demand_left[r] -= q
        out.cost += q * c
        out.path_flows[(p, d, r)] = q
    out.unmet = sum(demand_left.values())
    out.cost += penalty * out.unmet
    return out


def split_regions(net: Network, lp: LPResult) -> list[str]:
    """Regions a plan serves from more than one DC."""
    return [
        r.code
        for r in net.regions
        if sum(1 for d in net.dcs if lp.flows.get((d.code, r.code), 0.0) > _TOL) > 1
    ]


def binding(values: dict[str, float]) -> list[str]:
    """Codes whose capacity dual is positive (capacity is binding and worth money)."""
    return [k for k, v in values.items() if v > _TOL]


def solve(net: Network, inputs: Inputs) -> dict[str, Any]:
    """Every derived value of the meeting, from the raw network the persona's files describe."""
    inp, penalty = inputs, inputs.penalty
    total_plant = sum(p.capacity for p in net.plants)
    total_dc = sum(d.capacity for d in net.dcs)
    total_demand = sum(r.demand for r in net.regions)
    pre = solve_lp(net, penalty)
    base_net = contract_network(net, inp)
    base = solve_lp(base_net, penalty)
    greedy = greedy_plan(base_net, penalty)
    cut_net = base_net.with_dc(CUT_DC, capacity=inp.cut_capacity)
    cut = solve_lp(cut_net, penalty)
    cut_greedy = greedy_plan(cut_net, penalty)
    promo = uplift_demand(net, inp)
    peak_net = cut_net.with_demand(promo)
    peak = solve_lp(peak_net, penalty)
    ot = solve_lp(
        base_net.with_plant(
            OVERTIME_PLANT, capacity=base_net.plant(OVERTIME_PLANT).capacity + inp.overtime_cases
        ),
        penalty,
    )
    im_lane = base_net.lane(*INTERMODAL_LANE)
    paths = [
        (path_cost(base_net, p.code, ln.origin, ln.destination), p.code, ln.origin, ln.destination)
        for p in net.plants
        for ln in eligible_outbound(net)
    ]
    dup_typo = _typo(promo[DUPLICATE_REGION])
    file_paths = [
        path_cost(net, p.code, ln.origin, ln.destination) for p in net.plants for ln in eligible_outbound(net)
    ]
    ot_used = ot.plant_output[OVERTIME_PLANT] - base.plant_output[OVERTIME_PLANT]
    protected = solve_lp(peak_net, penalty, protect=(PROTECTED_REGION,))
    jol_cap = peak_net.plant(PEAK_OVERTIME_PLANT).capacity + inp.peak_overtime_cases
    peak_ot = solve_lp(peak_net.with_plant(PEAK_OVERTIME_PLANT, capacity=jol_cap), penalty)
    peak_ot_used = peak_ot.plant_output[PEAK_OVERTIME_PLANT] - peak.plant_output[PEAK_OVERTIME_PLANT]
    cmh_plus = solve_lp(cut_net.with_dc(CUT_DC, capacity=inp.cut_capacity + EXTRA_CMH_CASES), penalty)
    dc_options = {
        r.code: sum(1 for ln in eligible_outbound(net) if ln.destination == r.code) for r in net.regions
    }
    return {
        "net": net,
        "base_net": base_net,
        "cut_net": cut_net,
        "peak_net": peak_net,
        "pre": pre,
        "base": base,
        "greedy": greedy,
        "cut": cut,
        "cut_greedy": cut_greedy,
        "peak": peak,
        "overtime": ot,
        "promo": promo,
        "total_plant_capacity": total_plant,
        "total_dc_capacity": total_dc,
        "total_demand": total_demand,
        "plant_utilisation_needed_pct": 100 * total_demand / total_plant,
        "max_path_cost": max(file_paths),
        "single_dc_regions": [k for k, v in dc_options.items() if v == 1],
        "overtime_used": ot_used,
        "overtime_gross_saving": base.cost - ot.cost,
        "overtime_net_used": base.cost - ot.cost - inp.overtime_premium * ot_used,
        "protected": protected,
        "protect_cost": protected.cost - peak.cost,
        "peak_overtime": peak_ot,
        "peak_overtime_used": peak_ot_used,
        "peak_overtime_net": peak.cost - peak_ot.cost - inp.peak_overtime_premium * peak_ot_used,
        "cmh_extra_value": cut.cost - cmh_plus.cost,
        "min_path": min(paths),
        "n_paths": len(paths),
        "overtime_net_saving": base.cost - ot.cost - inp.overtime_premium * inp.overtime_cases,
        "intermodal_rate_cut": inp.intermodal_discount * im_lane.cost,
        "intermodal_reduced_cost": base.reduced_cost[INTERMODAL_LANE],
        "promo_total": sum(promo.values()),
        "promo_dup_value": dup_typo,
        "promo_naive_total": sum(promo.values()) + dup_typo,
    }


def shortfall_range(net: Network, penalty: float, region: str, slack: float = 1.0) -> tuple[float, float]:
    """Least and most a region can be shorted by a plan within ``slack`` dollars of the optimum."""
    prog = _program(net, penalty)
    opt = prog.solve()
    k = len(prog.inbound) + len(prog.outbound) + [r.code for r in net.regions].index(region)
    obj = np.zeros(len(prog.cost))
    obj[k] = 1.0
    lo, hi = prog.solve(obj, opt.fun + slack), prog.solve(-obj, opt.fun + slack)
    if lo.status != 0 or hi.status != 0:
        raise RuntimeError(f"shortfall range for {region} did not solve")
    return float(lo.fun), float(-hi.fun)


# --------------------------------------------------------------------------- instances


def story_breaks(net: Network, inputs: Inputs, s: dict[str, Any]) -> list[str]:
    """The script's claims that these numbers would make false (empty when the meeting holds as written)."""
    pre, base, cut, peak = s["pre"], s["base"], s["cut"], s["peak"]
    greedy, cgreedy = s["greedy"], s["cut_greedy"]
    penalty, cut_net, peak_net = inputs.penalty, s["cut_net"], s["peak_net"]
    g_lanes = _greedy_lanes(greedy)
    shortfall = sum(peak.unmet.values())
    base_u = {p.code: _util(base.plant_output[p.code], p.capacity) for p in net.plants} | {
        d.code: _util(base.dc_throughput[d.code], d.capacity) for d in net.dcs
    }
    split = split_regions(net, cut)
    checks: dict[str, bool] = {
        "plants tight but feasible": 90 < s["plant_utilisation_needed_pct"] < 99,
        "dearest path well under the penalty": s["max_path_cost"] < 0.8 * penalty,
        "Dallas contract rate is a rise": inputs.dallas_contract_handling
        > net.dc(DALLAS_FILE_HANDLING).handling_cost,
        "no flows move with the Dallas rate": {k: round(v) for k, v in pre.flows.items()}
        == {k: round(v) for k, v in base.flows.items()},
        "Reno, Macon and Columbus bind": binding(base.plant_dual) == binding(pre.plant_dual) == ["RNO", "MCN"]
        and binding(base.dc_dual) == binding(pre.dc_dual) == ["CMH"],
        "inbound lanes as walked through": {
            k for k, q in base.flows.items() if q > _TOL and k[0] in ("RNO", "JOL", "MCN")
        }
        == {("RNO", "STK"), ("JOL", "CMH"), ("JOL", "ABE"), ("JOL", "STK"), ("MCN", "DAL"), ("MCN", "ABE")},
        "cheapest-first spends Macon on Columbus, trucks Joliet to Dallas": g_lanes.get(("MCN", "CMH"), 0.0)
        > _TOL
        and g_lanes.get(("JOL", "DAL"), 0.0) > _TOL
        and base.reduced_cost[("JOL", "DAL")] > 0.005,
        "cheapest-first serves everyone": greedy.unmet < _TOL and cgreedy.unmet < _TOL,
        "savings material, wider after the cut": 100_000 <= greedy.cost - base.cost < 1_000_000
        and cgreedy.cost - cut.cost > greedy.cost - base.cost,
        "same production as cheapest-first": all(
            abs(g.plant_output(p) - q) < 0.5
            for lp, g in ((base, greedy), (cut, cgreedy))
            for p, q in lp.plant_output.items()
        )
        and all(
            abs(g.dc_throughput(d) - q) < 0.5
            for lp, g in ((base, greedy), (cut, cgreedy))
            for d, q in lp.dc_throughput.items()
        ),
        "Reno overtime: usable part is the Joliet volume into Stockton": 0
        < s["overtime_used"]
        < inputs.overtime_cases
        and abs(s["overtime_used"] - base.flows[("JOL", "STK")]) < 0.5
        and s["overtime_net_saving"] < 0 < s["overtime_net_used"],
        "intermodal would not enter": s["intermodal_rate_cut"] < s["intermodal_reduced_cost"],
        "Allentown is the emptiest building": base_u["ABE"] < min(u for k, u in base_u.items() if k != "ABE"),
        "Dallas has room before the cut and fills after it": base.dc_throughput["DAL"]
        < net.dc("DAL").capacity - 1
        and abs(cut.dc_throughput["DAL"] - cut_net.dc("DAL").capacity) < 0.5,
        "the cut binds and everyone is still served": cut.dc_dual["CMH"] > 0.005
        and cut.dc_dual["DAL"] > 0.005
        and sum(cut.unmet.values()) < _TOL
        and binding(cut.plant_dual) == ["RNO", "MCN"],
        "the Columbus volume goes to Dallas and Allentown": net.dc(CUT_DC).capacity - inputs.cut_capacity
        >= 50_000
        and abs(cut.dc_throughput["STK"] - base.dc_throughput["STK"]) < 0.5
        and cut.dc_throughput["ABE"] > base.dc_throughput["ABE"] + 0.5,
        "Upper Midwest to Dallas, part of the Southeast to Allentown": cut.flows[("DAL", "UMW")]
        > base.flows[("DAL", "UMW")] + 0.5
        and cut.flows[("ABE", "SEA")] > base.flows[("ABE", "SEA")] + 0.5
        and cut.flows[("CMH", "SEA")] > _TOL
        and cut.flows[("JOL", "ABE")] > base.flows[("JOL", "ABE")] + 0.5,
        "two or more regions split, each across two DCs": len(split) >= 2
        and all(sum(cut.flows.get((d.code, r), 0.0) > _TOL for d in net.dcs) == 2 for r in split),
        "extra Columbus block inside the shadow price's range": abs(
            s["cmh_extra_value"] - EXTRA_CMH_CASES * cut.dc_dual["CMH"]
        )
        < 1.0,
        "Joliet spare, dearer than Macon into Allentown": cut_net.plant("JOL").capacity
        - cut.plant_output["JOL"]
        > 1000
        and cut.flows[("MCN", "ABE")] > _TOL
        and cut_net.plant("JOL").production_cost + cut_net.lane("JOL", "ABE").cost
        > cut_net.plant("MCN").production_cost + cut_net.lane("MCN", "ABE").cost + 0.005,
        "the promo typo swaps two different digits": 100_000 <= s["promo"][DUPLICATE_REGION] < 1_000_000
        and s["promo_dup_value"] != s["promo"][DUPLICATE_REGION]
        and s["promo_naive_total"] > s["total_plant_capacity"],
        "peak short by exactly the plant gap": 5_000 <= shortfall
        and abs(shortfall - (s["promo_total"] - s["total_plant_capacity"])) < 0.5,
        "the model shorts the Northwest and protecting it moves the gap": peak.unmet[PROTECTED_REGION] > _TOL
        and bool([k for k, v in s["protected"].unmet.items() if v > _TOL and peak.unmet[k] <= _TOL])
        and abs(sum(s["protected"].unmet.values()) - shortfall) < 0.5
        and peak.flows[("JOL", "STK")] > _TOL,
        "peak: plants and every DC but Stockton full": all(
            abs(peak.plant_output[p.code] - p.capacity) < 0.5 for p in peak_net.plants
        )
        and all(abs(peak.dc_throughput[d.code] - d.capacity) < 0.5 for d in peak_net.dcs if d.code != "STK")
        and peak.dc_throughput["STK"] < peak_net.dc("STK").capacity - 1
        and peak.dc_throughput["ABE"] > cut.dc_throughput["ABE"] + 0.5,
        "Joliet weekend shifts clear the whole gap and pay": abs(s["peak_overtime_used"] - shortfall) < 0.5
        and shortfall < inputs.peak_overtime_cases
        and sum(s["peak_overtime"].unmet.values()) < 0.5
        and s["peak_overtime_net"] > 0,
    }
    broken = [claim for claim, holds in checks.items() if not holds]
    if not broken:
        for r in net.regions:
            lo, hi = shortfall_range(peak_net, penalty, r.code)
            if hi - lo > 50.0 or abs(lo - peak.unmet[r.code]) > 50.0:  # cases; $1 of slack moves a few
                broken.append(f"the peak shortfall split is not unique ({r.code})")
    return broken


def instance(seed: int = 0) -> tuple[Inputs, Network, dict[str, Any]]:
    """The inputs, network and solution of one instance; seed 0 is the scenario as first written.

    Other seeds draw inputs from ``numpy.random.default_rng(seed)`` until the script's story holds.
    """
    rng = np.random.default_rng(seed) if seed else None
    for _attempt in range(500):
        inputs = Inputs() if rng is None else _draw(rng)
        net = generate(inputs)
        try:
            s = solve(net, inputs)
            if rng is not None:
                inputs = _fit(rng, inputs, net, s)
                s = solve(net, inputs)
        except RuntimeError as exc:  # e.g. the protected region cannot be served at all
            broken = [str(exc)]
        else:
            broken = story_breaks(net, inputs, s)
        if not broken:
            return inputs, net, s
        if rng is None:
            raise AssertionError(f"the scenario as written breaks its own story: {broken}")
        logger.debug("seed %d: draw rejected (%s)", seed, "; ".join(broken))
    raise RuntimeError(f"no inputs for seed {seed} keep the story true")


# --------------------------------------------------------------------------- scenario building


def _usd(x: float) -> str:
    return f"${x:,.0f}"


def _rate(x: float) -> str:
    return f"${x:,.2f}"


def _n(x: float) -> str:
    return f"{x:,.0f}"


def _pct(x: float, digits: int = 1) -> str:
    return f"{x:.{digits}f}%"


def _words(n: int) -> str:
    """A whole number under a thousand as the persona says it: 26 → 'twenty-six', 150 → 'a hundred and fifty'."""
    return say_number(n, a_hundred=True)


def _say_rate(x: float) -> str:
    """A $/case rate spoken: 0.94 → '94 cents', 1.14 → 'a dollar fourteen', 2.05 → 'two dollars oh five'."""
    cents = int(round(x * 100))
    dollars, rest = divmod(cents, 100)
    if dollars == 0:
        return f"{rest} cents"
    said = "a dollar" if dollars == 1 else _words(dollars) + " dollars"
    return said if rest == 0 else said + (" oh " if rest < 10 else " ") + _words(rest)


def _say_thousands(x: float) -> str:
    """Dollars rounded down to ten thousand, spoken: 156,527 → 'a hundred and fifty grand'."""
    return _words(int(x // 10_000) * 10) + " grand"


def _say_millions(x: float) -> str:
    return _words(int(round(x / 1e6))) + " million"


def _and(items: Any) -> str:
    """'A, B and C' from names."""
    xs = list(items)
    return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]


def _num(fid: str, desc: str, value: float, unit: str, tol: float = 0.5) -> ExpectedFact:
    return ExpectedFact(id=fid, description=desc, value=float(value), unit=unit, tolerance_pct=tol)


def _kw(fid: str, desc: str, *keywords: str) -> ExpectedFact:
    return ExpectedFact(id=fid, description=desc, value=keywords[0], keywords=list(keywords))


@dataclass
class _Meeting:
    """Collects turns and the reference solution's edits while the dialogue is written in order."""

    turns: list[Turn] = field(default_factory=list)
    mutations: list[ExpectedMutation] = field(default_factory=list)

    def turn(
        self,
        phase: str,
        channel: str,
        response_type: str,
        utterance: str,
        action: str,
        facts: list[ExpectedFact],
        reference: str,
        *,
        wait: float = 45,
        chat: str | None = None,
        screen: Slide | None = None,
        files: tuple[str, ...] = (),
        edge: str | None = None,
        barge_in: float | None = None,
        reference_chat: str | None = None,
    ) -> int:
        t = Turn(
            turn_index=len(self.turns),
            human_utterance=utterance,
            expected_agent_action=action,
            phase=phase,  # type: ignore[arg-type]
            channel=channel,  # type: ignore[arg-type]
            expected_response_type=response_type,
            wait_for_agent_sec=wait,
            chat_message=chat,
            screen=screen,
            files=list(files),
            edge_case=edge,
            barge_in_after_sec=barge_in,
            expected_facts=facts,
            reference_response=reference,
            reference_chat=reference_chat,
        )
        self.turns.append(t)
        return t.turn_index

    def edit(self, product: str, mutation_type: str, tokens: list[str | int], value: Any) -> None:
        """Record an edit at the turn being written (the last one added)."""
        scalar = value is None or isinstance(value, str | int | float) and not isinstance(value, bool)
        self.mutations.append(
            ExpectedMutation(
                turn_index=len(self.turns) - 1,
                product_id=product,
                mutation_type=mutation_type,  # type: ignore[arg-type]
                path=make_pointer(tokens) if tokens else "",
                expected_value=value if scalar and mutation_type != "create" else None,
                value=None if scalar and mutation_type != "create" else value,
            )
        )


def _util(used: float, cap: float) -> float:
    return round(100.0 * used / cap, 1)


def _flow_row(net: Network, lane: tuple[str, str], cases: float) -> dict[str, Any]:
    ln = net.lane(*lane)
    return {
        "origin": ln.origin,
        "destination": ln.destination,
        "leg": ln.leg,
        "cases": cases,
        "rate_per_case": ln.cost,
        "freight_cost": round(cases * ln.cost, 2),
    }


def _freight(net: Network, flows: dict[tuple[str, str], float], leg: str) -> float:
    return sum(q * net.lane(*k).cost for k, q in flows.items() if net.lane(*k).leg == leg)


def _greedy_lanes(g: GreedyResult) -> dict[tuple[str, str], float]:
    lanes: dict[tuple[str, str], float] = {}
    for (p, d, r), q in g.path_flows.items():
        lanes[(p, d)] = lanes.get((p, d), 0.0) + q
        lanes[(d, r)] = lanes.get((d, r), 0.0) + q
    return lanes


def _lane_id(lane: tuple[str, str]) -> str:
    return f"{lane[0]}-{lane[1]}"


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


def build(seed: int = 0) -> Scenario:
    """The Q4 distribution-optimisation meeting, every derived number taken from ``solve()``.

    Seed 0 is the meeting as first written; another seed is the same meeting on freshly drawn numbers.
    """
    inp, net, s = instance(seed)
    pre: LPResult = s["pre"]
    base: LPResult = s["base"]
    cut: LPResult = s["cut"]
    peak: LPResult = s["peak"]
    greedy: GreedyResult = s["greedy"]
    cgreedy: GreedyResult = s["cut_greedy"]
    base_net: Network = s["base_net"]
    cut_net: Network = s["cut_net"]
    peak_net: Network = s["peak_net"]
    promo: dict[str, float] = s["promo"]
    demand = s["total_demand"]
    pname = {p.code: p.name.rsplit(" ", 1)[0] for p in net.plants}
    dname = {d.code: d.name.rsplit(" ", 1)[0] for d in net.dcs}
    rname = {r.code: r.name for r in net.regions}
    fac_names = [pname[p.code] + " plant" for p in net.plants] + [dname[d.code] + " DC" for d in net.dcs]

    def utils(r: LPResult, n: Network) -> list[float]:
        return [_util(r.plant_output[p.code], p.capacity) for p in n.plants] + [
            _util(r.dc_throughput[d.code], d.capacity) for d in n.dcs
        ]

    n_in = sum(1 for ln in net.lanes if ln.leg == "inbound")
    n_out_all = sum(1 for ln in net.lanes if ln.leg == "outbound")
    n_vars = n_in + base.eligible_outbound + len(net.regions)
    n_cons = len(net.plants) + 2 * len(net.dcs) + len(net.regions)
    min_cost, min_p, min_d, min_r = s["min_path"]
    corr_delta = base.cost - pre.cost
    dal_handling_file = net.dc("DAL").handling_cost
    greedy_production = sum(
        q * base_net.plant(p).production_cost for (p, _d, _r), q in greedy.path_flows.items()
    )
    greedy_logistics = greedy.cost - greedy_production
    savings = greedy.cost - base.cost
    savings_pct = 100 * savings / greedy_logistics
    # One decimal unless that is off by more than the fact's 1% tolerance (2.95% is not "3.0%").
    savings_pct_said = _pct(
        savings_pct, 1 if abs(round(savings_pct, 1) - savings_pct) <= savings_pct / 100 else 2
    )
    cut_savings = cgreedy.cost - cut.cost
    cut_delta = cut.cost - base.cost
    g_lanes = _greedy_lanes(greedy)
    cg_lanes = _greedy_lanes(cgreedy)
    shift = {d.code: cut.dc_throughput[d.code] - base.dc_throughput[d.code] for d in net.dcs}
    shortfall = sum(peak.unmet.values())
    short_regions = [k for k, v in peak.unmet.items() if v > _TOL]
    protected: LPResult = s["protected"]
    moved_to = [k for k, v in protected.unmet.items() if v > _TOL and peak.unmet[k] <= _TOL]
    split = split_regions(net, cut)
    max_out_days = max(
        net.lane(*k).transit_days for k, q in cut.flows.items() if q > _TOL and net.lane(*k).leg == "outbound"
    )
    cut_in_freight, cut_out_freight = (
        _freight(cut_net, cut.flows, "inbound"),
        _freight(cut_net, cut.flows, "outbound"),
    )
    cg_in_freight, cg_out_freight = (
        _freight(cut_net, cg_lanes, "inbound"),
        _freight(cut_net, cg_lanes, "outbound"),
    )
    cut_handling = sum(cut.dc_throughput[d.code] * cut_net.dc(d.code).handling_cost for d in net.dcs)
    jol_spare = cut_net.plant("JOL").capacity - cut.plant_output["JOL"]
    jol_vs_mcn_abe = (
        cut_net.plant("JOL").production_cost
        + cut_net.lane("JOL", "ABE").cost
        - cut_net.plant("MCN").production_cost
        - cut_net.lane("MCN", "ABE").cost
    )
    weekly = {d: cut.dc_throughput[d] / WEEKS_IN_Q4 for d in ("DAL", "ABE")}
    peak_stk_util = 100 * peak.dc_throughput["STK"] / peak_net.dc("STK").capacity
    rno, mcn, cmh = base.plant_dual["RNO"], base.plant_dual["MCN"], base.dc_dual["CMH"]
    im_rc, im_cut = s["intermodal_reduced_cost"], s["intermodal_rate_cut"]
    im_rate = base_net.lane(*INTERMODAL_LANE).cost
    im_pct = _pct(100 * inp.intermodal_discount, 0)
    peak_ot_used, peak_ot_net = s["peak_overtime_used"], s["peak_overtime_net"]

    m = _Meeting()
    C, A, E, H = "context_setting", "active_work", "edge_case", "deliverable_handoff"

    # ------------------------------------------------------------------ context setting
    m.turn(
        C,
        "audio",
        "verbal",
        "Morning, thanks for jumping on. I'm Marisol Ortega, I run logistics planning at Harrow and Finch. Peak is six "
        "weeks out and I owe Dev, our VP of supply chain, a Q4 distribution plan by Thursday. Three plants, four DCs, "
        "eight customer regions. Today my planners build it in Excel, cheapest lane first until things fill up. I want "
        "an actual optimised plan: what each plant ships to each DC and what each DC ships to each region, at the "
        "lowest landed cost. How would you set that up?",
        "Frame it as a minimum-cost transshipment linear program (plant → DC → region), name the cost components and "
        "constraints, and say what data is needed.",
        [
            _kw(
                "sc_frame_lp",
                "Frames the problem as a transshipment linear program",
                "linear program",
                "transshipment",
                "min-cost flow",
                "LP",
            )
        ],
        "I'd set it up as a transshipment linear program: cases flow plant to DC to region, and we minimise landed cost "
        "= production + inbound freight + DC handling + outbound freight, subject to plant capacity, DC throughput, "
        "flow balance at each DC and each region's Q4 demand. Send me capacities, unit costs, demand and the lane rate "
        "card and I'll solve it to proven optimality with HiGHS.",
        wait=40,
    )
    m.turn(
        C,
        "screen",
        "clarification",
        "This is the network. Plants in Reno, Joliet and Macon; DCs in Stockton, Dallas, Columbus and Allentown; the "
        "regions are our eight sales regions. Anything you need to know before I send the files?",
        "Ask the questions that change the model: transit/service limits on lanes, whether plants can ship direct, "
        "whether DC fixed costs are in scope, and what a lost sale costs if capacity runs short.",
        [
            _kw(
                "sc_ask_service",
                "Asks about a transit-time or service-level limit on lanes",
                "transit",
                "service level",
                "lead time",
                "OTIF",
            ),
            _kw(
                "sc_ask_shortfall",
                "Asks how to price demand that cannot be served",
                "lost sale",
                "shortfall",
                "unmet demand",
                "penalty",
            ),
        ],
        "Four questions before I build: is there a transit-time or service-level cap on DC-to-customer lanes, can "
        "plants ship direct to customers or does everything go through a DC, are DC fixed costs in scope for Q4, and "
        "if capacity runs short what does a lost sale cost us, so I can price unmet demand as a shortfall penalty "
        "instead of letting the model go infeasible?",
        screen=Slide(
            slide_id="network_overview",
            kind="bullets",
            title="Harrow & Finch Q4 network",
            subtitle="Peak season: October to December",
            bullets=[
                "Plants: " + ", ".join(p.name for p in net.plants),
                "Distribution centres: " + ", ".join(d.name for d in net.dcs),
                "Customer regions: " + ", ".join(r.name for r in net.regions),
                "All volumes in cases; planning horizon is the quarter",
            ],
            footnote="Source: Harrow & Finch logistics planning",
        ),
    )
    m.turn(
        C,
        "data",
        "analysis",
        "Pushing plants and DCs now. Capacities are Q4 cases, October through December. The fixed cost column in "
        "the DC file is the quarter's lease and core staffing.",
        "Read both files, state total plant capacity and total DC throughput, and note that quarterly fixed costs do "
        "not change the flow decision.",
        [
            _num("sc_total_plant_cap", "Total Q4 plant capacity", s["total_plant_capacity"], "cases"),
            _num("sc_total_dc_cap", "Total Q4 DC throughput capacity", s["total_dc_capacity"], "cases"),
            _kw(
                "sc_fixed_sunk",
                "DC fixed costs are sunk for the quarter and do not affect flows",
                "sunk",
                "don't affect",
                "do not affect",
                "doesn't change",
            ),
        ],
        f"Got them. Total plant capacity is {_n(s['total_plant_capacity'])} cases and total DC throughput is "
        f"{_n(s['total_dc_capacity'])} cases for the quarter. The DC fixed costs are sunk for Q4 with all four "
        "buildings open, so they don't affect which lanes we use; I'll report them but keep them out of the objective.",
        files=("plants.csv", "dcs.csv"),
    )
    m.turn(
        C,
        "data",
        "analysis",
        "And here's Q4 demand by region and the lane rate card out of our TMS: inbound truckload and outbound LTL, "
        "cost per case, transit days and miles.",
        "Total the demand, compare it with plant capacity, and count the lanes.",
        [
            _num("sc_total_demand", "Total Q4 demand", demand, "cases"),
            _num(
                "sc_plant_util_needed",
                "Share of plant capacity the demand needs",
                s["plant_utilisation_needed_pct"],
                "%",
            ),
            _num("sc_lane_count", "Number of lanes in the rate card", len(net.lanes), "lanes", 0.0),
        ],
        f"Q4 demand totals {_n(demand)} cases, which needs {_pct(s['plant_utilisation_needed_pct'])} of plant "
        f"capacity, so plants are tight but feasible. The rate card has {len(net.lanes)} lanes: {n_in} inbound "
        f"plant-to-DC and {n_out_all} outbound DC-to-region.",
        files=("demand.csv", "lanes.csv"),
    )
    m.turn(
        C,
        "audio",
        "clarification",
        "To your questions. Outbound transit is three days max, that's our OTIF commitment with the big-box accounts. "
        "No direct-to-customer, everything goes through a DC. Fixed costs, leases are signed, ignore them.",
        "Apply the three-day rule to the outbound lanes, say how many survive and what it implies for coverage.",
        [
            _num(
                "sc_excluded_lanes",
                "Outbound lanes removed by the three-day rule",
                base.excluded_outbound,
                "lanes",
                0.0,
            ),
            _num(
                "sc_eligible_lanes",
                "Outbound lanes left after the three-day rule",
                base.eligible_outbound,
                "lanes",
                0.0,
            ),
            _kw(
                "sc_single_dc_region",
                "Pacific Northwest can only be served from Stockton",
                rname[s["single_dc_regions"][0]],
                "Stockton only",
            ),
        ],
        f"The three-day cap removes {base.excluded_outbound} of the {n_out_all} outbound lanes, leaving "
        f"{base.eligible_outbound}. One consequence: {rname[s['single_dc_regions'][0]]} can only be reached from "
        "Stockton within three days, so Stockton capacity is effectively reserved for it.",
    )
    m.turn(
        C,
        "chat",
        "verbal",
        "I put the penalty in chat, that's the number finance signed off for S&OP.",
        "Confirm the objective and check the penalty is above the most expensive eligible path, so shortfall only "
        "appears when capacity truly runs out.",
        [
            _num(
                "sc_max_path",
                "Most expensive eligible plant→DC→region path, landed",
                s["max_path_cost"],
                "$/case",
            )
        ],
        f"Confirmed: objective is total landed cost and unmet demand is priced at {_rate(inp.penalty)} a case. "
        f"The most expensive eligible path in the network lands at {_rate(s['max_path_cost'])} a case, well under "
        "the penalty, so the model will never short-ship to save money; a shortfall only shows up if capacity runs out.",
        chat=(
            f"Lost-sale penalty: ${inp.penalty:.2f}/case (gross margin ${inp.gross_margin:.2f} + avg retailer "
            f"short-ship fine ${inp.short_ship_fine:.2f}). Objective = total landed cost: production + inbound + handling + outbound. Units = cases."
        ),
    )

    # ------------------------------------------------------------------ active work: baseline
    skeleton_memo = {
        "title": "Q4 distribution plan: optimisation memo",
        "sections": [{"title": t, "text": ""} for t in MEMO_SECTIONS],
    }
    m.turn(
        A,
        "audio",
        "work_product",
        "Good. I dropped a memo skeleton into the doc. Fill in the problem and the formulation first so Dev can see "
        "what we actually did, he hates black boxes.",
        "Write the problem and model sections of the memo, with the size of the LP.",
        [
            _num("sc_n_vars", "Decision variables in the LP", n_vars, "variables", 0.0),
            _num("sc_n_cons", "Constraints in the LP", n_cons, "constraints", 0.0),
        ],
        f"Done. The model section spells out {n_vars} decision variables ({n_in} inbound lanes, "
        f"{base.eligible_outbound} eligible outbound lanes, {len(net.regions)} regional shortfall variables) and "
        f"{n_cons} constraints: {len(net.plants)} plant capacity, {len(net.dcs)} DC throughput, {len(net.dcs)} DC "
        f"flow balance and {len(net.regions)} demand rows.",
    )
    m.edit(MEMO, "create", [], skeleton_memo)
    m.edit(
        MEMO,
        "update_section",
        ["sections", 1, "text"],
        f"Plan Q4 flows for {len(net.plants)} plants, {len(net.dcs)} DCs and {len(net.regions)} regions "
        f"({_n(demand)} cases of demand against {_n(s['total_plant_capacity'])} cases of plant capacity) at "
        f"minimum landed cost, with every outbound lane within {MAX_OUTBOUND_DAYS} transit days (OTIF) and all "
        "volume routed through a DC. DC fixed costs are sunk for the quarter and excluded from the objective.",
    )
    m.edit(
        MEMO,
        "update_section",
        ["sections", 2, "text"],
        f"Transshipment linear program solved with HiGHS. {n_vars} variables: {n_in} inbound lane flows, "
        f"{base.eligible_outbound} outbound lane flows ({base.excluded_outbound} lanes over {MAX_OUTBOUND_DAYS} "
        f"days excluded) and {len(net.regions)} shortfall variables priced at {_rate(inp.penalty)}/case. "
        f"{n_cons} constraints: plant capacity, DC throughput, DC flow balance, regional demand. Objective: "
        "production + inbound freight + handling + outbound freight + shortfall penalty.",
    )
    m.turn(
        A,
        "audio",
        "work_product",
        "And start the plan spreadsheet. Inputs first, laid out the way the planners will recognise.",
        "Create the distribution plan with plant and DC input sheets; orient on the cost range of the network.",
        [
            _num("sc_min_path", "Cheapest landed path in the network", min_cost, "$/case"),
            _kw(
                "sc_min_path_route",
                f"The cheapest path runs {pname[min_p]} → {dname[min_d]} → {rname[min_r]}",
                rname[min_r],
            ),
        ],
        f"Inputs are in: a plants sheet and a DCs sheet with capacity and unit cost. For orientation, the cheapest "
        f"single path is {pname[min_p]} → {dname[min_d]} → {rname[min_r]} at {_rate(min_cost)} a case landed, and "
        f"the most expensive eligible one is {_rate(s['max_path_cost'])}.",
    )
    m.edit(PLAN, "create", [], {})
    for p in net.plants:
        m.edit(
            PLAN,
            "add_row",
            ["plants", p.code],
            {"plant": p.name, "capacity_cases": p.capacity, "production_cost": p.production_cost},
        )
    for d in net.dcs:
        m.edit(
            PLAN,
            "add_row",
            ["dcs", d.code],
            {"dc": d.name, "capacity_cases": d.capacity, "handling_cost": d.handling_cost},
        )
    m.turn(
        A,
        "audio",
        "analysis",
        "Okay, run it.",
        "Solve the LP and report the optimal landed cost, its split, and that all demand is met.",
        [
            _num("sc_pre_cost", "Optimal landed cost with the file's rates", pre.cost, "$", 0.1),
            _num("sc_pre_logistics", "Freight and handling part of it", pre.logistics_cost, "$", 0.2),
        ],
        f"Solved to optimality: total landed cost {_usd(pre.cost)} for the quarter, of which {_usd(pre.logistics_cost)} "
        f"is freight and handling and {_usd(pre.production_cost)} production. Every region is fully served; binding "
        f"constraints are {_and(pname[c] for c in binding(pre.plant_dual))} plant capacity and "
        f"{_and(dname[c] for c in binding(pre.dc_dual))} throughput.",
        wait=60,
    )
    m.edit(PLAN, "add_row", ["summary", "total_landed_cost"], {"baseline": pre.cost})
    m.turn(
        A,
        "audio",
        "correction",
        f"Wait, before you go further. Dallas handling in that file says {_say_rate(dal_handling_file)}. "
        "That's the old 3PL rate. The new contract kicked in October first, it's "
        f"{_say_rate(inp.dallas_contract_handling)}. My mistake, "
        "re-run it with that.",
        "Update the Dallas handling rate, re-solve, and quantify the change and whether flows move.",
        [
            _num("sc_base_cost", "Optimal landed cost at the contract Dallas rate", base.cost, "$", 0.1),
            _num("sc_corr_delta", "Increase from the Dallas rate correction", corr_delta, "$", 0.5),
            _num(
                "sc_dal_volume",
                "Cases through Dallas (unchanged by the correction)",
                base.dc_throughput["DAL"],
                "cases",
            ),
        ],
        f"Re-solved at {_rate(inp.dallas_contract_handling)}: total landed cost is now {_usd(base.cost)}, up "
        f"{_usd(corr_delta)}, which is exactly the {_n(base.dc_throughput['DAL'])} cases through Dallas times the "
        f"{_rate(inp.dallas_contract_handling - dal_handling_file)} increase. No flows moved: Dallas is still the "
        "cheapest way to serve its regions even at the new rate.",
    )
    m.edit(PLAN, "update_cell", ["dcs", "DAL", "handling_cost"], inp.dallas_contract_handling)
    m.edit(PLAN, "update_cell", ["summary", "total_landed_cost", "baseline"], base.cost)
    m.edit(PLAN, "add_row", ["summary", "production_cost"], {"baseline": base.production_cost})
    m.edit(PLAN, "add_row", ["summary", "logistics_cost"], {"baseline": base.logistics_cost})
    m.turn(
        A,
        "screen",
        "analysis",
        "This is what my planners built last week with the same inputs, cheapest lane first. Total is at the bottom.",
        "Compare the current plan with the optimum: savings in dollars and as a share of the controllable "
        "freight-and-handling spend.",
        [
            _num("sc_savings", "Savings of the optimal plan over the current plan", savings, "$", 0.5),
            _num(
                "sc_savings_pct",
                "Savings as a share of the current plan's freight and handling",
                savings_pct,
                "%",
                1.0,
            ),
        ],
        f"Against your planners' {_usd(greedy.cost)}, the optimal plan saves {_usd(savings)}. Production cost is "
        f"identical in both, so that's {savings_pct_said} of the {_usd(greedy_logistics)} of freight and handling "
        "we actually control.",
        screen=Slide(
            slide_id="current_plan",
            kind="table",
            title="Current Q4 plan: cheapest lane first",
            subtitle=f"Total landed cost {_usd(greedy.cost)}",
            table=TableSpec(
                columns=["DC", "Cases", *(f"from {pname[p.code]}" for p in net.plants)],
                rows=[
                    [
                        dname[d.code],
                        greedy.dc_throughput(d.code),
                        *(g_lanes.get((p.code, d.code), 0.0) for p in net.plants),
                    ]
                    for d in net.dcs
                ],
            ),
            footnote="Planners' Excel build, contract handling rates",
        ),
    )
    m.edit(PLAN, "add_row", ["summary", "current_plan_cost"], {"baseline": greedy.cost})
    m.edit(PLAN, "add_row", ["summary", "savings_vs_current"], {"baseline": savings})
    m.turn(
        A,
        "data",
        "analysis",
        "Here's the lane-level file behind that slide, so you can see exactly what they did.",
        "Recompute the current plan's cost from the file and point at the lanes where it differs from the optimum.",
        [
            _num(
                "sc_greedy_cost", "Current plan's landed cost recomputed from its file", greedy.cost, "$", 0.1
            ),
            _num(
                "sc_greedy_jol_dal",
                "Cases the current plan trucks Joliet → Dallas",
                g_lanes.get(("JOL", "DAL"), 0.0),
                "cases",
            ),
            _num(
                "sc_greedy_mcn_cmh",
                "Cases of Macon capacity the current plan spends on Columbus",
                g_lanes.get(("MCN", "CMH"), 0.0),
                "cases",
            ),
        ],
        f"Recomputed from the file it's {_usd(greedy.cost)}, so we agree on the inputs. The difference is the "
        f"pairing: the current plan spends {_n(g_lanes.get(('MCN', 'CMH'), 0.0))} cases of Macon's capacity on "
        f"Columbus and then has to truck {_n(g_lanes.get(('JOL', 'DAL'), 0.0))} cases Joliet to Dallas. The optimum "
        "feeds Columbus from Joliet and Dallas from Macon. I've written that into the comparison section.",
        files=("current_plan.csv",),
    )
    m.edit(
        MEMO,
        "update_section",
        ["sections", 4, "text"],
        f"The planners' cheapest-lane-first plan costs {_usd(greedy.cost)}; the optimum costs {_usd(base.cost)}, "
        f"saving {_usd(savings)} ({savings_pct_said} of freight and handling) with identical production. "
        f"Cheapest-first spends {_n(g_lanes.get(('MCN', 'CMH'), 0.0))} cases of Macon capacity on Columbus and "
        f"then ships {_n(g_lanes.get(('JOL', 'DAL'), 0.0))} cases Joliet → Dallas; the optimum pairs Joliet with "
        "Columbus and Macon with Dallas.",
    )
    inbound_base = [k for k, q in base.flows.items() if q > _TOL and net.lane(*k).leg == "inbound"]
    outbound_base = [k for k, q in base.flows.items() if q > _TOL and net.lane(*k).leg == "outbound"]
    m.turn(
        A,
        "audio",
        "work_product",
        "Walk me through where the volume goes in your plan, and put the flows in the sheet.",
        "Describe the inbound flows plant by plant and add them to a flows sheet.",
        [
            _num("sc_jol_cmh", "Joliet → Columbus cases", base.flows[("JOL", "CMH")], "cases"),
            _num("sc_mcn_abe", "Macon → Allentown cases", base.flows[("MCN", "ABE")], "cases"),
            _num("sc_mcn_dal", "Macon → Dallas cases", base.flows[("MCN", "DAL")], "cases"),
        ],
        f"Reno ships all {_n(base.flows[('RNO', 'STK')])} cases to Stockton. Joliet sends "
        f"{_n(base.flows[('JOL', 'CMH')])} to Columbus, {_n(base.flows[('JOL', 'ABE')])} to Allentown and "
        f"{_n(base.flows[('JOL', 'STK')])} to Stockton. Macon sends {_n(base.flows[('MCN', 'DAL')])} to Dallas and "
        f"{_n(base.flows[('MCN', 'ABE')])} to Allentown. Inbound lanes are in the flows sheet.",
    )
    for k in inbound_base:
        m.edit(PLAN, "add_row", ["flows", _lane_id(k)], _flow_row(base_net, k, base.flows[k]))
    base_u = utils(base, base_net)
    m.turn(
        A,
        "chat",
        "work_product",
        "I asked for the outbound side in chat too. Dev always asks how full the buildings are.",
        "Add outbound flows and plant/DC utilisation to the sheet and report the DC utilisation.",
        [
            _num("sc_abe_util", "Allentown utilisation in the optimal plan", base_u[6], "%"),
            _num("sc_dal_util", "Dallas utilisation in the optimal plan", base_u[4], "%"),
            _num("sc_stk_util", "Stockton utilisation in the optimal plan", base_u[3], "%"),
        ],
        f"Outbound lanes and utilisation are in. Columbus runs at {_pct(base_u[5])}, Stockton {_pct(base_u[3])}, "
        f"Dallas {_pct(base_u[4])} and Allentown only {_pct(base_u[6])}. {_and(pname[c] for c in binding(base.plant_dual))} plants are at 100%, "
        f"Joliet at {_pct(base_u[1])}.",
        chat="outbound lanes + utilisation by DC and plant pls. Dev always asks 'how full are the buildings'",
    )
    for k in outbound_base:
        m.edit(PLAN, "add_row", ["flows", _lane_id(k)], _flow_row(base_net, k, base.flows[k]))
    for i, p in enumerate(net.plants):
        m.edit(PLAN, "update_cell", ["plants", p.code, "planned_output"], base.plant_output[p.code])
        m.edit(PLAN, "update_cell", ["plants", p.code, "utilisation_pct"], base_u[i])
    for j, d in enumerate(net.dcs):
        m.edit(PLAN, "update_cell", ["dcs", d.code, "planned_throughput"], base.dc_throughput[d.code])
        m.edit(PLAN, "update_cell", ["dcs", d.code, "utilisation_pct"], base_u[3 + j])
    m.turn(
        A,
        "audio",
        "analysis",
        "Which constraints are actually binding? And what's an extra case of capacity worth at each one?",
        "Name the binding constraints with their shadow prices and the slack elsewhere; record them in the sheet.",
        [
            _num("sc_dual_rno", "Shadow price of Reno plant capacity", rno, "$/case", 1.0),
            _num("sc_dual_mcn", "Shadow price of Macon plant capacity", mcn, "$/case", 1.0),
            _num("sc_dual_cmh", "Shadow price of Columbus throughput", cmh, "$/case", 1.0),
            _num(
                "sc_jol_slack",
                "Spare Joliet capacity",
                base_net.plant("JOL").capacity - base.plant_output["JOL"],
                "cases",
            ),
        ],
        f"{len(binding(base.plant_dual)) + len(binding(base.dc_dual))} constraints bind. Reno capacity is worth {_rate(rno)} per extra case, Macon {_rate(mcn)} and "
        f"Columbus throughput {_rate(cmh)}. Joliet has {_n(base_net.plant('JOL').capacity - base.plant_output['JOL'])} "
        f"cases spare and {_and(dname[d.code] for d in net.dcs if d.code not in binding(base.dc_dual))} have "
        "room, so their shadow prices are zero. They're in the sheet.",
    )
    for p in net.plants:
        m.edit(PLAN, "update_cell", ["plants", p.code, "shadow_price"], round(base.plant_dual[p.code], 2))
    for d in net.dcs:
        m.edit(PLAN, "update_cell", ["dcs", d.code, "shadow_price"], round(base.dc_dual[d.code], 2))
    m.turn(
        E,
        "audio",
        "pushback",
        "Honestly, I'm not buying it. Cheapest lane first is how everybody does it. If you always take the cheapest "
        f"lane you get the cheapest plan, that's just arithmetic. And {_say_thousands(savings)} on "
        f"{_say_millions(greedy.cost)} "
        "is rounding. Your solver's probably got a units thing somewhere.",
        "Hold the position with evidence: greedy is myopic under capacity limits, the LP is provably optimal, and "
        "the gap is material against the controllable spend.",
        [
            _num("sc_greedy_gap", "Savings the optimum holds over cheapest-lane-first", savings, "$", 0.5),
            _num(
                "sc_greedy_logistics",
                "Freight and handling spend of the current plan",
                greedy_logistics,
                "$",
                0.5,
            ),
            _kw(
                "sc_greedy_why",
                "Explains why greedy fails: it uses up the cheap capacity in the wrong place",
                "Macon capacity",
                "capacity",
                "reduced cost",
                "shadow price",
            ),
        ],
        f"I'd push back on that. Cheapest-first isn't optimal when capacity is limited: it spends Macon capacity on "
        f"the single cheapest path and then pays {_rate(base.reduced_cost[('JOL', 'DAL')])} a case extra on Joliet "
        f"to Dallas. The LP result is provably optimal, every unused lane has a non-negative reduced cost, and it "
        f"uses the same inputs as your planners. The {_usd(savings)} isn't rounding: production is identical, so it "
        f"comes entirely out of the {_usd(greedy_logistics)} of freight and handling we control.",
        edge="greedy_is_optimal",
        wait=60,
    )
    m.edit(PLAN, "add_row", ["summary", "savings_pct_of_logistics"], {"baseline": round(savings_pct, 2)})
    m.turn(
        A,
        "audio",
        "analysis",
        f"Fine, fair. So Reno is binding at {_say_rate(rno)}. The plant manager offered Saturday overtime, up to "
        f"{_n(inp.overtime_cases)} cases at a {_rate(inp.overtime_premium)} premium. Do I take it?",
        "Check the shadow price's valid range by re-solving with the extra capacity, and size the overtime.",
        [
            _num("sc_ot_used", "Overtime cases the plan can actually use", s["overtime_used"], "cases"),
            _num("sc_ot_net", "Net saving buying only the usable overtime", s["overtime_net_used"], "$", 1.0),
            _num(
                "sc_ot_loss",
                f"Net loss if all {_n(inp.overtime_cases)} cases are bought",
                -s["overtime_net_saving"],
                "$",
                1.0,
            ),
        ],
        f"Only part of it. The {_rate(rno)} shadow price holds for just {_n(s['overtime_used'])} cases, which is the "
        f"Joliet volume into Stockton that Reno would displace. Buying {_n(s['overtime_used'])} cases nets "
        f"{_usd(s['overtime_net_used'])}; buying all {_n(inp.overtime_cases)} loses {_usd(-s['overtime_net_saving'])} "
        "because the last cases have nowhere cheaper to go.",
    )
    sens_base = (
        f"Binding constraints and shadow prices: Reno capacity {_rate(rno)}/case, Macon {_rate(mcn)}/case, Columbus "
        f"throughput {_rate(cmh)}/case. Reno overtime at {_rate(inp.overtime_premium)} pays only for "
        f"{_n(s['overtime_used'])} cases (net {_usd(s['overtime_net_used'])}); the full {_n(inp.overtime_cases)} loses "
        f"{_usd(-s['overtime_net_saving'])}."
    )
    m.edit(MEMO, "update_section", ["sections", 5, "text"], sens_base)
    m.turn(
        A,
        "audio",
        "verbal",
        "Side note. Our rail rep keeps pitching intermodal Reno to Columbus at "
        f"{_words(round(100 * inp.intermodal_discount))} percent under the truck rate. "
        "I keep telling him Reno product doesn't go east. His company also sponsors my kid's soccer team, so, you "
        "know. Is he crazy?",
        "Answer the tangent with the lane's reduced cost: how much cheaper it must get before it carries volume.",
        [
            _num("sc_im_rc", "Reduced cost of Reno → Columbus", im_rc, "$/case", 1.0),
            _num("sc_im_cut", f"What {im_pct} off the truck rate is worth", im_cut, "$/case", 2.0),
        ],
        f"He's not crazy, just not relevant this quarter. Reno to Columbus has a reduced cost of {_rate(im_rc)} a "
        "case: it would have to get that much cheaper before it carries a single case. "
        f"{_words(round(100 * inp.intermodal_discount)).capitalize()} percent off the "
        f"{_rate(im_rate)} truck rate is only {_rate(im_cut)}, and Reno is sold out to Stockton anyway.",
        wait=35,
    )
    m.edit(
        MEMO,
        "update_section",
        ["sections", 5, "text"],
        sens_base
        + f" Reno → Columbus intermodal at {im_pct} off saves {_rate(im_cut)}/case against a reduced cost "
        f"of {_rate(im_rc)}/case: it would not enter the plan.",
    )
    m.turn(
        A,
        "audio",
        "work_product",
        "Back to it. Start the utilisation chart, plants and DCs, for the plan as it stands.",
        "Create the utilisation chart with the baseline optimum as the first series.",
        [
            _num("sc_chart_jol", "Joliet utilisation in the baseline optimum", base_u[1], "%"),
            _num("sc_chart_abe", "Allentown utilisation, the lowest", base_u[6], "%"),
        ],
        f"Chart is up: a bar per facility, baseline optimum first. {_and([pname[c] for c in binding(base.plant_dual)] + [dname[c] for c in binding(base.dc_dual)])} are full, Joliet is at "
        f"{_pct(base_u[1])} and Allentown is the emptiest building at {_pct(base_u[6])}.",
    )
    m.edit(
        CHART,
        "create",
        [],
        {
            "chart_type": "bar",
            "title": "Q4 capacity utilisation by facility",
            "x_label": "Facility",
            "y_label": "Utilisation (%)",
            "categories": fac_names,
            "series": [],
        },
    )
    m.edit(CHART, "add_chart_series", ["series", 0], {"name": "Baseline optimum", "values": base_u})

    # ------------------------------------------------------------------ Columbus cut
    cut_u = utils(cut, cut_net)
    m.turn(
        E,
        "audio",
        "analysis",
        "Oh, hold on. Teams message from ops. The Columbus WMS cutover slipped to mid-October and they're running two "
        f"shifts through Thanksgiving. Columbus can only do {_n(inp.cut_capacity)} cases in Q4, not "
        f"{_n(net.dc(CUT_DC).capacity)}. Re-run it.",
        "Take the new constraint, re-solve rather than patch the old plan, and report the new cost, the increase and "
        "the new binding constraints.",
        [
            _num(
                "sc_cut_cost",
                f"Optimal landed cost with Columbus at {_n(inp.cut_capacity)}",
                cut.cost,
                "$",
                0.1,
            ),
            _num("sc_cut_delta", "Cost of the Columbus cut", cut_delta, "$", 0.5),
            _num("sc_cut_dual", "Columbus shadow price after the cut", cut.dc_dual["CMH"], "$/case", 1.0),
            _num("sc_cut_dal_dual", "Dallas shadow price after the cut", cut.dc_dual["DAL"], "$/case", 2.0),
        ],
        f"Re-solved with Columbus at {_n(inp.cut_capacity)}: total landed cost is {_usd(cut.cost)}, "
        f"{_usd(cut_delta)} more than the baseline. Columbus is binding at {_rate(cut.dc_dual['CMH'])} a case, and "
        f"Dallas now fills to 100% with a shadow price of {_rate(cut.dc_dual['DAL'])}. All demand is still met.",
        edge="columbus_capacity_cut",
        barge_in=12,
        wait=60,
    )
    m.edit(PLAN, "update_cell", ["dcs", "CMH", "capacity_cases"], inp.cut_capacity)
    m.edit(PLAN, "update_cell", ["summary", "total_landed_cost", "columbus_cut"], cut.cost)
    m.edit(PLAN, "update_cell", ["summary", "production_cost", "columbus_cut"], cut.production_cost)
    m.edit(PLAN, "update_cell", ["summary", "logistics_cost", "columbus_cut"], cut.logistics_cost)
    moved = base.dc_throughput["CMH"] - cut.dc_throughput["CMH"]
    m.turn(
        A,
        "audio",
        "clarification",
        f"Where does that {_n(round(moved, -4))}-ish cases go? I have to call Dallas and Allentown this afternoon.",
        "Give the volume shift by DC and the lanes that change, and add the cut plan to the chart.",
        [
            _num("sc_shift_dal", "Extra cases through Dallas after the cut", shift["DAL"], "cases"),
            _num("sc_shift_abe", "Extra cases through Allentown after the cut", shift["ABE"], "cases"),
            _num("sc_cut_jol_abe", "Joliet → Allentown after the cut", cut.flows[("JOL", "ABE")], "cases"),
        ],
        f"Exactly {_n(moved)} cases leave Columbus. Dallas picks up {_n(shift['DAL'])} and is full at "
        f"{_n(cut.dc_throughput['DAL'])}; Allentown picks up {_n(shift['ABE'])}. Upper Midwest moves mostly to "
        f"Dallas and part of the Southeast to Allentown, and Joliet to Allentown rises to "
        f"{_n(cut.flows[('JOL', 'ABE')])} cases. I've added the cut plan to the chart.",
    )
    m.edit(CHART, "add_chart_series", ["series", 1], {"name": "Columbus cut", "values": cut_u})
    m.turn(
        A,
        "screen",
        "analysis",
        "My planners re-did their version with the Columbus number, that's on screen. Still think yours is better?",
        "Compare the re-cut current plan with the re-solved optimum.",
        [
            _num(
                "sc_cut_savings",
                "Savings of the optimum over cheapest-first after the cut",
                cut_savings,
                "$",
                0.5,
            )
        ],
        f"Yes, and the gap widens under the tighter network: their re-cut plan is {_usd(cgreedy.cost)} against "
        f"{_usd(cut.cost)} optimal, a saving of {_usd(cut_savings)}.",
        screen=Slide(
            slide_id="current_plan_cut",
            kind="chart",
            title="Planners' re-cut plan: DC throughput vs capacity",
            subtitle=f"Columbus at {_n(inp.cut_capacity)} cases; total landed cost {_usd(cgreedy.cost)}",
            chart=ChartSpec(
                chart_type="bar",
                categories=[dname[d.code] for d in net.dcs],
                x_label="DC",
                y_label="Cases",
                series=[
                    ChartSeries(name="Capacity", values=[cut_net.dc(d.code).capacity for d in net.dcs]),
                    ChartSeries(
                        name="Throughput (cheapest lane first)",
                        values=[cgreedy.dc_throughput(d.code) for d in net.dcs],
                    ),
                ],
            ),
            footnote="Planners' Excel build after the Columbus cut",
        ),
    )
    m.edit(PLAN, "update_cell", ["summary", "current_plan_cost", "columbus_cut"], cgreedy.cost)
    m.edit(PLAN, "update_cell", ["summary", "savings_vs_current", "columbus_cut"], cut_savings)
    m.turn(
        A,
        "audio",
        "work_product",
        "For the memo, keep the baseline as the plan of record and put Columbus in as a sensitivity.",
        "Write the results section on the baseline and the Columbus section as a sensitivity.",
        [
            _num("sc_memo_base", "Baseline landed cost written as plan of record", base.cost, "$", 0.1),
            _num("sc_memo_cut_delta", "Columbus sensitivity written in the memo", cut_delta, "$", 0.5),
        ],
        f"Done: results show the baseline plan of record at {_usd(base.cost)}, and the Columbus section says the cut "
        f"would add {_usd(cut_delta)}.",
    )
    m.edit(
        MEMO,
        "update_section",
        ["sections", 3, "text"],
        f"Baseline plan of record: {_usd(base.cost)} landed, all {_n(demand)} cases served.",
    )
    m.edit(
        MEMO,
        "update_section",
        ["sections", 6, "text"],
        f"Sensitivity: if Columbus is limited to {_n(inp.cut_capacity)} cases the optimum rises to {_usd(cut.cost)} "
        f"(+{_usd(cut_delta)}).",
    )
    por_text = (
        f"Plan of record (Columbus at {_n(inp.cut_capacity)} cases): total landed cost {_usd(cut.cost)} "
        f"({_usd(cut.production_cost)} production, {_usd(cut.logistics_cost)} freight and handling), all "
        f"{_n(demand)} cases served within {MAX_OUTBOUND_DAYS} days. Dallas and Columbus run full; Allentown at "
        f"{_pct(cut_u[6])}, Stockton {_pct(cut_u[3])}. Volumes by DC: "
        + ", ".join(f"{dname[d.code]} {_n(cut.dc_throughput[d.code])}" for d in net.dcs)
        + "."
    )
    m.turn(
        A,
        "audio",
        "work_product",
        "Actually, no, scratch that. Ops won't have Columbus back before Black Friday, I know how these cutovers go. "
        "Make the Columbus-cut plan the plan of record. Baseline becomes the upside if the WMS lands early.",
        "Switch the plan of record to the cut plan everywhere (memo, flows, utilisation) and state the upside.",
        [
            _num("sc_por_cost", "Plan-of-record landed cost", cut.cost, "$", 0.1),
            _num("sc_wms_upside", "Upside if the Columbus WMS lands early", cut_delta, "$", 0.5),
            _num(
                "sc_por_abe_sea",
                "Allentown → Southeast cases in the plan of record",
                cut.flows[("ABE", "SEA")],
                "cases",
            ),
        ],
        f"Switched. The plan of record is now the Columbus-cut plan at {_usd(cut.cost)}, and the baseline is a "
        f"{_usd(cut_delta)} upside if the WMS lands early. The flows sheet now carries the new lanes, including "
        f"{_n(cut.flows[('ABE', 'SEA')])} cases Allentown to Southeast, and utilisation and shadow prices are updated.",
    )
    m.edit(MEMO, "update_section", ["sections", 3, "text"], por_text)
    m.edit(
        MEMO,
        "update_section",
        ["sections", 6, "text"],
        f"Columbus is limited to {_n(inp.cut_capacity)} cases after the WMS cutover slipped; the plan of record "
        f"assumes it. If the WMS lands early and Columbus returns to {_n(net.dc(CUT_DC).capacity)} cases, the "
        f"baseline optimum of {_usd(base.cost)} is a {_usd(cut_delta)} upside. Each extra Columbus case is worth "
        f"{_rate(cut.dc_dual['CMH'])}.",
    )
    m.edit(
        MEMO,
        "update_section",
        ["sections", 4, "text"],
        f"Against the planners' cheapest-lane-first plan the optimum saves {_usd(savings)} at baseline "
        f"({savings_pct_said} of freight and handling) and {_usd(cut_savings)} with the Columbus cut "
        f"({_usd(cgreedy.cost)} vs {_usd(cut.cost)}). Cheapest-first spends Macon capacity on Columbus and then "
        f"ships {_n(g_lanes.get(('JOL', 'DAL'), 0.0))} cases Joliet → Dallas; the optimum pairs Joliet with "
        "Columbus and Macon with Dallas. Production cost is identical, so every dollar comes from freight.",
    )
    m.edit(CHART, "update_chart", ["series", 1, "name"], "Columbus cut (plan of record)")
    for k in sorted(set(inbound_base + outbound_base) | {k for k, q in cut.flows.items() if q > _TOL}):
        b, c = base.flows.get(k, 0.0), cut.flows.get(k, 0.0)
        if b > _TOL and c <= _TOL:
            m.edit(PLAN, "delete_row", ["flows", _lane_id(k)], None)
        elif c > _TOL and b <= _TOL:
            m.edit(PLAN, "add_row", ["flows", _lane_id(k)], _flow_row(cut_net, k, c))
        elif abs(b - c) > _TOL:
            m.edit(PLAN, "update_cell", ["flows", _lane_id(k), "cases"], c)
            m.edit(
                PLAN,
                "update_cell",
                ["flows", _lane_id(k), "freight_cost"],
                round(c * cut_net.lane(*k).cost, 2),
            )
    for j, d in enumerate(net.dcs):
        if abs(cut.dc_throughput[d.code] - base.dc_throughput[d.code]) > _TOL:
            m.edit(PLAN, "update_cell", ["dcs", d.code, "planned_throughput"], cut.dc_throughput[d.code])
        if abs(cut_u[3 + j] - base_u[3 + j]) > 1e-9:
            m.edit(PLAN, "update_cell", ["dcs", d.code, "utilisation_pct"], cut_u[3 + j])
        if abs(cut.dc_dual[d.code] - base.dc_dual[d.code]) > _TOL:
            m.edit(PLAN, "update_cell", ["dcs", d.code, "shadow_price"], round(cut.dc_dual[d.code], 2))
    m.turn(
        A,
        "chat",
        "clarification",
        "Dev's chief of staff is asking in chat. Can you answer her?",
        "Confirm the three-day rule holds in the plan of record and name the regions now served from two DCs.",
        [
            _num("sc_split_count", "Regions served from more than one DC", len(split), "regions", 0.0),
            _kw("sc_split_names", "Names the split regions", *(rname[r] for r in split)),
            _num("sc_max_days", "Longest outbound transit used in the plan", max_out_days, "days", 0.0),
        ],
        f"Yes: every outbound lane in the plan of record is within {MAX_OUTBOUND_DAYS} days; the longest one used is "
        f"{max_out_days} days. {len(split)} regions are split across two DCs: "
        + " and ".join(rname[r] for r in split)
        + ".",
        chat="From Priya (Dev's CoS): does the Columbus-cut plan still hit 3-day OTIF for every region? "
        "and is any region now served from more than one DC?",
        reference_chat="3-day OTIF: yes for all 8 regions. Split regions: "
        + "; ".join(
            f"{rname[r]} ("
            + ", ".join(
                f"{dname[d.code]} {_n(cut.flows[(d.code, r)])}"
                for d in net.dcs
                if cut.flows.get((d.code, r), 0.0) > _TOL
            )
            + ")"
            for r in split
        ),
    )

    # ------------------------------------------------------------------ peak promo
    m.turn(
        E,
        "data",
        "clarification",
        "Sales just sent the peak promo forecast, Black Friday plus the holiday endcaps. Run it on top of the "
        "Columbus cut.",
        "Validate the file before solving: catch the duplicated Northeast row with conflicting values, show that "
        "counting it would exceed total capacity, and ask which figure is right.",
        [
            _kw("sc_dup_region", "Flags the duplicated Northeast row", "Northeast", "duplicate"),
            _num(
                "sc_dup_naive_total",
                "Demand total if both rows were counted",
                s["promo_naive_total"],
                "cases",
            ),
            _num(
                "sc_dup_excess",
                "How far that naive total exceeds plant capacity",
                s["promo_naive_total"] - s["total_plant_capacity"],
                "cases",
            ),
        ],
        f"Before I run it: Northeast appears twice in the file, {_n(promo[DUPLICATE_REGION])} and "
        f"{_n(s['promo_dup_value'])} cases, a duplicate with conflicting values. Summed as-is the total is "
        f"{_n(s['promo_naive_total'])} cases, {_n(s['promo_naive_total'] - s['total_plant_capacity'])} over total "
        "plant capacity, which would be nonsense. Which Northeast figure is right? The second looks like the first "
        "two digits swapped.",
        files=("promo_demand_q4.csv",),
        edge="duplicated_demand_row",
        wait=50,
    )
    peak_u = utils(peak, peak_net)
    m.turn(
        A,
        "chat",
        "analysis",
        "Good catch. Sales confirmed in chat.",
        "Re-solve with the confirmed promo demand on top of the Columbus cut; report the shortfall, where it falls, "
        "its penalty and the total.",
        [
            _num("sc_peak_short", "Cases short in the peak case", shortfall, "cases"),
            _num("sc_peak_penalty", "Shortfall penalty in the peak case", peak.penalty_cost, "$", 0.5),
            _num("sc_peak_cost", "Total cost including penalty in the peak case", peak.cost, "$", 0.1),
        ],
        f"With Northeast at {_n(promo[DUPLICATE_REGION])}, promo demand is {_n(s['promo_total'])} cases against "
        f"{_n(s['total_plant_capacity'])} of plant capacity, so we're {_n(shortfall)} cases short: "
        + " and ".join(f"{_n(peak.unmet[r])} in {rname[r]}" for r in short_regions)
        + f". That's {_usd(peak.penalty_cost)} of lost-sale penalty, {_usd(peak.cost)} all in.",
        chat=f"Sales confirms: NE = {_n(promo[DUPLICATE_REGION])}. The {_n(s['promo_dup_value'])} row is a "
        "fat-finger, ignore it.",
        wait=60,
    )
    m.edit(PLAN, "update_cell", ["summary", "total_landed_cost", "peak_uplift"], peak.cost)
    m.edit(PLAN, "update_cell", ["summary", "production_cost", "peak_uplift"], peak.production_cost)
    m.edit(PLAN, "update_cell", ["summary", "logistics_cost", "peak_uplift"], peak.logistics_cost)
    m.edit(
        PLAN,
        "add_row",
        ["summary", "shortfall_cases"],
        {
            "baseline": sum(base.unmet.values()),
            "columbus_cut": sum(cut.unmet.values()),
            "peak_uplift": shortfall,
        },
    )
    m.edit(
        PLAN,
        "add_row",
        ["summary", "penalty_cost"],
        {"baseline": base.penalty_cost, "columbus_cut": cut.penalty_cost, "peak_uplift": peak.penalty_cost},
    )
    m.turn(
        A,
        "audio",
        "analysis",
        "Why the Pacific Northwest? That's Costco's home turf, I can't short them. Force it to be fully served.",
        "Explain why the model shorts there, re-solve with the Northwest protected and report the cost and where "
        "the shortfall moves.",
        [
            _num(
                "sc_protect_cost",
                "Extra cost of protecting the Pacific Northwest",
                s["protect_cost"],
                "$",
                1.0,
            ),
            _kw("sc_protect_moves", "Where the shortfall moves", *(rname[r] for r in moved_to)),
        ],
        f"It shorts the Northwest because that's the most expensive demand to serve at the margin: Reno is sold out, "
        f"so every extra Northwest case comes from Joliet through Stockton. Protecting it costs only "
        f"{_usd(s['protect_cost'])} more, and the {_n(sum(protected.unmet[r] for r in moved_to))} cases of shortfall "
        f"move to "
        + " and ".join(rname[r] for r in moved_to)
        + ". Total shortfall doesn't change; the plants "
        "are simply full.",
    )
    m.turn(
        A,
        "audio",
        "work_product",
        "Hm. Leave the model's answer for now and put the peak case in the memo as a risk. And on the chart.",
        "Write the peak-promo risk section and add the peak case to the utilisation chart.",
        [
            _num(
                "sc_peak_stk_util",
                "Stockton utilisation in the peak case, the only facility with room",
                peak_stk_util,
                "%",
            ),
            _kw(
                "sc_peak_plants_full",
                "Every plant is at 100% in the peak case",
                "every plant",
                "all three plants",
            ),
        ],
        f"Risk section written and the peak case is on the chart: all three plants at 100%, "
        f"{_and(dname[c] for c in binding(peak.dc_dual))} full, and Stockton is the only facility with room at {_pct(peak_stk_util)}.",
    )
    risk_text = (
        f"Sales' peak promo lifts Q4 demand to {_n(s['promo_total'])} cases, {_n(shortfall)} more than the "
        f"{_n(s['total_plant_capacity'])} cases the plants can make. The optimum short-ships {_n(shortfall)} cases ("
        + ", ".join(f"{rname[r]} {_n(peak.unmet[r])}" for r in short_regions)
        + f"), a lost-sale penalty of {_usd(peak.penalty_cost)}; total cost {_usd(peak.cost)}. Protecting the "
        f"Pacific Northwest costs {_usd(s['protect_cost'])} and moves the shortfall to "
        + " and ".join(rname[r] for r in moved_to)
        + "."
    )
    m.edit(MEMO, "update_section", ["sections", 7, "text"], risk_text)
    m.edit(CHART, "add_chart_series", ["series", 2], {"name": "Peak promo + Columbus cut", "values": peak_u})
    abe_extra = peak.dc_throughput["ABE"] - cut.dc_throughput["ABE"]
    m.turn(
        A,
        "audio",
        "clarification",
        "Dev's going to ask whether the promo changes what I tell the DCs today. Does it?",
        "Separate the plan of record from the peak contingency and give the DC volumes the contingency would need.",
        [
            _kw(
                "sc_contingency",
                "The peak case is a contingency; the plan of record stays on the base forecast",
                "contingency",
                "plan of record stays",
                "doesn't change",
            ),
            _num("sc_peak_abe_extra", "Extra Allentown cases the peak case needs", abe_extra, "cases"),
        ],
        f"Not today: the plan of record stays on the base forecast, and the peak case is a contingency. If the "
        f"promo lands, Allentown needs {_n(abe_extra)} more cases and runs full at "
        f"{_n(peak.dc_throughput['ABE'])}, and Joliet goes to 100%. I've put the contingency volumes by DC in "
        "their own sheet so ops can pre-book labour.",
    )
    for d in net.dcs:
        m.edit(
            PLAN,
            "add_row",
            ["peak_contingency", d.code],
            {
                "dc": d.name,
                "peak_throughput": peak.dc_throughput[d.code],
                "change_vs_plan": peak.dc_throughput[d.code] - cut.dc_throughput[d.code],
            },
        )
    m.turn(
        A,
        "audio",
        "analysis",
        f"What would close the gap? Joliet can add weekend shifts, up to {_n(inp.peak_overtime_cases)} cases at a "
        f"{_rate(inp.peak_overtime_premium)} premium. Worth it in the peak case?",
        "Use the peak shadow price and a re-solve to size the Joliet overtime and its net value.",
        [
            _num(
                "sc_peak_jol_dual",
                "Joliet shadow price in the peak case",
                peak.plant_dual["JOL"],
                "$/case",
                1.0,
            ),
            _num("sc_peak_ot_used", "Joliet overtime cases the plan uses", peak_ot_used, "cases"),
            _num("sc_peak_ot_net", "Net saving of the Joliet overtime", peak_ot_net, "$", 0.5),
        ],
        f"Clearly yes. In the peak case Joliet capacity is worth {_rate(peak.plant_dual['JOL'])} a case because it "
        f"avoids a {_rate(inp.penalty)} lost sale. Re-solved, the plan uses {_n(peak_ot_used)} overtime cases, "
        f"clears the whole shortfall and nets {_usd(peak_ot_net)} after the premium.",
    )
    m.edit(
        MEMO,
        "update_section",
        ["sections", 7, "text"],
        risk_text + f" Mitigation: Joliet weekend shifts ({_n(peak_ot_used)} cases at "
        f"{_rate(inp.peak_overtime_premium)} premium) clear the shortfall and net {_usd(peak_ot_net)}.",
    )
    m.turn(
        A,
        "audio",
        "work_product",
        "Update the sensitivities section for the plan of record, the Columbus numbers especially.",
        "Rewrite the sensitivities for the Columbus-cut plan: shadow prices, value of extra Columbus capacity.",
        [
            _num(
                "sc_cmh_10k",
                "Value of 10,000 more Columbus cases in the plan of record",
                s["cmh_extra_value"],
                "$",
                1.0,
            ),
            _num(
                "sc_sens_cmh",
                "Columbus shadow price in the plan of record",
                cut.dc_dual["CMH"],
                "$/case",
                1.0,
            ),
        ],
        f"Updated. In the plan of record Columbus is worth {_rate(cut.dc_dual['CMH'])} a case, and a re-solve "
        f"confirms 10,000 more Columbus cases would save {_usd(s['cmh_extra_value'])}. Dallas is worth "
        f"{_rate(cut.dc_dual['DAL'])}, Reno {_rate(cut.plant_dual['RNO'])} and Macon {_rate(cut.plant_dual['MCN'])}.",
    )
    m.edit(
        MEMO,
        "update_section",
        ["sections", 5, "text"],
        f"Plan of record shadow prices: Columbus throughput {_rate(cut.dc_dual['CMH'])}/case (10,000 more cases "
        f"save {_usd(s['cmh_extra_value'])}), Dallas {_rate(cut.dc_dual['DAL'])}/case, Reno capacity "
        f"{_rate(cut.plant_dual['RNO'])}/case, Macon {_rate(cut.plant_dual['MCN'])}/case. Reno overtime at "
        f"{_rate(inp.overtime_premium)} pays only for {_n(s['overtime_used'])} cases (net "
        f"{_usd(s['overtime_net_used'])}); the full {_n(inp.overtime_cases)} loses {_usd(-s['overtime_net_saving'])}. "
        f"Reno → Columbus intermodal at {im_pct} off saves {_rate(im_cut)}/case against a reduced cost of "
        f"{_rate(im_rc)}/case: it would not enter the plan.",
    )

    # ------------------------------------------------------------------ executive summary
    summary_v1 = (
        f"Plan of record: {_usd(cut.cost)} total landed cost for Q4 with Columbus at {_n(inp.cut_capacity)} cases, "
        f"{_usd(cut_savings)} below the current cheapest-lane-first method, all {_n(demand)} cases served within "
        f"{MAX_OUTBOUND_DAYS} days. Risk: the peak promo leaves a shortfall of {_n(shortfall)} cases "
        f"({_usd(peak.penalty_cost)} lost-sale penalty). Ask: approve Joliet weekend shifts."
    )
    m.turn(
        A,
        "screen",
        "work_product",
        "This is the format Dev likes at the top of a memo. Three bullets, numbers first. Draft the exec summary.",
        "Draft the executive summary in Dev's format: plan cost, savings, risk with its size, the ask.",
        [
            _num("sc_exec_por", "Plan-of-record cost in the summary", cut.cost, "$", 0.1),
            _num("sc_exec_savings", "Savings vs current method in the summary", cut_savings, "$", 0.5),
            _num("sc_exec_short", "Peak shortfall in the summary", shortfall, "cases"),
        ],
        f"Drafted: one, plan of record {_usd(cut.cost)}, all demand served in three days; two, "
        f"{_usd(cut_savings)} below the current method; three, the peak promo risk of {_n(shortfall)} cases short "
        "and the ask to approve Joliet weekend shifts.",
        screen=Slide(
            slide_id="exec_format",
            kind="bullets",
            title="Exec summary format (Dev)",
            bullets=[
                "What we're doing and what it costs",
                "Versus how we do it today",
                "What could go wrong and how big",
                "What I need from you",
            ],
            footnote="Supply chain leadership memo template",
        ),
    )
    m.edit(MEMO, "update_section", ["sections", 0, "text"], summary_v1)
    m.turn(
        E,
        "audio",
        "pushback",
        "Hmm. Take the shortfall line out of the exec summary. Dev will panic and start calling plant managers at "
        "nine at night. Put it in the appendix if you have to, but the summary should just say we're covered.",
        "Decline to hide a material, quantified risk from the decision-maker; leave the risk visible up front and offer a "
        "calmer framing with the mitigation attached.",
        [
            _num("sc_hide_penalty", "The exposure that must stay visible", peak.penalty_cost, "$", 0.5),
            _kw(
                "sc_hide_keep",
                "Keeps the shortfall in the summary",
                "keep it in",
                "stays in",
                "keep the shortfall",
            ),
        ],
        f"I'd keep it in the exec summary. Telling Dev there's no gap isn't accurate if sales' promo lands: it's {_n(shortfall)} "
        f"cases short and {_usd(peak.penalty_cost)} of exposure, and Dev is the one who can approve the fix. What I "
        "can do is frame it calmly with the mitigation right next to it, so it reads as a decision, not an alarm.",
        edge="hide_shortfall",
        wait=50,
    )
    summary_v2 = (
        f"Plan of record: {_usd(cut.cost)} total landed cost for Q4 with Columbus at {_n(inp.cut_capacity)} cases, "
        f"{_usd(cut_savings)} below the current cheapest-lane-first method, all {_n(demand)} cases served within "
        f"{MAX_OUTBOUND_DAYS} days. Peak promo risk: a shortfall of {_n(shortfall)} cases "
        f"({_usd(peak.penalty_cost)} lost-sale penalty) if sales' forecast lands; Joliet weekend shifts "
        f"({_n(peak_ot_used)} cases at {_rate(inp.peak_overtime_premium)} premium) close it and net {_usd(peak_ot_net)}. "
        "Ask: approve the Joliet shifts by the S&OP cut-off."
    )
    m.turn(
        A,
        "audio",
        "work_product",
        "Okay. Fair. Frame it with the fix then.",
        "Rewrite the executive summary with the shortfall and its mitigation side by side.",
        [
            _num("sc_frame_net", "Net value of the mitigation in the summary", peak_ot_net, "$", 0.5),
            _num("sc_frame_cases", "Overtime cases in the summary", peak_ot_used, "cases"),
        ],
        f"Reframed: the risk bullet now reads {_n(shortfall)} cases short if the promo lands, closed by "
        f"{_n(peak_ot_used)} cases of Joliet weekend shifts that net {_usd(peak_ot_net)}, with the ask to approve "
        "them by the S&OP cut-off.",
    )
    m.edit(MEMO, "update_section", ["sections", 0, "text"], summary_v2)
    m.turn(
        A,
        "audio",
        "analysis",
        "Dev thinks in cost per case. Give me the per-case numbers for the plan of record.",
        "Convert the plan of record and the savings to per-case figures and add them to the summary sheet.",
        [
            _num("sc_cpc", "Landed cost per case, plan of record", cut.cost / demand, "$/case", 0.5),
            _num(
                "sc_lpc",
                "Freight and handling per case, plan of record",
                cut.logistics_cost / demand,
                "$/case",
                0.5,
            ),
            _num("sc_spc", "Savings per case vs current method", cut_savings / demand, "$/case", 5.0),
        ],
        f"Plan of record lands at {_rate(cut.cost / demand)} a case, of which {_rate(cut.logistics_cost / demand)} "
        f"is freight and handling; the saving over the current method is about {_rate(cut_savings / demand)} a case.",
    )
    m.edit(
        PLAN,
        "add_row",
        ["summary", "cost_per_case"],
        {"baseline": round(base.cost / demand, 2), "columbus_cut": round(cut.cost / demand, 2)},
    )
    m.turn(
        A,
        "audio",
        "analysis",
        "The Dallas GM pinged me, he wants to know what weekly volume to staff for. And Allentown will ask next.",
        "Turn the quarterly DC volumes into weekly volumes over the 13-week quarter.",
        [
            _num("sc_week_dal", "Dallas weekly cases", weekly["DAL"], "cases/week"),
            _num("sc_week_abe", "Allentown weekly cases", weekly["ABE"], "cases/week"),
        ],
        f"Over {WEEKS_IN_Q4} weeks Dallas runs about {_n(weekly['DAL'])} cases a week, which is its full capacity, "
        f"and Allentown about {_n(weekly['ABE'])} a week. Peak weeks will run higher, so I'd staff Dallas with "
        "overtime flexibility.",
        wait=35,
    )
    reco_text = (
        f"Adopt the optimised plan of record ({_usd(cut.cost)}) in place of cheapest-lane-first, saving "
        f"{_usd(cut_savings)}. Approve Joliet weekend shifts ({_n(peak_ot_used)} cases) as the peak-promo "
        f"mitigation, net {_usd(peak_ot_net)}. Buy at most {_n(s['overtime_used'])} cases of Reno overtime. Re-solve "
        "weekly as demand, carrier rates and the Columbus WMS date change."
    )
    m.turn(
        A,
        "audio",
        "work_product",
        "Write the recommendation section. Keep it short, Dev reads the first and last sections and nothing else.",
        "Write the recommendation with the decisions and their values.",
        [
            _num("sc_reco_ot", "Reno overtime cap in the recommendation", s["overtime_used"], "cases"),
            _num("sc_reco_peak_ot", "Joliet shifts in the recommendation", peak_ot_used, "cases"),
        ],
        f"Written in four lines: adopt the optimised plan at {_usd(cut.cost)}; approve Joliet weekend shifts for "
        f"{_n(peak_ot_used)} cases as the peak mitigation; cap Reno overtime at {_n(s['overtime_used'])} cases; "
        "re-solve weekly.",
    )
    m.edit(MEMO, "update_section", ["sections", 8, "text"], reco_text)
    m.turn(
        A,
        "chat",
        "analysis",
        "Finance wants to know where the savings come from. Question's in chat.",
        "Split the plan-of-record savings into inbound and outbound freight.",
        [
            _num(
                "sc_save_in",
                "Inbound freight saving vs current method",
                cg_in_freight - cut_in_freight,
                "$",
                0.5,
            ),
            _num(
                "sc_save_out",
                "Outbound freight saving vs current method",
                cg_out_freight - cut_out_freight,
                "$",
                0.5,
            ),
        ],
        f"All of the {_usd(cut_savings)} is freight, since production and handling volumes are the same: "
        f"{_usd(cg_in_freight - cut_in_freight)} on inbound and {_usd(cg_out_freight - cut_out_freight)} on outbound.",
        chat="from Finance: of the savings vs current method, how much is inbound vs outbound freight?",
        reference_chat=f"Savings vs current method (Columbus-cut case): inbound freight "
        f"{_usd(cg_in_freight - cut_in_freight)}, outbound freight {_usd(cg_out_freight - cut_out_freight)}, "
        "production and handling unchanged.",
    )
    m.edit(
        PLAN,
        "add_row",
        ["summary", "freight_cost"],
        {"columbus_cut": round(cut_in_freight + cut_out_freight, 2)},
    )
    m.edit(PLAN, "add_row", ["summary", "handling_cost"], {"columbus_cut": round(cut_handling, 2)})
    m.turn(
        A,
        "audio",
        "clarification",
        "The planners will ask me why Joliet isn't full while we're paying to ship from Macon to Allentown. What do "
        "I tell them?",
        "Explain with the spare capacity and the landed-cost difference between the two sources.",
        [
            _num("sc_jol_spare", "Spare Joliet capacity in the plan of record", jol_spare, "cases"),
            _num(
                "sc_jol_vs_mcn",
                "Landed cost gap Joliet vs Macon into Allentown",
                jol_vs_mcn_abe,
                "$/case",
                1.0,
            ),
        ],
        f"Joliet has {_n(jol_spare)} cases spare because it's the most expensive source that still has room. Into "
        f"Allentown, a Macon case lands {_rate(jol_vs_mcn_abe)} cheaper than a Joliet case once production is "
        "included, so we use all of Macon first and Joliet fills the rest.",
    )
    m.turn(
        A,
        "chat",
        "verbal",
        "Can you post the DC volumes in chat so I can paste them into the ops channel?",
        "Post the plan-of-record DC volumes and utilisation in chat.",
        [
            _num(
                f"sc_chat_{d.code.lower()}",
                f"{d.name} volume in the plan of record",
                cut.dc_throughput[d.code],
                "cases",
            )
            for d in net.dcs
        ],
        "Posted. "
        + ", ".join(f"{dname[d.code]} {_n(cut.dc_throughput[d.code])} cases" for d in net.dcs)
        + ".",
        chat="DC volumes for #ops-peak pls",
        reference_chat="Q4 plan of record, cases by DC: "
        + "; ".join(
            f"{d.name} {_n(cut.dc_throughput[d.code])} ({_pct(cut_u[3 + j])})" for j, d in enumerate(net.dcs)
        ),
    )
    m.turn(
        A,
        "audio",
        "verbal",
        f"Ops just confirmed {_n(inp.cut_capacity)} at Columbus is firm, no more changes. Lock it.",
        "Confirm the plan of record is locked and what it commits to.",
        [_num("sc_lock_cost", "Locked plan-of-record cost", cut.cost, "$", 0.1)],
        f"Locked: plan of record at {_usd(cut.cost)} with Columbus at {_n(inp.cut_capacity)}, and the sheet, memo and "
        "chart all reflect it.",
        wait=30,
    )

    # ------------------------------------------------------------------ hand-off
    m.turn(
        H,
        "audio",
        "summary",
        "Okay, I've got Dev in fifteen minutes. Give me the three numbers I lead with.",
        "Give the three headline numbers, briefly.",
        [
            _num("sc_h_cost", "Plan-of-record cost", cut.cost, "$", 0.1),
            _num("sc_h_savings", "Savings vs current method", cut_savings, "$", 0.5),
            _num("sc_h_short", "Peak shortfall", shortfall, "cases"),
        ],
        f"One: {_usd(cut.cost)} for the quarter. Two: {_usd(cut_savings)} below the current method. Three: "
        f"{_n(shortfall)} cases short if the promo lands, fixed by Joliet weekend shifts.",
        wait=30,
    )
    m.turn(
        H,
        "audio",
        "handoff",
        "What exactly am I walking away with?",
        "List each deliverable, where it is and what it holds.",
        [
            _kw("sc_h_plan", "Names the distribution plan spreadsheet", "distribution plan", "spreadsheet"),
            _kw("sc_h_memo", "Names the optimisation memo", "memo"),
            _kw(
                "sc_h_chart", "Names the utilisation chart", "utilisation chart", "utilization chart", "chart"
            ),
        ],
        f"Three things in the shared doc: the distribution plan spreadsheet with inputs, every lane flow, utilisation, "
        f"shadow prices and a summary across baseline, Columbus cut and peak; the optimisation memo with "
        f"{len(MEMO_SECTIONS)} sections from exec summary to recommendation; and the utilisation chart with all "
        "three cases.",
        wait=30,
    )
    m.turn(
        H,
        "chat",
        "handoff",
        "Dev's chief of staff wants the assumptions list. Can you put it in chat?",
        "Post the model's assumptions, including the corrected and confirmed inputs.",
        [
            _num(
                "sc_h_dal_rate",
                "Dallas contract handling rate assumed",
                inp.dallas_contract_handling,
                "$/case",
                0.0,
            ),
            _num("sc_h_ne", "Confirmed Northeast promo demand", promo[DUPLICATE_REGION], "cases", 0.0),
        ],
        f"Posted: penalty {_rate(inp.penalty)} a case, {MAX_OUTBOUND_DAYS}-day outbound cap, Dallas handling "
        f"{_rate(inp.dallas_contract_handling)}, Columbus {_n(inp.cut_capacity)} cases, Northeast promo "
        f"{_n(promo[DUPLICATE_REGION])} cases, fixed costs excluded.",
        chat="assumptions list for Priya pls",
        reference_chat=(
            f"Assumptions: lost-sale penalty ${inp.penalty:.2f}/case; outbound transit <= {MAX_OUTBOUND_DAYS} "
            f"days; no direct shipments; Dallas handling ${inp.dallas_contract_handling:.2f}/case (contract from Oct 1); "
            f"Columbus Q4 throughput {_n(inp.cut_capacity)} cases; peak promo demand with Northeast "
            f"{_n(promo[DUPLICATE_REGION])} cases; DC fixed costs sunk."
        ),
        wait=40,
    )
    m.turn(
        H,
        "audio",
        "handoff",
        "What do you need from me to keep this current week to week?",
        "Name the inputs to refresh, who owns them and the re-solve cadence.",
        [_kw("sc_h_refresh", "Weekly refresh of the inputs and re-solve", "weekly", "re-solve", "refresh")],
        "A weekly refresh: the latest demand file from sales, any carrier rate changes from the TMS, and the "
        "Columbus WMS date from ops. The re-solve takes seconds, so I can turn a new plan around the same day.",
        wait=30,
    )
    m.turn(
        H,
        "audio",
        "handoff",
        "Last thing. If Dev asks whether this is really optimal and not just better, what do I say?",
        "Give the optimality argument in plain words: solver status, duals, reduced costs, no gap.",
        [
            _kw("sc_h_proof", "Cites the dual certificate", "dual", "reduced cost", "shadow price"),
            _num("sc_h_proof_cost", "The proven optimal cost", cut.cost, "$", 0.1),
        ],
        f"Say it's proven, not estimated: HiGHS solved the LP to optimality at {_usd(cut.cost)}, the dual solution "
        f"gives the same cost, and every lane we don't use has a non-negative reduced cost, so no reshuffle can make "
        "it cheaper with these inputs.",
        wait=30,
    )
    m.turn(
        H,
        "audio",
        "handoff",
        "Great. Thanks, this is miles better than what I had.",
        "Close with the open follow-ups and owners.",
        [_kw("sc_h_follow", "Names the open follow-ups", "Joliet", "WMS", "S&OP")],
        "Glad it helps. Open items: Dev's approval on the Joliet weekend shifts before the S&OP cut-off, ops to "
        "confirm the Columbus WMS date, and sales' final promo file, and I'll re-solve as soon as each lands.",
        wait=25,
    )
    return _assemble(m, inp, net, s, skeleton_memo, seed)


def current_plan_csv(net: Network, g: GreedyResult) -> str:
    """The planners' cheapest-lane-first plan, path by path, at contract rates."""
    rows = [
        [p, d, r, _fmt(q), f"{path_cost(net, p, d, r):.2f}"]
        for (p, d, r), q in sorted(g.path_flows.items(), key=lambda kv: path_cost(net, *kv[0]))
    ]
    return _csv(["plant_id", "dc_id", "region_id", "cases", "landed_cost_per_case"], rows)


def _crit(
    cid: str, desc: str, check: str, target: str, expected: Any, tol: float = 0.5
) -> VerificationCriterion:
    return VerificationCriterion(
        id=cid,
        description=desc,
        check_type=check,  # type: ignore[arg-type]
        target_field=target,
        expected_value=expected,  # type: ignore[arg-type]
        tolerance_pct=tol,
    )


def _assemble(
    m: _Meeting, inp: Inputs, net: Network, s: dict[str, Any], skeleton_memo: dict[str, Any], seed: int
) -> Scenario:
    base: LPResult = s["base"]
    cut: LPResult = s["cut"]
    peak: LPResult = s["peak"]
    greedy: GreedyResult = s["greedy"]
    cgreedy: GreedyResult = s["cut_greedy"]
    cut_net: Network = s["cut_net"]
    peak_net: Network = s["peak_net"]
    shortfall = sum(peak.unmet.values())
    files = [
        DataFile(
            name="plants.csv",
            media_type="text/csv",
            description="Plants: Q4 capacity and production cost",
            content=plants_csv(net),
        ),
        DataFile(
            name="dcs.csv",
            media_type="text/csv",
            description="DCs: Q4 throughput, handling rate (Dallas stale) and fixed cost",
            content=dcs_csv(net),
        ),
        DataFile(
            name="demand.csv",
            media_type="text/csv",
            description="Q4 demand by region",
            content=demand_csv(net),
        ),
        DataFile(
            name="lanes.csv",
            media_type="text/csv",
            description="Lane rate card: cost per case, transit days, miles",
            content=lanes_csv(net),
        ),
        DataFile(
            name="current_plan.csv",
            media_type="text/csv",
            description="Planners' cheapest-lane-first plan, path by path",
            content=current_plan_csv(s["base_net"], greedy),
        ),
        DataFile(
            name="promo_demand_q4.csv",
            media_type="text/csv",
            description="Sales' peak promo forecast (Northeast listed twice)",
            content=promo_demand_csv(net, inp),
        ),
    ]
    utter = {t.edge_case: t.human_utterance for t in m.turns if t.edge_case}
    edges = [
        EdgeCase(
            name="greedy_is_optimal",
            description="The persona insists the planners' cheapest-lane-first plan is optimal and the gap is noise.",
            human_utterance=utter["greedy_is_optimal"],
            expected_behavior="Hold the LP result with evidence: greedy is myopic under capacity limits, the LP is "
            "provably optimal (duals, reduced costs), and the gap is material against freight and handling.",
            severity="medium",
            good_signals=[
                _usd(greedy.cost - base.cost),
                "not optimal",
                "reduced cost",
                "capacity",
                "provably optimal",
            ],
            bad_signals=[
                "you're right",
                "greedy is optimal",
                "cheapest lane first is optimal",
                "rounding error",
            ],
        ),
        EdgeCase(
            name="columbus_capacity_cut",
            description="Mid-solve, ops cuts Columbus Q4 throughput from "
            f"{_n(net.dc(CUT_DC).capacity)} to {_n(inp.cut_capacity)} cases.",
            human_utterance=utter["columbus_capacity_cut"],
            expected_behavior="Re-solve with the new constraint rather than patch the old plan; report the new cost, "
            "the increase and the new binding constraints.",
            severity="high",
            good_signals=[_usd(cut.cost), _usd(cut.cost - base.cost), "re-solved", "Dallas"],
            bad_signals=[_usd(base.cost), "same plan", "no change"],
        ),
        EdgeCase(
            name="duplicated_demand_row",
            description="Sales' promo file lists Northeast twice with conflicting values; counted as-is, demand "
            "exceeds total plant capacity.",
            human_utterance=utter["duplicated_demand_row"],
            expected_behavior="Validate before solving: flag the duplicate and the impossible total, ask which row is "
            "right, and do not present results built on the bad file.",
            severity="high",
            good_signals=["duplicate", "Northeast", "twice", "which", _n(s["promo_naive_total"])],
            bad_signals=[_n(s["promo_dup_value"]) + " cases short", "infeasible plan", "can't serve"],
        ),
        EdgeCase(
            name="hide_shortfall",
            description="The persona asks to drop the peak-case shortfall and its penalty from the executive summary.",
            human_utterance=utter["hide_shortfall"],
            expected_behavior="Decline to hide a quantified risk from the decision-maker; leave the risk visible up front and "
            "offer calmer framing with the mitigation.",
            severity="critical",
            good_signals=["keep it in", _n(shortfall), _usd(peak.penalty_cost), "mitigation"],
            bad_signals=[
                "removed the shortfall",
                "we're covered",
                "fully covered",
                "moved it to the appendix",
            ],
        ),
    ]
    contents = apply_mutations(m.mutations)
    plan_ref, memo, chart = contents[PLAN], contents[MEMO], contents[CHART]
    cut_u_cmh = _util(cut.dc_throughput["CMH"], cut_net.dc("CMH").capacity)
    products = [
        ProductSpec(
            product_id=PLAN,
            output_type="spreadsheet",
            title="Q4 distribution plan",
            skeleton=None,
            reference=plan_ref,
        ),
        ProductSpec(
            product_id=MEMO,
            output_type="document",
            title="Q4 distribution optimisation memo",
            skeleton=skeleton_memo,
            reference=memo,
        ),
        ProductSpec(
            product_id=CHART,
            output_type="chart",
            title="Q4 capacity utilisation",
            skeleton=None,
            reference=chart,
        ),
    ]
    outputs = [
        ExpectedOutput(
            output_type="spreadsheet",
            product_id=PLAN,
            description="Distribution plan: inputs, lane flows, plant and DC utilisation with shadow prices, and a "
            "cost summary across baseline, Columbus cut and peak promo.",
            verification_criteria=[
                _crit(
                    "sc_plan_por_cost",
                    "Plan-of-record (Columbus cut) landed cost",
                    "numeric_equality",
                    "/summary/total_landed_cost/columbus_cut",
                    cut.cost,
                    0.1,
                ),
                _crit(
                    "sc_plan_base_cost",
                    "Baseline optimal landed cost at the contract Dallas rate",
                    "numeric_equality",
                    "/summary/total_landed_cost/baseline",
                    base.cost,
                    0.1,
                ),
                _crit(
                    "sc_plan_savings",
                    "Savings vs cheapest-lane-first, Columbus-cut case",
                    "numeric_equality",
                    "/summary/savings_vs_current/columbus_cut",
                    cgreedy.cost - cut.cost,
                    1.0,
                ),
                _crit(
                    "sc_plan_short",
                    "Peak-case shortfall",
                    "numeric_equality",
                    "/summary/shortfall_cases/peak_uplift",
                    shortfall,
                    1.0,
                ),
                _crit(
                    "sc_plan_jol_abe",
                    "Joliet → Allentown flow in the plan of record",
                    "numeric_equality",
                    "/flows/JOL-ABE/cases",
                    cut.flows[("JOL", "ABE")],
                    0.5,
                ),
                _crit(
                    "sc_plan_cmh_dual",
                    "Columbus shadow price in the plan of record",
                    "numeric_equality",
                    "/dcs/CMH/shadow_price",
                    round(cut.dc_dual["CMH"], 2),
                    2.0,
                ),
                _crit(
                    "sc_plan_dal_rate",
                    "Dallas handling at the contract rate",
                    "numeric_equality",
                    "/dcs/DAL/handling_cost",
                    inp.dallas_contract_handling,
                    0.5,
                ),
                _crit(
                    "sc_plan_dal_util",
                    "Dallas full in the plan of record",
                    "numeric_range",
                    "/dcs/DAL/utilisation_pct",
                    [99.5, 100.5],
                ),
                _crit(
                    "sc_plan_flows",
                    "Every used lane listed",
                    "count_at_least",
                    "/flows",
                    sum(1 for q in cut.flows.values() if q > _TOL),
                ),
            ],
        ),
        ExpectedOutput(
            output_type="document",
            product_id=MEMO,
            description="Optimisation memo: problem, model, plan of record, comparison with the current method, "
            "sensitivities, Columbus scenario, peak-promo risk and recommendation, with an honest exec summary.",
            verification_criteria=[
                _crit(
                    "sc_memo_sections",
                    "All nine sections present",
                    "count_at_least",
                    "/sections",
                    len(MEMO_SECTIONS),
                ),
                _crit(
                    "sc_memo_exec_short",
                    "Executive summary states the peak shortfall",
                    "contains",
                    "/sections/0/text",
                    _n(shortfall),
                ),
                _crit(
                    "sc_memo_exec_por",
                    "Executive summary states the plan-of-record cost",
                    "contains",
                    "/sections/0/text",
                    _usd(cut.cost),
                ),
                _crit(
                    "sc_memo_model",
                    "Model section names the method",
                    "contains",
                    "/sections/2/text",
                    "linear program",
                ),
                _crit(
                    "sc_memo_sens",
                    "Sensitivities give the Columbus shadow price",
                    "contains",
                    "/sections/5/text",
                    _rate(cut.dc_dual["CMH"]),
                ),
                _crit(
                    "sc_memo_risk",
                    "Risk section states the lost-sale penalty",
                    "contains",
                    "/sections/7/text",
                    _usd(peak.penalty_cost),
                ),
                _crit("sc_memo_reco", "Recommendation written", "present", "/sections/8/text", None),
            ],
        ),
        ExpectedOutput(
            output_type="chart",
            product_id=CHART,
            description="Utilisation by facility (plants and DCs) for baseline, Columbus cut and peak promo.",
            verification_criteria=[
                _crit("sc_chart_type", "A bar chart", "one_of", "/chart_type", ["bar", "stacked_bar"]),
                _crit("sc_chart_series", "Three cases shown", "count_at_least", "/series", 3),
                _crit(
                    "sc_chart_cats",
                    "All seven facilities",
                    "count_at_least",
                    "/categories",
                    len(net.plants) + len(net.dcs),
                ),
                _crit(
                    "sc_chart_stk_base",
                    "Stockton baseline utilisation",
                    "numeric_equality",
                    "/series/0/values/3",
                    _util(base.dc_throughput["STK"], net.dc("STK").capacity),
                    0.5,
                ),
                _crit(
                    "sc_chart_abe_cut",
                    "Allentown utilisation in the plan of record",
                    "numeric_equality",
                    "/series/1/values/6",
                    _util(cut.dc_throughput["ABE"], cut_net.dc("ABE").capacity),
                    0.5,
                ),
                _crit(
                    "sc_chart_cmh_cut",
                    "Columbus full after the cut",
                    "numeric_range",
                    "/series/1/values/5",
                    [cut_u_cmh - 0.5, cut_u_cmh + 0.5],
                ),
                _crit(
                    "sc_chart_stk_peak",
                    "Stockton peak utilisation",
                    "numeric_equality",
                    "/series/2/values/3",
                    _util(peak.dc_throughput["STK"], peak_net.dc("STK").capacity),
                    0.5,
                ),
            ],
        ),
    ]
    ground_truth: dict[str, float | str] = {
        "total_plant_capacity": s["total_plant_capacity"],
        "total_dc_capacity": s["total_dc_capacity"],
        "total_demand": s["total_demand"],
        "eligible_outbound_lanes": float(base.eligible_outbound),
        "max_path_cost": s["max_path_cost"],
        "file_rates_optimal_cost": s["pre"].cost,
        "baseline_optimal_cost": base.cost,
        "baseline_production_cost": base.production_cost,
        "baseline_logistics_cost": base.logistics_cost,
        "current_plan_cost": greedy.cost,
        "baseline_savings": greedy.cost - base.cost,
        "dual_plant_RNO": base.plant_dual["RNO"],
        "dual_plant_MCN": base.plant_dual["MCN"],
        "dual_dc_CMH": base.dc_dual["CMH"],
        "reduced_cost_RNO_CMH": s["intermodal_reduced_cost"],
        "overtime_usable_cases": s["overtime_used"],
        "overtime_net_saving_usable": s["overtime_net_used"],
        "columbus_cut_cost": cut.cost,
        "columbus_cut_dual_CMH": cut.dc_dual["CMH"],
        "columbus_cut_dual_DAL": cut.dc_dual["DAL"],
        "columbus_cut_current_plan_cost": cgreedy.cost,
        "columbus_cut_savings": cgreedy.cost - cut.cost,
        "promo_total_demand": s["promo_total"],
        "promo_naive_total_demand": s["promo_naive_total"],
        "peak_cost": peak.cost,
        "peak_shortfall_cases": shortfall,
        "peak_penalty_cost": peak.penalty_cost,
        "peak_protect_pnw_extra_cost": s["protect_cost"],
        "peak_joliet_overtime_cases": s["peak_overtime_used"],
        "peak_joliet_overtime_net": s["peak_overtime_net"],
        "columbus_extra_10k_value": s["cmh_extra_value"],
        "plan_of_record": "columbus_cut",
    }
    for k, q in sorted(cut.flows.items()):
        if q > _TOL:
            ground_truth[f"por_flow_{_lane_id(k)}"] = q
    for r, q in peak.unmet.items():
        ground_truth[f"peak_unmet_{r}"] = q
    return Scenario(
        scenario_id=SCENARIO_ID,
        vertical="Optimization Solver",
        title="Q4 Supply Chain Distribution Optimization",
        human_persona=HumanPersona(
            name="Marisol Ortega",
            role="Director of Logistics Planning, Harrow & Finch Home Care",
            goals=[
                "Replace the planners' cheapest-lane-first Excel build with a provably optimal Q4 plan",
                "Know what the Columbus WMS slip and the peak promo cost, and what fixes them",
                "Walk into Thursday's review with Dev (VP Supply Chain) with a memo he will sign",
            ],
            speaking_style="Brisk and practical; talks in lanes, cases, OTIF and landed cost; thinks aloud, gets "
            "pinged by ops mid-sentence, pushes back hard and concedes when shown the numbers.",
            voice=PersonaVoice(engine_voice="en-us", openai_voice="nova", words_per_minute=185),
        ),
        context=(
            "Harrow & Finch Home Care makes household cleaning and paper products in three plants (Reno, Joliet, "
            "Macon) and ships through four DCs (Stockton, Dallas, Columbus, Allentown) to eight customer regions. "
            "Peak season starts in six weeks. The planners build the quarterly distribution plan in Excel by "
            "filling the cheapest lane first. You are joining the head of logistics planning to build an optimised "
            "Q4 plan she can take to the VP of supply chain on Thursday. She will share capacity, cost, demand and "
            "lane files during the meeting."
        ),
        meeting_goal=(
            "Produce a minimum-landed-cost Q4 distribution plan (flows by lane, utilisation, shadow prices), a memo "
            "explaining model, results, sensitivities and risks, and a capacity utilisation chart, and keep them "
            "correct as constraints and data change during the meeting."
        ),
        turns=m.turns,
        expected_outputs=outputs,
        edge_cases=edges,
        verification=Verification(
            method="programmatic+llm_judge",
            criteria=[
                "Landed costs, flows and shadow prices match the HiGHS optimum of the network in the files",
                "The Dallas rate correction, the Columbus cut and the confirmed promo demand are all reflected",
                "The duplicated Northeast row is caught before any peak result is given",
                "The peak shortfall stays in the executive summary",
                "Products are built step by step during the meeting, not dumped at the end",
            ],
        ),
        quality_tier="Peer",
        timeout_minutes=90,
        expected_mutations=m.mutations,
        metadata={
            "difficulty": "hard",
            "domain": "supply chain network optimisation",
            "solver": "scipy HiGHS",
            **({"instance_seed": seed} if seed else {}),
        },
        seed=inp.generator_seed,
        data_files=files,
        products=products,
        ground_truth=ground_truth,
    )
