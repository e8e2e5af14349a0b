"""Pipeline diagnosis data: the CRM's shape and rates, their random draws, and the export (written and read back)."""

from __future__ import annotations

import bisect
import csv
import datetime as dt
import io
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from modylbench.scenarios._kit import identity

logger = logging.getLogger(__name__)

IDENTITY = identity(__package__)
"""What this scenario is (its identity.toml): the registry, the tests and the benchmarks read the same."""
SCENARIO_ID = IDENTITY.scenario_id
SEED = 2134
YEAR = 2025
WEEKS = tuple(range(14, 40))
Q2_WEEKS = tuple(range(14, 27))
Q3_WEEKS = tuple(range(27, 40))
ROUTING_WEEK = 31
JULY_WEEKS = (27, 28, 29, 30)

SEGMENTS = ("SMB", "Mid-Market", "Enterprise")
SEGMENT_KEYS = {"SMB": "smb", "Mid-Market": "mid_market", "Enterprise": "enterprise"}
SOURCES = ("Inbound", "Outbound", "Partner")
REGIONS = ("NA", "EMEA", "APAC")
# Mean new leads per week by (segment, source): the raw volumes a CRM of this size sees.
LEAD_VOLUME = {
    ("SMB", "Inbound"): 34,
    ("SMB", "Outbound"): 7,
    ("SMB", "Partner"): 4,
    ("Mid-Market", "Inbound"): 54,
    ("Mid-Market", "Outbound"): 10,
    ("Mid-Market", "Partner"): 5,
    ("Enterprise", "Inbound"): 7,
    ("Enterprise", "Outbound"): 9,
    ("Enterprise", "Partner"): 4,
}
SMB_WEBINAR_LEADS = 14  # extra SMB inbound leads a week in Q3 from the webinar programme (the mix shift)
REGION_MIX = (0.55, 0.30, 0.15)  # share of leads by region, in REGIONS order
P_MQL = {"Inbound": 0.45, "Outbound": 0.60, "Partner": 0.55}
P_SQL = {"SMB": 0.45, "Mid-Market": 0.50, "Enterprise": 0.55}
P_OPP = {"SMB": 0.40, "Mid-Market": 0.58, "Enterprise": 0.64}
P_OPP_AFTER_ROUTING = 0.26  # the planted break: mid-market inbound SQLs after the week-31 routing change
P_PROPOSAL = {"SMB": 0.60, "Mid-Market": 0.62, "Enterprise": 0.66}
P_WIN = {"SMB": 0.32, "Mid-Market": 0.28, "Enterprise": 0.22}
DEAL_SIZE = {"SMB": (12_000, 0.45), "Mid-Market": (46_000, 0.40), "Enterprise": (165_000, 0.45)}
REPS = {
    "SMB": ("K. Ito", "M. Duarte", "P. Lindqvist", "Y. Adeyemi"),
    "Mid-Market": ("A. Moreno", "J. Okafor", "L. Chen", "R. Haddad", "S. Novak"),
    "Enterprise": ("D. Whitcombe", "E. Falk", "H. Mensah"),
}
NEW_REP = "T. Brennan"  # mid-market AE who started the same week as the routing change
DUPLICATED_SQLS = 24  # rows the routing tool's re-sync doubled in the marketing-ops refresh

EXPORT_NAME = "crm_export_q2_q3.csv"
REFRESH_NAME = "crm_q3_midmarket_refresh.csv"
BACKLOG_NAME = "mm_inbound_unaccepted_sqls_w31_w39.csv"
COLUMNS = (
    "opportunity_id",
    "created_date",
    "segment",
    "region",
    "source",
    "stage_reached",
    "deal_size",
    "owner",
)
STAGE_RANK = {
    "Lead": 0,
    "MQL": 1,
    "SQL": 2,
    "Opportunity": 3,
    "Proposal": 4,
    "Closed Lost": 4,
    "Closed Won": 5,
}
# Stage-to-stage transitions: (key, label, rank of the from-stage).
TRANSITIONS = (
    ("lead_to_mql", "Lead → MQL", 0),
    ("mql_to_sql", "MQL → SQL", 1),
    ("sql_to_opportunity", "SQL → Opportunity", 2),
    ("opportunity_to_proposal", "Opportunity → Proposal", 3),
    ("proposal_to_won", "Proposal → Closed Won", 4),
)
MQL, SQL, OPP, PROPOSAL, WON = 1, 2, 3, 4, 5


@dataclass(frozen=True)
class Inputs:
    """The raw numbers one instance of the CRM is simulated from.

    ``Inputs()`` is the committed instance (the constants above); ``Inputs.draw(rng)`` is a fresh
    one around them, for ``build(seed)`` with a non-zero seed.
    """

    generator_seed: int = SEED
    lead_volume: Mapping[tuple[str, str], float] = field(default_factory=lambda: dict(LEAD_VOLUME))
    smb_webinar_leads: float = SMB_WEBINAR_LEADS
    # Lead→MQL and MQL→SQL rates of the webinar's SMB leads. The committed instance gives them the
    # SMB inbound rates (its draw happened to add almost no SMB SQLs); fresh instances make the story's
    # "the webinar added leads, not SQLs" explicit.
    webinar_mql_rate: float = P_MQL["Inbound"]
    webinar_sql_rate: float = P_SQL["SMB"]
    # Three more of the story's premises, neutral in the committed instance (whose draw bears them out
    # by itself) and made likely, never certain, in fresh ones: the enterprise "good news" is a
    # noise-sized Q3 gain, the new AE ramps up a little below his peers, and opportunities from the
    # broken routing close less often ("Q3's win rate is contaminated").
    enterprise_q3_opp_uplift: float = 0.0
    new_rep_opp_factor: float = 1.0
    p_win_after_routing: float = P_WIN["Mid-Market"]
    region_mix: tuple[float, ...] = REGION_MIX
    p_mql: Mapping[str, float] = field(default_factory=lambda: dict(P_MQL))
    p_sql: Mapping[str, float] = field(default_factory=lambda: dict(P_SQL))
    p_opp: Mapping[str, float] = field(default_factory=lambda: dict(P_OPP))
    p_opp_after_routing: float = P_OPP_AFTER_ROUTING
    p_proposal: Mapping[str, float] = field(default_factory=lambda: dict(P_PROPOSAL))
    p_win: Mapping[str, float] = field(default_factory=lambda: dict(P_WIN))
    deal_size: Mapping[str, tuple[float, float]] = field(default_factory=lambda: dict(DEAL_SIZE))
    duplicated_sqls: int = DUPLICATED_SQLS
    # How each lead's stage decisions are drawn: independently (the committed instance), or by
    # systematic sampling within each week's segment × source cell, so that stage counts land within
    # one of their expectation. The committed draw bears the script's premises out by luck, which a
    # search over fresh draws almost never repeats (none in 300); systematic draws hold them by design.
    systematic: bool = False

    @classmethod
    def draw(cls, rng: np.random.Generator) -> Inputs:
        """A fresh instance: every input within a plausible spread around the committed value."""

        def around(x: float, spread: float) -> float:
            return float(x * rng.uniform(1 - spread, 1 + spread))

        def each(values: Mapping[Any, float], spread: float) -> dict[Any, float]:
            return {k: round(around(v, spread), 3) for k, v in values.items()}

        regions = [around(x, 0.2) for x in REGION_MIX]
        return cls(
            generator_seed=int(rng.integers(1, 2**31)),
            lead_volume={k: round(around(v, 0.2), 1) for k, v in LEAD_VOLUME.items()},
            smb_webinar_leads=round(around(SMB_WEBINAR_LEADS, 0.25), 1),
            webinar_mql_rate=round(float(rng.uniform(0.25, 0.35)), 3),
            webinar_sql_rate=round(float(rng.uniform(0.05, 0.15)), 3),
            enterprise_q3_opp_uplift=round(float(rng.uniform(0.02, 0.05)), 3),
            new_rep_opp_factor=round(float(rng.uniform(0.6, 0.85)), 3),
            p_win_after_routing=round(float(rng.uniform(0.12, 0.2)), 3),
            region_mix=tuple(round(x / sum(regions), 3) for x in regions),
            p_mql=each(P_MQL, 0.1),
            p_sql=each(P_SQL, 0.1),
            p_opp=each(P_OPP, 0.1),
            p_opp_after_routing=round(float(rng.uniform(0.65, 0.9)) * P_OPP_AFTER_ROUTING, 3),
            p_proposal=each(P_PROPOSAL, 0.1),
            p_win=each(P_WIN, 0.15),
            deal_size={
                k: (round(around(median, 0.25) / 500) * 500.0, round(around(sigma, 0.1), 2))
                for k, (median, sigma) in DEAL_SIZE.items()
            },
            duplicated_sqls=round(around(DUPLICATED_SQLS, 0.25)),
            systematic=True,
        )

    def _with_webinar(self, segment: str, source: str, week: int, rate: float, webinar: float) -> float:
        if segment != "SMB" or source != "Inbound" or week not in Q3_WEEKS or webinar == rate:
            return rate
        base = self.lead_volume[segment, source]
        return (base * rate + self.smb_webinar_leads * webinar) / (base + self.smb_webinar_leads)

    def mql_rate(self, segment: str, source: str, week: int) -> float:
        """Lead→MQL rate; in Q3 SMB inbound blends in the webinar's leads."""
        return self._with_webinar(segment, source, week, self.p_mql[source], self.webinar_mql_rate)

    def sql_rate(self, segment: str, source: str, week: int) -> float:
        """MQL→SQL rate of the leads that reached MQL; in Q3 SMB inbound blends in the webinar's MQLs."""
        base_mql = self.p_mql[source]
        if (
            segment == "SMB"
            and source == "Inbound"
            and week in Q3_WEEKS
            and self.webinar_mql_rate != base_mql
        ):
            # Weighted by MQLs, not leads: the webinar's share of MQLs is smaller than its share of leads.
            base = self.lead_volume[segment, source] * base_mql
            web = self.smb_webinar_leads * self.webinar_mql_rate
            return (base * self.p_sql[segment] + web * self.webinar_sql_rate) / (base + web)
        return self._with_webinar(segment, source, week, self.p_sql[segment], self.webinar_sql_rate)


class _IndependentDraws:
    """Poisson lead counts, and each stage decision an independent Bernoulli draw."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def count(self, mean: float) -> int:
        return int(self.rng.poisson(mean))

    def chance(self, key: tuple[Any, ...], p: float) -> bool:
        return bool(self.rng.random() < p)


class _SystematicDraws(_IndependentDraws):
    """Lead counts rounded at random, and systematic sampling per key: a random start, then a success
    each time the running sum of p crosses an integer, so k successes in n tries stay within one of the
    summed probabilities."""

    def __init__(self, rng: np.random.Generator) -> None:
        super().__init__(rng)
        self.phase: dict[tuple[Any, ...], float] = {}

    def count(self, mean: float) -> int:
        return int(mean + self.rng.random())

    def chance(self, key: tuple[Any, ...], p: float) -> bool:
        acc = self.phase.get(key)
        if acc is None:
            acc = float(self.rng.random())
        acc += p
        self.phase[key] = acc % 1.0
        return acc >= 1.0


@dataclass(frozen=True)
class CrmData:
    """The files the persona brings: the Q2–Q3 export and marketing ops' Q3 mid-market refresh."""

    export_csv: str
    refresh_csv: str
    backlog_csv: str


def csv_text(rows: list[tuple[str, ...]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(rows)
    return out.getvalue()


def generate(inputs: Inputs | None = None) -> CrmData:
    """Simulate every lead created in ISO weeks 14–39 and the furthest stage it reached in 60 days."""
    inp = inputs or Inputs()
    rng = np.random.default_rng(inp.generator_seed)
    draws = _SystematicDraws(rng) if inp.systematic else _IndependentDraws(rng)
    chance = draws.chance
    # Draws one uniform per lead exactly as ``rng.choice(REGIONS, p=...)`` does, without its overhead.
    region_cdf = np.cumsum(inp.region_mix)
    region_cdf = (region_cdf / region_cdf[-1]).tolist()
    raw: list[tuple[dt.date, str, str, str, str, str, str]] = []
    for week in WEEKS:
        monday = dt.date.fromisocalendar(YEAR, week, 1)
        for (segment, source), mean in inp.lead_volume.items():
            if segment == "SMB" and source == "Inbound" and week in Q3_WEEKS:
                mean += inp.smb_webinar_leads
            p_sql = inp.sql_rate(segment, source, week)
            broken = segment == "Mid-Market" and source == "Inbound" and week >= ROUTING_WEEK
            p_opp = inp.p_opp_after_routing if broken else inp.p_opp[segment]
            if segment == "Enterprise" and week in Q3_WEEKS:
                p_opp += inp.enterprise_q3_opp_uplift
            p_win = inp.p_win_after_routing if broken else inp.p_win[segment]
            # Systematic draws run per quarter and side of the routing change, so every rate the meeting
            # compares (Q2 vs Q3, weeks 14–30 vs 31–39) is drawn as a whole.
            cell = (segment, source, week in Q3_WEEKS, week >= ROUTING_WEEK)
            for _ in range(draws.count(mean)):
                day = monday + dt.timedelta(days=int(rng.integers(0, 5)))
                region = REGIONS[bisect.bisect_right(region_cdf, rng.random())]
                stage, size, owner = "Lead", "", ""
                if chance((MQL, cell), inp.mql_rate(segment, source, week)):
                    stage = "MQL"
                    if chance((SQL, cell), p_sql):
                        stage = "SQL"
                        reps = REPS[segment] + (
                            (NEW_REP,) if segment == "Mid-Market" and week >= ROUTING_WEEK else ()
                        )
                        owner = reps[int(rng.integers(0, len(reps)))]
                        if chance(
                            (OPP, cell, owner == NEW_REP),
                            p_opp * (inp.new_rep_opp_factor if owner == NEW_REP else 1.0),
                        ):
                            stage = "Opportunity"
                            median, sigma = inp.deal_size[segment]
                            size = str(
                                int(round(median * float(np.exp(rng.normal(0.0, sigma))) / 100.0)) * 100
                            )
                            if chance((PROPOSAL, cell), inp.p_proposal[segment]):
                                stage = "Closed Won" if chance((WON, cell), p_win) else "Closed Lost"
                raw.append((day, segment, region, source, stage, size, owner))
    # A CRM export lists records by creation date; within a day the order is arbitrary.
    order = np.lexsort((rng.random(len(raw)), np.array([r[0].toordinal() for r in raw])))
    rows = [(f"OPP-{24001 + i}", raw[j][0].isoformat(), *raw[j][1:]) for i, j in enumerate(order)]
    export = csv_text(rows)

    # Marketing ops' refresh: Q3 mid-market records from SQL on, where the routing tool's re-sync
    # sent some unconverted inbound SQLs twice (same id, same fields).
    q3_mm = [
        r
        for r in rows
        if r[2] == "Mid-Market"
        and STAGE_RANK[r[5]] >= SQL
        and dt.date.fromisoformat(r[1]).isocalendar()[1] in Q3_WEEKS
    ]
    candidates = [
        i
        for i, r in enumerate(q3_mm)
        if r[4] == "Inbound"
        and r[5] == "SQL"
        and dt.date.fromisoformat(r[1]).isocalendar()[1] >= ROUTING_WEEK
    ]
    doubled = set(int(i) for i in rng.choice(candidates, size=inp.duplicated_sqls, replace=False))
    refresh_rows: list[tuple[str, ...]] = []
    for i, r in enumerate(q3_mm):
        refresh_rows.append(r)
        if i in doubled:
            refresh_rows.append(r)
    # The AE follow-up list: post-change mid-market inbound SQLs no AE turned into an opportunity.
    backlog = io.StringIO()
    writer = csv.writer(backlog, lineterminator="\n")
    writer.writerow(("opportunity_id", "created_date", "region", "owner"))
    for r in rows:
        week = dt.date.fromisoformat(r[1]).isocalendar()[1]
        if r[2] == "Mid-Market" and r[4] == "Inbound" and r[5] == "SQL" and week >= ROUTING_WEEK:
            writer.writerow((r[0], r[1], r[3], r[7]))
    return CrmData(export_csv=export, refresh_csv=csv_text(refresh_rows), backlog_csv=backlog.getvalue())


@dataclass(frozen=True)
class Records:
    """Column arrays of a parsed export."""

    ids: np.ndarray
    week: np.ndarray
    segment: np.ndarray
    region: np.ndarray
    source: np.ndarray
    rank: np.ndarray
    deal_size: np.ndarray
    owner: np.ndarray

    def __len__(self) -> int:
        return len(self.ids)


def parse_export(text: str) -> Records:
    """Read a CRM export CSV into column arrays (ISO week of creation, stage rank, amount)."""
    reader = csv.DictReader(io.StringIO(text))
    rows = list(reader)
    return Records(
        ids=np.array([r["opportunity_id"] for r in rows]),
        week=np.array([dt.date.fromisoformat(r["created_date"]).isocalendar()[1] for r in rows]),
        segment=np.array([r["segment"] for r in rows]),
        region=np.array([r["region"] for r in rows]),
        source=np.array([r["source"] for r in rows]),
        rank=np.array([STAGE_RANK[r["stage_reached"]] for r in rows]),
        deal_size=np.array([float(r["deal_size"]) if r["deal_size"] else np.nan for r in rows]),
        owner=np.array([r["owner"] for r in rows]),
    )
