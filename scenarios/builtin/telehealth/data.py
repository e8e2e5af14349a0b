"""SEA telehealth: the client's research pack as data: the seed-0 tables, the assumptions the persona states,
fresh draws of both, and the CSV files the persona pushes (written and read back)."""

from __future__ import annotations

import csv
import io
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from modylbench.scenarios._schema import DataFile

logger = logging.getLogger(__name__)

# ----------------------------------------------------------------------------- raw inputs (seed 0)

# country, population (M), urban share %, smartphone penetration %, internet users (M), health spend per
# capita (USD), physicians per 1,000, regulatory openness (1-10), telehealth market growth % a year,
# share of health spend paid out of pocket %, share of population privately insured %,
# willingness to pay per consult (USD), prevailing consult price (USD), currency, local units per USD.
_MARKETS: tuple[tuple[Any, ...], ...] = (
    ("Indonesia", 277.5, 58, 68, 213.0, 135, 0.62, 6, 19, 32, 8, 6.50, 5.00, "IDR", 15500.0),
    ("Vietnam", 100.3, 39, 73, 78.0, 180, 0.83, 5, 18, 40, 6, 5.50, 6.00, "VND", 24300.0),
    ("Philippines", 117.3, 48, 70, 86.0, 190, 0.60, 7, 20, 45, 12, 8.50, 7.50, "PHP", 56.0),
    ("Thailand", 71.8, 53, 78, 63.0, 310, 0.95, 6, 13, 9, 15, 12.00, 11.00, "THB", 34.8),
    ("Malaysia", 34.3, 78, 86, 33.0, 480, 2.30, 8, 14, 35, 22, 15.00, 13.00, "MYR", 4.60),
    ("Singapore", 5.9, 100, 92, 5.5, 3900, 2.60, 9, 9, 30, 45, 34.00, 30.00, "SGD", 1.34),
)
MARKET_COLUMNS = (
    "country",
    "population_m",
    "urban_share_pct",
    "smartphone_penetration_pct",
    "internet_users_m",
    "health_spend_per_capita_usd",
    "physicians_per_1000",
    "regulatory_openness_1to10",
    "telehealth_cagr_pct",
    "out_of_pocket_share_pct",
    "private_insured_pct",
    "wtp_per_consult_usd",
    "consult_price_usd",
    "currency",
    "fx_local_per_usd",
)

# country, competitor, business model, share of telehealth consults %, number of players in the row.
# The three named leaders per country, then the long tail aggregated into one row.
_COMPETITORS: tuple[tuple[Any, ...], ...] = (
    ("Indonesia", "SehatKu", "B2C app", 26, 1),
    ("Indonesia", "DokterNow", "B2C app", 18, 1),
    ("Indonesia", "Klinik Pintar", "hospital-led", 12, 1),
    ("Indonesia", "Other local players", "mixed", 44, 11),
    ("Vietnam", "BacSi24", "B2C app", 22, 1),
    ("Vietnam", "MedViet Connect", "hospital-led", 16, 1),
    ("Vietnam", "KhamNhanh", "B2C app", 12, 1),
    ("Vietnam", "Other local players", "mixed", 50, 6),
    ("Philippines", "DocPinoy", "B2C app", 19, 1),
    ("Philippines", "MediKonek", "insurer-led", 16, 1),
    ("Philippines", "SalusPH", "hospital-led", 12, 1),
    ("Philippines", "Other local players", "mixed", 53, 8),
    ("Thailand", "SabaiDoc", "B2C app", 27, 1),
    ("Thailand", "ThaiCare Online", "hospital-led", 19, 1),
    ("Thailand", "Krungthep Tele", "insurer-led", 15, 1),
    ("Thailand", "Other local players", "mixed", 39, 7),
    ("Malaysia", "DoktorKita", "B2C app", 25, 1),
    ("Malaysia", "KlinikGo", "pharmacy-led", 17, 1),
    ("Malaysia", "SihatNet", "insurer-led", 13, 1),
    ("Malaysia", "Other local players", "mixed", 45, 5),
    ("Singapore", "LionDoc", "B2C app", 34, 1),
    ("Singapore", "MediQuick SG", "B2C app", 21, 1),
    ("Singapore", "CarePod", "hospital-led", 15, 1),
    ("Singapore", "Other local players", "mixed", 30, 9),
)

# Finance's entry-cost build for the two front-runners: country, launch capex (USD M), year-1 fixed opex
# (USD M), fixed-opex growth % a year, contribution margin % of revenue, entry vehicle.
_COSTS: tuple[tuple[Any, ...], ...] = (
    ("Indonesia", 6.0, 5.5, 10, 42, "joint venture with a local hospital group"),
    ("Philippines", 5.5, 6.2, 10, 40, "wholly owned platform with partner clinics"),
)

# External counsel's draft memo, one finding a row: country, topic, finding, severity.
_REGULATORY: tuple[tuple[str, str, str, str], ...] = (
    (
        "Indonesia",
        "foreign ownership",
        "Counsel's reading: a telemedicine operator licensed as a health service may be at most {cap}% foreign-owned; "
        "a local partner must hold the remaining {partner}% or more",
        "high",
    ),
    (
        "Indonesia",
        "data localisation",
        "Counsel's reading: patients' electronic health records must be stored and processed on servers in Indonesia",
        "high",
    ),
    (
        "Indonesia",
        "clinician licensing",
        "Consulting doctors need an Indonesian registration and practice licence; cross-border consults from "
        "Australia are not permitted",
        "medium",
    ),
    (
        "Vietnam",
        "platform licence",
        "Remote-examination rules are still in draft; the platform must operate under a licensed medical facility",
        "high",
    ),
    (
        "Philippines",
        "clinician licensing",
        "Doctors must hold a Philippine licence; the platform registers its data processing with the privacy regulator",
        "medium",
    ),
    (
        "Thailand",
        "platform licence",
        "Telemedicine must be delivered through a licensed healthcare facility",
        "medium",
    ),
    (
        "Malaysia",
        "pending law",
        "Telemedicine guidelines are in place; amendments to the medical practice law are pending",
        "low",
    ),
    (
        "Singapore",
        "service licence",
        "Telemedicine providers need a healthcare-services licence; well-trodden process",
        "low",
    ),
)

HORIZON = 5

CRITERIA: tuple[str, ...] = (
    "market_size",
    "growth",
    "digital",
    "regulatory",
    "competition",
    "affordability",
    "clinical_need",
)


@dataclass(frozen=True)
class Inputs:
    """Every raw figure the meeting starts from: the client's files and the assumptions the persona states."""

    markets: tuple[tuple[Any, ...], ...]  # rows of MARKET_COLUMNS
    competitors: tuple[tuple[Any, ...], ...]  # country, competitor, model, share %, players
    costs: tuple[tuple[Any, ...], ...]  # country, capex, opex y1, opex growth %, margin %, vehicle
    adoption_pct: float  # share of urban smartphone users with at least one telehealth consult a year
    consults_per_user: float  # consults per adopting user a year
    capture_of_tail_pct: float  # year-5 share we can win of the consults outside the top-3 players
    low_capture_pct: float  # the cautious capture rate the agent tests the SOM against
    ramp_pct: tuple[float, ...]  # share of the year-5 target reached in years 1..5
    terminal_growth_pct: float
    first_discount_pct: float  # the rate the persona first gives
    discount_pct: float  # the treasury hurdle rate she corrects it to
    launch_year: int  # year 1 of the projection
    claimed_tam_usd_m: float  # the persona's inflated Indonesian TAM ("two billion")
    foreign_cap_pct: float  # counsel's foreign-ownership cap in Indonesia
    base_weights: dict[str, int]
    # Her change of mind: the board wants scale, so market size up and regulatory / affordability down.
    revised_weights: dict[str, int]


TODAY = Inputs(
    markets=_MARKETS,
    competitors=_COMPETITORS,
    costs=_COSTS,
    adoption_pct=22.0,
    consults_per_user=2.5,
    capture_of_tail_pct=25.0,
    low_capture_pct=15.0,
    ramp_pct=(15.0, 35.0, 60.0, 85.0, 100.0),
    terminal_growth_pct=3.0,
    first_discount_pct=10.0,
    discount_pct=12.0,
    launch_year=2026,
    claimed_tam_usd_m=2000.0,
    foreign_cap_pct=67.0,
    base_weights={
        "market_size": 25,
        "growth": 15,
        "digital": 10,
        "regulatory": 20,
        "competition": 10,
        "affordability": 10,
        "clinical_need": 10,
    },
    revised_weights={
        "market_size": 40,
        "growth": 15,
        "digital": 10,
        "regulatory": 10,
        "competition": 10,
        "affordability": 5,
        "clinical_need": 10,
    },
)

MARKET_FILE = "sea_market_inputs.csv"
COMPETITOR_FILE = "sea_competitors.csv"
COST_FILE = "entry_cost_assumptions.csv"
REGULATORY_FILE = "regulatory_findings.csv"


def key(country: str) -> str:
    """Row key of a country in the products (lower snake case)."""
    return country.lower().replace(" ", "_")


# ----------------------------------------------------------------------------- files


def _csv(header: tuple[str, ...] | list[str], rows: Sequence[Sequence[Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow(row)
    return buf.getvalue()


def market_inputs_csv(inp: Inputs) -> str:
    """The research team's country table."""
    return _csv(MARKET_COLUMNS, inp.markets)


def competitors_csv(inp: Inputs) -> str:
    """Competitor shares by country."""
    return _csv(("country", "competitor", "model", "consult_share_pct", "players"), inp.competitors)


def costs_csv(inp: Inputs) -> str:
    """Finance's entry-cost assumptions for the two front-runners."""
    return _csv(
        (
            "country",
            "launch_capex_usd_m",
            "fixed_opex_y1_usd_m",
            "opex_growth_pct",
            "contribution_margin_pct",
            "entry_vehicle",
        ),
        inp.costs,
    )


def regulatory_csv(inp: Inputs) -> str:
    """Counsel's draft regulatory findings."""
    cap = {"cap": f"{inp.foreign_cap_pct:.0f}", "partner": f"{100 - inp.foreign_cap_pct:.0f}"}
    rows = [
        (country, topic, finding.format(**cap), severity) for country, topic, finding, severity in _REGULATORY
    ]
    return _csv(("country", "topic", "finding", "severity"), rows)


def data_files(inp: Inputs = TODAY) -> list[DataFile]:
    """The files the persona pushes during the meeting."""
    return [
        DataFile(
            name=MARKET_FILE,
            media_type="text/csv",
            content=market_inputs_csv(inp),
            description="Market-sizing inputs for six SEA countries; money in USD, FX for reference.",
        ),
        DataFile(
            name=COMPETITOR_FILE,
            media_type="text/csv",
            content=competitors_csv(inp),
            description="Telehealth consult share of the top three players and the long tail, by country.",
        ),
        DataFile(
            name=COST_FILE,
            media_type="text/csv",
            content=costs_csv(inp),
            description="Finance's launch capex, fixed opex and contribution margin for the top two.",
        ),
        DataFile(
            name=REGULATORY_FILE,
            media_type="text/csv",
            content=regulatory_csv(inp),
            description="External counsel's draft findings by country, with severity.",
        ),
    ]


# ----------------------------------------------------------------------------- parsed data


@dataclass
class Market:
    """One country's row of the input table."""

    country: str
    population_m: float
    urban_pct: float
    smartphone_pct: float
    internet_users_m: float
    spend_usd: float
    physicians_per_1000: float
    regulatory: float
    cagr_pct: float
    oop_pct: float
    private_pct: float
    wtp_usd: float
    price_usd: float
    currency: str
    fx: float


@dataclass
class Costs:
    """Finance's cost build for one country."""

    capex_usd_m: float
    opex_y1_usd_m: float
    opex_growth_pct: float
    margin_pct: float
    vehicle: str


@dataclass
class MarketData:
    """Everything the persona pushes, parsed."""

    markets: list[Market]
    competitors: list[dict[str, Any]]
    costs: dict[str, Costs]


def parse_files(files: dict[str, str]) -> MarketData:
    """Parse the pushed CSV files (name -> text)."""
    markets = []
    for row in csv.DictReader(io.StringIO(files[MARKET_FILE])):
        markets.append(
            Market(
                row["country"],
                float(row["population_m"]),
                float(row["urban_share_pct"]),
                float(row["smartphone_penetration_pct"]),
                float(row["internet_users_m"]),
                float(row["health_spend_per_capita_usd"]),
                float(row["physicians_per_1000"]),
                float(row["regulatory_openness_1to10"]),
                float(row["telehealth_cagr_pct"]),
                float(row["out_of_pocket_share_pct"]),
                float(row["private_insured_pct"]),
                float(row["wtp_per_consult_usd"]),
                float(row["consult_price_usd"]),
                row["currency"],
                float(row["fx_local_per_usd"]),
            )
        )
    competitors = [
        {
            "country": row["country"],
            "competitor": row["competitor"],
            "model": row["model"],
            "share_pct": float(row["consult_share_pct"]),
            "players": int(row["players"]),
        }
        for row in csv.DictReader(io.StringIO(files[COMPETITOR_FILE]))
    ]
    costs = {
        row["country"]: Costs(
            float(row["launch_capex_usd_m"]),
            float(row["fixed_opex_y1_usd_m"]),
            float(row["opex_growth_pct"]),
            float(row["contribution_margin_pct"]),
            row["entry_vehicle"],
        )
        for row in csv.DictReader(io.StringIO(files[COST_FILE]))
    }
    return MarketData(markets, competitors, costs)


def generate(inp: Inputs = TODAY) -> MarketData:
    """The scenario's data, read back from the files exactly as the agent receives them."""
    return parse_files({file.name: file.content for file in data_files(inp)})


# ----------------------------------------------------------------------------- fresh instances


def _jitter(rng: np.random.Generator, value: float, rel: float, step: float) -> float:
    """``value`` moved by up to ``rel`` either way and rounded to ``step`` (the precision the table uses)."""
    return round(round(value * (1 + rng.uniform(-rel, rel)) / step) * step, 6)


def _sig3(value: float) -> float:
    """Three significant figures, the way the research table quotes exchange rates."""
    return float(f"{value:.3g}")


def draw_market(rng: np.random.Generator, row: tuple[Any, ...]) -> tuple[Any, ...]:
    """One country's row of the research table, every figure moved within its plausible range."""
    (country, pop, urban, phone, net, spend, docs, reg, cagr, oop, private, wtp, price, cur, fx) = row
    new_pop = _jitter(rng, pop, 0.12, 0.1)
    new_urban = min(100, int(_jitter(rng, urban, 0.12, 1)))
    new_phone = min(95, int(_jitter(rng, phone, 0.08, 1)))
    new_price = max(2.0, _jitter(rng, price, 0.2, 0.5))
    return (
        country,
        new_pop,
        new_urban,
        new_phone,
        min(new_pop, _jitter(rng, net / pop * new_pop, 0.08, 0.1)),
        int(_jitter(rng, spend, 0.2, 5)),
        max(0.2, _jitter(rng, docs, 0.2, 0.01)),
        int(min(10, max(1, reg + rng.integers(-1, 2)))),
        int(max(5, cagr + rng.integers(-2, 3))),
        int(_jitter(rng, oop, 0.2, 1)),
        int(_jitter(rng, private, 0.2, 1)),
        max(2.0, _jitter(rng, wtp / price * new_price, 0.1, 0.5)),
        new_price,
        cur,
        _sig3(fx * (1 + rng.uniform(-0.08, 0.08))),
    )


def draw_competitors(
    rng: np.random.Generator, rows: tuple[tuple[Any, ...], ...]
) -> tuple[tuple[Any, ...], ...]:
    """The competitor table with new shares for the named leaders and a new size of the long tail."""
    out: list[tuple[Any, ...]] = []
    for country in dict.fromkeys(row[0] for row in rows):
        named = [row for row in rows if row[0] == country and row[4] == 1]
        (tail,) = [row for row in rows if row[0] == country and row[4] > 1]
        # Redrawn shares keep their order, so the named leader stays the leader.
        shares = sorted((max(4, int(_jitter(rng, row[3], 0.15, 1))) for row in named), reverse=True)
        out += [(row[0], row[1], row[2], share, 1) for row, share in zip(named, shares, strict=True)]
        out.append((*tail[:3], 100 - sum(shares), int(max(3, tail[4] + rng.integers(-2, 3)))))
    return tuple(out)


def _draw_costs(rng: np.random.Generator, rows: tuple[tuple[Any, ...], ...]) -> tuple[tuple[Any, ...], ...]:
    """Finance's cost build with each figure moved; the entry vehicles stay."""
    return tuple(
        (
            country,
            _jitter(rng, capex, 0.2, 0.1),
            _jitter(rng, opex, 0.15, 0.1),
            int(growth + rng.integers(-2, 3)),
            int(margin + rng.integers(-4, 5)),
            vehicle,
        )
        for country, capex, opex, growth, margin, vehicle in rows
    )


def _draw_weights(rng: np.random.Generator) -> tuple[dict[str, int], dict[str, int]]:
    """Base weights within 5 points of today's (market size strictly heaviest), then her shift towards scale."""
    while True:
        base = {name: int(weight + 5 * rng.integers(-1, 2)) for name, weight in TODAY.base_weights.items()}
        size = base["market_size"]
        heaviest = all(size > weight for name, weight in base.items() if name != "market_size")
        # Regulatory and affordability must have weight to give up when she shifts it to market size.
        room = base["regulatory"] >= 15 and base["affordability"] >= 10
        if sum(base.values()) == 100 and min(base.values()) >= 5 and heaviest and room:
            break
    reg_cut = int(rng.choice([5, 10]))
    aff_cut = 5
    revised = dict(base)
    revised["market_size"] += reg_cut + aff_cut
    revised["regulatory"] -= reg_cut
    revised["affordability"] -= aff_cut
    return base, revised


def draw_assumptions(rng: np.random.Generator, inp: Inputs) -> Inputs:
    """The persona's weights and sizing assumptions: with the research table, what the ranking depends on."""
    base, revised = _draw_weights(rng)
    capture = float(rng.choice([20.0, 25.0, 30.0]))
    return replace(
        inp,
        adoption_pct=float(rng.integers(17, 28)),
        consults_per_user=float(rng.choice([2.0, 2.5, 3.0])),
        capture_of_tail_pct=capture,
        low_capture_pct=capture - 10.0,
        claimed_tam_usd_m=float(rng.choice([1500.0, 2000.0, 2500.0, 3000.0])),
        foreign_cap_pct=float(rng.choice([60.0, 65.0, 67.0, 70.0])),
        base_weights=base,
        revised_weights=revised,
    )


def draw_value_side(rng: np.random.Generator, inp: Inputs) -> Inputs:
    """Finance's cost build and the valuation assumptions: what the projection and NPV depend on."""
    first = float(rng.choice([8.0, 9.0, 10.0, 11.0]))
    return replace(
        inp,
        costs=_draw_costs(rng, TODAY.costs),
        ramp_pct=(
            float(rng.choice([10.0, 15.0, 20.0])),
            float(rng.choice([30.0, 35.0, 40.0])),
            float(rng.choice([55.0, 60.0, 65.0])),
            float(rng.choice([80.0, 85.0, 90.0])),
            100.0,
        ),
        terminal_growth_pct=float(rng.choice([2.0, 2.5, 3.0, 3.5])),
        first_discount_pct=first,
        discount_pct=first + float(rng.choice([1.0, 2.0, 3.0])),
        launch_year=int(rng.choice([2026, 2027])),
    )
