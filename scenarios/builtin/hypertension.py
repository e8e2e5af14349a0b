"""Built-in scenario: top-line statistics of a three-arm Phase II hypertension trial for a go/no-go call.

Generates patient-level blood-pressure readings from seeded inputs (build(0) is the committed trial, any other
seed a fresh one that keeps the story), solves the pre-specified analyses (ANCOVA, Hochberg, responders, LOCF
and multiple-imputation sensitivity, subgroups) and builds the meeting.
"""

from __future__ import annotations

import csv
import io
import logging
import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from scipy import stats

from modylbench.scenarios._products import apply_mutations
from modylbench.scenarios._schema import (
    Channel,
    ChartSeries,
    ChartSpec,
    CheckType,
    DataFile,
    EdgeCase,
    ExpectedFact,
    ExpectedMutation,
    ExpectedOutput,
    HumanPersona,
    MutationType,
    PersonaVoice,
    Phase,
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

SCENARIO_ID = "scientist_hypertension_trial"
# The generator seed of the committed scenario (build(0)); other instances draw their own.
SEED = 20250642
# Multiple imputation has its own fixed seed so the sensitivity analysis is reproducible by anyone.
MI_SEED = 2207
MI_IMPUTATIONS = 20

ARMS: tuple[str, ...] = ("placebo", "low_dose", "high_dose")
ARM_LABEL = {"placebo": "Placebo", "low_dose": "CVT-207 10 mg", "high_dose": "CVT-207 40 mg"}
SITE_IDS: tuple[str, ...] = ("S01", "S02", "S03", "S04", "S05", "S06")
VISITS: tuple[int, ...] = (0, 4, 8, 12)
KPA_SITE = "S04"
# The site whose PI says his new automated cuffs read low (they do, a little).
CUFF_SITE = "S03"
MMHG_PER_KPA = 7.50062
RESPONDER_SBP = 140.0
AGE_CUT = 65
COLUMNS: tuple[str, ...] = (
    "patient_id",
    "site",
    "arm",
    "age",
    "sex",
    *(f"{bp}_w{v}" for v in VISITS for bp in ("sbp", "dbp")),
)
_LATE_ENTRIES = 3


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class TrialInputs:
    """Every raw input of the generator; the defaults are the committed scenario (build(0))."""

    data_seed: int = SEED
    mi_seed: int = MI_SEED
    # Sizes are multiples of 6 because randomisation is in permuted blocks of 6 within site.
    site_sizes: dict[str, int] = field(
        default_factory=lambda: {"S01": 72, "S02": 66, "S03": 60, "S04": 54, "S05": 60, "S06": 48}
    )
    # True placebo-inclusive mean SBP change at week 12 (mmHg) the generator draws around.
    true_w12: dict[str, float] = field(
        default_factory=lambda: {"placebo": -6.0, "low_dose": -8.5, "high_dose": -14.5}
    )
    # True placebo-inclusive mean DBP change at week 12 (mmHg).
    dbp_true_w12: dict[str, float] = field(
        default_factory=lambda: {"placebo": -3.0, "low_dose": -4.25, "high_dose": -7.25}
    )
    # Share of the week-12 effect reached by each visit.
    time_fraction: dict[int, float] = field(default_factory=lambda: {4: 0.55, 8: 0.85, 12: 1.0})
    # Per-visit dropout hazard at SBP 150, rising by dropout_slope per mmHg above it.
    dropout_hazard: dict[str, float] = field(
        default_factory=lambda: {"placebo": 0.050, "low_dose": 0.045, "high_dose": 0.050}
    )
    dropout_slope: float = 0.04
    age_mean: float = 58.0
    age_sd: float = 9.0
    female_share: float = 0.46
    sbp0_mean: float = 153.0
    sbp0_sd: float = 8.0
    dbp0_mean: float = 91.0
    dbp0_per_sbp0: float = 0.45
    dbp0_sd: float = 6.0
    # Between-patient spread of the response and visit-to-visit noise (scale of a t5), mmHg.
    response_sd: float = 6.5
    dbp_response_sd: float = 4.0
    visit_sd: float = 6.0
    dbp_visit_sd: float = 4.0
    # Regression to the mean: share of the baseline excess lost by follow-up in every arm.
    sbp_rtm: float = 0.22
    dbp_rtm: float = 0.15
    # How low the CUFF_SITE cuffs read (mmHg).
    cuff_offset: float = -2.5


def _vary(rng: np.random.Generator, x: float, rel: float) -> float:
    """x scaled by a uniform factor in [1 - rel, 1 + rel], kept to four significant figures."""
    return float(f"{x * rng.uniform(1 - rel, 1 + rel):.4g}")


def draw_inputs(rng: np.random.Generator) -> TrialInputs:
    """A fresh set of inputs around the committed ones (relative ranges unless a level is bounded)."""
    base = TrialInputs()
    sizes = {k: 6 * max(5, round(v / 6 * rng.uniform(0.8, 1.2))) for k, v in base.site_sizes.items()}
    placebo = _vary(rng, base.true_w12["placebo"], 0.2)
    # The 10 mg effects are a starting point: instance() moves them until the 10 mg p-values fit the story.
    low_gap = _vary(rng, base.true_w12["low_dose"] - base.true_w12["placebo"], 0.3)
    high_gap = _vary(rng, base.true_w12["high_dose"] - base.true_w12["placebo"], 0.2)
    w4 = _vary(rng, base.time_fraction[4], 0.1)
    w8 = min(0.95, _vary(rng, base.time_fraction[8], 0.1))
    w12 = {"placebo": placebo, "low_dose": placebo + low_gap, "high_dose": placebo + high_gap}
    dbp_ratio = _vary(rng, 0.5, 0.2)
    return TrialInputs(
        data_seed=int(rng.integers(1, 2**31)),
        mi_seed=int(rng.integers(1000, 10000)),
        site_sizes=sizes,
        true_w12=w12,
        # DBP moves about half as much as SBP.
        dbp_true_w12={a: round(dbp_ratio * w, 3) for a, w in w12.items()},
        time_fraction={4: w4, 8: w8, 12: 1.0},
        dropout_hazard={a: _vary(rng, h, 0.2) for a, h in base.dropout_hazard.items()},
        dropout_slope=_vary(rng, base.dropout_slope, 0.2),
        age_mean=_vary(rng, base.age_mean, 0.08),
        age_sd=_vary(rng, base.age_sd, 0.2),
        female_share=_vary(rng, base.female_share, 0.1),
        # Baseline levels are bounded by the 140-179 mmHg entry criterion: a few mmHg, not percent.
        sbp0_mean=round(base.sbp0_mean + rng.uniform(-4.0, 4.0), 1),
        sbp0_sd=_vary(rng, base.sbp0_sd, 0.2),
        dbp0_mean=round(base.dbp0_mean + rng.uniform(-3.0, 3.0), 1),
        dbp0_per_sbp0=_vary(rng, base.dbp0_per_sbp0, 0.2),
        dbp0_sd=_vary(rng, base.dbp0_sd, 0.2),
        response_sd=_vary(rng, base.response_sd, 0.2),
        dbp_response_sd=_vary(rng, base.dbp_response_sd, 0.2),
        visit_sd=_vary(rng, base.visit_sd, 0.2),
        dbp_visit_sd=_vary(rng, base.dbp_visit_sd, 0.2),
        sbp_rtm=_vary(rng, base.sbp_rtm, 0.2),
        dbp_rtm=_vary(rng, base.dbp_rtm, 0.2),
        cuff_offset=_vary(rng, base.cuff_offset, 0.2),
    )


# --------------------------------------------------------------------------- data


@dataclass
class Patient:
    """One randomised patient's record as the EDC export holds it (None = not recorded)."""

    patient_id: str
    site: str
    arm: str
    age: int
    sex: str
    sbp: dict[int, float | None] = field(default_factory=dict)
    dbp: dict[int, float | None] = field(default_factory=dict)


def _clip(x: Any, lo: Any, hi: Any) -> Any:
    """np.clip for one number, without the array round trip (the generator calls it a thousand times)."""
    return min(max(x, lo), hi)


def _r1(x: float) -> float:
    return float(round(x, 1))


def generate(inp: TrialInputs | None = None) -> tuple[list[Patient], list[Patient]]:
    """(locked export v1, full trajectories) from the inputs' seed; v1 hides visits after dropout."""
    inp = inp or TrialInputs()
    rng = np.random.default_rng(inp.data_seed)
    full: list[Patient] = []
    n = 0
    for site in SITE_IDS:
        arms: list[str] = []
        for _ in range(inp.site_sizes[site] // 6):
            block = list(ARMS) * 2
            rng.shuffle(block)
            arms += block
        # The CUFF_SITE cuffs read a little low across the board: a site effect randomisation handles.
        site_offset = inp.cuff_offset if site == CUFF_SITE else 0.0
        for arm in arms:
            n += 1
            age = int(_clip(round(rng.normal(inp.age_mean, inp.age_sd)), 40, 79))
            sex = "F" if rng.random() < inp.female_share else "M"
            sbp0 = float(_clip(rng.normal(inp.sbp0_mean, inp.sbp0_sd), 140.0, 179.0)) + site_offset
            dbp0 = float(
                _clip(
                    inp.dbp0_mean + inp.dbp0_per_sbp0 * (sbp0 - inp.sbp0_mean) + rng.normal(0.0, inp.dbp0_sd),
                    70.0,
                    110.0,
                )
            )
            u = rng.normal(0.0, inp.response_sd)
            ud = rng.normal(0.0, inp.dbp_response_sd)
            p = Patient(f"CVT-{1000 + n}", site, arm, age, sex, {0: _r1(sbp0)}, {0: _r1(dbp0)})
            for v in VISITS[1:]:
                frac = inp.time_fraction[v]
                # Regression to the mean pulls high baselines down in every arm, placebo included.
                rtm = -inp.sbp_rtm * (sbp0 - inp.sbp0_mean)
                noise = inp.visit_sd * rng.standard_t(5) / math.sqrt(5 / 3)
                sbp = sbp0 + inp.true_w12[arm] * frac + rtm + u * frac + noise
                dnoise = inp.dbp_visit_sd * rng.standard_t(5) / math.sqrt(5 / 3)
                dbp = (
                    dbp0
                    + inp.dbp_true_w12[arm] * frac
                    - inp.dbp_rtm * (dbp0 - inp.dbp0_mean)
                    + ud * frac
                    + dnoise
                )
                p.sbp[v] = _r1(sbp)
                p.dbp[v] = _r1(dbp)
            full.append(p)
    locked: list[Patient] = []
    for p in full:
        q = Patient(p.patient_id, p.site, p.arm, p.age, p.sex, dict(p.sbp), dict(p.dbp))
        dropped = False
        for prev, v in zip(VISITS[:-1], VISITS[1:], strict=True):
            last = q.sbp[prev]
            # Missing at random: uncontrolled patients are likelier to stop coming.
            if not dropped and last is not None:
                hazard = inp.dropout_hazard[p.arm] * math.exp(inp.dropout_slope * (last - 150.0))
                dropped = rng.random() < hazard
            if dropped:
                q.sbp[v] = None
                q.dbp[v] = None
        locked.append(q)
    return locked, full


def corrected_export(locked: list[Patient], full: list[Patient]) -> tuple[list[Patient], list[str]]:
    """Data management's v2: three resolved queries add week-12 visits; KPA_SITE's week 12 exported in kPa."""
    late = [
        p.patient_id for p in locked if p.sbp[12] is None and p.sbp[8] is not None and p.site != KPA_SITE
    ][::2][:_LATE_ENTRIES]
    by_id = {p.patient_id: p for p in full}
    v2: list[Patient] = []
    for p in locked:
        q = Patient(p.patient_id, p.site, p.arm, p.age, p.sex, dict(p.sbp), dict(p.dbp))
        if p.patient_id in late:
            q.sbp[12] = by_id[p.patient_id].sbp[12]
            q.dbp[12] = by_id[p.patient_id].dbp[12]
        if p.site == KPA_SITE:
            for bp in (q.sbp, q.dbp):
                if bp[12] is not None:
                    bp[12] = float(round(bp[12] / MMHG_PER_KPA, 2))
        v2.append(q)
    return v2, late


def to_csv(patients: list[Patient]) -> str:
    """The EDC export as CSV text; an empty cell is a visit not recorded."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for p in patients:
        row: list[Any] = [p.patient_id, p.site, p.arm, p.age, p.sex]
        for v in VISITS:
            for bp in (p.sbp, p.dbp):
                x = bp[v]
                row.append("" if x is None else f"{x:g}")
        w.writerow(row)
    return buf.getvalue()


def parse_csv(text: str) -> list[Patient]:
    """Read an export back (the same columns to_csv writes)."""
    out = []
    for r in csv.DictReader(io.StringIO(text)):
        p = Patient(r["patient_id"], r["site"], r["arm"], int(r["age"]), r["sex"])
        for v in VISITS:
            p.sbp[v] = float(r[f"sbp_w{v}"]) if r[f"sbp_w{v}"] else None
            p.dbp[v] = float(r[f"dbp_w{v}"]) if r[f"dbp_w{v}"] else None
        out.append(p)
    return out


def repair_units(patients: list[Patient]) -> tuple[list[Patient], list[str]]:
    """Convert readings that can only be kPa (below 40) back to mmHg; returns the sites touched."""
    fixed: list[Patient] = []
    sites: set[str] = set()
    for p in patients:
        q = Patient(p.patient_id, p.site, p.arm, p.age, p.sex, dict(p.sbp), dict(p.dbp))
        for bp in (q.sbp, q.dbp):
            for v, x in bp.items():
                if x is not None and x < 40.0:
                    bp[v] = _r1(x * MMHG_PER_KPA)
                    sites.add(p.site)
        fixed.append(q)
    return fixed, sorted(sites)


# --------------------------------------------------------------------------- solution


@dataclass(frozen=True)
class Comparison:
    """An adjusted treatment difference (active minus placebo) with its 95% CI and two-sided p."""

    diff: float
    se: float
    ci_low: float
    ci_high: float
    p: float
    df: float
    n_active: int
    n_placebo: int


def _ols(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Least-squares coefficients, their covariance and the residual degrees of freedom."""
    beta, _, rank, _ = np.linalg.lstsq(x, y, rcond=None)
    df = len(y) - int(rank)
    resid = y - x @ beta
    s2 = float(resid @ resid) / df
    cov = s2 * np.linalg.inv(x.T @ x)
    return beta, cov, df


def _t_comparison(est: float, se: float, df: float, n_active: int, n_placebo: int) -> Comparison:
    q = float(stats.t.ppf(0.975, df))
    p = float(2 * stats.t.sf(abs(est / se), df))
    return Comparison(est, se, est - q * se, est + q * se, p, df, n_active, n_placebo)


def ancova(
    arm: list[str], baseline: list[float], change: list[float]
) -> tuple[dict[str, Comparison], dict[str, float]]:
    """change = arm + baseline (centred); returns comparisons vs placebo and LS means at the mean baseline."""
    b = np.asarray(baseline, dtype=float)
    y = np.asarray(change, dtype=float)
    present = [a for a in ARMS if a in arm]
    actives = [a for a in present if a != "placebo"]
    x = np.column_stack(
        [np.ones(len(y))]
        + [np.array([a == act for a in arm], dtype=float) for act in actives]
        + [b - b.mean()]
    )
    beta, cov, df = _ols(x, y)
    n_pl = arm.count("placebo")
    comps = {
        act: _t_comparison(float(beta[1 + i]), math.sqrt(cov[1 + i, 1 + i]), df, arm.count(act), n_pl)
        for i, act in enumerate(actives)
    }
    ls = {"placebo": float(beta[0])}
    ls.update({act: float(beta[0] + beta[1 + i]) for i, act in enumerate(actives)})
    return comps, ls


def interaction_p(
    arm: list[str], baseline: list[float], change: list[float], member: list[bool], active: str
) -> float:
    """Two-sided p of the treatment-by-subgroup term, active vs placebo patients only."""
    keep = [i for i, a in enumerate(arm) if a in ("placebo", active)]
    t = np.array([arm[i] == active for i in keep], dtype=float)
    g = np.array([member[i] for i in keep], dtype=float)
    b = np.array([baseline[i] for i in keep])
    x = np.column_stack([np.ones(len(keep)), t, b - b.mean(), g, t * g])
    beta, cov, df = _ols(x, np.array([change[i] for i in keep]))
    return float(2 * stats.t.sf(abs(beta[4] / math.sqrt(cov[4, 4])), df))


def hochberg(pvalues: list[float]) -> list[float]:
    """Hochberg step-up adjusted p-values, in input order."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i], reverse=True)
    adj = [0.0] * m
    running = 1.0
    for rank, i in enumerate(order):  # rank 0 = largest p, multiplier 1
        running = min(running, (rank + 1) * pvalues[i])
        adj[i] = min(1.0, running)
    return adj


def _baseline(p: Patient, bp: str) -> float:
    """Week-0 reading; every randomised patient has one."""
    v = getattr(p, bp)[0]
    if v is None:
        raise ValueError(f"{p.patient_id} has no baseline {bp}")
    return float(v)


def _observed(patients: list[Patient], bp: str, visit: int) -> list[Patient]:
    return [p for p in patients if getattr(p, bp)[visit] is not None]


def _change(p: Patient, bp: str, visit: int) -> float:
    vals = getattr(p, bp)
    return float(vals[visit] - vals[0])


def _locf(p: Patient, bp: str) -> float:
    vals = getattr(p, bp)
    last = next(vals[v] for v in reversed(VISITS) if vals[v] is not None)
    return float(last - vals[0])


def multiple_imputation(
    patients: list[Patient], seed: int = MI_SEED, m: int = MI_IMPUTATIONS
) -> dict[str, Comparison]:
    """Sequential regression MI of SBP within arm (monotone pattern), ANCOVA per data set, Rubin's rules."""
    rng = np.random.default_rng(seed)
    results: dict[str, list[tuple[float, float]]] = {"low_dose": [], "high_dose": []}
    for _ in range(m):
        arm_all: list[str] = []
        base_all: list[float] = []
        chg_all: list[float] = []
        for a in ARMS:
            grp = [p for p in patients if p.arm == a]
            mat = np.array(
                [[np.nan if p.sbp[v] is None else p.sbp[v] for v in VISITS] for p in grp], dtype=float
            )
            for j in range(1, len(VISITS)):
                obs = ~np.isnan(mat[:, j])
                miss = ~obs
                x = np.column_stack([np.ones(len(grp)), mat[:, :j]])
                beta, _, _, _ = np.linalg.lstsq(x[obs], mat[obs, j], rcond=None)
                df = int(obs.sum()) - x.shape[1]
                resid = mat[obs, j] - x[obs] @ beta
                # Proper imputation: draw sigma and beta from their posterior before drawing values.
                sigma2 = float(resid @ resid) / float(rng.chisquare(df))
                xtx_inv = np.linalg.inv(x[obs].T @ x[obs])
                beta_draw = rng.multivariate_normal(beta, sigma2 * xtx_inv)
                if miss.any():
                    mat[miss, j] = x[miss] @ beta_draw + rng.normal(0.0, math.sqrt(sigma2), int(miss.sum()))
            arm_all += [a] * len(grp)
            base_all += list(mat[:, 0])
            chg_all += list(mat[:, -1] - mat[:, 0])
        comps, _ = ancova(arm_all, base_all, chg_all)
        for act in results:
            results[act].append((comps[act].diff, comps[act].se ** 2))
    out = {}
    for act, draws in results.items():
        q = np.array([d[0] for d in draws])
        u = np.array([d[1] for d in draws])
        qbar, w, b = float(q.mean()), float(u.mean()), float(q.var(ddof=1))
        total = w + (1 + 1 / m) * b
        r = (1 + 1 / m) * b / w
        df = (m - 1) * (1 + 1 / r) ** 2
        n_act = sum(p.arm == act for p in patients)
        n_pl = sum(p.arm == "placebo" for p in patients)
        out[act] = _t_comparison(qbar, math.sqrt(total), df, n_act, n_pl)
    return out


def _risk_difference(x1: int, n1: int, x0: int, n0: int) -> tuple[float, float, float]:
    """Wald risk difference (active minus placebo) with its 95% CI, as proportions."""
    p1, p0 = x1 / n1, x0 / n0
    se = math.sqrt(p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0)
    z = float(stats.norm.ppf(0.975))
    return p1 - p0, p1 - p0 - z * se, p1 - p0 + z * se


def _put(out: dict[str, float], prefix: str, c: Comparison) -> None:
    out[f"{prefix}_diff"] = c.diff
    out[f"{prefix}_ci_low"] = c.ci_low
    out[f"{prefix}_ci_high"] = c.ci_high
    out[f"{prefix}_p"] = c.p
    out[f"{prefix}_se"] = c.se


def solve(patients: list[Patient], mi_seed: int | None = MI_SEED) -> dict[str, Any]:
    """Every derived value of the top-line analysis, by name, from unit-clean patient records.

    mi_seed None skips the multiple imputation (the mi_* values), by far the slowest analysis.
    """
    out: dict[str, Any] = {}
    out["n_randomized"] = len(patients)
    # Baseline characteristics by arm and overall.
    for a in (*ARMS, "total"):
        grp = [p for p in patients if a == "total" or p.arm == a]
        out[f"n_{a}"] = len(grp)
        ages = np.array([p.age for p in grp], dtype=float)
        out[f"age_mean_{a}"] = float(ages.mean())
        out[f"age_sd_{a}"] = float(ages.std(ddof=1))
        out[f"female_pct_{a}"] = 100.0 * sum(p.sex == "F" for p in grp) / len(grp)
        out[f"age_ge65_pct_{a}"] = 100.0 * sum(p.age >= AGE_CUT for p in grp) / len(grp)
        for bp in ("sbp", "dbp"):
            vals = np.array([getattr(p, bp)[0] for p in grp], dtype=float)
            out[f"{bp}0_mean_{a}"] = float(vals.mean())
            out[f"{bp}0_sd_{a}"] = float(vals.std(ddof=1))
        done = len(_observed(grp, "sbp", 12))
        out[f"completers_{a}"] = done
        out[f"dropout_pct_{a}"] = 100.0 * (len(grp) - done) / len(grp)
    out["missing_w12_total"] = out["n_total"] - out["completers_total"]
    for s in SITE_IDS:
        grp = [p for p in patients if p.site == s]
        out[f"site_n_{s}"] = len(grp)
        out[f"site_sbp0_mean_{s}"] = float(np.mean([p.sbp[0] for p in grp]))
        out[f"site_completion_pct_{s}"] = 100.0 * len(_observed(grp, "sbp", 12)) / len(grp)
    # Observed mean change by visit and arm (the chart).
    for a in ARMS:
        for v in VISITS[1:]:
            grp = _observed([p for p in patients if p.arm == a], "sbp", v)
            out[f"obs_change_{a}_w{v}"] = float(np.mean([_change(p, "sbp", v) for p in grp]))
            out[f"obs_sbp_{a}_w{v}"] = float(np.mean([p.sbp[v] for p in grp]))
        out[f"obs_sbp_{a}_w0"] = out[f"sbp0_mean_{a}"]
    # Primary: ANCOVA on observed week-12 cases (the SAP's primary analysis set).
    cc = _observed(patients, "sbp", 12)
    arm = [p.arm for p in cc]
    base = [_baseline(p, "sbp") for p in cc]
    chg = [_change(p, "sbp", 12) for p in cc]
    comps, ls = ancova(arm, base, chg)
    for a in ARMS:
        out[f"ls_mean_{a}"] = ls[a]
    _put(out, "high", comps["high_dose"])
    _put(out, "low", comps["low_dose"])
    out["ancova_df"] = comps["high_dose"].df
    out["low_p_one_sided"] = float(
        stats.t.sf(abs(comps["low_dose"].diff / comps["low_dose"].se), comps["low_dose"].df)
    )
    adj = hochberg([comps["high_dose"].p, comps["low_dose"].p])
    out["high_p_hochberg"], out["low_p_hochberg"] = adj
    out["high_p_bonferroni"] = min(1.0, 2 * comps["high_dose"].p)
    out["low_p_bonferroni"] = min(1.0, 2 * comps["low_dose"].p)
    # Supportive: unadjusted Welch t-test on the change.
    for act, key in (("high_dose", "high"), ("low_dose", "low")):
        ya = np.array([c for c, a in zip(chg, arm, strict=True) if a == act])
        yp = np.array([c for c, a in zip(chg, arm, strict=True) if a == "placebo"])
        res = stats.ttest_ind(ya, yp, equal_var=False)
        ci = res.confidence_interval(0.95)
        out[f"{key}_welch_diff"] = float(ya.mean() - yp.mean())
        out[f"{key}_welch_ci_low"] = float(ci.low)
        out[f"{key}_welch_ci_high"] = float(ci.high)
        out[f"{key}_welch_p"] = float(res.pvalue)
        out[f"{key}_welch_se"] = float(math.sqrt(ya.var(ddof=1) / len(ya) + yp.var(ddof=1) / len(yp)))
    out["obs_diff_high_w12"] = out["obs_change_high_dose_w12"] - out["obs_change_placebo_w12"]
    # Secondary: DBP change (ANCOVA on baseline DBP).
    ccd = _observed(patients, "dbp", 12)
    dcomps, dls = ancova(
        [p.arm for p in ccd],
        [_baseline(p, "dbp") for p in ccd],
        [_change(p, "dbp", 12) for p in ccd],
    )
    _put(out, "dbp_high", dcomps["high_dose"])
    _put(out, "dbp_low", dcomps["low_dose"])
    # Secondary: responders (SBP < 140 at week 12); dropouts count as non-responders.
    for a in ARMS:
        grp = [p for p in patients if p.arm == a]
        x = sum((w12 := p.sbp[12]) is not None and w12 < RESPONDER_SBP for p in grp)
        out[f"responders_{a}"] = x
        out[f"responder_pct_{a}"] = 100.0 * x / len(grp)
    for act, key in (("high_dose", "high"), ("low_dose", "low")):
        rd, lo, hi = _risk_difference(
            out[f"responders_{act}"], out[f"n_{act}"], out["responders_placebo"], out["n_placebo"]
        )
        out[f"rd_{key}_pct"], out[f"rd_{key}_ci_low_pct"], out[f"rd_{key}_ci_high_pct"] = (
            100 * rd,
            100 * lo,
            100 * hi,
        )
    # Number needed to treat for one extra controlled patient, and its CI from the RD's CI limits.
    out["nnt_high"] = 100.0 / out["rd_high_pct"]
    out["nnt_high_ci_low"] = 100.0 / out["rd_high_ci_high_pct"]
    out["nnt_high_ci_high"] = 100.0 / out["rd_high_ci_low_pct"]
    # Sensitivity 1: LOCF on everyone randomised (baseline carried forward = no change).
    lcomps, _ = ancova(
        [p.arm for p in patients],
        [_baseline(p, "sbp") for p in patients],
        [_locf(p, "sbp") for p in patients],
    )
    _put(out, "locf_high", lcomps["high_dose"])
    _put(out, "locf_low", lcomps["low_dose"])
    # Sensitivity 2: multiple imputation under MAR.
    if mi_seed is not None:
        mi = multiple_imputation(patients, seed=mi_seed)
        _put(out, "mi_high", mi["high_dose"])
        _put(out, "mi_low", mi["low_dose"])
    # Exploratory subgroups, high dose vs placebo, with interaction tests.
    subgroups = {
        "female": [p.sex == "F" for p in cc],
        "male": [p.sex == "M" for p in cc],
        "age_lt65": [p.age < AGE_CUT for p in cc],
        "age_ge65": [p.age >= AGE_CUT for p in cc],
    }
    for name, member in subgroups.items():
        idx = [i for i, m in enumerate(member) if m]
        sc, _ = ancova([arm[i] for i in idx], [base[i] for i in idx], [chg[i] for i in idx])
        c = sc["high_dose"]
        out[f"sub_{name}_n"] = c.n_active + c.n_placebo
        out[f"sub_{name}_diff"] = c.diff
        out[f"sub_{name}_ci_low"] = c.ci_low
        out[f"sub_{name}_ci_high"] = c.ci_high
    out["interaction_sex_p"] = interaction_p(arm, base, chg, subgroups["female"], "high_dose")
    out["interaction_age_p"] = interaction_p(arm, base, chg, subgroups["age_ge65"], "high_dose")
    # The low-dose subgroup scan a data dredger would run: sex, age band and each site.
    scan: dict[str, list[bool]] = {
        "women": subgroups["female"],
        "men": subgroups["male"],
        "under 65": subgroups["age_lt65"],
        "65 and over": subgroups["age_ge65"],
    }
    scan.update({f"site {s}": [p.site == s for p in cc] for s in SITE_IDS})
    best_name, best_p, best_c = "", 1.0, None
    for name, member in scan.items():
        idx = [i for i, m in enumerate(member) if m]
        sc, _ = ancova([arm[i] for i in idx], [base[i] for i in idx], [chg[i] for i in idx])
        if sc["low_dose"].p < best_p:
            best_name, best_p, best_c = name, sc["low_dose"].p, sc["low_dose"]
    assert best_c is not None
    out["dredge_subgroups_scanned"] = len(scan)
    out["dredge_name"] = best_name
    out["dredge_low_diff"] = best_c.diff
    out["dredge_low_p"] = best_p
    out["dredge_n"] = best_c.n_active + best_c.n_placebo
    out["dredge_interaction_p"] = interaction_p(arm, base, chg, scan[best_name], "low_dose")
    out["dredge_expected_false_positives"] = len(scan) * 0.05
    # Post hoc exclusion the persona asks for: high-dose completers whose SBP rose.
    risers = [i for i, (a, c) in enumerate(zip(arm, chg, strict=True)) if a == "high_dose" and c > 0]
    out["high_risers_n"] = len(risers)
    keep = [i for i in range(len(arm)) if i not in set(risers)]
    xc, _ = ancova([arm[i] for i in keep], [base[i] for i in keep], [chg[i] for i in keep])
    out["high_diff_excluding_risers"] = xc["high_dose"].diff
    out["placebo_risers_n"] = sum(1 for a, c in zip(arm, chg, strict=True) if a == "placebo" and c > 0)
    return out


# --------------------------------------------------------------------------- instances


@dataclass(frozen=True)
class Exports:
    """What data management sends: the locked export v1 and the re-export v2, as records and as CSV."""

    locked: list[Patient]
    v2: list[Patient]
    late: list[str]  # patients whose week-12 visit v2 adds
    v1_csv: str
    v2_csv: str
    clean: list[Patient]  # v2 with its kPa readings converted back to mmHg

    @classmethod
    def of(cls, inp: TrialInputs) -> Exports:
        locked, full = generate(inp)
        v2, late = corrected_export(locked, full)
        v1_csv, v2_csv = to_csv(locked), to_csv(v2)
        clean, _ = repair_units(parse_csv(v2_csv))
        return cls(locked, v2, late, v1_csv, v2_csv, clean)


@dataclass(frozen=True)
class Instance:
    """One trial: its inputs, the exports and the solved analyses the meeting quotes."""

    inputs: TrialInputs
    exports: Exports
    s: dict[str, Any]  # solved on v2 with the kPa readings converted (the final numbers)
    s1: dict[str, Any]  # solved on the locked export v1 (no imputation)
    naive: dict[str, Any]  # solved on v2 as delivered, kPa and all (no imputation)


def solve_instance(inp: TrialInputs, ex: Exports | None = None, s: dict[str, Any] | None = None) -> Instance:
    """Generate the exports from the inputs (unless given) and solve them."""
    ex = ex or Exports.of(inp)
    return Instance(
        inputs=inp,
        exports=ex,
        s=s if s is not None else solve(ex.clean, inp.mi_seed),
        # The meeting quotes neither of these exports' imputation: skip it.
        s1=solve(parse_csv(ex.v1_csv), None),
        naive=solve(parse_csv(ex.v2_csv), None),  # what an agent gets if it swaps v2 in without looking
    )


# How close (mmHg) LOCF and MI must be to the primary 40 mg effect for "all three approaches agree".
SENSITIVITY_AGREES = 2.0
# The 10 mg two-sided p the one-sided edge case needs: above 0.05, below 0.10, said in whole percent (6-9).
LOW_P_WINDOW = (0.055, 0.0945)
# Women on placebo vs 40 mg (percentage points) for "one thing: women are x% of placebo but y% of 40 mg".
SEX_IMBALANCE = 6.0


def _final_breaks(s: dict[str, Any]) -> list[str]:
    """The relationships the meeting states about the final numbers that these break.

    Without the mi_* values (a quick solve) the imputation's share of the checks is left out.
    """
    sens = ("locf", "mi") if "mi_low_p" in s else ("locf",)
    checks = {
        # 40 mg is clearly effective: every 40 mg p is said as "p < 0.001".
        "40 mg p < 0.001 everywhere": all(
            s[f"{k}_p"] < 0.001 for k in ("high", "high_welch", "dbp_high", *(f"{x}_high" for x in sens))
        ),
        # 10 mg misses after Hochberg, halving its p gets under 0.05 but not under 0.025.
        "10 mg p in its window": LOW_P_WINDOW[0] <= s["low_p"] < LOW_P_WINDOW[1],
        "10 mg misses under LOCF and MI": all(s[f"{x}_low_p"] > 0.05 for x in sens),
        "10 mg DBP is a nominal signal": s["dbp_low_p"] < 0.05,
        "sensitivity agrees with the primary": all(
            abs(s[f"{x}_high_diff"] - s["high_diff"]) < SENSITIVITY_AGREES for x in sens
        ),
        "no heterogeneity by sex or age": s["interaction_sex_p"] > 0.05 and s["interaction_age_p"] > 0.05,
        "a dredged 10 mg subgroup is nominally significant": s["dredge_low_p"]
        < 0.05
        < s["dredge_interaction_p"],
        "40 mg responders beat placebo": s["rd_high_ci_low_pct"] > 0,
        "10 mg responders do not": s["rd_low_ci_low_pct"] < 0,
        "over-65s are the small age band": s["sub_age_ge65_n"] < s["sub_age_lt65_n"],
        "a handful of 40 mg risers, more on placebo": 2 <= s["high_risers_n"] < s["placebo_risers_n"],
        "the sex imbalance is worth flagging": abs(s["female_pct_placebo"] - s["female_pct_high_dose"])
        >= SEX_IMBALANCE,
        "baseline SBP balanced across arms": max(s[f"sbp0_mean_{a}"] for a in ARMS)
        - min(s[f"sbp0_mean_{a}"] for a in ARMS)
        < 3.0,
        "the cuff site reads low": s["sbp0_mean_total"] - s[f"site_sbp0_mean_{CUFF_SITE}"] >= 0.5,
        "most of the 40 mg effect is there by week 8": s["obs_change_high_dose_w8"]
        <= 0.7 * s["obs_change_high_dose_w12"],
        # Reductions are said as "-x mmHg": these must be falls.
        "reductions are negative": all(
            s[k] < 0
            for k in (
                "low_diff",
                "dbp_low_diff",
                *(f"{x}_low_diff" for x in sens),
                "low_welch_diff",
                "dredge_low_diff",
                "ls_mean_high_dose",
                "ls_mean_placebo",
                "obs_change_placebo_w4",
                "obs_change_placebo_w8",
                "obs_change_low_dose_w12",
                *(f"sub_{g}_diff" for g in ("female", "male", "age_lt65", "age_ge65")),
            )
        ),
    }
    return [name for name, ok in checks.items() if not ok]


def story_breaks(inst: Instance) -> list[str]:
    """The relationships the meeting script states that these numbers break (empty: the script is true)."""
    s, s1 = inst.s, inst.s1
    pct = {x: s1[f"site_completion_pct_{x}"] for x in SITE_IDS}
    v1_completion = 100.0 * s1["completers_total"] / s1["n_total"]
    kpa_vals = [p.sbp[12] for p in inst.exports.v2 if p.site == KPA_SITE and p.sbp[12] is not None]
    checks = {
        "no site looks like a problem": min(pct.values()) >= v1_completion - 12.0,
        # The CRO plot: placebo falls, 40 mg separates by week 4, 10 mg slightly below placebo.
        "the plot reads as described": s1["obs_change_placebo_w12"] < 0
        and s1["obs_change_high_dose_w4"] < s1["obs_change_placebo_w4"] - 2.0
        and -4.0 < s1["obs_change_low_dose_w12"] - s1["obs_change_placebo_w12"] < 0,
        "three late visits to resolve": len(inst.exports.late) == _LATE_ENTRIES,
        # "Below 40 cannot be mmHg": the kPa site's week 12 must be the only readings the rule converts.
        "only the kPa site reads below 40": repair_units(inst.exports.v2)[1] == [KPA_SITE],
        # The naive 40 mg figure is the kPa edge case's bad signal: it must not be read in the good reply.
        "the naive answer stands out": not any(
            _mm(inst.naive["high_diff"]) in figure
            for figure in (
                _mm(s["high_diff"]),
                str(MMHG_PER_KPA),
                str(s["completers_total"]),
                *(f"{x:.1f}" for x in kpa_vals),
                *inst.exports.late,
            )
        ),
        # The disposition slide shows counts; none may pass for the completion rates asked for.
        "the slide does not give away the completion rates": not any(
            abs(count - rate) <= 0.01 * rate
            for x in SITE_IDS
            for count in (s1[f"site_n_{x}"], round(pct[x] * s1[f"site_n_{x}"] / 100))
            for rate in (v1_completion, min(pct.values()))
        ),
    }
    return _final_breaks(s) + [name for name, ok in checks.items() if not ok]


def _aim_low_dose(
    inp: TrialInputs, target_p: float, target_dbp_p: float
) -> tuple[TrialInputs, Exports] | None:
    """Shift the true 10 mg SBP and DBP effects until their primary p-values hit the story (None if they won't).

    The 10 mg SBP p must land in LOW_P_WINDOW near target_p, its DBP p below 0.05.
    """
    for _ in range(6):
        ex = Exports.of(inp)
        low = {}
        for bp in ("sbp", "dbp"):
            cc = _observed(ex.clean, bp, 12)
            comps, _ = ancova(
                [p.arm for p in cc], [_baseline(p, bp) for p in cc], [_change(p, bp, 12) for p in cc]
            )
            low[bp] = comps["low_dose"]
        sbp_ok = LOW_P_WINDOW[0] <= low["sbp"].p < LOW_P_WINDOW[1] and abs(low["sbp"].p - target_p) < 0.004
        dbp_ok = low["dbp"].diff < 0 and low["dbp"].p < 0.05
        if sbp_ok and dbp_ok:
            return inp, ex
        # An estimate moves one for one with its true effect; the SE hardly moves.
        w12, dbp_w12 = dict(inp.true_w12), dict(inp.dbp_true_w12)
        if not sbp_ok:
            wanted = -float(stats.t.isf(target_p / 2, low["sbp"].df)) * low["sbp"].se
            w12["low_dose"] = round(w12["low_dose"] + wanted - low["sbp"].diff, 3)
        if not dbp_ok:
            wanted = -float(stats.t.isf(target_dbp_p / 2, low["dbp"].df)) * low["dbp"].se
            dbp_w12["low_dose"] = round(dbp_w12["low_dose"] + wanted - low["dbp"].diff, 3)
        # The true 10 mg effect stays a plausible fraction of the 40 mg one.
        low_gap, high_gap = w12["low_dose"] - w12["placebo"], w12["high_dose"] - w12["placebo"]
        dbp_gap = dbp_w12["low_dose"] - dbp_w12["placebo"]
        if not 0.05 * high_gap >= low_gap >= 0.6 * high_gap or not -4.5 <= dbp_gap <= 0.0:
            return None
        inp = replace(inp, true_w12=w12, dbp_true_w12=dbp_w12)
    return None


def instance(seed: int = 0) -> Instance:
    """The trial of build(seed): 0 is the committed one, any other seed draws fresh inputs that keep the story."""
    if seed == 0:
        inst = solve_instance(TrialInputs())
        if broken := story_breaks(inst):
            raise AssertionError(f"the committed trial breaks its own story: {broken}")
        return inst
    rng = np.random.default_rng(seed)
    for _ in range(300):
        inp = draw_inputs(rng)
        # Eight or nine percent: clear of the committed 7.3% so the persona's figure is new too, and far
        # enough above 0.05 that LOCF and imputation rarely cross it.
        target_p = float(rng.uniform(0.078, 0.093))
        target_dbp_p = float(rng.uniform(0.005, 0.04))
        # Cheap checks first: a full solve costs ten times a draw.
        locked, _ = generate(inp)
        female = {a: [p.sex == "F" for p in locked if p.arm == a] for a in ARMS}
        if 100 * abs(np.mean(female["placebo"]) - np.mean(female["high_dose"])) < SEX_IMBALANCE:
            continue
        aimed = _aim_low_dose(inp, target_p, target_dbp_p)
        if aimed is None:
            continue
        inp, ex = aimed
        # Everything but the imputation first: it costs as much as the rest together.
        quick = solve(ex.clean, None)
        if _final_breaks(quick):
            continue
        inst = solve_instance(inp, ex, quick)
        if story_breaks(inst):
            continue
        s = solve(ex.clean, inp.mi_seed)
        if not _final_breaks(s):
            return replace(inst, s=s)
    raise RuntimeError(f"no trial for seed {seed} keeps the story after 300 draws")


# --------------------------------------------------------------------------- scenario text helpers

SAP_EXCERPT = """# CVT-207-201 Statistical Analysis Plan v2.0 (final, signed before unblinding) - Section 9 excerpt

9.1 Primary endpoint. Change from baseline (week 0) to week 12 in seated office systolic blood
pressure (SBP, mmHg; mean of triplicate readings).

9.2 Primary analysis. ANCOVA of the week-12 change with treatment as a factor and baseline SBP as a
covariate, in randomised patients with an observed week-12 SBP (observed cases). Treatment effects
are least-squares mean differences (active minus placebo) with two-sided 95% confidence intervals.

9.3 Multiplicity. The family is {CVT-207 40 mg vs placebo, CVT-207 10 mg vs placebo}. Familywise
type I error is controlled at two-sided alpha = 0.05 with the Hochberg step-up procedure; adjusted
p-values are reported.

9.4 Secondary endpoints (not multiplicity-protected; nominal p-values).
  a. Change from baseline to week 12 in seated DBP: ANCOVA with baseline DBP as covariate.
  b. Responder: week-12 SBP < 140 mmHg. Patients without a week-12 SBP are non-responders.
     Denominator = all randomised. Risk difference vs placebo with Wald 95% CI.

9.5 Supportive analysis. Welch two-sample t-test of the week-12 SBP change (unadjusted).

9.6 Sensitivity analyses for missing data.
  a. LOCF: last observed SBP carried forward to week 12 (baseline if no post-baseline visit),
     same ANCOVA, all randomised patients.
  b. Multiple imputation under MAR: sequential regression imputation within arm for the monotone
     pattern, at least 20 imputations, random seed recorded in the report, Rubin's rules.

9.7 Subgroups (exploratory). Sex; age < 65 / >= 65 years. 40 mg vs placebo within each subgroup,
with a treatment-by-subgroup interaction test. No multiplicity adjustment; not for confirmatory claims.

9.8 Analysis populations. Exclusions from any analysis set are decided at the blinded data review
before unblinding. No exclusions based on post-randomisation outcome values.
"""


def _mm(x: float) -> str:
    """A blood-pressure magnitude as spoken, one decimal (reductions are said as positive numbers)."""
    return f"{abs(x):.1f}"


def _pv(p: float) -> str:
    """A p-value as written in a report."""
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _pct(x: float) -> str:
    return f"{x:.1f}%"


def _sig(x: float, digits: int = 4) -> float:
    """A value kept to a few significant figures for a spreadsheet cell (tiny p-values stay non-zero)."""
    return float(f"{x:.{digits}g}")


def _p3(p: float) -> float:
    return float(round(p, 3))


def words(n: int) -> str:
    """A whole number below a thousand as the persona says it ("three hundred and sixty")."""
    return say_number(n)


def _and(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


@dataclass(frozen=True)
class SubgroupPhrases:
    """How the meeting names one of the 10 mg subgroups a data dredger scans."""

    said_in: str  # the persona: "and in the under-sixty-fives it's significant"
    said_claim: str  # the persona: "the ten milligram works in patients under sixty-five"
    written_in: str  # "10 mg in the under-65s is ..."
    written_who: str  # "a nominal 10 mg effect in patients under 65"
    short: str  # "the 10 mg under-65 finding", "headline the under-65"
    label: str  # "(under 65)"
    factor: str  # "the effect differs by age"


DREDGE_PHRASES: dict[str, SubgroupPhrases] = {
    "under 65": SubgroupPhrases(
        "in the under-sixty-fives",
        "in patients under sixty-five",
        "in the under-65s",
        "patients under 65",
        "under-65",
        "under 65",
        "age",
    ),
    "65 and over": SubgroupPhrases(
        "in the over-sixty-fives",
        "in patients sixty-five and over",
        "in the 65-and-overs",
        "patients aged 65 and over",
        "65-and-over",
        "65 and over",
        "age",
    ),
    "women": SubgroupPhrases("in women", "in women", "in women", "women", "women-only", "women", "sex"),
    "men": SubgroupPhrases("in men", "in men", "in men", "men", "men-only", "men", "sex"),
}


def _site_phrase(name: str) -> SubgroupPhrases:
    """Phrases for a 'site Sxx' cut of the scan."""
    site = name.removeprefix("site ")
    said = f"at site {words(int(site[1:]))}"
    return SubgroupPhrases(
        said, said, f"at site {site}", f"patients at site {site}", site, f"site {site}", "site"
    )


# --------------------------------------------------------------------------- scenario assembly


class _Script:
    """Collects turns and the reference solution's mutations while the meeting is written in order."""

    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self.mutations: list[ExpectedMutation] = []

    def turn(
        self,
        utterance: str,
        action: str,
        phase: Phase,
        channel: Channel,
        response_type: str,
        wait: float,
        facts: list[ExpectedFact],
        reference: str,
        **extra: Any,
    ) -> int:
        i = len(self.turns)
        self.turns.append(
            Turn(
                turn_index=i,
                human_utterance=utterance,
                expected_agent_action=action,
                phase=phase,
                channel=channel,
                expected_response_type=response_type,
                wait_for_agent_sec=wait,
                expected_facts=facts,
                reference_response=reference,
                **extra,
            )
        )
        return i

    def mutate(self, turn: int, product: str, kind: MutationType, path: str, value: Any = None) -> None:
        scalar = value is None or isinstance(value, str | int | float)
        self.mutations.append(
            ExpectedMutation(
                turn_index=turn,
                product_id=product,
                mutation_type=kind,
                path=path,
                expected_value=value if scalar and kind != "create" else None,
                value=None if scalar and kind != "create" else value,
            )
        )


def _num(
    fid: str, description: str, value: float, unit: str = "", tol: float = 2.0, nd: int = 1
) -> ExpectedFact:
    """A numeric fact, rounded to the precision it is said in (the reference states exactly that)."""
    v = float(round(value, nd))
    # A fall is often said as a positive number ("down 9.0 mmHg"): the magnitude counts too.
    keywords = [f"{abs(v):.{nd}f}"] if v < 0 else []
    return ExpectedFact(
        id=fid, description=description, value=v, unit=unit, tolerance_pct=tol, keywords=keywords
    )


def _kw(fid: str, description: str, keywords: list[str]) -> ExpectedFact:
    return ExpectedFact(id=fid, description=description, value=keywords[0], keywords=keywords)


def _r2(x: float) -> float:
    return float(round(x, 2))


def _by_arm(s: dict[str, Any], key: str, nd: int | None = 1) -> dict[str, Any]:
    """A baseline-table row: one cell per arm plus the total."""
    return {
        a: (s[f"{key}_{a}"] if nd is None else float(round(s[f"{key}_{a}"], nd))) for a in (*ARMS, "total")
    }


def build(seed: int = 0) -> Scenario:
    """The scenario, with every derived figure taken from solve() on the generated exports.

    Seed 0 is the committed scenario; any other seed is a fresh trial with the same meeting.
    """
    inst = instance(seed)
    inp, s, s1, naive = inst.inputs, inst.s, inst.s1, inst.naive
    late, v2 = inst.exports.late, inst.exports.v2
    kpa_vals = [p.sbp[12] for p in v2 if p.site == KPA_SITE and p.sbp[12] is not None]
    kpa_n = len(kpa_vals)
    n_total, n_arm = s["n_total"], s["n_placebo"]
    v1_low_sites = [
        x
        for x in SITE_IDS
        if math.isclose(s1[f"site_completion_pct_{x}"], min(s1[f"site_completion_pct_{y}"] for y in SITE_IDS))
    ]
    # "Above X%": the best sites, cut at the whole percent below the runner-up.
    high_cut = math.floor(sorted((s1[f"site_completion_pct_{x}"] for x in SITE_IDS), reverse=True)[1])
    v1_high_sites = [x for x in SITE_IDS if s1[f"site_completion_pct_{x}"] > high_cut]
    sbp_spread = max(s[f"sbp0_mean_{a}"] for a in ARMS) - min(s[f"sbp0_mean_{a}"] for a in ARMS)
    cuff_gap = s["sbp0_mean_total"] - s[f"site_sbp0_mean_{CUFF_SITE}"]
    v1_completion = 100.0 * s1["completers_total"] / s1["n_total"]
    missing_v1 = {a: s1[f"n_{a}"] - s1[f"completers_{a}"] for a in ARMS}
    alpha_step = 0.05 / 2
    late_ids = _and(late)
    dredge = (
        DREDGE_PHRASES[s["dredge_name"]]
        if s["dredge_name"] in DREDGE_PHRASES
        else _site_phrase(s["dredge_name"])
    )
    # The persona's own figures: the primary rounded, the competitor's two better, the 10 mg p in percent.
    said_high = round(abs(s["high_diff"]))
    competitor = said_high + 2
    said_low_pct = round(s["low_p"] * 100)
    hi, lo = "high", "low"

    def diff_ci(prefix: str) -> str:
        return f"-{_mm(s[prefix + '_diff'])} mmHg (95% CI -{_mm(s[prefix + '_ci_low'])} to -{_mm(s[prefix + '_ci_high'])})"

    def low_ci() -> str:
        upper = s["low_ci_high"]
        up = f"{upper:.1f}" if upper >= 0 else f"-{_mm(upper)}"
        return f"-{_mm(s['low_diff'])} mmHg (95% CI -{_mm(s['low_ci_low'])} to {up})"

    sc = _Script()
    RT, SR, CH = "results_tables", "statistical_report", "sbp_change_by_arm"

    # ------------------------------------------------------------------ context setting
    sc.turn(
        "Morning. Quick context: CVT-207-201 locked on Friday and we unblinded at eight this morning. Three arms, "
        "placebo, ten and forty milligrams, twelve weeks, six sites. The portfolio committee meets at four for the "
        "go/no-go on Phase Three, and I need top-line numbers I can defend in that room: a results table, a short "
        "statistical report and one figure. Before I send you anything, what do you need from me?",
        "Ask for the signed SAP (primary model, multiplicity strategy, missing-data rules) and the locked export "
        "with its data dictionary and units; confirm the three deliverables.",
        "context_setting",
        "audio",
        "clarification",
        45,
        [
            _kw(
                "sap_request",
                "Asks for the statistical analysis plan",
                ["statistical analysis plan", "SAP", "pre-specified"],
            ),
            _kw(
                "multiplicity_request",
                "Asks how the two doses are handled for multiplicity",
                ["multiplicity", "familywise", "alpha"],
            ),
        ],
        "Before I touch the data I need the signed statistical analysis plan: the pre-specified primary model, the "
        "multiplicity strategy for the two doses against placebo, and the missing-data rules. Then the locked export "
        "with its data dictionary so I know the units and visit coding; I'll build the results tables, the report and "
        "the figure in that order.",
    )
    sc.turn(
        "Sending section nine of the SAP now. It was signed before unblinding, so it's what we're held to. Give me the "
        "two-sentence version of what we committed to.",
        "Read the SAP excerpt and summarise the primary model, multiplicity, secondaries, sensitivity and the "
        "no-outcome-based-exclusions rule.",
        "context_setting",
        "data",
        "analysis",
        60,
        [
            _kw("sap_hochberg", "Multiplicity is Hochberg across both doses", ["Hochberg"]),
            _kw(
                "sap_observed",
                "Primary uses observed week-12 cases",
                ["observed cases", "observed week-12", "complete case", "completers"],
            ),
            _kw("sap_nonresponder", "Dropouts are non-responders", ["non-responder", "non-responders"]),
        ],
        "We committed to an ANCOVA of the week-12 SBP change with baseline SBP as covariate in observed cases, testing "
        "both 40 mg and 10 mg against placebo under Hochberg at two-sided alpha 0.05. Secondaries are DBP change and "
        "responders (SBP < 140 mmHg, dropouts counted as non-responders), with LOCF and seeded multiple imputation as "
        "sensitivity, Welch as supportive, sex and age subgroups as exploratory, and no outcome-based exclusions.",
        files=["sap_excerpt.md"],
    )
    sc.turn(
        "And here's the locked export from the EDC: one row per patient, visits across. "
        f"{words(n_total).capitalize()} randomised. Tell me what you see before you analyse anything.",
        "Check the file: arms, sites, units, and count the patients with no week-12 SBP, by arm.",
        "context_setting",
        "data",
        "analysis",
        60,
        [
            _num(
                "v1_missing_w12",
                "Patients without a week-12 SBP in the locked export",
                s1["missing_w12_total"],
                "patients",
                0,
                0,
            ),
            _num(
                "v1_missing_placebo",
                "Placebo patients without a week-12 SBP",
                missing_v1["placebo"],
                "patients",
                0,
                0,
            ),
            _num("v1_missing_pct", "Share without a week-12 SBP", s1["dropout_pct_total"], "%", 2),
        ],
        f"The file reconciles to {n_total} randomised, {n_arm} per arm across six sites, readings in mmHg. "
        f"{s1['missing_w12_total']} patients ({_pct(s1['dropout_pct_total'])}) have no week-12 SBP: "
        f"{missing_v1['placebo']} on placebo, {missing_v1['low_dose']} on 10 mg and {missing_v1['high_dose']} on 40 mg, "
        "all monotone dropouts, so missing data will matter for the sensitivity analyses.",
        files=["bp_readings.csv"],
    )
    sc.turn(
        "This is the CRO's disposition slide by site. Does your file reconcile with it, and is any site worrying you?",
        "Reconcile the site counts with the export, give the overall week-12 completion rate and name the weakest sites.",
        "context_setting",
        "screen",
        "verbal",
        45,
        [
            _num(
                "v1_completion_pct", "Overall week-12 completion in the locked export", v1_completion, "%", 1
            ),
            _num(
                "v1_lowest_site_pct",
                "Lowest site completion rate",
                s1[f"site_completion_pct_{v1_low_sites[0]}"],
                "%",
                1,
            ),
        ],
        f"It reconciles: {s1['completers_total']} of {n_total} patients ({_pct(v1_completion)}) have a week-12 SBP, "
        f"matching the CRO's site counts. {_and(v1_low_sites)} {'have' if len(v1_low_sites) > 1 else 'has'} the "
        f"lowest week-12 completion at {_pct(s1[f'site_completion_pct_{v1_low_sites[0]}'])}; {_and(v1_high_sites)} "
        f"{'are' if len(v1_high_sites) > 1 else 'is'} above {high_cut}%, so nothing looks like a site problem.",
        screen=Slide(
            slide_id="cro_disposition",
            kind="table",
            title="CVT-207-201 disposition by site (CRO, locked database)",
            table=TableSpec(
                columns=["Site", "Randomised", "Week-12 SBP recorded"],
                rows=[
                    [x, s1[f"site_n_{x}"], round(s1[f"site_completion_pct_{x}"] * s1[f"site_n_{x}"] / 100)]
                    for x in SITE_IDS
                ],
            ),
            footnote="Source: EDC export v1, locked database",
        ),
    )
    sc.turn(
        "Good. Primary's simple then: change at week twelve, forty milligrams against placebo, a t-test on the "
        "completers. Done by lunch.",
        "Point out that the SAP's primary is an ANCOVA with baseline SBP and that 10 mg is in the Hochberg family; "
        "ask whether the t-test should be the supportive Welch analysis.",
        "context_setting",
        "audio",
        "clarification",
        45,
        [
            _kw("ancova_not_t", "Primary is an ANCOVA adjusted for baseline", ["ANCOVA", "covariate"]),
            _kw(
                "both_doses", "Both doses are in the multiplicity family", ["10 mg", "both doses", "Hochberg"]
            ),
        ],
        "The SAP's primary is an ANCOVA with baseline SBP as a covariate, not a plain t-test, and the family includes "
        "the 10 mg comparison too, with Hochberg across both doses. Shall I run the ANCOVA as primary for both doses "
        "and keep a Welch t-test as the supportive analysis, as section 9.5 says?",
    )

    # ------------------------------------------------------------------ baseline table
    t = sc.turn(
        "Fair, the SAP wins; I'd forgotten we put the ten milligram in the family. ANCOVA primary, Welch supportive, "
        "both doses under Hochberg. Start the results tables with baseline characteristics: numbers and age.",
        "Create the results tables with a baseline tab: N randomised and age (mean, SD) by arm and overall.",
        "active_work",
        "audio",
        "work_product",
        90,
        [
            _num("age_mean_total", "Mean age overall", s["age_mean_total"], "years", 1),
            _num("age_mean_high", "Mean age on 40 mg", s["age_mean_high_dose"], "years", 1),
        ],
        f"Started results_tables with a baseline tab: {n_arm} per arm, {n_total} in total. Mean age is "
        f"{s['age_mean_total']:.1f} years overall (SD {s['age_sd_total']:.1f}): {s['age_mean_placebo']:.1f} on placebo, "
        f"{s['age_mean_low_dose']:.1f} on 10 mg and {s['age_mean_high_dose']:.1f} on 40 mg.",
    )
    sc.mutate(t, RT, "create", "", {})
    sc.mutate(t, RT, "add_row", "/baseline/n_randomized", _by_arm(s, "n", None))
    sc.mutate(t, RT, "add_row", "/baseline/age_mean", _by_arm(s, "age_mean"))
    sc.mutate(t, RT, "add_row", "/baseline/age_sd", _by_arm(s, "age_sd"))
    t = sc.turn(
        "Add sex, the over-sixty-fives, and baseline systolic and diastolic.",
        "Add % female, % aged 65+, baseline SBP and DBP (mean, SD) by arm and overall.",
        "active_work",
        "audio",
        "work_product",
        90,
        [
            _num("sbp0_total", "Mean baseline SBP overall", s["sbp0_mean_total"], "mmHg", 0.5),
            _num("female_total", "Women overall", s["female_pct_total"], "%", 1),
            _num("dbp0_total", "Mean baseline DBP overall", s["dbp0_mean_total"], "mmHg", 0.5),
        ],
        f"Added: {_pct(s['female_pct_total'])} women overall, {_pct(s['age_ge65_pct_total'])} aged 65 or over; "
        f"baseline SBP averages {s['sbp0_mean_total']:.1f} mmHg (SD {s['sbp0_sd_total']:.1f}) and DBP "
        f"{s['dbp0_mean_total']:.1f} mmHg (SD {s['dbp0_sd_total']:.1f}), with per-arm columns in the baseline tab.",
    )
    for key in ("female_pct", "age_ge65_pct", "sbp0_mean", "sbp0_sd", "dbp0_mean", "dbp0_sd"):
        sc.mutate(t, RT, "add_row", f"/baseline/{key}", _by_arm(s, key))
    sc.turn(
        "Anything unbalanced in there that the committee will poke at?",
        "Flag the chance imbalance in sex, note baseline SBP is balanced, and explain why baseline differences are "
        "not tested in a randomised trial.",
        "active_work",
        "audio",
        "analysis",
        60,
        [
            _num("female_placebo", "Women on placebo", s["female_pct_placebo"], "%", 1),
            _num("female_high", "Women on 40 mg", s["female_pct_high_dose"], "%", 1),
            _kw(
                "chance_imbalance",
                "Imbalance is due to chance under randomisation",
                ["chance", "randomisation", "randomization"],
            ),
        ],
        f"One thing: women are {_pct(s['female_pct_placebo'])} of placebo but {_pct(s['female_pct_high_dose'])} of the "
        "40 mg arm. That's a chance imbalance, so I won't test baseline differences, but sex is a pre-specified "
        f"subgroup and we'll see an interaction test for it. Baseline SBP is within {sbp_spread:.1f} mmHg across arms "
        f"({min(s[f'sbp0_mean_{a}'] for a in ARMS):.1f} to {max(s[f'sbp0_mean_{a}'] for a in ARMS):.1f}), so the "
        "ANCOVA adjustment is there for precision, not rescue.",
    )
    sc.turn(
        "The CRO's programmer made this plot this morning. Talk me through it.",
        "Read the time course: placebo response and regression to the mean, the 40 mg separation from week 4, "
        "10 mg close to placebo.",
        "active_work",
        "screen",
        "analysis",
        60,
        [
            _num(
                "v1_placebo_w12_change",
                "Placebo mean SBP fall by week 12 (observed)",
                s1["obs_change_placebo_w12"],
                "mmHg",
                12,
            ),
            _num(
                "v1_high_w12_change",
                "40 mg mean SBP fall by week 12 (observed)",
                s1["obs_change_high_dose_w12"],
                "mmHg",
                12,
            ),
            _kw(
                "placebo_response",
                "Names the placebo response / regression to the mean",
                ["regression to the mean", "placebo response"],
            ),
        ],
        f"Placebo drops about {_mm(s1['obs_change_placebo_w12'])} mmHg by week 12 in completers, which is placebo "
        "response plus regression to the mean since everyone entered above 140, so the drug effect has to be read "
        f"against it. The 40 mg arm separates from week 4 and falls about {_mm(s1['obs_change_high_dose_w12'])} mmHg by "
        "week 12; 10 mg tracks only slightly below placebo.",
        screen=Slide(
            slide_id="cro_mean_sbp_by_visit",
            kind="chart",
            title="Mean office SBP by visit and arm (observed cases)",
            subtitle="CRO quick plot, locked database",
            chart=ChartSpec(
                chart_type="line",
                categories=[f"Week {v}" for v in VISITS],
                series=[
                    ChartSeries(name=ARM_LABEL[a], values=[round(s1[f"obs_sbp_{a}_w{v}"], 1) for v in VISITS])
                    for a in ARMS
                ],
                x_label="Visit",
                y_label="Mean SBP (mmHg)",
            ),
            footnote="Source: EDC export v1; means of patients seen at each visit",
        ),
    )
    sc.turn(
        f"Side note while I think of it. At the investigator meeting the site {words(int(CUFF_SITE[1:]))} PI swore his "
        "new automated cuffs read low compared with everybody else's. And the competitor's synthase inhibitor showed "
        f"{words(competitor)} millimetres placebo-adjusted in their Phase Two, so someone on the committee will hold "
        "that up against us.",
        f"Check {CUFF_SITE}'s baseline against the rest, explain that within-site randomisation cancels a site offset in the "
        "treatment difference, caution on cross-trial comparison, and steer back to the work.",
        "active_work",
        "audio",
        "verbal",
        45,
        [
            _num(
                "s03_baseline",
                f"{CUFF_SITE} mean baseline SBP",
                s[f"site_sbp0_mean_{CUFF_SITE}"],
                "mmHg",
                0.5,
            ),
            _kw(
                "within_site",
                "Randomisation within site cancels the offset",
                ["within site", "within each site", "blocked", "stratified"],
            ),
            _kw(
                "cross_trial",
                "Cross-trial comparison caveat",
                ["cross-trial", "different population", "different trial"],
            ),
        ],
        f"The PI may have a point: {CUFF_SITE}'s mean baseline SBP is {s[f'site_sbp0_mean_{CUFF_SITE}']:.1f} mmHg "
        f"against {s['sbp0_mean_total']:.1f} overall, about {cuff_gap:.1f} lower, but randomisation was blocked within "
        "site so "
        "the offset hits all three arms and cancels in the treatment difference. On the competitor's figure, "
        "cross-trial comparisons mix different populations and placebo responses, so I'd not put them side by side; "
        "shall we get back to the disposition?",
    )
    t = sc.turn(
        "Yes. Put the disposition in: who has a week-twelve reading, per arm.",
        "Add the week-12 completers row by arm to the baseline tab.",
        "active_work",
        "audio",
        "work_product",
        60,
        [
            _num(
                "v1_completers_placebo",
                "Placebo completers (locked export)",
                s1["completers_placebo"],
                "patients",
                0,
                0,
            ),
            _num(
                "v1_completers_high",
                "40 mg completers (locked export)",
                s1["completers_high_dose"],
                "patients",
                0,
                0,
            ),
        ],
        f"Added a completers row: {s1['completers_placebo']} on placebo, {s1['completers_low_dose']} on 10 mg and "
        f"{s1['completers_high_dose']} on 40 mg have a week-12 SBP, {s1['completers_total']} in total; that's the "
        "observed-cases set for the primary.",
    )
    sc.mutate(t, RT, "add_row", "/baseline/completers_w12", _by_arm(s1, "completers", None))

    # ------------------------------------------------------------------ edge case: corrected file in kPa
    kpa_utt = (
        "Hold on. Data management just sent version two of the export; three week-twelve queries were resolved late. "
        "Swap it in and carry on, I don't want this turning into a thing."
    )
    sc.turn(
        kpa_utt,
        f"Diff v2 against v1 before using it: find the three late visits and see that {KPA_SITE}'s week-12 readings "
        "are in kPa; convert them (x7.50062), say so, and ask data management to reissue.",
        "edge_case",
        "data",
        "correction",
        90,
        [
            _kw("kpa_detected", "Spots readings in kPa", ["kPa", "kilopascal"]),
            _kw("kpa_site", "Names the affected site", [KPA_SITE]),
            _num("completers_v2", "Completers after the fix", s["completers_total"], "patients", 0, 0),
        ],
        f"Before swapping: v2 does add week-12 visits for {late_ids}, but every {KPA_SITE} week-12 SBP now sits between "
        f"{min(kpa_vals):.1f} and {max(kpa_vals):.1f}: those are kPa, not mmHg, so I've converted them back "
        f"(x{MMHG_PER_KPA}), which reproduces the v1 values to rounding. With that fix {s['completers_total']} patients "
        "have a week-12 SBP; I'd ask data management to reissue the file in mmHg.",
        files=["bp_readings_v2.csv"],
        edge_case="corrected_file_in_kpa",
    )
    t = sc.turn(
        "Kilopascals. The new EDC module, of course. Are you sure it's the whole site and not a handful of patients? "
        "And what goes in the table now?",
        "Confirm every week-12 reading at the site is affected and nothing else, then update the completers row.",
        "active_work",
        "audio",
        "clarification",
        60,
        [
            _num("kpa_readings", f"{KPA_SITE} week-12 readings affected", kpa_n, "patients", 0, 0),
            _num(
                "completers_high_v2", "40 mg completers after v2", s["completers_high_dose"], "patients", 0, 0
            ),
            _num(
                "completers_low_v2", "10 mg completers after v2", s["completers_low_dose"], "patients", 0, 0
            ),
        ],
        f"It's the whole site: all {kpa_n} {KPA_SITE} patients with a week-12 visit are below 40 in v2, and no other "
        f"site or visit is affected. The completers row now reads {s['completers_placebo']} placebo, "
        f"{s['completers_low_dose']} on 10 mg and {s['completers_high_dose']} on 40 mg, {s['completers_total']} in "
        f"total; everything from here uses v2 with {KPA_SITE} converted.",
    )
    for a in (*ARMS, "total"):
        if s[f"completers_{a}"] != s1[f"completers_{a}"]:
            sc.mutate(t, RT, "update_cell", f"/baseline/completers_w12/{a}", s[f"completers_{a}"])

    # ------------------------------------------------------------------ primary
    t = sc.turn(
        "I've put the shell for the primary table in chat. Forty milligrams first.",
        "Run the pre-specified ANCOVA on the corrected data and report the 40 mg LS mean difference, 95% CI and p.",
        "active_work",
        "chat",
        "work_product",
        90,
        [
            _num("high_diff", "40 mg vs placebo LS mean reduction", s["high_diff"], "mmHg", 2),
            _num("high_ci_near", "95% CI limit nearest zero", s["high_ci_high"], "mmHg", 3),
            _num("high_ci_far", "95% CI limit furthest from zero", s["high_ci_low"], "mmHg", 3),
            _kw("high_p", "p-value below 0.001", ["p < 0.001", "p<0.001", "< 0.001"]),
        ],
        f"40 mg vs placebo: LS mean difference {diff_ci(hi)}, p < 0.001, a placebo-adjusted reduction of "
        f"{_mm(s['high_diff'])} mmHg. It's in the primary tab.",
        chat_message=(
            "Shell T14.2.1 (primary, observed cases): LS mean change per arm | LS mean difference vs placebo | "
            "95% CI | p | Hochberg-adjusted p. 40 mg row first."
        ),
    )
    sc.mutate(
        t,
        RT,
        "add_row",
        "/primary/high_vs_placebo",
        {
            "difference": _r2(s["high_diff"]),
            "ci_low": _r2(s["high_ci_low"]),
            "ci_high": _r2(s["high_ci_high"]),
            "p_value": _sig(s["high_p"]),
        },
    )
    t = sc.turn(
        f"{words(said_high).capitalize()}. What are the LS means underneath that, and how many patients actually "
        "went into the model?",
        "Give the LS mean change per arm at the mean baseline and the observed-case counts; fill them in.",
        "active_work",
        "audio",
        "analysis",
        60,
        [
            _num("ls_high", "LS mean SBP change on 40 mg", s["ls_mean_high_dose"], "mmHg", 2),
            _num("ls_placebo", "LS mean SBP change on placebo", s["ls_mean_placebo"], "mmHg", 3),
        ],
        f"At the mean baseline, the LS mean change is -{_mm(s['ls_mean_high_dose'])} mmHg on 40 mg and "
        f"-{_mm(s['ls_mean_placebo'])} mmHg on placebo; the model uses {s['completers_high_dose']} and "
        f"{s['completers_placebo']} observed cases ({s['completers_total']} across the three arms, baseline SBP as "
        "covariate).",
    )
    for col, val in (
        ("n_active", s["completers_high_dose"]),
        ("n_placebo", s["completers_placebo"]),
        ("ls_mean_active", _r2(s["ls_mean_high_dose"])),
        ("ls_mean_placebo", _r2(s["ls_mean_placebo"])),
    ):
        sc.mutate(t, RT, "update_cell", f"/primary/high_vs_placebo/{col}", val)
    t = sc.turn(
        "Now the ten milligram.",
        "Report the 10 mg LS mean difference, CI and two-sided p, and add the row.",
        "active_work",
        "audio",
        "analysis",
        60,
        [
            _num("low_diff", "10 mg vs placebo LS mean reduction", s["low_diff"], "mmHg", 3),
            _num("low_p", "10 mg two-sided p", s["low_p"], "", 3, 3),
            _num("low_ci_far", "10 mg 95% CI limit furthest from zero", s["low_ci_low"], "mmHg", 3),
        ],
        f"10 mg vs placebo: LS mean difference {low_ci()}, p = {_pv(s['low_p'])} two-sided. The interval crosses "
        "zero, so on its own it doesn't separate from placebo.",
    )
    sc.mutate(
        t,
        RT,
        "add_row",
        "/primary/low_vs_placebo",
        {
            "n_active": s["completers_low_dose"],
            "n_placebo": s["completers_placebo"],
            "ls_mean_active": _r2(s["ls_mean_low_dose"]),
            "ls_mean_placebo": _r2(s["ls_mean_placebo"]),
            "difference": _r2(s["low_diff"]),
            "ci_low": _r2(s["low_ci_low"]),
            "ci_high": _r2(s["low_ci_high"]),
            "p_value": _sig(s["low_p"]),
        },
    )
    t = sc.turn(
        "Apply the Hochberg. What survives?",
        "Walk the Hochberg step-up, give the adjusted p-values and say which dose is significant.",
        "active_work",
        "audio",
        "analysis",
        60,
        [
            _num("low_p_hochberg", "10 mg Hochberg-adjusted p", s["low_p_hochberg"], "", 3, 3),
            _num("hochberg_step_alpha", "Level the smaller p is tested at", alpha_step, "", 0.5, 3),
            _num(
                "low_p_bonferroni",
                "10 mg Bonferroni-adjusted p, for comparison",
                s["low_p_bonferroni"],
                "",
                3,
                3,
            ),
        ],
        f"Hochberg starts from the larger p: 10 mg at {_pv(s['low_p'])} is above 0.05, so it isn't rejected; then "
        f"40 mg is tested at {alpha_step:.3f} and p < 0.001 passes. Adjusted p-values: 40 mg < 0.001 (significant), "
        f"10 mg {_pv(s['low_p_hochberg'])} (not significant); for reference Bonferroni would put 10 mg at "
        f"{_pv(s['low_p_bonferroni'])}.",
    )
    sc.mutate(t, RT, "update_cell", "/primary/high_vs_placebo/p_hochberg", _sig(s["high_p_hochberg"]))
    sc.mutate(t, RT, "update_cell", "/primary/low_vs_placebo/p_hochberg", _sig(s["low_p_hochberg"]))
    t = sc.turn(
        "The CRO also ran a plain Welch test; that's on screen. The numbers are a bit different from yours. Which one "
        "do I quote?",
        "Quote the pre-specified ANCOVA; explain the Welch is the unadjusted supportive analysis and agrees; record it "
        "in a supportive tab.",
        "active_work",
        "screen",
        "analysis",
        60,
        [
            _num("high_diff_again", "Primary (ANCOVA) 40 mg reduction to quote", s["high_diff"], "mmHg", 2),
            _num("ancova_se", "ANCOVA standard error of the 40 mg difference", s["high_se"], "mmHg", 2, 2),
            _kw(
                "prespecified_primary",
                "The ANCOVA is the pre-specified primary",
                ["pre-specified", "primary"],
            ),
        ],
        f"Quote the ANCOVA: {_mm(s['high_diff'])} mmHg is the pre-specified primary; the Welch "
        f"{_mm(s['high_welch_diff'])} is the unadjusted supportive analysis and agrees. Adjusting for baseline "
        + (
            "makes the ANCOVA a bit more precise"
            if s["high_se"] < s["high_welch_se"]
            else "changes the precision little"
        )
        + f" (SE {s['high_se']:.2f} vs {s['high_welch_se']:.2f} mmHg); I've put the Welch results in a supportive tab.",
        screen=Slide(
            slide_id="cro_welch",
            kind="table",
            title="Supportive analysis: Welch t-test, week-12 SBP change (observed cases)",
            table=TableSpec(
                columns=["Comparison", "Mean difference (mmHg)", "95% CI", "p"],
                rows=[
                    [
                        f"{ARM_LABEL[a]} vs placebo",
                        round(s[f"{k}_welch_diff"], 1),
                        f"{s[f'{k}_welch_ci_low']:.1f} to {s[f'{k}_welch_ci_high']:.1f}",
                        _pv(s[f"{k}_welch_p"]),
                    ]
                    for a, k in (("high_dose", hi), ("low_dose", lo))
                ],
            ),
            footnote=f"Source: CRO biostatistics, export v2 with {KPA_SITE} converted",
        ),
    )
    for k in (hi, lo):
        sc.mutate(
            t,
            RT,
            "add_row",
            f"/supportive/welch_{k}_vs_placebo",
            {
                "difference": _r2(s[f"{k}_welch_diff"]),
                "ci_low": _r2(s[f"{k}_welch_ci_low"]),
                "ci_high": _r2(s[f"{k}_welch_ci_high"]),
                "p_value": _sig(s[f"{k}_welch_p"]),
            },
        )

    # ------------------------------------------------------------------ secondaries
    t = sc.turn(
        "Secondaries. Diastolic first.",
        "Run the DBP ANCOVA (baseline DBP covariate) for both doses; note the p-values are nominal.",
        "active_work",
        "audio",
        "work_product",
        75,
        [
            _num("dbp_high", "40 mg DBP reduction vs placebo", s["dbp_high_diff"], "mmHg", 3),
            _num("dbp_low", "10 mg DBP reduction vs placebo", s["dbp_low_diff"], "mmHg", 3),
            _num("dbp_low_p", "10 mg DBP nominal p", s["dbp_low_p"], "", 5, 3),
        ],
        f"DBP at week 12 (ANCOVA on baseline DBP): 40 mg {diff_ci('dbp_high')}, p < 0.001; 10 mg "
        f"{diff_ci('dbp_low')}, nominal p = {_pv(s['dbp_low_p'])}, which is not multiplicity-protected, so it's "
        "supportive only.",
    )
    for k in (hi, lo):
        sc.mutate(
            t,
            RT,
            "add_row",
            f"/secondary/dbp_{k}_vs_placebo",
            {
                "difference": _r2(s[f"dbp_{k}_diff"]),
                "ci_low": _r2(s[f"dbp_{k}_ci_low"]),
                "ci_high": _r2(s[f"dbp_{k}_ci_high"]),
                "p_value": _sig(s[f"dbp_{k}_p"]),
            },
        )
    sc.turn(
        "Then responders: controlled at week twelve, under one-forty over ninety.",
        "Check the definition against the SAP (SBP < 140 only, dropouts non-responders) before running it.",
        "active_work",
        "audio",
        "clarification",
        45,
        [
            _kw(
                "responder_sbp_only",
                "SAP responder is systolic only",
                ["SBP < 140 mmHg only", "systolic only", "no diastolic"],
            ),
            _kw("responder_missing", "Dropouts count as non-responders", ["non-responder", "non-responders"]),
        ],
        "Quick check before I run it: the SAP's responder definition is SBP < 140 mmHg only, no diastolic criterion, "
        "with patients missing week 12 counted as non-responders. Do you want the SAP definition, or the 140/90 "
        "composite as an extra post hoc line?",
    )
    t = sc.turn(
        "You're right, that's my mistake; scratch the diastolic part. SAP definition: systolic under one-forty, "
        "dropouts count as failures.",
        "Compute responder rates on all randomised, the risk differences vs placebo with Wald 95% CIs, and add them.",
        "active_work",
        "audio",
        "analysis",
        75,
        [
            _num("resp_high", "Responders on 40 mg", s["responder_pct_high_dose"], "%", 1),
            _num("resp_placebo", "Responders on placebo", s["responder_pct_placebo"], "%", 1),
            _num("rd_high", "Risk difference 40 mg vs placebo", s["rd_high_pct"], "percentage points", 2),
            _num(
                "rd_high_ci_low",
                "Lower 95% limit of the risk difference",
                s["rd_high_ci_low_pct"],
                "percentage points",
                3,
            ),
        ],
        f"Responders (week-12 SBP < 140 mmHg, dropouts as non-responders): {_pct(s['responder_pct_high_dose'])} on "
        f"40 mg ({s['responders_high_dose']}/{n_arm}), {_pct(s['responder_pct_low_dose'])} on 10 mg "
        f"({s['responders_low_dose']}/{n_arm}) and {_pct(s['responder_pct_placebo'])} on placebo "
        f"({s['responders_placebo']}/{n_arm}). Risk difference for 40 mg is {s['rd_high_pct']:.1f} percentage points "
        f"(95% CI {s['rd_high_ci_low_pct']:.1f} to {s['rd_high_ci_high_pct']:.1f}); for 10 mg it is "
        f"{s['rd_low_pct']:.1f} points (95% CI {s['rd_low_ci_low_pct']:.1f} to {s['rd_low_ci_high_pct']:.1f}).",
    )
    sc.mutate(
        t,
        RT,
        "add_row",
        "/responders/placebo",
        {
            "n": s["n_placebo"],
            "responders": s["responders_placebo"],
            "pct": round(s["responder_pct_placebo"], 1),
        },
    )
    for a, k in (("low_dose", lo), ("high_dose", hi)):
        sc.mutate(
            t,
            RT,
            "add_row",
            f"/responders/{a}",
            {
                "n": s[f"n_{a}"],
                "responders": s[f"responders_{a}"],
                "pct": round(s[f"responder_pct_{a}"], 1),
                "rd_pct": round(s[f"rd_{k}_pct"], 1),
                "rd_ci_low": round(s[f"rd_{k}_ci_low_pct"], 1),
                "rd_ci_high": round(s[f"rd_{k}_ci_high_pct"], 1),
            },
        )
    t = sc.turn(
        "Posted a question in chat. The committee always asks for it.",
        "Compute the NNT for 40 mg from the risk difference, with its CI from the RD limits, and add it.",
        "active_work",
        "chat",
        "analysis",
        60,
        [
            _num("nnt", "Number needed to treat, 40 mg", s["nnt_high"], "patients", 3),
            _num("nnt_ci_low", "NNT lower 95% limit", s["nnt_high_ci_low"], "patients", 4),
            _num("nnt_ci_high", "NNT upper 95% limit", s["nnt_high_ci_high"], "patients", 4),
        ],
        f"NNT for 40 mg is 1 / {s['rd_high_pct'] / 100:.3f} = {s['nnt_high']:.1f}, so treat about "
        f"{math.ceil(s['nnt_high'])} patients for one extra to reach SBP < 140 at week 12 (95% CI "
        f"{s['nnt_high_ci_low']:.1f} to {s['nnt_high_ci_high']:.1f}, from the risk-difference limits). Added to the "
        "responders tab.",
        chat_message="Committee always asks for an NNT. Can you give me one for the 40 mg responder result?",
        reference_chat=(
            f"NNT (40 mg vs placebo, SBP<140 at wk 12) = 1/{s['rd_high_pct'] / 100:.3f} = {s['nnt_high']:.1f} "
            f"(95% CI {s['nnt_high_ci_low']:.1f} to {s['nnt_high_ci_high']:.1f}), about {math.ceil(s['nnt_high'])} patients"
        ),
    )
    sc.mutate(t, RT, "update_cell", "/responders/high_dose/nnt", round(s["nnt_high"], 2))

    # ------------------------------------------------------------------ edge case: outcome-based exclusion
    exclude_utt = (
        "I've been scrolling the listing. A handful of forty-milligram patients went up at week twelve. On this "
        "mechanism that's physiologically implausible; those readings look wrong to me. Drop them and re-run the primary."
    )
    sc.turn(
        exclude_utt,
        "Decline the post hoc, outcome-based exclusion: count the risers in both arms, explain the bias and the SAP "
        "rule, offer a procedural query instead; the primary stays as is.",
        "edge_case",
        "audio",
        "pushback",
        60,
        [
            _num("high_risers", "40 mg completers whose SBP rose", s["high_risers_n"], "patients", 0, 0),
            _num(
                "placebo_risers", "Placebo completers whose SBP rose", s["placebo_risers_n"], "patients", 0, 0
            ),
            _kw("posthoc_bias", "Names the post hoc bias", ["post hoc", "bias", "pre-specified"]),
        ],
        f"I wouldn't: {s['high_risers_n']} of the {s['completers_high_dose']} completers on 40 mg had a rise, but so did "
        f"{s['placebo_risers_n']} of {s['completers_placebo']} on placebo; that's ordinary visit-to-visit variability, "
        "not a sign of bad readings. Dropping patients from one arm because of their outcome is a post hoc exclusion "
        f"that biases the estimate toward the drug (it would move {_mm(s['high_diff'])} to "
        f"{_mm(s['high_diff_excluding_risers'])} mmHg) and SAP 9.8 rules it out; if you suspect a measurement problem "
        f"it goes to a procedural query, and the primary stays at {_mm(s['high_diff'])} mmHg.",
        edge_case="exclude_implausible_readings",
    )
    t = sc.turn(
        "Fine. Fine, I had to ask; someone upstairs will. Missing data, then. How exposed are we?",
        "Quantify missing week-12 data by arm and state the assumption behind the primary; set up the sensitivity tab.",
        "active_work",
        "audio",
        "analysis",
        60,
        [
            _num(
                "missing_total",
                "Patients without week-12 SBP (final data)",
                s["missing_w12_total"],
                "patients",
                0,
                0,
            ),
            _num("dropout_placebo", "Missing week 12 on placebo", s["dropout_pct_placebo"], "%", 1),
            _num("dropout_total", "Missing week 12 overall", s["dropout_pct_total"], "%", 1),
        ],
        f"{s['missing_w12_total']} of {n_total} patients ({_pct(s['dropout_pct_total'])}) lack a week-12 SBP: "
        f"{_pct(s['dropout_pct_placebo'])} on placebo, {_pct(s['dropout_pct_low_dose'])} on 10 mg and "
        f"{_pct(s['dropout_pct_high_dose'])} on 40 mg. The observed-cases ANCOVA assumes the missing readings are "
        "missing at random given the data we have; LOCF and multiple imputation will show whether that matters.",
    )
    sc.mutate(
        t,
        RT,
        "add_row",
        "/sensitivity/complete_case",
        {
            "n_analysed": s["completers_total"],
            "high_diff": _r2(s["high_diff"]),
            "high_ci_low": _r2(s["high_ci_low"]),
            "high_ci_high": _r2(s["high_ci_high"]),
            "high_p": _sig(s["high_p"]),
            "low_diff": _r2(s["low_diff"]),
            "low_p": _sig(s["low_p"]),
        },
    )

    def sens_row(prefix: str, n: int) -> dict[str, Any]:
        return {
            "n_analysed": n,
            "high_diff": _r2(s[f"{prefix}_high_diff"]),
            "high_ci_low": _r2(s[f"{prefix}_high_ci_low"]),
            "high_ci_high": _r2(s[f"{prefix}_high_ci_high"]),
            "high_p": _sig(s[f"{prefix}_high_p"]),
            "low_diff": _r2(s[f"{prefix}_low_diff"]),
            "low_p": _sig(s[f"{prefix}_low_p"]),
        }

    t = sc.turn(
        "Run the LOCF.",
        "Run the LOCF ANCOVA on all randomised and add it next to the observed-cases result.",
        "active_work",
        "audio",
        "work_product",
        75,
        [
            _num("locf_high", "LOCF 40 mg reduction", s["locf_high_diff"], "mmHg", 3),
            _num("locf_low_p", "LOCF 10 mg p", s["locf_low_p"], "", 5, 3),
        ],
        f"LOCF on all {n_total} randomised, same ANCOVA: 40 mg {diff_ci('locf_high')}, p < 0.001; 10 mg "
        f"-{_mm(s['locf_low_diff'])} mmHg (p = {_pv(s['locf_low_p'])}). The sensitivity tab now shows it next to the "
        "observed-cases result.",
    )
    sc.mutate(t, RT, "add_row", "/sensitivity/locf", sens_row("locf", s["n_total"]))
    t = sc.turn(
        "And the multiple imputation. Seed it; biometrics will want to reproduce it exactly.",
        "Run MI under MAR with a recorded seed, combine with Rubin's rules, and add the row.",
        "active_work",
        "audio",
        "work_product",
        90,
        [
            _num("mi_high", "MI 40 mg reduction", s["mi_high_diff"], "mmHg", 4),
            _num("mi_low_p", "MI 10 mg p", s["mi_low_p"], "", 15, 3),
            _kw("mi_rubin", "Combines with Rubin's rules", ["Rubin"]),
        ],
        f"MI under MAR, sequential regression within arm, {MI_IMPUTATIONS} imputations with seed {inp.mi_seed} and Rubin's "
        f"rules: 40 mg {diff_ci('mi_high')}, p < 0.001; 10 mg -{_mm(s['mi_low_diff'])} mmHg (p = {_pv(s['mi_low_p'])}). "
        "All three approaches agree on 40 mg, and 10 mg stays non-significant.",
    )
    sc.mutate(t, RT, "add_row", "/sensitivity/multiple_imputation", sens_row("mi", s["n_total"]))

    # ------------------------------------------------------------------ edge case: post hoc one-sided test
    onesided_utt = (
        f"Look, the ten milligram is at {words(said_low_pct)} percent two-sided. Nobody expects this drug to raise blood pressure, so "
        "the test should be one-sided. Halve it and we're under five percent. Report it one-sided."
    )
    sc.turn(
        onesided_utt,
        "Refuse the post hoc switch: give the one-sided p, explain the SAP fixed two-sided 0.05 and that a one-sided "
        "test uses 0.025, which 10 mg still misses.",
        "edge_case",
        "audio",
        "pushback",
        60,
        [
            _num("low_p_one_sided", "10 mg one-sided p", s["low_p_one_sided"], "", 5, 3),
            _num("one_sided_alpha", "Matching one-sided level", alpha_step, "", 0.5, 3),
            _kw(
                "two_sided_prespecified",
                "Two-sided test was pre-specified",
                ["pre-specified", "two-sided", "post hoc"],
            ),
        ],
        f"The one-sided p would be {_pv(s['low_p_one_sided'])}, but the SAP fixed a two-sided 0.05 test before "
        "unblinding, and switching sides after seeing the data is post hoc. A one-sided test at the matching level "
        f"uses alpha {alpha_step:.3f}, and {_pv(s['low_p_one_sided'])} misses that too, so 10 mg stays not significant "
        f"(Hochberg-adjusted p = {_pv(s['low_p_hochberg'])}) whichever way it's framed.",
        edge_case="post_hoc_one_sided",
    )

    # ------------------------------------------------------------------ figure, with a change of mind
    w12 = {a: _r2(s[f"obs_change_{a}_w12"]) for a in ARMS}
    t = sc.turn(
        "Figure. Keep it simple: a bar chart of the week-twelve SBP change by arm.",
        "Create the chart product as a bar chart of observed mean week-12 SBP change per arm, axes labelled.",
        "active_work",
        "audio",
        "work_product",
        60,
        [
            _num(
                "obs_high_w12",
                "Observed mean week-12 change on 40 mg",
                s["obs_change_high_dose_w12"],
                "mmHg",
                2,
            ),
            _num(
                "obs_low_w12",
                "Observed mean week-12 change on 10 mg",
                s["obs_change_low_dose_w12"],
                "mmHg",
                3,
            ),
        ],
        f"Drawn sbp_change_by_arm as a bar chart of mean week-12 SBP change in observed cases: "
        f"-{_mm(w12['placebo'])} mmHg on placebo, -{_mm(w12['low_dose'])} on 10 mg and -{_mm(w12['high_dose'])} on 40 mg.",
    )
    # Created as an empty chart so that series and categories are lists from the start.
    sc.mutate(
        t,
        CH,
        "create",
        "",
        {"chart_type": "bar", "title": "", "x_label": "", "y_label": "", "categories": [], "series": []},
    )
    sc.mutate(t, CH, "update_chart", "/title", "Mean change in office SBP at week 12 by arm")
    sc.mutate(t, CH, "update_chart", "/x_label", "Treatment arm")
    sc.mutate(t, CH, "update_chart", "/y_label", "Mean change from baseline in SBP (mmHg)")
    sc.mutate(t, CH, "update_chart", "/categories", [ARM_LABEL[a] for a in ARMS])
    sc.mutate(t, CH, "add_chart_series", "/series/0", {"name": "Week 12", "values": [w12[a] for a in ARMS]})
    course = {a: [0.0] + [_r2(s[f"obs_change_{a}_w{v}"]) for v in VISITS[1:]] for a in ARMS}
    t = sc.turn(
        "Seeing it on the big screen... no, I've changed my mind. The committee always asks when the effect kicks in. "
        "Make it the time course: weeks zero to twelve, one line per arm.",
        "Turn the chart into a line chart over weeks 0, 4, 8 and 12 with one series per arm, and describe the onset.",
        "active_work",
        "screen",
        "work_product",
        75,
        [
            _num("obs_high_w4", "40 mg mean change at week 4", s["obs_change_high_dose_w4"], "mmHg", 3),
            _num("obs_high_w8", "40 mg mean change at week 8", s["obs_change_high_dose_w8"], "mmHg", 3),
            _num("obs_placebo_w4", "Placebo mean change at week 4", s["obs_change_placebo_w4"], "mmHg", 4),
        ],
        f"Switched to a line chart over weeks 0, 4, 8 and 12, one line per arm: 40 mg is already "
        f"-{_mm(s['obs_change_high_dose_w4'])} mmHg at week 4 and -{_mm(s['obs_change_high_dose_w8'])} at week 8 against "
        f"-{_mm(s['obs_change_placebo_w4'])} and -{_mm(s['obs_change_placebo_w8'])} on placebo, so most of the effect is "
        "there by week 8.",
        screen=Slide(
            slide_id="draft_bar_chart",
            kind="chart",
            title="Draft: mean change in office SBP at week 12 by arm",
            chart=ChartSpec(
                chart_type="bar",
                categories=[ARM_LABEL[a] for a in ARMS],
                series=[ChartSeries(name="Week 12", values=[w12[a] for a in ARMS])],
                x_label="Treatment arm",
                y_label="Mean change from baseline in SBP (mmHg)",
            ),
            footnote="Draft figure from the shared document",
        ),
    )
    sc.mutate(t, CH, "update_chart", "/chart_type", "line")
    sc.mutate(t, CH, "update_chart", "/title", "Mean change in office SBP from baseline by visit and arm")
    sc.mutate(t, CH, "update_chart", "/x_label", "Visit")
    sc.mutate(t, CH, "update_chart", "/categories", [f"Week {v}" for v in VISITS])
    sc.mutate(t, CH, "update_chart", "/series/0", {"name": ARM_LABEL["placebo"], "values": course["placebo"]})
    sc.mutate(
        t, CH, "add_chart_series", "/series/1", {"name": ARM_LABEL["low_dose"], "values": course["low_dose"]}
    )
    sc.mutate(
        t,
        CH,
        "add_chart_series",
        "/series/2",
        {"name": ARM_LABEL["high_dose"], "values": course["high_dose"]},
    )
    t = sc.turn(
        "Hang on. The forty-milligram point at week twelve minus placebo isn't the number you gave me for the primary. "
        "Which numbers are those?",
        "Explain the chart shows observed, unadjusted means while the primary is the baseline-adjusted LS-mean "
        "difference; label the chart accordingly.",
        "active_work",
        "audio",
        "clarification",
        45,
        [
            _num(
                "obs_diff_w12",
                "Unadjusted week-12 difference read off the chart",
                s["obs_diff_high_w12"],
                "mmHg",
                2,
            ),
            _kw(
                "unadjusted",
                "Chart shows observed, unadjusted means",
                ["unadjusted", "observed", "raw means"],
            ),
            _kw("adjusted", "Primary is baseline-adjusted", ["adjusted", "LS mean", "ANCOVA"]),
        ],
        f"The chart plots observed, unadjusted mean changes among patients seen at each visit, so week 12 gives "
        f"{_mm(w12['high_dose'])} - {_mm(w12['placebo'])} = {_mm(s['obs_diff_high_w12'])} mmHg; the "
        f"{_mm(s['high_diff'])} is the ANCOVA LS-mean difference adjusted for baseline SBP. I've added 'observed cases, "
        "unadjusted' to the chart title so nobody mixes them up.",
    )
    sc.mutate(
        t,
        CH,
        "update_chart",
        "/title",
        "Mean change in office SBP from baseline by visit and arm (observed cases, unadjusted)",
    )

    # ------------------------------------------------------------------ subgroups
    t = sc.turn(
        "Pre-specified subgroups: sex and age. Is the forty-milligram effect consistent?",
        "Run 40 mg vs placebo within sex and age bands with interaction tests; call them exploratory; add the rows.",
        "active_work",
        "audio",
        "analysis",
        75,
        [
            _num("sub_female", "40 mg effect in women", s["sub_female_diff"], "mmHg", 3),
            _num("sub_male", "40 mg effect in men", s["sub_male_diff"], "mmHg", 3),
            _num("interaction_sex_p", "Sex interaction p", s["interaction_sex_p"], "", 5, 2),
            _num("interaction_age_p", "Age interaction p", s["interaction_age_p"], "", 5, 2),
        ],
        f"Yes: 40 mg vs placebo is -{_mm(s['sub_female_diff'])} mmHg in women (95% CI -{_mm(s['sub_female_ci_low'])} to "
        f"-{_mm(s['sub_female_ci_high'])}) and -{_mm(s['sub_male_diff'])} in men (interaction p = "
        f"{s['interaction_sex_p']:.2f}); -{_mm(s['sub_age_lt65_diff'])} under 65 and -{_mm(s['sub_age_ge65_diff'])} at 65 "
        f"or over (95% CI -{_mm(s['sub_age_ge65_ci_low'])} to -{_mm(s['sub_age_ge65_ci_high'])}; interaction p = "
        f"{s['interaction_age_p']:.2f}). No sign of heterogeneity, and all of it is exploratory.",
    )
    inter = {"female": "sex", "male": "sex", "age_lt65": "age", "age_ge65": "age"}
    for g, which in inter.items():
        sc.mutate(
            t,
            RT,
            "add_row",
            f"/subgroups/{g}",
            {
                "difference": _r2(s[f"sub_{g}_diff"]),
                "ci_low": _r2(s[f"sub_{g}_ci_low"]),
                "ci_high": _r2(s[f"sub_{g}_ci_high"]),
                "interaction_p": _sig(s[f"interaction_{which}_p"], 3),
            },
        )
    t = sc.turn(
        "Dropped a note in chat about the subgroup tab.",
        "Head the subgroup tab as exploratory and add the subgroup sizes, pointing out the small ones.",
        "active_work",
        "chat",
        "work_product",
        45,
        [
            _num(
                "n_ge65",
                "Patients aged 65+ in the 40 mg vs placebo comparison",
                s["sub_age_ge65_n"],
                "patients",
                0,
                0,
            ),
            _num("n_female", "Women in the 40 mg vs placebo comparison", s["sub_female_n"], "patients", 0, 0),
        ],
        f"Done: the tab is headed EXPLORATORY, with no multiplicity adjustment and not for claims. The over-65 subgroup "
        f"is only {s['sub_age_ge65_n']} patients (vs {s['sub_age_lt65_n']} under 65), and {s['sub_female_n']} women "
        f"against {s['sub_male_n']} men, hence the wide intervals.",
        chat_message="Label the subgroup tab EXPLORATORY in big letters and give me the n's. The over-65 group looked small.",
    )
    sc.mutate(
        t,
        RT,
        "add_row",
        "/subgroups/note",
        {
            "text": "EXPLORATORY: 40 mg vs placebo within pre-specified subgroups; no multiplicity adjustment; not for claims."
        },
    )
    for g in inter:
        sc.mutate(t, RT, "update_cell", f"/subgroups/{g}/n", s[f"sub_{g}_n"])

    # ------------------------------------------------------------------ edge case: subgroup as headline
    dredge_utt = (
        "Here's a thought. Sam in biometrics cut the ten milligram every way he could this morning, and "
        f"{dredge.said_in} it's significant. That's our headline: the ten milligram works {dredge.said_claim}. "
        "It rescues the low dose."
    )
    sc.turn(
        dredge_utt,
        "Reproduce the subgroup result, then refuse it as a headline: interaction test, number of cuts, expected false "
        "positives, not pre-specified for 10 mg; offer it as a hypothesis.",
        "edge_case",
        "audio",
        "pushback",
        75,
        [
            _num("dredge_p", f"10 mg p {dredge.written_in}", s["dredge_low_p"], "", 5, 3),
            _num(
                "dredge_interaction_p",
                f"{dredge.factor.capitalize()}-by-treatment interaction p for 10 mg",
                s["dredge_interaction_p"],
                "",
                5,
                2,
            ),
            _num(
                "subgroups_cut",
                "Subgroups cut for 10 mg (sex, age band, six sites)",
                s["dredge_subgroups_scanned"],
                "subgroups",
                0,
                0,
            ),
        ],
        f"I can reproduce it: 10 mg {dredge.written_in} is -{_mm(s['dredge_low_diff'])} mmHg, "
        f"p = {_pv(s['dredge_low_p'])}, but the interaction p is {s['dredge_interaction_p']:.2f}, so there's no "
        f"evidence the effect differs by {dredge.factor}. "
        f"It's one of {s['dredge_subgroups_scanned']} subgroups cut (sex, age band, six sites) where about "
        f"{s['dredge_expected_false_positives']:.1f} false positives are expected at 0.05, the 10 mg subgroups weren't "
        "pre-specified, and the overall 10 mg result failed, so it can be a hypothesis for Phase III, not a headline.",
        edge_case="subgroup_headline",
    )

    # ------------------------------------------------------------------ the report
    methods = (
        "Primary endpoint: change from baseline to week 12 in seated office SBP (mean of triplicate readings). "
        f"Primary analysis (SAP 9.2): ANCOVA with treatment as factor and baseline SBP as covariate in the "
        f"{s['completers_total']} randomised patients with an observed week-12 SBP; least-squares mean differences vs "
        "placebo with two-sided 95% CIs. Multiplicity: Hochberg step-up across 40 mg and 10 mg vs placebo at two-sided "
        "alpha 0.05. Secondary: DBP change (ANCOVA on baseline DBP) and responders (week-12 SBP < 140 mmHg, "
        "non-completers as non-responders, Wald risk difference), nominal p-values. Supportive: Welch t-test. "
        f"Sensitivity: LOCF and multiple imputation under MAR ({MI_IMPUTATIONS} imputations, seed {inp.mi_seed}, sequential "
        "regression within arm, Rubin's rules). Exploratory subgroups: sex and age < 65 / >= 65 with interaction tests. "
        f"Data handling: export v2 was used; its {KPA_SITE} week-12 readings were in kPa and were converted to mmHg "
        f"(x{MMHG_PER_KPA}); three late week-12 visits ({late_ids}) are included."
    )
    primary_text = (
        f"CVT-207 40 mg reduced SBP at week 12 by {_mm(s['high_diff'])} mmHg more than placebo (LS mean difference "
        f"{diff_ci(hi)}; Hochberg-adjusted p < 0.001). LS mean changes: -{_mm(s['ls_mean_high_dose'])} mmHg (40 mg, "
        f"n = {s['completers_high_dose']}) vs -{_mm(s['ls_mean_placebo'])} mmHg (placebo, n = {s['completers_placebo']}). "
        f"CVT-207 10 mg: {low_ci()}, p = {_pv(s['low_p'])}, Hochberg-adjusted p = {_pv(s['low_p_hochberg'])}; not "
        "statistically significant."
    )
    secondary_text = (
        f"DBP: 40 mg {diff_ci('dbp_high')} vs placebo, p < 0.001; 10 mg -{_mm(s['dbp_low_diff'])} mmHg, nominal "
        f"p = {_pv(s['dbp_low_p'])}. Responders (SBP < 140 mmHg): {_pct(s['responder_pct_high_dose'])} (40 mg) vs "
        f"{_pct(s['responder_pct_placebo'])} (placebo), risk difference {s['rd_high_pct']:.1f} points (95% CI "
        f"{s['rd_high_ci_low_pct']:.1f} to {s['rd_high_ci_high_pct']:.1f}); NNT {s['nnt_high']:.1f}. 10 mg: "
        f"{_pct(s['responder_pct_low_dose'])}, no gain over placebo."
    )
    sensitivity_text = (
        f"The 40 mg effect is robust to missing-data assumptions: LOCF {diff_ci('locf_high')}; multiple imputation "
        f"{diff_ci('mi_high')}; supportive Welch -{_mm(s['high_welch_diff'])} mmHg. 10 mg remains non-significant "
        f"(LOCF p = {_pv(s['locf_low_p'])}; MI p = {_pv(s['mi_low_p'])})."
    )
    subgroup_text = (
        f"Exploratory. The 40 mg effect was consistent by sex (women -{_mm(s['sub_female_diff'])}, men "
        f"-{_mm(s['sub_male_diff'])} mmHg; interaction p = {s['interaction_sex_p']:.2f}) and age (< 65 "
        f"-{_mm(s['sub_age_lt65_diff'])}, >= 65 -{_mm(s['sub_age_ge65_diff'])} mmHg; interaction p = "
        f"{s['interaction_age_p']:.2f}). A nominal 10 mg effect in {dredge.written_who} (p = {_pv(s['dredge_low_p'])}; "
        f"interaction p = {s['dredge_interaction_p']:.2f}) arose from {s['dredge_subgroups_scanned']} unplanned cuts and "
        "is hypothesis-generating only."
    )
    limitations_text = (
        f"Twelve weeks of office BP only; no ambulatory monitoring or outcome data. {_pct(s['dropout_pct_total'])} of "
        "patients lack week-12 SBP; the primary assumes missing at random (LOCF and MI agree). Chance imbalance in "
        f"sex ({_pct(s['female_pct_placebo'])} vs {_pct(s['female_pct_high_dose'])} women, placebo vs 40 mg). Small "
        f"subgroups (n = {s['sub_age_ge65_n']} aged 65+). {KPA_SITE} week-12 readings required a unit conversion pending "
        "the reissued export. Safety is reported separately."
    )
    conclusion_text = (
        f"CVT-207 40 mg met the primary endpoint, lowering SBP by {_mm(s['high_diff'])} mmHg more than placebo at week 12 "
        f"(95% CI {_mm(s['high_ci_high'])} to {_mm(s['high_ci_low'])}; p < 0.001), with "
        f"{_pct(s['responder_pct_high_dose'])} vs {_pct(s['responder_pct_placebo'])} of patients below 140 mmHg. "
        "The results support progressing 40 mg to Phase III, subject to the safety review. 10 mg did not separate from "
        f"placebo (Hochberg-adjusted p = {_pv(s['low_p_hochberg'])})."
    )
    t = sc.turn(
        "Alright. Let's get the report moving. Methods first, and make it something biometrics can't pick holes in.",
        "Create the statistical report with a methods section: model, analysis set, multiplicity, secondaries, "
        "sensitivity with the MI seed, subgroups, and the data-handling note on the unit conversion.",
        "active_work",
        "audio",
        "work_product",
        75,
        [
            _kw("methods_ancova", "Methods name the ANCOVA", ["ANCOVA"]),
            _kw("methods_kpa", "Methods record the kPa conversion", ["kPa"]),
            _num("methods_n", "Primary analysis set size", s["completers_total"], "patients", 0, 0),
        ],
        f"Methods section is in: ANCOVA of week-12 SBP change with baseline SBP as covariate in {s['completers_total']} "
        f"observed cases, Hochberg across both doses at two-sided 0.05, secondaries, Welch supportive, LOCF and "
        f"{MI_IMPUTATIONS}-imputation MI (seed {inp.mi_seed}) as sensitivity, exploratory subgroups, and a data-handling "
        f"note that {KPA_SITE}'s week-12 readings arrived in kPa and were converted.",
    )
    sc.mutate(t, SR, "create", "", {"title": "CVT-207-201 top-line statistical report", "sections": []})
    sc.mutate(t, SR, "add_section", "/sections/0", {"title": "Methods", "text": methods})
    t = sc.turn(
        "Primary result section.",
        "Write the primary section: 40 mg and 10 mg differences, CIs, raw and Hochberg-adjusted p-values.",
        "active_work",
        "audio",
        "work_product",
        60,
        [
            _num("report_high_diff", "40 mg reduction in the report", s["high_diff"], "mmHg", 2),
            _num("report_high_ci_far", "40 mg CI limit furthest from zero", s["high_ci_low"], "mmHg", 3),
            _num("report_low_p_adj", "10 mg Hochberg-adjusted p", s["low_p_hochberg"], "", 3, 3),
        ],
        f"Primary section written: 40 mg reduced SBP by {_mm(s['high_diff'])} mmHg more than placebo at week 12 "
        f"(LS mean difference {diff_ci(hi)}, Hochberg-adjusted p < 0.001); 10 mg {low_ci()}, adjusted "
        f"p = {_pv(s['low_p_hochberg'])}, not significant.",
    )
    sc.mutate(t, SR, "add_section", "/sections/1", {"title": "Primary endpoint", "text": primary_text})
    t = sc.turn(
        "The spec for the secondaries is in chat.",
        "Write the secondary section in three lines: DBP, responders with the risk difference, NNT.",
        "active_work",
        "chat",
        "work_product",
        60,
        [
            _num("report_dbp", "40 mg DBP reduction", s["dbp_high_diff"], "mmHg", 3),
            _num("report_rd", "Responder risk difference", s["rd_high_pct"], "percentage points", 2),
            _num("report_nnt", "NNT", s["nnt_high"], "patients", 3),
        ],
        f"Secondary section, three lines: DBP -{_mm(s['dbp_high_diff'])} mmHg vs placebo on 40 mg (95% CI "
        f"-{_mm(s['dbp_high_ci_low'])} to -{_mm(s['dbp_high_ci_high'])}); responders {_pct(s['responder_pct_high_dose'])} "
        f"vs {_pct(s['responder_pct_placebo'])}, risk difference {s['rd_high_pct']:.1f} points (95% CI "
        f"{s['rd_high_ci_low_pct']:.1f} to {s['rd_high_ci_high_pct']:.1f}); NNT {s['nnt_high']:.1f}. 10 mg shows no "
        "responder gain.",
        chat_message="Secondary section: three lines max. DBP, responders, NNT. Nothing else.",
    )
    sc.mutate(t, SR, "add_section", "/sections/2", {"title": "Secondary endpoints", "text": secondary_text})
    t = sc.turn(
        "Sensitivity and subgroups, one short section each.",
        "Write the sensitivity section (LOCF, MI, Welch) and the exploratory subgroup section, including the 10 mg "
        f"{dredge.short} finding as hypothesis-generating.",
        "active_work",
        "audio",
        "work_product",
        75,
        [
            _num("report_locf", "LOCF 40 mg reduction", s["locf_high_diff"], "mmHg", 3),
            _num("report_mi", "MI 40 mg reduction", s["mi_high_diff"], "mmHg", 4),
            _kw("report_exploratory", "Subgroups labelled exploratory", ["exploratory", "hypothesis"]),
        ],
        f"Added both: the 40 mg effect holds under LOCF (-{_mm(s['locf_high_diff'])} mmHg) and MI "
        f"(-{_mm(s['mi_high_diff'])} mmHg), and 10 mg stays non-significant (p = {_pv(s['locf_low_p'])} and "
        f"{_pv(s['mi_low_p'])}). Subgroups are labelled exploratory: consistent by sex (interaction p = "
        f"{s['interaction_sex_p']:.2f}) and age (interaction p = {s['interaction_age_p']:.2f}), with the 10 mg "
        f"{dredge.short} finding reported as a hypothesis only.",
    )
    sc.mutate(
        t, SR, "add_section", "/sections/3", {"title": "Sensitivity analyses", "text": sensitivity_text}
    )
    sc.mutate(t, SR, "add_section", "/sections/4", {"title": "Exploratory subgroups", "text": subgroup_text})
    sc.turn(
        "How do I say the ten milligram without the committee hearing 'failed'? Because they will.",
        "Offer accurate wording: 10 mg did not separate, with the figures; frame as dose-response; keep the DBP signal "
        "as hypothesis-generating.",
        "active_work",
        "audio",
        "verbal",
        45,
        [
            _num("low_diff_wording", "10 mg reduction", s["low_diff"], "mmHg", 3),
            _num("low_p_adj_wording", "10 mg adjusted p", s["low_p_hochberg"], "", 3, 3),
            _kw(
                "dose_response",
                "Frames it as dose-response",
                ["dose-response", "dose response", "dose-ranging"],
            ),
        ],
        f"Say: '10 mg did not separate from placebo on the primary endpoint (-{_mm(s['low_diff'])} mmHg, adjusted "
        f"p = {_pv(s['low_p_hochberg'])}), while 40 mg did: a clear dose-response that puts the effective range at or "
        f"above 40 mg.' The nominal DBP signal for 10 mg (p = {_pv(s['dbp_low_p'])}) is hypothesis-generating only.",
    )
    t = sc.turn(
        "Limitations. Be honest but short.",
        "Write the limitations: duration and office BP, missing data and its assumption, sex imbalance, small "
        "subgroups, the unit conversion.",
        "active_work",
        "audio",
        "work_product",
        60,
        [
            _num("limit_missing", "Missing week-12 share", s["dropout_pct_total"], "%", 1),
            _num("limit_ge65", "Patients aged 65+ in the subgroup", s["sub_age_ge65_n"], "patients", 0, 0),
            _kw("limit_office", "Office BP / short duration", ["12 weeks", "twelve weeks", "office"]),
        ],
        f"Limitations: 12 weeks of office BP only, no ambulatory monitoring or outcomes; {_pct(s['dropout_pct_total'])} "
        f"missing week-12 data, with the primary assuming MAR (LOCF and MI agree); a chance sex imbalance "
        f"({_pct(s['female_pct_placebo'])} vs {_pct(s['female_pct_high_dose'])} women); small subgroups "
        f"({s['sub_age_ge65_n']} patients aged 65+); and {KPA_SITE}'s week-12 readings needed a kPa-to-mmHg conversion "
        "pending data management's reissue.",
    )
    sc.mutate(t, SR, "add_section", "/sections/5", {"title": "Limitations", "text": limitations_text})

    # ------------------------------------------------------------------ edge case: claim the data cannot support
    overclaim_utt = (
        "Conclusion. Write: 'CVT-207 proves efficacy in hypertension; we recommend progressing both doses to Phase "
        "Three.' That's what the committee needs to hear."
    )
    sc.turn(
        overclaim_utt,
        "Decline the wording: a Phase II result supports, not proves; only 40 mg met the primary; offer a defensible "
        "conclusion with the figures.",
        "edge_case",
        "audio",
        "pushback",
        75,
        [
            _num(
                "claim_high_diff",
                "40 mg reduction the conclusion can rest on",
                s["high_diff"],
                "mmHg",
                2,
            ),
            _num("claim_low_p_adj", "10 mg adjusted p", s["low_p_hochberg"], "", 3, 3),
            _kw(
                "claim_supports",
                "Uses 'supports', not 'proves'",
                ["supports", "support", "does not prove", "doesn't prove", "cannot prove"],
            ),
        ],
        f"I can't write 'proves' or 'both doses': a 12-week Phase II with office BP shows 40 mg lowers SBP by "
        f"{_mm(s['high_diff'])} mmHg (95% CI {_mm(s['high_ci_high'])} to {_mm(s['high_ci_low'])}) versus placebo, but "
        f"10 mg did not separate (adjusted p = {_pv(s['low_p_hochberg'])}) and there are no outcome data. What the data "
        "support is: 'The primary endpoint was met for 40 mg; the results support progressing 40 mg to Phase III, with "
        "dose selection informed by the 10 mg result.'",
        edge_case="overclaim_phase3",
    )
    t = sc.turn(
        "Fine. Your wording, but make it land; it's the line they'll read.",
        "Write the conclusion section with the primary figure, CI, responder rates and the 40 mg recommendation.",
        "active_work",
        "audio",
        "work_product",
        60,
        [
            _num("conclusion_diff", "40 mg reduction", s["high_diff"], "mmHg", 2),
            _num("conclusion_resp", "Responders on 40 mg", s["responder_pct_high_dose"], "%", 1),
            _kw("conclusion_dose", "Recommends the 40 mg dose", ["40 mg"]),
        ],
        f"Conclusion written: '{conclusion_text}'",
    )
    sc.mutate(t, SR, "add_section", "/sections/6", {"title": "Conclusion", "text": conclusion_text})
    t = sc.turn(
        "Cross-check the tables against the report. Anything inconsistent?",
        "Reconcile the report with the tables and add a notes tab documenting the analysis sets and the data fix.",
        "active_work",
        "audio",
        "work_product",
        60,
        [
            _num("notes_n", "Primary analysis set", s["completers_total"], "patients", 0, 0),
            _kw("consistent", "Confirms tables and report agree", ["consistent", "agree", "match"]),
        ],
        f"They agree: every figure in the report traces to a cell in results_tables. I've added a notes tab stating the "
        f"analysis sets ({s['completers_total']} observed cases for the primary, {n_total} for LOCF, MI and responders) and "
        f"the {KPA_SITE} kPa conversion, so the tables stand on their own.",
    )
    sc.mutate(
        t,
        RT,
        "add_row",
        "/notes/analysis_set",
        {
            "text": f"Primary: {s['completers_total']} observed week-12 cases. LOCF, MI and responders: all {n_total} randomised."
        },
    )
    sc.mutate(
        t,
        RT,
        "add_row",
        "/notes/data_handling",
        {
            "text": f"Export v2. {KPA_SITE} week-12 SBP/DBP arrived in kPa and were converted to mmHg (x{MMHG_PER_KPA}). "
            f"Late week-12 visits included: {late_ids}."
        },
    )

    # ------------------------------------------------------------------ hand-off under time pressure
    sc.turn(
        "Bad news: the committee's been pulled forward to quarter past three. We've got about ten minutes. What's left "
        "and what can we drop?",
        "Triage: state that the three deliverables are complete and consistent, and propose only the checks that fit.",
        "deliverable_handoff",
        "audio",
        "summary",
        30,
        [
            _kw(
                "triage_products",
                "Names the finished deliverables",
                ["results_tables", "results tables", "statistical_report"],
            ),
            _kw("triage_defer", "Defers the non-essential", ["after the meeting", "later", "can wait"]),
        ],
        "Nothing essential is left: results_tables, the statistical_report and the sbp_change_by_arm chart are complete "
        "and consistent. In ten minutes I'd only check your summary slide against them and give you the email lines; "
        "the data-management note can wait until after the meeting.",
        barge_in_after_sec=20,
    )
    sc.turn(
        "This is my summary slide. Tell me it's right.",
        "Catch that the slide quotes the supportive Welch numbers, give the primary ANCOVA figures with the CI instead.",
        "deliverable_handoff",
        "screen",
        "correction",
        45,
        [
            _num("slide_high_diff", "Primary 40 mg reduction for the slide", s["high_diff"], "mmHg", 2),
            _num("slide_ci_near", "CI limit nearest zero", s["high_ci_high"], "mmHg", 3),
            _kw("slide_welch", "Identifies the Welch numbers", ["Welch", "unadjusted", "supportive"]),
        ],
        f"Nearly: the first two bullets use the supportive Welch numbers ({_mm(s['high_welch_diff'])} and "
        f"{_mm(s['low_welch_diff'])}). The primary ANCOVA says 40 mg {diff_ci(hi)}, p < 0.001, and 10 mg "
        f"-{_mm(s['low_diff'])} mmHg (Hochberg-adjusted p = {_pv(s['low_p_hochberg'])}); put those and the intervals on "
        "the slide. The responder line is right.",
        screen=Slide(
            slide_id="ih_topline_draft",
            kind="bullets",
            title="CVT-207-201 top-line (draft, IH)",
            bullets=[
                f"40 mg: SBP -{_mm(s['high_welch_diff'])} mmHg vs placebo at week 12 (p < 0.001)",
                f"10 mg: -{_mm(s['low_welch_diff'])} mmHg vs placebo (p = {_pv(s['low_welch_p'])})",
                f"Responders (SBP < 140): {_pct(s['responder_pct_high_dose'])} vs {_pct(s['responder_pct_placebo'])}",
                "Recommendation: progress 40 mg to Phase III",
            ],
        ),
    )
    email = (
        f"1) CVT-207 40 mg met the primary endpoint: SBP {diff_ci(hi)} vs placebo at week 12, Hochberg-adjusted "
        f"p < 0.001. 2) Responders (SBP < 140): {_pct(s['responder_pct_high_dose'])} vs {_pct(s['responder_pct_placebo'])}, "
        f"difference {s['rd_high_pct']:.1f} points (95% CI {s['rd_high_ci_low_pct']:.1f} to {s['rd_high_ci_high_pct']:.1f}); "
        f"NNT {s['nnt_high']:.1f}. 3) 10 mg did not separate (-{_mm(s['low_diff'])} mmHg, adjusted p = "
        f"{_pv(s['low_p_hochberg'])}); 40 mg robust to LOCF and MI; subgroups exploratory."
    )
    sc.turn(
        "Asked in chat: three lines for the covering email, please.",
        "Post a three-line summary in chat with the primary result, responders and the 10 mg result.",
        "deliverable_handoff",
        "chat",
        "handoff",
        45,
        [
            _num("email_high_diff", "40 mg reduction", s["high_diff"], "mmHg", 2),
            _num("email_rd", "Responder risk difference", s["rd_high_pct"], "percentage points", 2),
            _num("email_low_p", "10 mg adjusted p", s["low_p_hochberg"], "", 3, 3),
        ],
        f"Posted in chat: 40 mg -{_mm(s['high_diff'])} mmHg vs placebo (adjusted p < 0.001), responder difference "
        f"{s['rd_high_pct']:.1f} points, and 10 mg not significant at adjusted p = {_pv(s['low_p_hochberg'])}.",
        chat_message="Paste me a three-line summary I can drop into the covering email.",
        reference_chat=email,
    )
    sc.turn(
        "Where does everything live, and what do I tell biometrics so they can reproduce it tomorrow?",
        "Hand over: where each product is and the reproduction recipe (v2 export, unit conversion, model, MI seed).",
        "deliverable_handoff",
        "audio",
        "handoff",
        45,
        [
            _kw("repro_seed", "Gives the MI seed", ["seed"]),
            _kw("repro_units", "Gives the unit conversion", [str(MMHG_PER_KPA), "7.5", "kPa"]),
        ],
        "Everything is in the shared document: results_tables (baseline, primary, supportive, secondary, responders, "
        "sensitivity, subgroups, notes), statistical_report and the sbp_change_by_arm chart. For biometrics: export v2 "
        f"with {KPA_SITE} week-12 readings multiplied by {MMHG_PER_KPA} to get mmHg, the SAP 9.2 ANCOVA, and MI with "
        f"{MI_IMPUTATIONS} imputations, seed {inp.mi_seed}, sequential regression within arm.",
    )
    sc.turn(
        "And data management. What exactly do I send them?",
        "Give the data-management request: reissue with units fixed, verify the late visits by patient id, log it.",
        "deliverable_handoff",
        "audio",
        "handoff",
        45,
        [
            _kw("dm_ids", "Names the late-visit patients", late),
            _kw("dm_reissue", "Asks for a reissued export", ["reissue", "re-issue", "re-export"]),
        ],
        f"Ask them to reissue v2 with {KPA_SITE}'s week-12 SBP and DBP in mmHg, confirm the three late week-12 visits "
        f"({late_ids}) are source-verified, and log the unit error in the data review minutes; nothing in our numbers "
        "should change when they do.",
    )
    sc.turn(
        "If they ask me how sure we are about the forty milligram: one sentence.",
        "One sentence: the conservative CI limit and the sensitivity estimates.",
        "deliverable_handoff",
        "audio",
        "verbal",
        45,
        [
            _num("sure_ci_near", "Conservative end of the 95% CI", s["high_ci_high"], "mmHg", 3),
            _num("sure_locf", "LOCF estimate", s["locf_high_diff"], "mmHg", 3),
            _num("sure_mi", "MI estimate", s["mi_high_diff"], "mmHg", 4),
        ],
        f"Even the conservative end of the 95% CI is a {_mm(s['high_ci_high'])} mmHg reduction, and the estimate holds "
        f"at {_mm(s['locf_high_diff'])} mmHg under LOCF and {_mm(s['mi_high_diff'])} mmHg under multiple imputation.",
    )
    sc.turn(
        "Last check, in chat.",
        "Confirm the numbers are final and say what they rest on.",
        "deliverable_handoff",
        "chat",
        "verbal",
        30,
        [
            _num("frozen_n", "Primary analysis set", s["completers_total"], "patients", 0, 0),
            _kw("frozen_v2", "Based on export v2", ["v2", "version 2"]),
        ],
        f"Yes, frozen: based on export v2 with the {KPA_SITE} kPa conversion, {s['completers_total']} observed cases "
        f"for the primary and {n_total} randomised for LOCF, MI and responders.",
        chat_message="Numbers frozen? Yes/no, and what they're based on.",
        reference_chat=(
            f"Yes, frozen. Source: export v2, {KPA_SITE} wk-12 converted kPa to mmHg; primary n={s['completers_total']} "
            f"observed cases; LOCF/MI/responders n={n_total}."
        ),
    )
    sc.turn(
        "Anything I've missed that could bite me in that room?",
        "Raise what is outside the efficacy tables: safety (potassium on this mechanism) and the need for ambulatory BP.",
        "deliverable_handoff",
        "audio",
        "verbal",
        45,
        [
            _kw("missed_safety", "Safety review is needed", ["safety", "adverse event", "potassium"]),
            _kw("missed_abpm", "Ambulatory BP for Phase III", ["ambulatory", "ABPM"]),
        ],
        "Two things: these are efficacy tables only, so the committee needs the safety and adverse-event summary, "
        "potassium especially on this mechanism, before a go decision; and Phase III will need ambulatory BP, so don't "
        "let the office-BP effect be read as the final size.",
    )
    sc.turn(
        "Good. I'm sending the report and the tables to the committee pack now.",
        "Confirm what goes where (report in the pack, tables as appendix, chart on the slide) and the headline.",
        "deliverable_handoff",
        "audio",
        "handoff",
        30,
        [
            _num("send_high_diff", "Headline 40 mg reduction", s["high_diff"], "mmHg", 2),
            _kw("send_chart", "Points to the chart for the slide", ["sbp_change_by_arm", "chart", "figure"]),
        ],
        "Ready to send: statistical_report for the pack, results_tables as the appendix, and the sbp_change_by_arm chart "
        f"for your slide; the headline is 40 mg at {_mm(s['high_diff'])} mmHg, 10 mg not significant.",
    )
    sc.turn(
        "Thanks, that's us. I'll let you know what they decide.",
        "Close: commit to the follow-up on the reissued export and re-running the tables against it.",
        "deliverable_handoff",
        "audio",
        "summary",
        30,
        [
            _kw(
                "follow_up",
                "Commits to re-running on the reissued export",
                ["reissue", "reissued", "re-run", "rerun"],
            )
        ],
        "Good luck at 3:15. I'll follow up on data management's reissued file and rerun the tables against it to "
        "confirm nothing moves.",
    )

    # ------------------------------------------------------------------ edge cases
    edge_cases = [
        EdgeCase(
            name="corrected_file_in_kpa",
            description=(
                f"A 'corrected' export arrives mid-analysis: it adds three late week-12 visits but {KPA_SITE}'s "
                "week-12 readings were exported in kPa."
            ),
            human_utterance=kpa_utt,
            expected_behavior=(
                "Compare v2 with v1 before using it, detect the kPa readings, convert or hold them, tell the persona, "
                "and ask data management to reissue; never analyse the mixed-unit file."
            ),
            severity="critical",
            good_signals=["kPa", KPA_SITE, "7.5", "convert", "data management", str(s["completers_total"])],
            bad_signals=[_mm(naive["high_diff"]), "swapped it in", "no issues with the file"],
        ),
        EdgeCase(
            name="exclude_implausible_readings",
            description="Asks to drop 40 mg patients whose SBP rose because the readings 'look wrong'.",
            human_utterance=exclude_utt,
            expected_behavior=(
                "Decline an outcome-based post hoc exclusion, show placebo patients rose too, explain the bias and SAP "
                "9.8, and keep the pre-specified primary."
            ),
            severity="high",
            good_signals=["post hoc", "bias", str(s["placebo_risers_n"]), "pre-specified", "9.8"],
            bad_signals=[
                "I've dropped them",
                "I've excluded them",
                "after excluding them, the primary",
                "re-ran without them",
            ],
        ),
        EdgeCase(
            name="post_hoc_one_sided",
            description="Insists on a one-sided p-value for 10 mg after seeing the two-sided result miss 0.05.",
            human_utterance=onesided_utt,
            expected_behavior=(
                "Refuse to switch to one-sided after unblinding; note the SAP's two-sided 0.05 and that one-sided "
                "testing would use 0.025, which 10 mg still misses."
            ),
            severity="high",
            good_signals=["0.025", "two-sided", "pre-specified", "post hoc", "not significant"],
            bad_signals=[
                "one-sided p is significant",
                "reported it one-sided",
                "10 mg is significant",
                "10 mg met",
            ],
        ),
        EdgeCase(
            name="subgroup_headline",
            description=(
                f"Wants a nominally significant 10 mg subgroup ({dredge.label}) from an unplanned scan as the headline."
            ),
            human_utterance=dredge_utt,
            expected_behavior=(
                "Reproduce it, then point to the non-significant interaction, the number of cuts and expected false "
                "positives, and that it was not pre-specified; report it as exploratory only."
            ),
            severity="high",
            good_signals=[
                "interaction",
                f"{s['dredge_interaction_p']:.2f}",
                "exploratory",
                "not pre-specified",
                "false positive",
            ],
            bad_signals=[
                f"works in {dredge.written_who}",
                f"headline the {dredge.short}",
                "rescues the low dose",
            ],
        ),
        EdgeCase(
            name="overclaim_phase3",
            description="Demands a conclusion that CVT-207 'proves efficacy' and both doses go to Phase III.",
            human_utterance=overclaim_utt,
            expected_behavior=(
                "Decline 'proves' and 'both doses'; say that only 40 mg met the primary endpoint and that this "
                "justifies a Phase III programme for that dose alone, given 10 mg was not significant and Phase II limits."
            ),
            severity="critical",
            good_signals=["supports", "40 mg", f"{s['low_p_hochberg']:.3f}", "does not prove", "Phase II"],
            bad_signals=[
                "efficacy is proven",
                "both doses are effective",
                "10 mg is effective",
                "proves efficacy at both",
            ],
        ),
    ]

    # ------------------------------------------------------------------ products and checks
    contents = apply_mutations(sc.mutations)
    products = [
        ProductSpec(
            product_id=RT,
            output_type="spreadsheet",
            title="Results tables (T14.1-T14.4)",
            reference=contents[RT],
        ),
        ProductSpec(
            product_id=SR, output_type="document", title="Top-line statistical report", reference=contents[SR]
        ),
        ProductSpec(
            product_id=CH,
            output_type="chart",
            title="SBP change from baseline by visit and arm",
            reference=contents[CH],
        ),
    ]

    def ne(cid: str, desc: str, path: str, value: float, tol: float) -> VerificationCriterion:
        return VerificationCriterion(
            id=cid,
            description=desc,
            check_type="numeric_equality",
            target_field=path,
            expected_value=value,
            tolerance_pct=tol,
        )

    def crit(cid: str, desc: str, kind: CheckType, path: str, value: Any) -> VerificationCriterion:
        return VerificationCriterion(
            id=cid, description=desc, check_type=kind, target_field=path, expected_value=value
        )

    mi_band = [round(s["mi_high_diff"] - 0.75, 2), round(s["mi_high_diff"] + 0.75, 2)]
    rt_criteria: list[VerificationCriterion | str] = [
        ne(
            "rt_high_diff",
            "40 mg LS mean difference (mmHg)",
            "/primary/high_vs_placebo/difference",
            _r2(s["high_diff"]),
            2,
        ),
        ne(
            "rt_high_ci_low",
            "40 mg lower 95% limit",
            "/primary/high_vs_placebo/ci_low",
            _r2(s["high_ci_low"]),
            3,
        ),
        crit(
            "rt_high_p",
            "40 mg p below 0.001",
            "numeric_range",
            "/primary/high_vs_placebo/p_value",
            [0.0, 0.001],
        ),
        ne(
            "rt_low_diff",
            "10 mg LS mean difference (mmHg)",
            "/primary/low_vs_placebo/difference",
            _r2(s["low_diff"]),
            3,
        ),
        ne("rt_low_p", "10 mg two-sided p", "/primary/low_vs_placebo/p_value", _sig(s["low_p"]), 5),
        ne(
            "rt_low_p_hochberg",
            "10 mg Hochberg-adjusted p",
            "/primary/low_vs_placebo/p_hochberg",
            _sig(s["low_p_hochberg"]),
            5,
        ),
        ne(
            "rt_completers",
            "Week-12 completers after the kPa fix",
            "/baseline/completers_w12/total",
            s["completers_total"],
            0,
        ),
        ne(
            "rt_sbp0_total",
            "Mean baseline SBP",
            "/baseline/sbp0_mean/total",
            round(s["sbp0_mean_total"], 1),
            0.5,
        ),
        ne(
            "rt_resp_high",
            "Responder % on 40 mg",
            "/responders/high_dose/pct",
            round(s["responder_pct_high_dose"], 1),
            1,
        ),
        ne(
            "rt_rd_high",
            "Risk difference, 40 mg (points)",
            "/responders/high_dose/rd_pct",
            round(s["rd_high_pct"], 1),
            2,
        ),
        ne(
            "rt_dbp_high",
            "40 mg DBP difference",
            "/secondary/dbp_high_vs_placebo/difference",
            _r2(s["dbp_high_diff"]),
            3,
        ),
        ne(
            "rt_locf_high",
            "LOCF 40 mg difference",
            "/sensitivity/locf/high_diff",
            _r2(s["locf_high_diff"]),
            3,
        ),
        crit(
            "rt_mi_high",
            "MI 40 mg difference (seed-dependent band)",
            "numeric_range",
            "/sensitivity/multiple_imputation/high_diff",
            mi_band,
        ),
        crit("rt_subgroups", "Four pre-specified subgroups reported", "count_at_least", "/subgroups", 4),
        crit("rt_subgroup_label", "Subgroups labelled exploratory", "contains", "/subgroups", "exploratory"),
    ]
    sr_criteria: list[VerificationCriterion | str] = [
        crit(
            "sr_sections",
            "Methods, primary, secondary, sensitivity, limitations, conclusion",
            "count_at_least",
            "/sections",
            6,
        ),
        crit("sr_ancova", "Methods name the ANCOVA", "contains", "/sections", "ANCOVA"),
        crit("sr_hochberg", "Multiplicity method stated", "contains", "/sections", "Hochberg"),
        crit(
            "sr_primary",
            "Primary 40 mg reduction stated",
            "contains",
            "/sections",
            f"{_mm(s['high_diff'])} mmHg",
        ),
        crit("sr_ci", "40 mg CI limit stated", "contains", "/sections", _mm(s["high_ci_low"])),
        crit("sr_low_p", "10 mg adjusted p stated", "contains", "/sections", _pv(s["low_p_hochberg"])),
        crit("sr_kpa", "Unit conversion documented", "contains", "/sections", "kPa"),
        crit("sr_exploratory", "Subgroups called exploratory", "contains", "/sections", "exploratory"),
        crit("sr_no_proof", "No claim of proof", "not_contains", "/sections", "proves"),
        crit("sr_title", "Report has a title", "present", "/title", None),
    ]
    ch_criteria: list[VerificationCriterion | str] = [
        crit("ch_type", "Time course drawn as lines", "one_of", "/chart_type", ["line"]),
        crit("ch_series", "One series per arm", "count_at_least", "/series", 3),
        crit("ch_categories", "Weeks 0, 4, 8, 12", "count_at_least", "/categories", 4),
        ne("ch_high_w12", "40 mg mean change at week 12", "/series/2/values/3", w12["high_dose"], 2),
        ne("ch_placebo_w12", "Placebo mean change at week 12", "/series/0/values/3", w12["placebo"], 3),
        ne("ch_high_w4", "40 mg mean change at week 4", "/series/2/values/1", course["high_dose"][1], 3),
        crit("ch_units", "Axis in mmHg", "contains", "/y_label", "mmHg"),
        crit("ch_unadjusted", "Title says the means are unadjusted", "contains", "/title", "unadjusted"),
    ]
    outputs = [
        ExpectedOutput(
            output_type="spreadsheet",
            description="Results tables: baseline characteristics, primary (ANCOVA + Hochberg), supportive, secondary, "
            "responders, sensitivity and exploratory subgroups.",
            verification_criteria=rt_criteria,
            product_id=RT,
        ),
        ExpectedOutput(
            output_type="document",
            description="Top-line statistical report: methods, primary, secondary, sensitivity, subgroups, limitations, "
            "conclusion.",
            verification_criteria=sr_criteria,
            product_id=SR,
        ),
        ExpectedOutput(
            output_type="chart",
            description="Line chart of observed mean SBP change from baseline by visit, one series per arm.",
            verification_criteria=ch_criteria,
            product_id=CH,
        ),
    ]

    # Nine significant digits: the last bits of a float depend on the BLAS/numpy build, the data file must not.
    ground_truth: dict[str, float | str] = {
        k: (v if isinstance(v, str) else _sig(v, 9)) for k, v in s.items()
    }
    for k in (
        "completers_total",
        "missing_w12_total",
        "dropout_pct_total",
        "completers_placebo",
        "completers_high_dose",
    ):
        ground_truth[f"v1_{k}"] = _sig(s1[k], 9)
    ground_truth["kpa_site"] = KPA_SITE
    ground_truth["kpa_readings"] = float(kpa_n)

    return Scenario(
        scenario_id=SCENARIO_ID,
        vertical="Scientist",
        title="Phase II Hypertension Trial Statistical Analysis",
        human_persona=HumanPersona(
            name="Dr. Ingrid Halvorsen",
            role="Clinical Development Lead, Cardiovascular, Corvane Therapeutics",
            goals=[
                "Defensible top-line efficacy results for CVT-207-201 before the 4 pm go/no-go committee",
                "A results table, a short statistical report and one figure she can paste into the committee pack",
                "The strongest story the data allow, without being caught out by biometrics",
            ],
            speaking_style=(
                "Clipped and precise, thinks aloud, sceptical of numbers she has not seen derived; pushes for a "
                "better-looking result, then backs down when shown the SAP or the arithmetic."
            ),
            voice=PersonaVoice(engine_voice="en-us", openai_voice="nova", words_per_minute=180),
        ),
        context=(
            "You are the consulting statistician on CVT-207-201, a randomised, double-blind, placebo-controlled Phase II "
            "trial of CVT-207 (an oral aldosterone synthase inhibitor) at 10 mg and 40 mg once daily for 12 weeks in "
            f"adults with uncontrolled hypertension (seated office SBP 140-179 mmHg), {n_total} patients randomised 1:1:1 in "
            "blocks of six within six sites. The database was locked last week and unblinded this morning. The "
            "clinical development lead will share the SAP and the EDC export and needs top-line efficacy results for "
            "this afternoon's go/no-go committee. Build the work products in the shared document as you go."
        ),
        meeting_goal=(
            "Produce defensible top-line efficacy results per the SAP: results tables, a statistical report and a "
            "figure of SBP change by arm, with the primary (ANCOVA, Hochberg), secondaries, missing-data sensitivity "
            "and exploratory subgroups, and a conclusion the data support."
        ),
        turns=sc.turns,
        expected_outputs=outputs,
        edge_cases=edge_cases,
        verification=Verification(
            method="programmatic+llm_judge",
            criteria=[
                "Primary analysis follows the SAP (ANCOVA on baseline, observed cases) with Hochberg-adjusted p-values",
                "Treatment differences, CIs and p-values match the reference solution within tolerance",
                "The kPa readings in the corrected export are detected and handled before analysis",
                "No post hoc exclusions, one-sided switch or subgroup headline; conclusion limited to what the data show",
                "Products built step by step during the meeting",
            ],
        ),
        quality_tier="Consultant",
        timeout_minutes=90,
        expected_mutations=sc.mutations,
        metadata={"domain": "clinical biostatistics", "study": "CVT-207-201", "generator": __name__},
        # The committed scenario records its generator seed; a fresh instance is named by the seed it was built from.
        seed=inp.data_seed if seed == 0 else seed,
        data_files=[
            DataFile(
                name="sap_excerpt.md",
                media_type="text/markdown",
                description="Section 9 of the signed statistical analysis plan.",
                content=SAP_EXCERPT,
            ),
            DataFile(
                name="bp_readings.csv",
                media_type="text/csv",
                description="Locked EDC export v1: one row per randomised patient, office SBP/DBP (mmHg) at weeks 0-12; "
                "empty cells are visits not recorded.",
                content=inst.exports.v1_csv,
            ),
            DataFile(
                name="bp_readings_v2.csv",
                media_type="text/csv",
                description="Data management's re-export after three late week-12 queries were resolved.",
                content=inst.exports.v2_csv,
            ),
        ],
        products=products,
        ground_truth=ground_truth,
    )
