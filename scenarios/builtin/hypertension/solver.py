"""Hypertension trial: the SAP's analyses and the ground truth, computed from unit-clean patient records.

``solve`` gives every derived value of the top-line analysis by name (ANCOVA, Hochberg, Welch, DBP, responders,
LOCF and multiple-imputation sensitivity, subgroups, the dredged 10 mg scan, the post hoc exclusion);
``solve_instance`` solves one trial's exports and ``MeetingFigures`` derives what the meeting quotes from them.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from modylbench.scenarios.builtin.hypertension.data import (
    AGE_CUT,
    ARMS,
    CUFF_SITE,
    KPA_SITE,
    MI_IMPUTATIONS,
    MI_SEED,
    RESPONDER_SBP,
    SITE_IDS,
    VISITS,
    Exports,
    Patient,
    TrialInputs,
    parse_csv,
)

logger = logging.getLogger(__name__)

ALPHA = 0.05
# Hochberg with two hypotheses tests the smaller p at alpha / 2: also the matching one-sided level.
STEP_ALPHA = ALPHA / 2
# (active arm, the key prefix its results get)
ACTIVES: tuple[tuple[str, str], ...] = (("high_dose", "high"), ("low_dose", "low"))


# --------------------------------------------------------------------------- models


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


def _ols(design: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Least-squares coefficients, their covariance and the residual degrees of freedom."""
    beta, _, rank, _ = np.linalg.lstsq(design, y, rcond=None)
    df = len(y) - int(rank)
    resid = y - design @ beta
    s2 = float(resid @ resid) / df
    cov = s2 * np.linalg.inv(design.T @ design)
    return beta, cov, df


def _t_comparison(est: float, se: float, df: float, n_active: int, n_placebo: int) -> Comparison:
    quantile = float(stats.t.ppf(0.975, df))
    p = float(2 * stats.t.sf(abs(est / se), df))
    return Comparison(est, se, est - quantile * se, est + quantile * se, p, df, n_active, n_placebo)


def ancova(
    arm: list[str], baseline: list[float], change: list[float]
) -> tuple[dict[str, Comparison], dict[str, float]]:
    """change = arm + baseline (centred); returns comparisons vs placebo and LS means at the mean baseline."""
    base = np.asarray(baseline, dtype=float)
    y = np.asarray(change, dtype=float)
    present = [a for a in ARMS if a in arm]
    actives = [a for a in present if a != "placebo"]
    design = np.column_stack(
        [np.ones(len(y))]
        + [np.array([a == act for a in arm], dtype=float) for act in actives]
        + [base - base.mean()]
    )
    beta, cov, df = _ols(design, y)
    n_placebo = arm.count("placebo")
    comps = {
        act: _t_comparison(float(beta[1 + i]), math.sqrt(cov[1 + i, 1 + i]), df, arm.count(act), n_placebo)
        for i, act in enumerate(actives)
    }
    ls_means = {"placebo": float(beta[0])}
    ls_means.update({act: float(beta[0] + beta[1 + i]) for i, act in enumerate(actives)})
    return comps, ls_means


def interaction_p(
    arm: list[str], baseline: list[float], change: list[float], member: list[bool], active: str
) -> float:
    """Two-sided p of the treatment-by-subgroup term, active vs placebo patients only."""
    keep = [i for i, a in enumerate(arm) if a in ("placebo", active)]
    treated = np.array([arm[i] == active for i in keep], dtype=float)
    group = np.array([member[i] for i in keep], dtype=float)
    base = np.array([baseline[i] for i in keep])
    design = np.column_stack([np.ones(len(keep)), treated, base - base.mean(), group, treated * group])
    beta, cov, df = _ols(design, np.array([change[i] for i in keep]))
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


def _baseline(patient: Patient, bp: str) -> float:
    """Week-0 reading; every randomised patient has one."""
    reading = getattr(patient, bp)[0]
    if reading is None:
        raise ValueError(f"{patient.patient_id} has no baseline {bp}")
    return float(reading)


def observed(patients: list[Patient], bp: str, visit: int) -> list[Patient]:
    """The patients with a ``bp`` reading at ``visit``."""
    return [p for p in patients if getattr(p, bp)[visit] is not None]


def _change(patient: Patient, bp: str, visit: int) -> float:
    readings = getattr(patient, bp)
    return float(readings[visit] - readings[0])


def _locf(patient: Patient, bp: str) -> float:
    readings = getattr(patient, bp)
    last = next(readings[v] for v in reversed(VISITS) if readings[v] is not None)
    return float(last - readings[0])


def week12_ancova(patients: list[Patient], bp: str) -> dict[str, Comparison]:
    """The SAP's ANCOVA of the week-12 ``bp`` change on its baseline, observed cases."""
    cases = observed(patients, bp, 12)
    comps, _ = ancova(
        [p.arm for p in cases], [_baseline(p, bp) for p in cases], [_change(p, bp, 12) for p in cases]
    )
    return comps


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
        for arm in ARMS:
            grp = [p for p in patients if p.arm == arm]
            mat = np.array(
                [[np.nan if p.sbp[v] is None else p.sbp[v] for v in VISITS] for p in grp], dtype=float
            )
            for j in range(1, len(VISITS)):
                obs = ~np.isnan(mat[:, j])
                miss = ~obs
                design = np.column_stack([np.ones(len(grp)), mat[:, :j]])
                beta, _, _, _ = np.linalg.lstsq(design[obs], mat[obs, j], rcond=None)
                df = int(obs.sum()) - design.shape[1]
                resid = mat[obs, j] - design[obs] @ beta
                # Proper imputation: draw sigma and beta from their posterior before drawing values.
                sigma2 = float(resid @ resid) / float(rng.chisquare(df))
                xtx_inv = np.linalg.inv(design[obs].T @ design[obs])
                beta_draw = rng.multivariate_normal(beta, sigma2 * xtx_inv)
                if miss.any():
                    mat[miss, j] = design[miss] @ beta_draw + rng.normal(
                        0.0, math.sqrt(sigma2), int(miss.sum())
                    )
            arm_all += [arm] * len(grp)
            base_all += list(mat[:, 0])
            chg_all += list(mat[:, -1] - mat[:, 0])
        comps, _ = ancova(arm_all, base_all, chg_all)
        for act in results:
            results[act].append((comps[act].diff, comps[act].se ** 2))
    out = {}
    for act, draws in results.items():
        estimates = np.array([d[0] for d in draws])
        variances = np.array([d[1] for d in draws])
        qbar, within, between = float(estimates.mean()), float(variances.mean()), float(estimates.var(ddof=1))
        total = within + (1 + 1 / m) * between
        ratio = (1 + 1 / m) * between / within
        df = (m - 1) * (1 + 1 / ratio) ** 2
        n_act = sum(p.arm == act for p in patients)
        n_placebo = sum(p.arm == "placebo" for p in patients)
        out[act] = _t_comparison(qbar, math.sqrt(total), df, n_act, n_placebo)
    return out


def _risk_difference(x1: int, n1: int, x0: int, n0: int) -> tuple[float, float, float]:
    """Wald risk difference (active minus placebo) with its 95% CI, as proportions."""
    p1, p0 = x1 / n1, x0 / n0
    se = math.sqrt(p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0)
    z = float(stats.norm.ppf(0.975))
    return p1 - p0, p1 - p0 - z * se, p1 - p0 + z * se


# --------------------------------------------------------------------------- the top-line analysis

Results = dict[str, Any]


def _put(out: Results, prefix: str, comp: Comparison) -> None:
    out[f"{prefix}_diff"] = comp.diff
    out[f"{prefix}_ci_low"] = comp.ci_low
    out[f"{prefix}_ci_high"] = comp.ci_high
    out[f"{prefix}_p"] = comp.p
    out[f"{prefix}_se"] = comp.se


@dataclass(frozen=True)
class _CompleteCases:
    """The primary analysis set, as parallel lists: arm, baseline SBP and week-12 change per patient."""

    patients: list[Patient]
    arm: list[str]
    base: list[float]
    chg: list[float]

    @classmethod
    def of(cls, patients: list[Patient]) -> _CompleteCases:
        cases = observed(patients, "sbp", 12)
        return cls(
            cases,
            [p.arm for p in cases],
            [_baseline(p, "sbp") for p in cases],
            [_change(p, "sbp", 12) for p in cases],
        )

    def ancova_within(self, member: list[bool]) -> dict[str, Comparison]:
        idx = [i for i, m in enumerate(member) if m]
        comps, _ = ancova([self.arm[i] for i in idx], [self.base[i] for i in idx], [self.chg[i] for i in idx])
        return comps

    def interaction_p(self, member: list[bool], active: str) -> float:
        return interaction_p(self.arm, self.base, self.chg, member, active)


def _baseline_characteristics(patients: list[Patient], out: Results) -> None:
    """Baseline characteristics and week-12 completion by arm and overall, then by site."""
    out["n_randomized"] = len(patients)
    for arm in (*ARMS, "total"):
        grp = [p for p in patients if arm == "total" or p.arm == arm]
        out[f"n_{arm}"] = len(grp)
        ages = np.array([p.age for p in grp], dtype=float)
        out[f"age_mean_{arm}"] = float(ages.mean())
        out[f"age_sd_{arm}"] = float(ages.std(ddof=1))
        out[f"female_pct_{arm}"] = 100.0 * sum(p.sex == "F" for p in grp) / len(grp)
        out[f"age_ge65_pct_{arm}"] = 100.0 * sum(p.age >= AGE_CUT for p in grp) / len(grp)
        for bp in ("sbp", "dbp"):
            readings = np.array([getattr(p, bp)[0] for p in grp], dtype=float)
            out[f"{bp}0_mean_{arm}"] = float(readings.mean())
            out[f"{bp}0_sd_{arm}"] = float(readings.std(ddof=1))
        done = len(observed(grp, "sbp", 12))
        out[f"completers_{arm}"] = done
        out[f"dropout_pct_{arm}"] = 100.0 * (len(grp) - done) / len(grp)
    out["missing_w12_total"] = out["n_total"] - out["completers_total"]
    for site in SITE_IDS:
        grp = [p for p in patients if p.site == site]
        out[f"site_n_{site}"] = len(grp)
        out[f"site_sbp0_mean_{site}"] = float(np.mean([p.sbp[0] for p in grp]))
        out[f"site_completion_pct_{site}"] = 100.0 * len(observed(grp, "sbp", 12)) / len(grp)


def _observed_course(patients: list[Patient], out: Results) -> None:
    """Observed mean SBP and its change by visit and arm (the chart)."""
    for arm in ARMS:
        for visit in VISITS[1:]:
            grp = observed([p for p in patients if p.arm == arm], "sbp", visit)
            out[f"obs_change_{arm}_w{visit}"] = float(np.mean([_change(p, "sbp", visit) for p in grp]))
            out[f"obs_sbp_{arm}_w{visit}"] = float(np.mean([p.sbp[visit] for p in grp]))
        out[f"obs_sbp_{arm}_w0"] = out[f"sbp0_mean_{arm}"]


def _primary(cases: _CompleteCases, out: Results) -> None:
    """ANCOVA on observed week-12 cases (the SAP's primary analysis set), Hochberg, and the supportive Welch."""
    comps, ls_means = ancova(cases.arm, cases.base, cases.chg)
    for arm in ARMS:
        out[f"ls_mean_{arm}"] = ls_means[arm]
    high, low = comps["high_dose"], comps["low_dose"]
    _put(out, "high", high)
    _put(out, "low", low)
    out["ancova_df"] = high.df
    out["low_p_one_sided"] = float(stats.t.sf(abs(low.diff / low.se), low.df))
    out["high_p_hochberg"], out["low_p_hochberg"] = hochberg([high.p, low.p])
    out["high_p_bonferroni"] = min(1.0, 2 * high.p)
    out["low_p_bonferroni"] = min(1.0, 2 * low.p)
    # Supportive: unadjusted Welch t-test on the change.
    for act, key in ACTIVES:
        active = np.array([c for c, a in zip(cases.chg, cases.arm, strict=True) if a == act])
        placebo = np.array([c for c, a in zip(cases.chg, cases.arm, strict=True) if a == "placebo"])
        res = stats.ttest_ind(active, placebo, equal_var=False)
        ci = res.confidence_interval(0.95)
        out[f"{key}_welch_diff"] = float(active.mean() - placebo.mean())
        out[f"{key}_welch_ci_low"] = float(ci.low)
        out[f"{key}_welch_ci_high"] = float(ci.high)
        out[f"{key}_welch_p"] = float(res.pvalue)
        out[f"{key}_welch_se"] = float(
            math.sqrt(active.var(ddof=1) / len(active) + placebo.var(ddof=1) / len(placebo))
        )
    out["obs_diff_high_w12"] = out["obs_change_high_dose_w12"] - out["obs_change_placebo_w12"]


def _secondaries(patients: list[Patient], out: Results) -> None:
    """DBP change (ANCOVA on baseline DBP) and responders (SBP < 140 at week 12, dropouts non-responders)."""
    dbp = week12_ancova(patients, "dbp")
    _put(out, "dbp_high", dbp["high_dose"])
    _put(out, "dbp_low", dbp["low_dose"])
    for arm in ARMS:
        grp = [p for p in patients if p.arm == arm]
        responders = sum((w12 := p.sbp[12]) is not None and w12 < RESPONDER_SBP for p in grp)
        out[f"responders_{arm}"] = responders
        out[f"responder_pct_{arm}"] = 100.0 * responders / len(grp)
    for act, key in ACTIVES:
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


def _sensitivity(patients: list[Patient], mi_seed: int | None, out: Results) -> None:
    """LOCF on everyone randomised (baseline carried forward = no change) and multiple imputation under MAR."""
    locf, _ = ancova(
        [p.arm for p in patients],
        [_baseline(p, "sbp") for p in patients],
        [_locf(p, "sbp") for p in patients],
    )
    _put(out, "locf_high", locf["high_dose"])
    _put(out, "locf_low", locf["low_dose"])
    if mi_seed is not None:
        mi = multiple_imputation(patients, seed=mi_seed)
        _put(out, "mi_high", mi["high_dose"])
        _put(out, "mi_low", mi["low_dose"])


def _subgroups(cases: _CompleteCases, out: Results) -> dict[str, list[bool]]:
    """Exploratory subgroups, high dose vs placebo, with interaction tests; returns the subgroups' members."""
    subgroups = {
        "female": [p.sex == "F" for p in cases.patients],
        "male": [p.sex == "M" for p in cases.patients],
        "age_lt65": [p.age < AGE_CUT for p in cases.patients],
        "age_ge65": [p.age >= AGE_CUT for p in cases.patients],
    }
    for name, member in subgroups.items():
        comp = cases.ancova_within(member)["high_dose"]
        out[f"sub_{name}_n"] = comp.n_active + comp.n_placebo
        out[f"sub_{name}_diff"] = comp.diff
        out[f"sub_{name}_ci_low"] = comp.ci_low
        out[f"sub_{name}_ci_high"] = comp.ci_high
    out["interaction_sex_p"] = cases.interaction_p(subgroups["female"], "high_dose")
    out["interaction_age_p"] = cases.interaction_p(subgroups["age_ge65"], "high_dose")
    return subgroups


def _dredge(cases: _CompleteCases, subgroups: dict[str, list[bool]], out: Results) -> None:
    """The low-dose subgroup scan a data dredger would run: sex, age band and each site; keeps the best p."""
    scan: dict[str, list[bool]] = {
        "women": subgroups["female"],
        "men": subgroups["male"],
        "under 65": subgroups["age_lt65"],
        "65 and over": subgroups["age_ge65"],
    }
    scan.update({f"site {site}": [p.site == site for p in cases.patients] for site in SITE_IDS})
    best_name, best_p, best = "", 1.0, None
    for name, member in scan.items():
        comp = cases.ancova_within(member)["low_dose"]
        if comp.p < best_p:
            best_name, best_p, best = name, comp.p, comp
    assert best is not None
    out["dredge_subgroups_scanned"] = len(scan)
    out["dredge_name"] = best_name
    out["dredge_low_diff"] = best.diff
    out["dredge_low_p"] = best_p
    out["dredge_n"] = best.n_active + best.n_placebo
    out["dredge_interaction_p"] = cases.interaction_p(scan[best_name], "low_dose")
    out["dredge_expected_false_positives"] = len(scan) * ALPHA


def _risers(cases: _CompleteCases, out: Results) -> None:
    """The post hoc exclusion the persona asks for: high-dose completers whose SBP rose."""
    pairs = list(zip(cases.arm, cases.chg, strict=True))
    risers = {i for i, (arm, chg) in enumerate(pairs) if arm == "high_dose" and chg > 0}
    out["high_risers_n"] = len(risers)
    comps = cases.ancova_within([i not in risers for i in range(len(pairs))])
    out["high_diff_excluding_risers"] = comps["high_dose"].diff
    out["placebo_risers_n"] = sum(1 for arm, chg in pairs if arm == "placebo" and chg > 0)


def solve(patients: list[Patient], mi_seed: int | None = MI_SEED) -> Results:
    """Every derived value of the top-line analysis, by name, from unit-clean patient records.

    mi_seed None skips the multiple imputation (the mi_* values), by far the slowest analysis.
    """
    out: Results = {}
    _baseline_characteristics(patients, out)
    _observed_course(patients, out)
    cases = _CompleteCases.of(patients)
    _primary(cases, out)
    _secondaries(patients, out)
    _sensitivity(patients, mi_seed, out)
    subgroups = _subgroups(cases, out)
    _dredge(cases, subgroups, out)
    _risers(cases, out)
    return out


# --------------------------------------------------------------------------- one trial, solved


@dataclass(frozen=True)
class Instance:
    """One trial: its inputs, the exports and the solved analyses the meeting quotes."""

    inputs: TrialInputs
    exports: Exports
    final: Results  # solved on v2 with the kPa readings converted (the final numbers)
    locked: Results  # solved on the locked export v1 (no imputation)
    naive: Results  # solved on v2 as delivered, kPa and all (no imputation)


def solve_instance(
    inp: TrialInputs, exports: Exports | None = None, final: Results | None = None
) -> Instance:
    """Generate the exports from the inputs (unless given) and solve them."""
    exports = exports or Exports.of(inp)
    return Instance(
        inputs=inp,
        exports=exports,
        final=final if final is not None else solve(exports.clean, inp.mi_seed),
        # The meeting quotes neither of these exports' imputation: skip it.
        locked=solve(parse_csv(exports.v1_csv), None),
        naive=solve(parse_csv(exports.v2_csv), None),  # what an agent gets if it swaps v2 in without looking
    )


@dataclass(frozen=True)
class MeetingFigures:
    """Figures the meeting quotes that are derived from the solutions rather than read off them."""

    v1_completion: float  # % of randomised with a week-12 SBP in the locked export
    v1_site_completion: dict[str, float]  # the same by site
    v1_lowest_sites: list[str]  # the sites tied for the lowest completion
    v1_high_cut: int  # "above X%": the whole percent below the runner-up's completion
    v1_highest_sites: list[str]  # the sites above that cut
    v1_missing: dict[str, int]  # patients without a week-12 SBP by arm, locked export
    sbp0_spread: float  # largest minus smallest arm mean baseline SBP
    cuff_gap: float  # how far the cuff site's mean baseline sits below the overall one
    kpa_readings: list[float]  # the kPa site's week-12 SBP readings in v2

    @classmethod
    def of(cls, inst: Instance) -> MeetingFigures:
        final, locked = inst.final, inst.locked
        site_completion = {site: locked[f"site_completion_pct_{site}"] for site in SITE_IDS}
        lowest = min(site_completion.values())
        # Strictly below the runner-up, so the top two are always above it (floor() is not when it is whole).
        high_cut = math.ceil(sorted(site_completion.values(), reverse=True)[1]) - 1
        baselines = [final[f"sbp0_mean_{arm}"] for arm in ARMS]
        return cls(
            v1_completion=100.0 * locked["completers_total"] / locked["n_total"],
            v1_site_completion=site_completion,
            v1_lowest_sites=[site for site, pct in site_completion.items() if math.isclose(pct, lowest)],
            v1_high_cut=high_cut,
            v1_highest_sites=[site for site, pct in site_completion.items() if pct > high_cut],
            v1_missing={arm: locked[f"n_{arm}"] - locked[f"completers_{arm}"] for arm in ARMS},
            sbp0_spread=max(baselines) - min(baselines),
            cuff_gap=final["sbp0_mean_total"] - final[f"site_sbp0_mean_{CUFF_SITE}"],
            kpa_readings=inst.exports.kpa_readings,
        )


def significant(x: float, digits: int = 4) -> float:
    """A value kept to a few significant figures (tiny p-values stay non-zero)."""
    return float(f"{x:.{digits}g}")


def ground_truth(inst: Instance) -> dict[str, float | str]:
    """The scenario's ground truth: every final value, the locked export's counts and the kPa site."""
    # Nine significant digits: the last bits of a float depend on the BLAS/numpy build, the data file must not.
    truth: dict[str, float | str] = {
        key: (value if isinstance(value, str) else significant(value, 9)) for key, value in inst.final.items()
    }
    for key in ("completers_total", "missing_w12_total", "dropout_pct_total", "completers_placebo",
                "completers_high_dose"):  # fmt: skip
        truth[f"v1_{key}"] = significant(inst.locked[key], 9)
    truth["kpa_site"] = KPA_SITE
    truth["kpa_readings"] = float(len(inst.exports.kpa_readings))
    return truth
