"""The supply-chain meeting's inputs: the fixed cast (plants, DCs, regions), the figures of an instance
(``Inputs``), the Q4 network generated from them, and the CSV files the persona pushes."""

from __future__ import annotations

import csv
import io
import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from modylbench.scenarios._kit import identity

logger = logging.getLogger(__name__)

IDENTITY = identity(__package__)
"""What this scenario is (its identity.toml): the registry, the tests and the benchmarks read the same."""
SCENARIO_ID = IDENTITY.scenario_id

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


# --------------------------------------------------------------------------- the network


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


def typo(value: float) -> float:
    """The Northeast typo in the promo file: the first two digits swapped (343,100 → 433,100)."""
    digits = list(f"{int(value):06d}")
    digits[0], digits[1] = digits[1], digits[0]
    return float("".join(digits))


def lane_id(lane: tuple[str, str]) -> str:
    return f"{lane[0]}-{lane[1]}"


def path_cost(net: Network, p: str, d: str, r: str) -> float:
    """Landed cost of one case made at plant p, handled at DC d and delivered to region r."""
    return net.plant(p).production_cost + net.lane(p, d).cost + net.dc(d).handling_cost + net.lane(d, r).cost


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
    rows.append([dup.code, dup.name, _fmt(typo(dem[dup.code]))])
    return _csv(["region_id", "region", "q4_demand_cases"], rows)


def current_plan_csv(net: Network, path_flows: Mapping[tuple[str, str, str], float]) -> str:
    """The planners' cheapest-lane-first plan, path by path, at contract rates."""
    rows = [
        [p, d, r, _fmt(q), f"{path_cost(net, p, d, r):.2f}"]
        for (p, d, r), q in sorted(path_flows.items(), key=lambda kv: path_cost(net, *kv[0]))
    ]
    return _csv(["plant_id", "dc_id", "region_id", "cases", "landed_cost_per_case"], rows)
