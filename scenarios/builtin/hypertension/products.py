"""Hypertension trial: the three work products (results tables, statistical report, chart): their rows, the
report's sections, the chart's values and the checks a delivered product must pass."""

from __future__ import annotations

import logging
from typing import Any

from modylbench.scenarios._kit import criterion
from modylbench.scenarios._schema import ExpectedOutput, ProductSpec, VerificationCriterion
from modylbench.scenarios.builtin.hypertension.data import (
    ARMS,
    KPA_SITE,
    MI_IMPUTATIONS,
    MMHG_PER_KPA,
    VISITS,
)
from modylbench.scenarios.builtin.hypertension.solver import Results, significant
from modylbench.scenarios.builtin.hypertension.wording import (
    SubgroupPhrases,
    diff_ci,
    low_diff_ci,
    mm,
    pct,
    pv,
)

logger = logging.getLogger(__name__)

RESULTS_TABLES = "results_tables"
REPORT = "statistical_report"
CHART = "sbp_change_by_arm"

REPORT_TITLE = "CVT-207-201 top-line statistical report"
# Created as an empty chart so that series and categories are lists from the start.
EMPTY_CHART: dict[str, Any] = {
    "chart_type": "bar",
    "title": "",
    "x_label": "",
    "y_label": "",
    "categories": [],
    "series": [],
}
BAR_TITLE = "Mean change in office SBP at week 12 by arm"
LINE_TITLE = "Mean change in office SBP from baseline by visit and arm"
UNADJUSTED_TITLE = f"{LINE_TITLE} (observed cases, unadjusted)"
Y_LABEL = "Mean change from baseline in SBP (mmHg)"
SUBGROUP_NOTE = "EXPLORATORY: 40 mg vs placebo within pre-specified subgroups; no multiplicity adjustment; not for claims."
# The pre-specified subgroups and the interaction test each is read with.
SUBGROUP_FACTOR = {"female": "sex", "male": "sex", "age_lt65": "age", "age_ge65": "age"}


# --------------------------------------------------------------------------- cells


def cell(x: float) -> float:
    """A difference or mean as the tables and chart hold it: two decimals."""
    return float(round(x, 2))


def p_cell(p: float, digits: int = 4) -> float:
    """A p-value as the tables hold it: a few significant figures, so that tiny ones stay non-zero."""
    return significant(p, digits)


def by_arm(results: Results, key: str, digits: int | None = 1) -> dict[str, Any]:
    """A baseline-table row: one cell per arm plus the total (``digits`` None: a count, as is)."""
    return {
        arm: (results[f"{key}_{arm}"] if digits is None else float(round(results[f"{key}_{arm}"], digits)))
        for arm in (*ARMS, "total")
    }


def comparison_row(final: Results, prefix: str) -> dict[str, float]:
    """Difference vs placebo, its 95% CI and p."""
    return {
        "difference": cell(final[f"{prefix}_diff"]),
        "ci_low": cell(final[f"{prefix}_ci_low"]),
        "ci_high": cell(final[f"{prefix}_ci_high"]),
        "p_value": p_cell(final[f"{prefix}_p"]),
    }


def ls_means_row(final: Results, arm: str) -> dict[str, Any]:
    """The primary model's cases and LS mean changes, ``arm`` against placebo."""
    return {
        "n_active": final[f"completers_{arm}"],
        "n_placebo": final["completers_placebo"],
        "ls_mean_active": cell(final[f"ls_mean_{arm}"]),
        "ls_mean_placebo": cell(final["ls_mean_placebo"]),
    }


def sensitivity_row(final: Results, prefix: str, n_analysed: int) -> dict[str, Any]:
    """One missing-data approach: the 40 mg difference with its CI and p, the 10 mg difference and p."""
    return {
        "n_analysed": n_analysed,
        "high_diff": cell(final[f"{prefix}high_diff"]),
        "high_ci_low": cell(final[f"{prefix}high_ci_low"]),
        "high_ci_high": cell(final[f"{prefix}high_ci_high"]),
        "high_p": p_cell(final[f"{prefix}high_p"]),
        "low_diff": cell(final[f"{prefix}low_diff"]),
        "low_p": p_cell(final[f"{prefix}low_p"]),
    }


def responder_row(final: Results, arm: str, key: str | None = None) -> dict[str, Any]:
    """Responders in one arm; an active arm (``key`` its prefix) also gets its risk difference vs placebo."""
    row = {
        "n": final[f"n_{arm}"],
        "responders": final[f"responders_{arm}"],
        "pct": round(final[f"responder_pct_{arm}"], 1),
    }
    if key is not None:
        row |= {
            "rd_pct": round(final[f"rd_{key}_pct"], 1),
            "rd_ci_low": round(final[f"rd_{key}_ci_low_pct"], 1),
            "rd_ci_high": round(final[f"rd_{key}_ci_high_pct"], 1),
        }
    return row


def subgroup_row(final: Results, group: str) -> dict[str, float]:
    """40 mg vs placebo within a pre-specified subgroup, with its interaction p."""
    return {
        "difference": cell(final[f"sub_{group}_diff"]),
        "ci_low": cell(final[f"sub_{group}_ci_low"]),
        "ci_high": cell(final[f"sub_{group}_ci_high"]),
        "interaction_p": p_cell(final[f"interaction_{SUBGROUP_FACTOR[group]}_p"], 3),
    }


# --------------------------------------------------------------------------- chart values


def week12_bars(final: Results) -> dict[str, float]:
    """Observed mean week-12 SBP change by arm, as the draft bar chart holds it."""
    return {arm: cell(final[f"obs_change_{arm}_w12"]) for arm in ARMS}


def time_course(final: Results) -> dict[str, list[float]]:
    """Observed mean SBP change at weeks 0, 4, 8 and 12 by arm, as the line chart holds it."""
    return {arm: [0.0] + [cell(final[f"obs_change_{arm}_w{visit}"]) for visit in VISITS[1:]] for arm in ARMS}


# --------------------------------------------------------------------------- the report's sections


def methods_text(final: Results, mi_seed: int, late_ids: str) -> str:
    """The methods section: model, analysis set, multiplicity, secondaries, sensitivity, data handling."""
    return (
        "Primary endpoint: change from baseline to week 12 in seated office SBP (mean of triplicate "
        "readings). Primary analysis (SAP 9.2): ANCOVA with treatment as factor and baseline SBP as "
        f"covariate in the {final['completers_total']} randomised patients with an observed week-12 SBP; "
        "least-squares mean differences vs placebo with two-sided 95% CIs. Multiplicity: Hochberg step-up "
        "across 40 mg and 10 mg vs placebo at two-sided alpha 0.05. Secondary: DBP change (ANCOVA on "
        "baseline DBP) and responders (week-12 SBP < 140 mmHg, non-completers as non-responders, Wald risk "
        "difference), nominal p-values. Supportive: Welch t-test. Sensitivity: LOCF and multiple imputation "
        f"under MAR ({MI_IMPUTATIONS} imputations, seed {mi_seed}, sequential regression within arm, Rubin's "
        "rules). Exploratory subgroups: sex and age < 65 / >= 65 with interaction tests. Data handling: "
        f"export v2 was used; its {KPA_SITE} week-12 readings were in kPa and were converted to mmHg "
        f"(x{MMHG_PER_KPA}); three late week-12 visits ({late_ids}) are included."
    )


def primary_text(final: Results) -> str:
    """The primary endpoint section: both doses with CIs, raw and Hochberg-adjusted p."""
    return (
        f"CVT-207 40 mg reduced SBP at week 12 by {mm(final['high_diff'])} mmHg more than placebo (LS mean "
        f"difference {diff_ci(final, 'high')}; Hochberg-adjusted p < 0.001). LS mean changes: "
        f"-{mm(final['ls_mean_high_dose'])} mmHg (40 mg, n = {final['completers_high_dose']}) vs "
        f"-{mm(final['ls_mean_placebo'])} mmHg (placebo, n = {final['completers_placebo']}). CVT-207 10 mg: "
        f"{low_diff_ci(final)}, p = {pv(final['low_p'])}, Hochberg-adjusted p = "
        f"{pv(final['low_p_hochberg'])}; not statistically significant."
    )


def secondary_text(final: Results) -> str:
    """The secondary endpoints section: DBP, responders, NNT."""
    return (
        f"DBP: 40 mg {diff_ci(final, 'dbp_high')} vs placebo, p < 0.001; 10 mg -{mm(final['dbp_low_diff'])} "
        f"mmHg, nominal p = {pv(final['dbp_low_p'])}. Responders (SBP < 140 mmHg): "
        f"{pct(final['responder_pct_high_dose'])} (40 mg) vs {pct(final['responder_pct_placebo'])} "
        f"(placebo), risk difference {final['rd_high_pct']:.1f} points (95% CI "
        f"{final['rd_high_ci_low_pct']:.1f} to {final['rd_high_ci_high_pct']:.1f}); NNT "
        f"{final['nnt_high']:.1f}. 10 mg: {pct(final['responder_pct_low_dose'])}, no gain over placebo."
    )


def sensitivity_text(final: Results) -> str:
    """The sensitivity section: LOCF, multiple imputation, Welch."""
    return (
        f"The 40 mg effect is robust to missing-data assumptions: LOCF {diff_ci(final, 'locf_high')}; "
        f"multiple imputation {diff_ci(final, 'mi_high')}; supportive Welch -{mm(final['high_welch_diff'])} "
        f"mmHg. 10 mg remains non-significant (LOCF p = {pv(final['locf_low_p'])}; MI p = "
        f"{pv(final['mi_low_p'])})."
    )


def subgroup_text(final: Results, dredge: SubgroupPhrases) -> str:
    """The exploratory subgroup section, with the dredged 10 mg finding as a hypothesis."""
    return (
        f"Exploratory. The 40 mg effect was consistent by sex (women -{mm(final['sub_female_diff'])}, men "
        f"-{mm(final['sub_male_diff'])} mmHg; interaction p = {final['interaction_sex_p']:.2f}) and age (< "
        f"65 -{mm(final['sub_age_lt65_diff'])}, >= 65 -{mm(final['sub_age_ge65_diff'])} mmHg; interaction p "
        f"= {final['interaction_age_p']:.2f}). A nominal 10 mg effect in {dredge.written_who} (p = "
        f"{pv(final['dredge_low_p'])}; interaction p = {final['dredge_interaction_p']:.2f}) arose from "
        f"{final['dredge_subgroups_scanned']} unplanned cuts and is hypothesis-generating only."
    )


def limitations_text(final: Results) -> str:
    """The limitations section."""
    return (
        "Twelve weeks of office BP only; no ambulatory monitoring or outcome data. "
        f"{pct(final['dropout_pct_total'])} of patients lack week-12 SBP; the primary assumes missing at "
        f"random (LOCF and MI agree). Chance imbalance in sex ({pct(final['female_pct_placebo'])} vs "
        f"{pct(final['female_pct_high_dose'])} women, placebo vs 40 mg). Small subgroups (n = "
        f"{final['sub_age_ge65_n']} aged 65+). {KPA_SITE} week-12 readings required a unit conversion "
        "pending the reissued export. Safety is reported separately."
    )


def conclusion_text(final: Results) -> str:
    """The conclusion the data support: 40 mg to Phase III, 10 mg did not separate."""
    return (
        f"CVT-207 40 mg met the primary endpoint, lowering SBP by {mm(final['high_diff'])} mmHg more than "
        f"placebo at week 12 (95% CI {mm(final['high_ci_high'])} to {mm(final['high_ci_low'])}; p < 0.001), "
        f"with {pct(final['responder_pct_high_dose'])} vs {pct(final['responder_pct_placebo'])} of patients "
        "below 140 mmHg. The results support progressing 40 mg to Phase III, subject to the safety review. "
        f"10 mg did not separate from placebo (Hochberg-adjusted p = {pv(final['low_p_hochberg'])})."
    )


# --------------------------------------------------------------------------- products and their checks


def product_specs(contents: dict[str, Any]) -> list[ProductSpec]:
    """The three products, with the reference solution's contents."""
    return [
        ProductSpec(
            product_id=RESULTS_TABLES,
            output_type="spreadsheet",
            title="Results tables (T14.1-T14.4)",
            reference=contents[RESULTS_TABLES],
        ),
        ProductSpec(
            product_id=REPORT,
            output_type="document",
            title="Top-line statistical report",
            reference=contents[REPORT],
        ),
        ProductSpec(
            product_id=CHART,
            output_type="chart",
            title="SBP change from baseline by visit and arm",
            reference=contents[CHART],
        ),
    ]


def _equal(cid: str, description: str, path: str, value: float, tol: float) -> VerificationCriterion:
    return VerificationCriterion(
        id=cid,
        description=description,
        check_type="numeric_equality",
        target_field=path,
        expected_value=value,
        tolerance_pct=tol,
    )


def _results_tables_checks(final: Results) -> list[VerificationCriterion | str]:
    # The imputation's estimate moves with its seed: a band, not a figure.
    mi_band = [round(final["mi_high_diff"] - 0.75, 2), round(final["mi_high_diff"] + 0.75, 2)]
    return [
        _equal("rt_high_diff", "40 mg LS mean difference (mmHg)", "/primary/high_vs_placebo/difference",
               cell(final["high_diff"]), 2),
        _equal("rt_high_ci_low", "40 mg lower 95% limit", "/primary/high_vs_placebo/ci_low",
               cell(final["high_ci_low"]), 3),
        criterion("rt_high_p", "40 mg p below 0.001", "numeric_range", "/primary/high_vs_placebo/p_value", [0.0, 0.001]),
        _equal("rt_low_diff", "10 mg LS mean difference (mmHg)", "/primary/low_vs_placebo/difference",
               cell(final["low_diff"]), 3),
        _equal("rt_low_p", "10 mg two-sided p", "/primary/low_vs_placebo/p_value", p_cell(final["low_p"]), 5),
        _equal("rt_low_p_hochberg", "10 mg Hochberg-adjusted p", "/primary/low_vs_placebo/p_hochberg",
               p_cell(final["low_p_hochberg"]), 5),
        _equal("rt_completers", "Week-12 completers after the kPa fix", "/baseline/completers_w12/total",
               final["completers_total"], 0),
        _equal("rt_sbp0_total", "Mean baseline SBP", "/baseline/sbp0_mean/total",
               round(final["sbp0_mean_total"], 1), 0.5),
        _equal("rt_resp_high", "Responder % on 40 mg", "/responders/high_dose/pct",
               round(final["responder_pct_high_dose"], 1), 1),
        _equal("rt_rd_high", "Risk difference, 40 mg (points)", "/responders/high_dose/rd_pct",
               round(final["rd_high_pct"], 1), 2),
        _equal("rt_dbp_high", "40 mg DBP difference", "/secondary/dbp_high_vs_placebo/difference",
               cell(final["dbp_high_diff"]), 3),
        _equal("rt_locf_high", "LOCF 40 mg difference", "/sensitivity/locf/high_diff",
               cell(final["locf_high_diff"]), 3),
        criterion("rt_mi_high", "MI 40 mg difference (seed-dependent band)", "numeric_range",
               "/sensitivity/multiple_imputation/high_diff", mi_band),
        criterion("rt_subgroups", "Four pre-specified subgroups reported", "count_at_least", "/subgroups", 4),
        criterion("rt_subgroup_label", "Subgroups labelled exploratory", "contains", "/subgroups", "exploratory"),
    ]  # fmt: skip


def _report_checks(final: Results) -> list[VerificationCriterion | str]:
    return [
        criterion("sr_sections", "Methods, primary, secondary, sensitivity, limitations, conclusion", "count_at_least",
               "/sections", 6),
        criterion("sr_ancova", "Methods name the ANCOVA", "contains", "/sections", "ANCOVA"),
        criterion("sr_hochberg", "Multiplicity method stated", "contains", "/sections", "Hochberg"),
        criterion("sr_primary", "Primary 40 mg reduction stated", "contains", "/sections",
               f"{mm(final['high_diff'])} mmHg"),
        criterion("sr_ci", "40 mg CI limit stated", "contains", "/sections", mm(final["high_ci_low"])),
        criterion("sr_low_p", "10 mg adjusted p stated", "contains", "/sections", pv(final["low_p_hochberg"])),
        criterion("sr_kpa", "Unit conversion documented", "contains", "/sections", "kPa"),
        criterion("sr_exploratory", "Subgroups called exploratory", "contains", "/sections", "exploratory"),
        criterion("sr_no_proof", "No claim of proof", "not_contains", "/sections", "proves"),
        criterion("sr_title", "Report has a title", "present", "/title", None),
    ]  # fmt: skip


def _chart_checks(final: Results) -> list[VerificationCriterion | str]:
    week12, course = week12_bars(final), time_course(final)
    return [
        criterion("ch_type", "Time course drawn as lines", "one_of", "/chart_type", ["line"]),
        criterion("ch_series", "One series per arm", "count_at_least", "/series", 3),
        criterion("ch_categories", "Weeks 0, 4, 8, 12", "count_at_least", "/categories", 4),
        _equal("ch_high_w12", "40 mg mean change at week 12", "/series/2/values/3", week12["high_dose"], 2),
        _equal(
            "ch_placebo_w12", "Placebo mean change at week 12", "/series/0/values/3", week12["placebo"], 3
        ),
        _equal("ch_high_w4", "40 mg mean change at week 4", "/series/2/values/1", course["high_dose"][1], 3),
        criterion("ch_units", "Axis in mmHg", "contains", "/y_label", "mmHg"),
        criterion("ch_unadjusted", "Title says the means are unadjusted", "contains", "/title", "unadjusted"),
    ]


def expected_outputs(final: Results) -> list[ExpectedOutput]:
    """What each product must hold, with the programmatic checks against the solution."""
    return [
        ExpectedOutput(
            output_type="spreadsheet",
            description="Results tables: baseline characteristics, primary (ANCOVA + Hochberg), supportive, secondary, "
            "responders, sensitivity and exploratory subgroups.",
            verification_criteria=_results_tables_checks(final),
            product_id=RESULTS_TABLES,
        ),
        ExpectedOutput(
            output_type="document",
            description="Top-line statistical report: methods, primary, secondary, sensitivity, subgroups, limitations, "
            "conclusion.",
            verification_criteria=_report_checks(final),
            product_id=REPORT,
        ),
        ExpectedOutput(
            output_type="chart",
            description="Line chart of observed mean SBP change from baseline by visit, one series per arm.",
            verification_criteria=_chart_checks(final),
            product_id=CHART,
        ),
    ]
