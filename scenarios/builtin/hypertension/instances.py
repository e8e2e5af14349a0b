"""Hypertension trial: which trial a seed builds. Seed 0 is the committed trial; any other seed draws inputs,
aims the 10 mg effects at the story's p-values and keeps the first trial that breaks none of the relationships
the meeting script states (``story_breaks``)."""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np
from scipy import stats

from modylbench.scenarios._kit import redraw
from modylbench.scenarios.builtin.hypertension.data import (
    ARMS,
    CUFF_SITE,
    KPA_SITE,
    LATE_ENTRIES,
    MMHG_PER_KPA,
    SITE_IDS,
    Exports,
    TrialInputs,
    draw_inputs,
    repair_units,
    simulate_trial,
)
from modylbench.scenarios.builtin.hypertension.solver import (
    Instance,
    MeetingFigures,
    Results,
    solve,
    solve_instance,
    week12_ancova,
)
from modylbench.scenarios.builtin.hypertension.wording import mm

logger = logging.getLogger(__name__)

# How close (mmHg) LOCF and MI must be to the primary 40 mg effect for "all three approaches agree".
SENSITIVITY_AGREES = 2.0
# The 10 mg two-sided p the one-sided edge case needs: above 0.05, below 0.10, said in whole percent (6-9).
LOW_P_WINDOW = (0.055, 0.0945)
# Women on placebo vs 40 mg (percentage points) for "one thing: women are x% of placebo but y% of 40 mg".
SEX_IMBALANCE = 6.0
# Draws a fresh seed may take before it gives up.


def final_breaks(final: Results) -> list[str]:
    """The relationships the meeting states about the final numbers that these break.

    Without the mi_* values (a quick solve) the imputation's share of the checks is left out.
    """
    sens = ("locf", "mi") if "mi_low_p" in final else ("locf",)
    baselines = [final[f"sbp0_mean_{arm}"] for arm in ARMS]
    checks = {
        # 40 mg is clearly effective: every 40 mg p is said as "p < 0.001".
        "40 mg p < 0.001 everywhere": all(
            final[f"{k}_p"] < 0.001 for k in ("high", "high_welch", "dbp_high", *(f"{x}_high" for x in sens))
        ),
        # 10 mg misses after Hochberg, halving its p gets under 0.05 but not under 0.025.
        "10 mg p in its window": LOW_P_WINDOW[0] <= final["low_p"] < LOW_P_WINDOW[1],
        "10 mg misses under LOCF and MI": all(final[f"{x}_low_p"] > 0.05 for x in sens),
        "10 mg DBP is a nominal signal": final["dbp_low_p"] < 0.05,
        "sensitivity agrees with the primary": all(
            abs(final[f"{x}_high_diff"] - final["high_diff"]) < SENSITIVITY_AGREES for x in sens
        ),
        "no heterogeneity by sex or age": final["interaction_sex_p"] > 0.05
        and final["interaction_age_p"] > 0.05,
        "a dredged 10 mg subgroup is nominally significant": final["dredge_low_p"]
        < 0.05
        < final["dredge_interaction_p"],
        "40 mg responders beat placebo": final["rd_high_ci_low_pct"] > 0,
        "10 mg responders do not": final["rd_low_ci_low_pct"] < 0,
        "over-65s are the small age band": final["sub_age_ge65_n"] < final["sub_age_lt65_n"],
        "a handful of 40 mg risers, more on placebo": 2 <= final["high_risers_n"] < final["placebo_risers_n"],
        "the sex imbalance is worth flagging": abs(
            final["female_pct_placebo"] - final["female_pct_high_dose"]
        )
        >= SEX_IMBALANCE,
        "baseline SBP balanced across arms": max(baselines) - min(baselines) < 3.0,
        "the cuff site reads low": final["sbp0_mean_total"] - final[f"site_sbp0_mean_{CUFF_SITE}"] >= 0.5,
        "most of the 40 mg effect is there by week 8": final["obs_change_high_dose_w8"]
        <= 0.7 * final["obs_change_high_dose_w12"],
        # Reductions are said as "-x mmHg": these must be falls.
        "reductions are negative": all(
            final[k] < 0
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
    final, locked = inst.final, inst.locked
    figures = MeetingFigures.of(inst)
    completion = figures.v1_site_completion
    checks = {
        "no site looks like a problem": min(completion.values()) >= figures.v1_completion - 12.0,
        # The CRO plot: placebo falls, 40 mg separates by week 4, 10 mg slightly below placebo.
        "the plot reads as described": locked["obs_change_placebo_w12"] < 0
        and locked["obs_change_high_dose_w4"] < locked["obs_change_placebo_w4"] - 2.0
        and -4.0 < locked["obs_change_low_dose_w12"] - locked["obs_change_placebo_w12"] < 0,
        "three late visits to resolve": len(inst.exports.late) == LATE_ENTRIES,
        # "Below 40 cannot be mmHg": the kPa site's week 12 must be the only readings the rule converts.
        "only the kPa site reads below 40": repair_units(inst.exports.v2)[1] == [KPA_SITE],
        # The naive 40 mg figure is the kPa edge case's bad signal: it must not be read in the good reply.
        "the naive answer stands out": not any(
            mm(inst.naive["high_diff"]) in figure
            for figure in (
                mm(final["high_diff"]),
                str(MMHG_PER_KPA),
                str(final["completers_total"]),
                *(f"{x:.1f}" for x in figures.kpa_readings),
                *inst.exports.late,
            )
        ),
        # The disposition slide shows counts; none may pass for the completion rates asked for.
        "the slide does not give away the completion rates": not any(
            abs(count - rate) <= 0.01 * rate
            for site in SITE_IDS
            for count in (locked[f"site_n_{site}"], round(completion[site] * locked[f"site_n_{site}"] / 100))
            for rate in (figures.v1_completion, min(completion.values()))
        ),
    }
    return final_breaks(final) + [name for name, ok in checks.items() if not ok]


def _aim_low_dose(
    inp: TrialInputs, target_p: float, target_dbp_p: float
) -> tuple[TrialInputs, Exports] | None:
    """Shift the true 10 mg SBP and DBP effects until their primary p-values hit the story (None if they won't).

    The 10 mg SBP p must land in LOW_P_WINDOW near target_p, its DBP p below 0.05.
    """
    for _ in range(6):
        exports = Exports.of(inp)
        low = {bp: week12_ancova(exports.clean, bp)["low_dose"] for bp in ("sbp", "dbp")}
        sbp_ok = LOW_P_WINDOW[0] <= low["sbp"].p < LOW_P_WINDOW[1] and abs(low["sbp"].p - target_p) < 0.004
        dbp_ok = low["dbp"].diff < 0 and low["dbp"].p < 0.05
        if sbp_ok and dbp_ok:
            return inp, exports
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

    def candidate() -> Instance | None:
        inp = draw_inputs(rng)
        # Eight or nine percent: clear of the committed 7.3% so the persona's figure is new too, and far
        # enough above 0.05 that LOCF and imputation rarely cross it.
        target_p = float(rng.uniform(0.078, 0.093))
        target_dbp_p = float(rng.uniform(0.005, 0.04))
        # Cheap checks first: a full solve costs ten times a draw.
        locked, _ = simulate_trial(inp)
        female = {arm: [p.sex == "F" for p in locked if p.arm == arm] for arm in ARMS}
        if 100 * abs(np.mean(female["placebo"]) - np.mean(female["high_dose"])) < SEX_IMBALANCE:
            return None
        aimed = _aim_low_dose(inp, target_p, target_dbp_p)
        if aimed is None:
            return None
        inp, exports = aimed
        # Everything but the imputation first: it costs as much as the rest together.
        quick = solve(exports.clean, None)
        if final_breaks(quick):
            return None
        inst = solve_instance(inp, exports, quick)
        if story_breaks(inst):
            return None
        final = solve(exports.clean, inp.mi_seed)
        return None if final_breaks(final) else replace(inst, final=final)

    drawn = redraw(candidate, fail=f"no trial for seed {seed} keeps the story")
    assert drawn is not None  # redraw raises when it gives up
    return drawn
