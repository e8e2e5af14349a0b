"""The battery briefing's inputs: the claims, the partner update and the cost history as figures and as the
CSV files the agent receives, their parsing, and the random redraw of every figure for a fresh instance."""

from __future__ import annotations

import csv
import io
import logging
from dataclasses import dataclass, replace
from typing import Any

from modylbench.scenarios._kit import identity

logger = logging.getLogger(__name__)

IDENTITY = identity(__package__)
"""What this scenario is (its identity.toml): the registry, the tests and the benchmarks read the same."""
SCENARIO_ID = IDENTITY.scenario_id

# Fixed by the script: the evidence tiers, the readiness weights the persona questions ("sixty-forty") and
# the calendar (SOP, the CEO's 2027 headline, source dates). The figures are in ``Inputs`` below.
TIER: dict[str, int] = {"peer_reviewed": 3, "analyst_note": 2, "press_release": 1}
TRL_WEIGHT = 0.6  # readiness = 100 × (0.6 × TRL/9 + 0.4 × min(cycles / target, 1))
ALT_TRL_WEIGHTS = (0.8, 0.4)  # the sensitivity the persona asks for
SOP_YEAR = 2029
HALDEN_CLAIM_ID = "C02"
RETRACTED_CLAIM_ID = "C06"
DROP_REQUEST_ID = "C04"  # the Sorai paper the persona wants dropped
SWAPPED_CONFIRMED = ("U02",)  # the sender confirms these rows had Wh/kg and Wh/L swapped
# Cells are denser than water: Wh/L ÷ Wh/kg is the cell density in kg/L, ~1.5–3.5 for real cells.
DENSITY_RANGE_KG_L = (1.5, 3.5)

BASELINE = "nmc811_graphite"
CHEMISTRIES: tuple[str, ...] = (
    "sulfide_li_metal",
    "oxide_li_metal",
    "polymer_li_metal",
    "silicon_anode",
    "nmc811_graphite",
    "lfp_graphite",
)
CANDIDATES: tuple[str, ...] = CHEMISTRIES[:4]
LABEL: dict[str, str] = {
    "sulfide_li_metal": "Sulfide SSB",
    "oxide_li_metal": "Oxide SSB",
    "polymer_li_metal": "Polymer SSB",
    "silicon_anode": "Si-anode Li-ion",
    "nmc811_graphite": "NMC811 (baseline)",
    "lfp_graphite": "LFP (baseline)",
}

COLUMNS: tuple[str, ...] = (
    "claim_id",
    "developer",
    "chemistry",
    "anode",
    "grav_wh_kg",
    "vol_wh_l",
    "cycle_life",
    "trl",
    "commercial_year",
    "source",
    "source_type",
    "source_date",
    "retracted_on",
)

# The intel team's claims table: cell-level figures as each source states them.
# fmt: off
_CLAIMS: tuple[tuple[Any, ...], ...] = (
    ("C01", "Halden Ionics", "sulfide_li_metal", "li_metal", 450, 1000, 1000, 5, 2026,
     "Halden Ionics press release: A-sample milestone", "press_release", "2023-03-14", ""),
    ("C02", "Halden Ionics", "sulfide_li_metal", "li_metal", 500, 1100, 1200, 6, 2027,
     "Halden Ionics press release: B-sample cells shipped", "press_release", "2025-01-09", ""),
    ("C03", "Sorai Energy", "sulfide_li_metal", "li_metal", 360, 800, 500, 4, 2028,
     "Ito et al. J. Solid State Electrochem. Eng. (2022)", "peer_reviewed", "2022-02-21", ""),
    ("C04", "Sorai Energy", "sulfide_li_metal", "li_metal", 390, 880, 800, 5, 2029,
     "Ito et al. Electrochem. Storage Letters (2024)", "peer_reviewed", "2024-06-03", ""),
    ("C05", "NIEM (Lindqvist group)", "sulfide_li_metal", "li_metal", 405, 900, 900, 4, None,
     "Lindqvist et al. Energy Materials Reports (2024)", "peer_reviewed", "2024-11-18", ""),
    ("C06", "Kansai Inst. Tech. (Okada group)", "sulfide_li_metal", "li_metal", 560, 1250, 2000, 5, None,
     "Okada et al. Nature Energy Systems (2023)", "peer_reviewed", "2023-08-30", "2024-05-14"),
    ("C07", "Vireo Cells", "sulfide_li_metal", "li_metal", 380, 850, 700, 5, 2029,
     "Meridian Capital analyst note: solid-state scorecard", "analyst_note", "2024-09-12", ""),
    ("C08", "Quartzline Batteries", "oxide_li_metal", "li_metal", 420, 1000, 1000, 6, 2027,
     "Quartzline press release: CES 2025 reveal", "press_release", "2025-01-07", ""),
    ("C09", "Quartzline Batteries", "oxide_li_metal", "li_metal", 350, 820, 800, 5, 2028,
     "Brandt et al. Electrochem. Storage Letters (2024)", "peer_reviewed", "2024-04-15", ""),
    ("C10", "Tanager Energy", "oxide_li_metal", "li_metal", 380, 850, 1000, 4, 2026,
     "Tanager Energy press release: pilot line opening", "press_release", "2023-01-19", ""),
    ("C11", "Tanager Energy", "oxide_li_metal", "li_metal", 340, 780, 600, 5, 2030,
     "Harbor Street Research analyst note", "analyst_note", "2025-02-11", ""),
    ("C12", "Rhine Battery Lab (Mehta group)", "oxide_li_metal", "li_metal", 365, 840, 700, 4, None,
     "Mehta et al. J. Power Materials (2025)", "peer_reviewed", "2025-03-04", ""),
    ("C13", "Polyvolt Systems", "polymer_li_metal", "li_metal", 300, 600, 1500, 7, 2025,
     "Polyvolt press release: fleet bus programme", "press_release", "2024-05-20", ""),
    ("C14", "Cascadia Energy Lab (Rao group)", "polymer_li_metal", "li_metal", 270, 560, 1200, 7, None,
     "Rao et al. Electrochem. Storage Letters (2023)", "peer_reviewed", "2023-11-07", ""),
    ("C15", "Lumen Polymer", "polymer_li_metal", "li_metal", 285, 590, 1000, 6, 2027,
     "Meridian Capital analyst note: polymer electrolytes", "analyst_note", "2024-12-02", ""),
    ("C16", "Pearl River Inst. (Zhou group)", "polymer_li_metal", "li_metal", 260, 540, 1300, 6, None,
     "Zhou et al. J. Power Materials (2025)", "peer_reviewed", "2025-01-27", ""),
    ("C17", "Siltrek", "silicon_anode", "silicon", 330, 800, 800, 6, 2024,
     "Siltrek press release: Series C", "press_release", "2022-06-08", ""),
    ("C18", "Siltrek", "silicon_anode", "silicon", 370, 900, 1000, 7, 2026,
     "Siltrek press release: automotive sampling", "press_release", "2024-08-26", ""),
    ("C19", "Anodica", "silicon_anode", "silicon", 340, 850, 1200, 7, 2026,
     "Harbor Street Research analyst note", "analyst_note", "2025-04-14", ""),
    ("C20", "Han River Univ. (Park group)", "silicon_anode", "silicon", 335, 830, 1100, 6, None,
     "Park et al. Energy Materials Reports (2024)", "peer_reviewed", "2024-03-18", ""),
    ("C21", "Alpine Inst. (Weiss group)", "silicon_anode", "silicon", 350, 870, 900, 7, None,
     "Weiss et al. J. Power Materials (2024)", "peer_reviewed", "2024-12-09", ""),
    ("C22", "Grant et al. teardown", "nmc811_graphite", "graphite", 275, 700, 1500, 9, 2018,
     "Grant et al. automotive cell teardown (2024)", "peer_reviewed", "2024-02-12", ""),
    ("C23", "Meridian industry average", "nmc811_graphite", "graphite", 285, 720, 1500, 9, 2018,
     "Meridian Capital analyst note: cell benchmarks", "analyst_note", "2025-01-15", ""),
    ("C24", "Oyelaran et al. benchmark", "nmc811_graphite", "graphite", 270, 680, 2000, 9, 2018,
     "Oyelaran et al. J. Power Materials (2023)", "peer_reviewed", "2023-06-19", ""),
    ("C25", "Nordkap Cells", "nmc811_graphite", "graphite", 290, 750, 1500, 9, 2019,
     "Nordkap Cells press release: Gen3 cell", "press_release", "2024-09-03", ""),
    ("C26", "Grant et al. teardown", "lfp_graphite", "graphite", 175, 400, 4000, 9, 2015,
     "Grant et al. automotive cell teardown (2024)", "peer_reviewed", "2024-02-12", ""),
    ("C27", "Meridian industry average", "lfp_graphite", "graphite", 180, 410, 5000, 9, 2015,
     "Meridian Capital analyst note: cell benchmarks", "analyst_note", "2025-01-15", ""),
    ("C28", "Nordkap Cells", "lfp_graphite", "graphite", 205, 450, 6000, 9, 2020,
     "Nordkap Cells press release: LFP Max", "press_release", "2024-11-11", ""),
)

# The Yokohama office's update from Battery Japan: U02's export swapped the two density columns, U03 was
# typed from a photo of a slide (letter O for zero, a spreadsheet #REF!, a truncated date).
_UPDATE: tuple[tuple[Any, ...], ...] = (
    ("U01", "Vireo Cells", "sulfide_li_metal", "li_metal", 395, 880, 900, 6, 2028,
     "Meridian Capital analyst note: Battery Japan 2025 readout", "analyst_note", "2025-05-21", ""),
    ("U02", "Ferrox Solid State", "oxide_li_metal", "li_metal", 820, 360, 750, 5, 2030,
     "Sato et al. Electrochem. Storage Letters (2025)", "peer_reviewed", "2025-05-28", ""),
)
# fmt: on
# U03 is Halden's B-sample figures (C02) typed off a booth photo.
CORRUPT_ID, _CORRUPT_SOURCE, _CORRUPT_DATE = "U03", "Halden Ionics booth slide (photo)", "2025-05-2"

# Analyst cell-cost estimates, $/kWh (cell level, nominal).
_COSTS: dict[str, tuple[tuple[int, float, str], ...]] = {
    "sulfide_li_metal": (
        (2020, 820.0, "Meridian Capital"),
        (2021, 650.0, "Meridian Capital"),
        (2022, 530.0, "Harbor Street Research"),
        (2023, 420.0, "Meridian Capital"),
        (2024, 345.0, "Harbor Street Research"),
        (2025, 285.0, "Meridian Capital"),
    ),
    "nmc811_graphite": (
        (2020, 137.0, "Meridian Capital"),
        (2021, 128.0, "Meridian Capital"),
        (2022, 135.0, "Harbor Street Research"),
        (2023, 117.0, "Meridian Capital"),
        (2024, 106.0, "Harbor Street Research"),
        (2025, 98.0, "Meridian Capital"),
    ),
}
SPIKE_YEAR = 2022  # lithium carbonate price spike: the persona asks whether it distorts the fit


@dataclass(frozen=True)
class Inputs:
    """Every figure the meeting starts from; ``TODAY`` holds the committed scenario's."""

    claims: tuple[tuple[Any, ...], ...]  # sources.csv rows, in ``COLUMNS`` order
    update: tuple[tuple[Any, ...], ...]  # the partner's two readable rows, U02 with its columns swapped
    costs: dict[str, tuple[tuple[int, float, str], ...]]  # chemistry -> (year, $/kWh, analyst)
    conflict_threshold_pct: float  # |claim − peer-reviewed median| / median above this flags a conflict
    cycle_target: int  # NX warranty: full cycles to 80% state of health
    pack_kwh_first: float  # the pack size the persona says first
    pack_kwh: float  # her correction: the long-range trim, where solid-state cells would go
    equity_eur_m: int  # the proposed equity stake in Halden, € million

    def row(self, claim_id: str) -> tuple[Any, ...]:
        return next(r for r in self.claims + self.update if r[0] == claim_id)


TODAY = Inputs(
    claims=_CLAIMS,
    update=_UPDATE,
    costs=_COSTS,
    conflict_threshold_pct=15.0,
    cycle_target=1000,
    pack_kwh_first=80.0,
    pack_kwh=92.0,
    equity_eur_m=150,
)


# --------------------------------------------------------------------------- data files


def _csv(header: tuple[str, ...], rows: list[list[Any]] | tuple[tuple[Any, ...], ...]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow(["" if v is None else v for v in r])
    return buf.getvalue()


def sources_csv(inputs: Inputs = TODAY) -> str:
    """sources.csv: the intel team's claims table."""
    return _csv(COLUMNS, inputs.claims)


def _photo_typed(n: int, thousands: str = "") -> str:
    """A number as misread off a photo: letter O for zero, a space for the thousands separator."""
    return (f"{n:,}".replace(",", " ") if thousands else str(n)).replace("0", "O")


def update_csv(inputs: Inputs = TODAY) -> str:
    """partner_intel_update.csv: three rows from the Yokohama office, one swapped, one corrupt."""
    h = inputs.row(HALDEN_CLAIM_ID)
    corrupt = (
        f"{CORRUPT_ID},{h[1]},{h[2]},{h[3]},{_photo_typed(h[4])},{_photo_typed(h[5], ' ')},"
        f"{_photo_typed(h[6])},{h[7]},#REF!,{_CORRUPT_SOURCE},{h[10]},{_CORRUPT_DATE},"
    )
    return _csv(COLUMNS, inputs.update) + corrupt + "\n"


def cost_csv(inputs: Inputs = TODAY) -> str:
    """cost_history.csv: analyst cell-cost estimates by year for sulfide SSB and NMC811."""
    rows = [[y, chem, f"{c:.0f}", src] for chem, pts in inputs.costs.items() for y, c, src in pts]
    return _csv(("year", "chemistry", "cell_cost_usd_kwh", "source"), rows)


# --------------------------------------------------------------------------- parsing


@dataclass(frozen=True)
class Claim:
    """One performance claim about a cell chemistry, as a source states it."""

    claim_id: str
    developer: str
    chemistry: str
    anode: str
    grav: float  # Wh/kg, cell level
    vol: float  # Wh/L, cell level
    cycles: int
    trl: int
    year: int | None  # claimed commercialisation year (labs claim none)
    source: str
    source_type: str
    source_date: str
    retracted_on: str

    @property
    def density_kg_l(self) -> float:
        """Implied cell density; below 1 kg/L the two density columns are almost surely swapped."""
        return self.vol / self.grav


@dataclass(frozen=True)
class RejectedRow:
    """A row that cannot be read as a claim."""

    claim_id: str
    developer: str
    chemistry: str
    source_type: str
    source_date: str
    reason: str


def parse_claims(text: str) -> tuple[list[Claim], list[RejectedRow]]:
    """Claims from a claims CSV; rows whose numbers or date do not parse are rejected, not guessed."""
    claims: list[Claim] = []
    rejected: list[RejectedRow] = []
    for row in csv.DictReader(io.StringIO(text)):
        try:
            year_txt = row["commercial_year"].strip()
            claim = Claim(
                claim_id=row["claim_id"],
                developer=row["developer"],
                chemistry=row["chemistry"],
                anode=row["anode"],
                grav=float(row["grav_wh_kg"]),
                vol=float(row["vol_wh_l"]),
                cycles=int(row["cycle_life"]),
                trl=int(row["trl"]),
                year=int(year_txt) if year_txt else None,
                source=row["source"],
                source_type=row["source_type"],
                source_date=row["source_date"],
                retracted_on=row["retracted_on"] or "",
            )
            if len(claim.source_date) != 10:
                raise ValueError(f"source_date {claim.source_date!r} is not YYYY-MM-DD")
            claims.append(claim)
        except (ValueError, TypeError) as exc:
            rejected.append(
                RejectedRow(
                    row["claim_id"],
                    row["developer"],
                    row["chemistry"],
                    row["source_type"],
                    row["source_date"],
                    f"unreadable row ({exc})",
                )
            )
    return claims, rejected


def swapped_units(claims: list[Claim]) -> list[str]:
    """Ids whose implied cell density is physically impossible, i.e. Wh/kg and Wh/L were swapped."""
    return [c.claim_id for c in claims if c.density_kg_l < 1.0]


def fix_swapped(claims: list[Claim], ids: tuple[str, ...]) -> list[Claim]:
    """Swap the density columns back on rows the sender confirmed."""
    return [replace(c, grav=c.vol, vol=c.grav) if c.claim_id in ids else c for c in claims]


def parse_costs(text: str) -> dict[str, list[tuple[int, float]]]:
    """Cost points by chemistry from cost_history.csv: (year, $/kWh)."""
    out: dict[str, list[tuple[int, float]]] = {}
    for row in csv.DictReader(io.StringIO(text)):
        out.setdefault(row["chemistry"], []).append((int(row["year"]), float(row["cell_cost_usd_kwh"])))
    return out
