"""The battery briefing's solution: the evidence rules applied to the claims, the cost-curve fits, every
derived value the meeting speaks from, and the check that a set of figures still fits the script's story."""

from __future__ import annotations

import functools
import logging
import math
import statistics
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from modylbench.scenarios.builtin.battery.data import (
    ALT_TRL_WEIGHTS,
    BASELINE,
    CANDIDATES,
    CHEMISTRIES,
    CORRUPT_ID,
    DENSITY_RANGE_KG_L,
    DROP_REQUEST_ID,
    HALDEN_CLAIM_ID,
    RETRACTED_CLAIM_ID,
    SOP_YEAR,
    SPIKE_YEAR,
    SWAPPED_CONFIRMED,
    TIER,
    TODAY,
    TRL_WEIGHT,
    Claim,
    Inputs,
    RejectedRow,
    cost_csv,
    fix_swapped,
    parse_claims,
    parse_costs,
    sources_csv,
    swapped_units,
    update_csv,
)

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Verdict:
    """What the evidence rules make of one claim."""

    status: str  # accepted, retracted, superseded, conflict
    reason: str
    deviation_pct: float | None  # vs the chemistry's peer-reviewed median (non-peer-reviewed claims)


@dataclass(frozen=True)
class Consensus:
    """Per-chemistry consensus over accepted claims."""

    chemistry: str
    n_accepted: int
    grav_median: float
    grav_min: float
    grav_max: float
    vol_median: float
    cycle_median: float
    trl_median: float
    peer_median: float
    earliest_year: int | None
    grav_improvement_pct: float
    vol_improvement_pct: float
    readiness: float | None
    rank: int | None


@dataclass
class Reconciliation:
    """Claims after the evidence rules: verdicts, consensus rows and counts."""

    claims: list[Claim]
    verdicts: dict[str, Verdict]
    consensus: dict[str, Consensus]
    counts: dict[str, int] = field(default_factory=dict)

    def accepted(self, chemistry: str) -> list[Claim]:
        return [
            c
            for c in self.claims
            if c.chemistry == chemistry and self.verdicts[c.claim_id].status == "accepted"
        ]

    def claim(self, claim_id: str) -> Claim:
        return next(c for c in self.claims if c.claim_id == claim_id)


def readiness(trl: float, cycles: float, cycle_target: float, trl_weight: float = TRL_WEIGHT) -> float:
    """Readiness 0–100: technology readiness and cycle life against the warranty target."""
    return 100.0 * (trl_weight * trl / 9.0 + (1.0 - trl_weight) * min(cycles / cycle_target, 1.0))


def reconcile(claims: list[Claim], inputs: Inputs = TODAY) -> Reconciliation:
    """Apply the evidence rules in order: retracted, superseded, conflict; the rest are accepted."""
    verdicts: dict[str, Verdict] = {}
    live = []
    for c in claims:
        if c.retracted_on:
            verdicts[c.claim_id] = Verdict("retracted", f"paper retracted {c.retracted_on}", None)
        else:
            live.append(c)
    current = []
    for c in live:
        newer = [
            o
            for o in live
            if o.claim_id != c.claim_id
            and o.developer == c.developer
            and o.chemistry == c.chemistry
            and o.source_date > c.source_date
            and TIER[o.source_type] >= TIER[c.source_type]
        ]
        if newer:
            by = max(newer, key=lambda o: o.source_date)
            verdicts[c.claim_id] = Verdict(
                "superseded", f"superseded by {by.claim_id} ({by.source_date})", None
            )
        else:
            current.append(c)
    peer_median: dict[str, float] = {}
    for chem in CHEMISTRIES:
        peer = [c.grav for c in current if c.chemistry == chem and c.source_type == "peer_reviewed"]
        peer_median[chem] = float(np.median(peer))
    for c in current:
        if c.source_type == "peer_reviewed":
            verdicts[c.claim_id] = Verdict("accepted", "peer-reviewed, current", None)
            continue
        dev = 100.0 * (c.grav - peer_median[c.chemistry]) / peer_median[c.chemistry]
        if abs(dev) > inputs.conflict_threshold_pct:
            verdicts[c.claim_id] = Verdict(
                "conflict", f"{dev:+.1f}% vs peer-reviewed median {peer_median[c.chemistry]:g} Wh/kg", dev
            )
        else:
            verdicts[c.claim_id] = Verdict(
                "accepted", f"{dev:+.1f}% vs peer-reviewed median, within tolerance", dev
            )
    rec = Reconciliation(claims, verdicts, {})
    rows: dict[str, dict[str, Any]] = {}
    for chem in CHEMISTRIES:
        acc = rec.accepted(chem)
        years = [c.year for c in acc if c.year is not None]
        rows[chem] = {
            "n": len(acc),
            "grav": float(np.median([c.grav for c in acc])),
            "gmin": min(c.grav for c in acc),
            "gmax": max(c.grav for c in acc),
            "vol": float(np.median([c.vol for c in acc])),
            "cyc": float(np.median([c.cycles for c in acc])),
            "trl": float(np.median([c.trl for c in acc])),
            "year": min(years) if years else None,
        }
    base = rows[BASELINE]
    scores = {ch: readiness(rows[ch]["trl"], rows[ch]["cyc"], inputs.cycle_target) for ch in CANDIDATES}
    order = sorted(CANDIDATES, key=lambda ch: -scores[ch])
    for chem in CHEMISTRIES:
        r = rows[chem]
        rec.consensus[chem] = Consensus(
            chemistry=chem,
            n_accepted=r["n"],
            grav_median=r["grav"],
            grav_min=r["gmin"],
            grav_max=r["gmax"],
            vol_median=r["vol"],
            cycle_median=r["cyc"],
            trl_median=r["trl"],
            peer_median=peer_median[chem],
            earliest_year=r["year"],
            grav_improvement_pct=100.0 * (r["grav"] / base["grav"] - 1.0),
            vol_improvement_pct=100.0 * (r["vol"] / base["vol"] - 1.0),
            readiness=scores.get(chem),
            rank=order.index(chem) + 1 if chem in scores else None,
        )
    statuses = [v.status for v in verdicts.values()]
    rec.counts = {s: statuses.count(s) for s in ("accepted", "retracted", "superseded", "conflict")}
    rec.counts["claims"] = len(claims)
    return rec


# --------------------------------------------------------------------------- cost curves


@dataclass(frozen=True)
class CostFit:
    """ln(cost) = intercept + slope × year: a constant annual decline, the usual experience-curve proxy."""

    slope: float
    intercept: float
    r2: float

    def at(self, year: float) -> float:
        return math.exp(self.intercept + self.slope * year)

    @property
    def decline_pct(self) -> float:
        return 100.0 * (1.0 - math.exp(self.slope))


def fit_cost(points: list[tuple[int, float]]) -> CostFit:
    years = np.array([p[0] for p in points], dtype=float)
    logc = np.log(np.array([p[1] for p in points]))
    slope, intercept = np.polyfit(years, logc, 1)
    resid = logc - (intercept + slope * years)
    r2 = 1.0 - float(resid @ resid) / float(((logc - logc.mean()) ** 2).sum())
    return CostFit(float(slope), float(intercept), r2)


def crossing_year(ssb: CostFit, base: CostFit) -> float:
    """Year at which the two fitted curves meet."""
    return (base.intercept - ssb.intercept) / (ssb.slope - base.slope)


# --------------------------------------------------------------------------- solution


@dataclass
class Solution:
    """Every derived value of the meeting."""

    base: Reconciliation
    final: Reconciliation
    rejected: list[RejectedRow]
    swapped: list[str]
    swapped_density: float
    fixed_density: float
    type_counts: dict[str, int]
    ssb_fit: CostFit
    nmc_fit: CostFit
    nmc_fit_ex_spike: CostFit
    crossing: float
    parity_year: int
    crossing_ex_spike: float
    inputs: Inputs
    values: dict[str, float] = field(default_factory=dict)


def _sig(x: float, digits: int = 9) -> float:
    """``x`` to ``digits`` significant digits: derived values must not depend on the BLAS's last bits."""
    return float(f"{x:.{digits - 1}e}")


def solve(sources: str, costs: str, update: str, inputs: Inputs = TODAY) -> Solution:
    """Reconcile the claims before and after the partner update, fit the cost curves, derive the rest.

    The files are what the agent receives; ``inputs`` supplies only the rules and figures said aloud.
    """
    base_claims, base_rejected = parse_claims(sources)
    if base_rejected:
        raise ValueError(f"sources.csv has unreadable rows: {[r.claim_id for r in base_rejected]}")
    upd_claims, rejected = parse_claims(update)
    swapped = swapped_units(upd_claims)
    swapped_density = next(c.density_kg_l for c in upd_claims if c.claim_id in swapped)
    fixed = fix_swapped(upd_claims, SWAPPED_CONFIRMED)
    fixed_density = next(c.density_kg_l for c in fixed if c.claim_id in swapped)
    base = reconcile(base_claims, inputs)
    final = reconcile(base_claims + fixed, inputs)
    types = [c.source_type for c in base_claims]
    cost_pts = parse_costs(costs)
    ssb_fit = fit_cost(cost_pts["sulfide_li_metal"])
    nmc_fit = fit_cost(cost_pts[BASELINE])
    nmc_ex = fit_cost([p for p in cost_pts[BASELINE] if p[0] != SPIKE_YEAR])
    cross = crossing_year(ssb_fit, nmc_fit)
    sol = Solution(
        base=base,
        final=final,
        rejected=rejected,
        swapped=swapped,
        swapped_density=swapped_density,
        fixed_density=fixed_density,
        type_counts={t: types.count(t) for t in TIER},
        ssb_fit=ssb_fit,
        nmc_fit=nmc_fit,
        nmc_fit_ex_spike=nmc_ex,
        crossing=cross,
        parity_year=math.ceil(cross),
        crossing_ex_spike=crossing_year(ssb_fit, nmc_ex),
        inputs=inputs,
    )
    v = sol.values
    halden = base.claim(HALDEN_CLAIM_ID).grav
    bs, fs = base.consensus["sulfide_li_metal"], final.consensus["sulfide_li_metal"]
    v["halden_vs_peer_pct"] = base.verdicts[HALDEN_CLAIM_ID].deviation_pct or 0.0
    v["halden_vs_base_consensus_pct"] = 100.0 * (halden / bs.grav_median - 1.0)
    v["halden_gap_wh_kg"] = halden - bs.grav_median
    v["halden_vs_final_consensus_pct"] = 100.0 * (halden / fs.grav_median - 1.0)
    v["halden_gate_wh_kg"] = halden / (1.0 + inputs.conflict_threshold_pct / 100.0)
    v["quartzline_vs_peer_pct"] = base.verdicts["C08"].deviation_pct or 0.0
    kept = [c.grav for c in final.accepted("sulfide_li_metal") if c.claim_id != DROP_REQUEST_ID]
    v["sulfide_median_without_drop"] = float(statistics.median(kept))
    for y in (2027, 2028, SOP_YEAR):
        v[f"ssb_cost_{y}"] = ssb_fit.at(y)
        v[f"nmc_cost_{y}"] = nmc_fit.at(y)
        v[f"premium_{y}_x"] = ssb_fit.at(y) / nmc_fit.at(y)
    extra = ssb_fit.at(SOP_YEAR) - nmc_fit.at(SOP_YEAR)
    v["pack_extra_first_usd"] = inputs.pack_kwh_first * extra
    v["pack_extra_usd"] = inputs.pack_kwh * extra
    for w in ALT_TRL_WEIGHTS:
        for ch in CANDIDATES:
            c = final.consensus[ch]
            v[f"readiness_w{int(w * 100)}_{ch}"] = readiness(
                c.trl_median, c.cycle_median, inputs.cycle_target, w
            )
    ranked = sorted(CANDIDATES, key=lambda ch: final.consensus[ch].rank or 0)

    def order_at(w: float) -> list[str]:
        return sorted(CANDIDATES, key=lambda ch: -v[f"readiness_w{int(w * 100)}_{ch}"])

    v["ranking_robust"] = float(all(order_at(w) == ranked for w in ALT_TRL_WEIGHTS))
    press = [c for c in final.claims if c.source_type == "press_release"]
    v["press_total"] = len(press)
    v["press_not_accepted"] = sum(final.verdicts[c.claim_id].status != "accepted" for c in press)
    v["press_not_accepted_pct"] = 100.0 * v["press_not_accepted"] / len(press)
    v["peer_accepted"] = sum(
        final.verdicts[c.claim_id].status == "accepted" and c.source_type == "peer_reviewed"
        for c in final.claims
    )
    v["developers"] = len({c.developer for c in final.claims if c.chemistry in CANDIDATES})
    v["cycle_gap_sulfide"] = inputs.cycle_target - fs.cycle_median
    v["rows_received"] = len(base_claims) + len(upd_claims) + len(rejected)
    sol.values = {k: _sig(x) if isinstance(x, float) else x for k, x in v.items()}
    logger.debug("battery solution: crossing %.2f, parity %d", cross, sol.parity_year)
    return sol


def ground_truth(s: Solution) -> dict[str, float | str]:
    """Every key derived value by name."""
    gt: dict[str, float | str] = {}
    for tag, rec in (("base", s.base), ("final", s.final)):
        for k, n in rec.counts.items():
            gt[f"{tag}_{k}"] = n
        for ch, c in rec.consensus.items():
            gt[f"{tag}_{ch}_grav_median"] = c.grav_median
            gt[f"{tag}_{ch}_vol_median"] = c.vol_median
            gt[f"{tag}_{ch}_cycle_median"] = c.cycle_median
            gt[f"{tag}_{ch}_trl_median"] = c.trl_median
            gt[f"{tag}_{ch}_peer_median"] = c.peer_median
            gt[f"{tag}_{ch}_grav_improvement_pct"] = c.grav_improvement_pct
            gt[f"{tag}_{ch}_vol_improvement_pct"] = c.vol_improvement_pct
            if c.readiness is not None:
                gt[f"{tag}_{ch}_readiness"] = c.readiness
                gt[f"{tag}_{ch}_rank"] = c.rank or 0
    gt["rows_rejected"] = len(s.rejected)
    gt["rejected_ids"] = ",".join(r.claim_id for r in s.rejected)
    gt["swapped_ids"] = ",".join(s.swapped)
    gt["swapped_density_kg_l"] = s.swapped_density
    gt["fixed_density_kg_l"] = s.fixed_density
    for t, n in s.type_counts.items():
        gt[f"base_{t}_count"] = n
    gt["ssb_cost_decline_pct"] = s.ssb_fit.decline_pct
    gt["nmc_cost_decline_pct"] = s.nmc_fit.decline_pct
    gt["nmc_cost_decline_ex_spike_pct"] = s.nmc_fit_ex_spike.decline_pct
    gt["nmc_fit_r2"] = s.nmc_fit.r2
    gt["cost_crossing_year"] = s.crossing
    gt["cost_parity_year"] = s.parity_year
    gt["cost_crossing_ex_spike_year"] = s.crossing_ex_spike
    gt.update(s.values)
    return {k: _sig(x) if isinstance(x, float) else x for k, x in gt.items()}


# --------------------------------------------------------------------------- products


@functools.cache
def _today() -> Solution:
    return solve(sources_csv(), cost_csv(), update_csv())


def story_breaks(s: Solution) -> list[str]:
    """The relationships the meeting script states as facts, named when a set of figures breaks them."""
    today, inp, v = _today(), s.inputs, s.values
    b, f = s.base, s.final
    cb, cf = b.consensus, f.consensus
    t = inp.conflict_threshold_pct
    su, ox, po, si = "sulfide_li_metal", "oxide_li_metal", "polymer_li_metal", "silicon_anode"
    lo, hi = DENSITY_RANGE_KG_L
    ssb = [c for _, c, _ in inp.costs[su]]
    nmc = {y: c for y, c, _ in inp.costs[BASELINE]}
    halden = b.claim(HALDEN_CLAIM_ID).grav
    sulfide_acc = sorted(b.accepted(su), key=lambda c: -c.grav)
    ranked = [ch for ch, _ in sorted(((ch, cf[ch].rank or 0) for ch in CANDIDATES), key=lambda x: x[1])]
    gains = [rec.consensus[ch].grav_improvement_pct for rec in (b, f) for ch in (su, ox, si)] + [
        rec.consensus[ch].vol_improvement_pct for rec in (b, f) for ch in (su, ox, si)
    ]
    losses = [rec.consensus[ch].grav_improvement_pct for rec in (b, f) for ch in (po, "lfp_graphite")] + [
        rec.consensus[ch].vol_improvement_pct for rec in (b, f) for ch in (po, "lfp_graphite")
    ]
    checks = {
        "every claim keeps its scripted status": all(
            rec.verdicts[k].status == ref.verdicts[k].status
            for rec, ref in ((b, today.base), (f, today.final))
            for k in ref.verdicts
        ),
        "U02 is the swapped row, U03 the unreadable one": (
            s.swapped == list(SWAPPED_CONFIRMED) and [r.claim_id for r in s.rejected] == [CORRUPT_ID]
        ),
        "cell densities are physical": all(lo <= c.density_kg_l <= hi for c in f.claims),
        "Lindqvist is the highest accepted sulfide claim": (
            sulfide_acc[0].claim_id == "C05" and sulfide_acc[1].grav < sulfide_acc[0].grav
        ),
        "Okada's retracted record is above every accepted sulfide claim": (
            b.claim(RETRACTED_CLAIM_ID).grav > sulfide_acc[0].grav
        ),
        "Halden would be flagged at a threshold five points stricter": v["halden_vs_peer_pct"] > t + 5,
        "Quartzline is the borderline conflict": t < v["quartzline_vs_peer_pct"] <= t + 5,
        "the sulfide consensus is below Halden's claim less the threshold": (
            cf[su].grav_median < halden * (1 - t / 100)
        ),
        "sulfide leads on both densities": all(
            rec.consensus[su].grav_median
            > max(rec.consensus[ch].grav_median for ch in CHEMISTRIES if ch != su)
            and rec.consensus[su].vol_median
            > max(rec.consensus[ch].vol_median for ch in CHEMISTRIES if ch != su)
            for rec in (b, f)
        ),
        "oxide, silicon and sulfide gain on NMC811; polymer and LFP fall short": (
            min(gains) >= 1.0 and max(losses) <= -0.5
        ),
        "silicon's gain is close to oxide's": abs(cb[si].grav_improvement_pct - cb[ox].grav_improvement_pct)
        < 5,
        "volume narrows sulfide's lead over silicon": (
            0
            < cb[su].vol_improvement_pct - cb[si].vol_improvement_pct
            < cb[su].grav_improvement_pct - cb[si].grav_improvement_pct
        ),
        "polymer and silicon clear the cycle spec, sulfide and oxide do not": all(
            [ch for ch in CANDIDATES if rec.consensus[ch].cycle_median >= inp.cycle_target] == [po, si]
            for rec in (b, f)
        ),
        "oxide is less durable than sulfide": cb[ox].cycle_median < cb[su].cycle_median,
        "polymer is the most durable and most mature solid-state chemistry": all(
            rec.consensus[po].cycle_median >= max(rec.consensus[ch].cycle_median for ch in CANDIDATES)
            and rec.consensus[po].trl_median > max(rec.consensus[su].trl_median, rec.consensus[ox].trl_median)
            for rec in (b, f)
        ),
        "the update moves sulfide and oxide and lifts sulfide's durability": (
            cf[su].grav_median != cb[su].grav_median
            and cf[ox].grav_median != cb[ox].grav_median
            and cf[su].cycle_median > cb[su].cycle_median
            and (cf[su].readiness or 0) > (cb[su].readiness or 0)
        ),
        "readiness ranks silicon, polymer, sulfide, oxide before and after": (
            ranked == [si, po, su, ox]
            and sorted(CANDIDATES, key=lambda ch: cb[ch].rank or 0) == ranked
            and v["ranking_robust"] == 1.0
        ),
        "more TRL weight lowers sulfide, more cycle weight raises it": (
            v[f"readiness_w80_{su}"] < (cf[su].readiness or 0) < v[f"readiness_w40_{su}"]
        ),
        "dropping Sorai moves the sulfide median, but barely": (
            0 < abs(v["sulfide_median_without_drop"] - cf[su].grav_median) <= 0.03 * cf[su].grav_median
        ),
        "sulfide costs fall every year; NMC811 shows the spike": (
            all(a > c for a, c in zip(ssb, ssb[1:], strict=False)) and nmc[SPIKE_YEAR] > nmc[SPIKE_YEAR - 1]
        ),
        "the premium shrinks towards SOP and parity comes after it": (
            v["premium_2027_x"] > v["premium_2028_x"] > v[f"premium_{SOP_YEAR}_x"] > 1.1
            and SOP_YEAR + 2 <= s.parity_year <= SOP_YEAR + 7
            and s.nmc_fit.decline_pct >= 1
            and s.nmc_fit_ex_spike.decline_pct >= 1
        ),
        "leaving out the spike year keeps the parity year but moves the crossing": (
            math.ceil(s.crossing_ex_spike) == s.parity_year
            and round(s.crossing, 1) != round(s.crossing_ex_spike, 1)
        ),
    }
    return [name for name, holds in checks.items() if not holds]
