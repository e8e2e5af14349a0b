"""The Phase II hypertension scenario: structure, a recomputation from the pushed files, products and facts.

Every check runs on the published instance (seed 0) and on fresh instances (seeds 1-3).
"""

from __future__ import annotations

import copy
import csv
import io
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from modylbench.scenarios import (
    ExpectedFact,
    Scenario,
    numbers_close,
    run_check,
)
from modylbench.scenarios.builtin import hypertension as hyp

from .instances import SEEDS, instance

DATA_FILE = Path(__file__).resolve().parents[2] / "scenarios" / "data" / f"{hyp.SCENARIO_ID}.json"
ARMS = ("placebo", "low_dose", "high_dose")


def built(seed: int) -> Scenario:
    return instance(hyp.SCENARIO_ID, seed)


@pytest.fixture(scope="module", params=SEEDS, ids=[f"seed{s}" for s in SEEDS])
def sc(request: pytest.FixtureRequest) -> Scenario:
    return built(request.param)


@pytest.fixture(scope="module")
def gt(sc: Scenario) -> dict[str, Any]:
    return sc.ground_truth


# --------------------------------------------------------------------------- structure


def test_products_and_their_types(sc: Scenario) -> None:
    assert {p.product_id: p.output_type for p in sc.products} == {
        "results_tables": "spreadsheet",
        "statistical_report": "document",
        "sbp_change_by_arm": "chart",
    }


def test_the_corrected_file_comes_after_the_first(sc: Scenario) -> None:
    pushed = [f for t in sc.turns for f in t.files]
    assert pushed.index("bp_readings.csv") < pushed.index("bp_readings_v2.csv")


# --------------------------------------------------------------------------- recomputation from the pushed files


def _rows(sc: Scenario, name: str) -> list[dict[str, str]]:
    f = sc.data_file(name)
    assert f is not None
    return list(csv.DictReader(io.StringIO(f.content)))


def _num(x: str) -> float | None:
    return float(x) if x else None


def _clean_rows(sc: Scenario) -> list[dict[str, Any]]:
    """v2 with kPa read back to mmHg: any blood pressure below 40 cannot be mmHg in this population."""
    out = []
    for r in _rows(sc, "bp_readings_v2.csv"):
        row: dict[str, Any] = {"id": r["patient_id"], "site": r["site"], "arm": r["arm"]}
        row["age"], row["sex"] = int(r["age"]), r["sex"]
        for bp in ("sbp", "dbp"):
            for v in (0, 4, 8, 12):
                x = _num(r[f"{bp}_w{v}"])
                row[f"{bp}{v}"] = None if x is None else (round(x * 7.50062, 1) if x < 40 else x)
        out.append(row)
    return out


def _ancova_normal_equations(
    arm: list[str], base: list[float], y: list[float]
) -> dict[str, tuple[float, float, float]]:
    """Active-minus-placebo coefficient, SE and df via X'X b = X'y with an uncentred covariate."""
    x = np.column_stack(
        [
            np.ones(len(y)),
            [a == "low_dose" for a in arm],
            [a == "high_dose" for a in arm],
            base,
        ]
    ).astype(float)
    yy = np.asarray(y, dtype=float)
    xtx = x.T @ x
    b = np.linalg.solve(xtx, x.T @ yy)
    df = len(yy) - 4
    s2 = float(((yy - x @ b) ** 2).sum()) / df
    cov = s2 * np.linalg.inv(xtx)
    return {
        "low_dose": (float(b[1]), math.sqrt(cov[1, 1]), df),
        "high_dose": (float(b[2]), math.sqrt(cov[2, 2]), df),
    }


def _close(a: float, b: float, rel: float = 1e-6, abs_: float = 1e-9) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def test_v2_differs_from_v1_by_units_at_one_site_and_three_late_visits(
    sc: Scenario, gt: dict[str, Any]
) -> None:
    v1 = {r["patient_id"]: r for r in _rows(sc, "bp_readings.csv")}
    v2 = {r["patient_id"]: r for r in _rows(sc, "bp_readings_v2.csv")}
    assert v1.keys() == v2.keys() and len(v1) == gt["n_total"]
    late, kpa_sites = [], set()
    for pid, a in v1.items():
        b = v2[pid]
        for col in a:
            if a[col] == b[col]:
                continue
            assert col in ("sbp_w12", "dbp_w12"), f"{pid}: unexpected change in {col}"
            if a[col] == "":
                late.append(pid)
                continue
            assert float(b[col]) < 40
            kpa_sites.add(b["site"])
            # Read back to mmHg, the v2 value reproduces the locked value to rounding.
            assert abs(float(b[col]) * 7.50062 - float(a[col])) < 0.05
    assert kpa_sites == {gt["kpa_site"]}
    assert len(set(late)) == 3
    assert all(v2[p]["site"] != gt["kpa_site"] for p in late)


def test_primary_recomputed_from_the_pushed_csv(sc: Scenario, gt: dict[str, Any]) -> None:
    rows = _clean_rows(sc)
    cc = [r for r in rows if r["sbp12"] is not None]
    assert len(cc) == gt["completers_total"]
    assert len(rows) - len(cc) == gt["missing_w12_total"]
    fit = _ancova_normal_equations(
        [r["arm"] for r in cc], [r["sbp0"] for r in cc], [r["sbp12"] - r["sbp0"] for r in cc]
    )
    for arm, key in (("high_dose", "high"), ("low_dose", "low")):
        est, se, df = fit[arm]
        q = stats.t.ppf(0.975, df)
        p = 2 * stats.t.sf(abs(est / se), df)
        assert _close(est, gt[f"{key}_diff"])
        assert _close(est - q * se, gt[f"{key}_ci_low"]) and _close(est + q * se, gt[f"{key}_ci_high"])
        assert _close(p, gt[f"{key}_p"], rel=1e-5, abs_=1e-15)
    # Hochberg for two hypotheses: the larger p stands, the smaller is min(2p, larger p).
    p_hi, p_lo = gt["high_p"], gt["low_p"]
    assert _close(gt["low_p_hochberg"], max(p_hi, p_lo))
    assert _close(gt["high_p_hochberg"], min(2 * min(p_hi, p_lo), max(p_hi, p_lo)))
    assert gt["high_p_hochberg"] < 0.05 < gt["low_p_hochberg"] < 0.10
    assert _close(gt["low_p_one_sided"], gt["low_p"] / 2)


def test_welch_dbp_and_responders_recomputed(sc: Scenario, gt: dict[str, Any]) -> None:
    rows = _clean_rows(sc)
    cc = [r for r in rows if r["sbp12"] is not None]
    chg = {a: np.array([r["sbp12"] - r["sbp0"] for r in cc if r["arm"] == a]) for a in ARMS}
    for arm, key in (("high_dose", "high"), ("low_dose", "low")):
        x, y = chg[arm], chg["placebo"]
        va, vb = x.var(ddof=1) / len(x), y.var(ddof=1) / len(y)
        df = (va + vb) ** 2 / (va**2 / (len(x) - 1) + vb**2 / (len(y) - 1))
        d = x.mean() - y.mean()
        assert _close(d, gt[f"{key}_welch_diff"])
        assert _close(
            2 * stats.t.sf(abs(d) / math.sqrt(va + vb), df), gt[f"{key}_welch_p"], rel=1e-5, abs_=1e-15
        )
    ccd = [r for r in rows if r["dbp12"] is not None]
    dfit = _ancova_normal_equations(
        [r["arm"] for r in ccd], [r["dbp0"] for r in ccd], [r["dbp12"] - r["dbp0"] for r in ccd]
    )
    assert _close(dfit["high_dose"][0], gt["dbp_high_diff"]) and _close(
        dfit["low_dose"][0], gt["dbp_low_diff"]
    )
    n = {a: sum(r["arm"] == a for r in rows) for a in ARMS}
    resp = {a: sum(r["arm"] == a and r["sbp12"] is not None and r["sbp12"] < 140 for r in rows) for a in ARMS}
    p1, p0 = resp["high_dose"] / n["high_dose"], resp["placebo"] / n["placebo"]
    se = math.sqrt(p1 * (1 - p1) / n["high_dose"] + p0 * (1 - p0) / n["placebo"])
    assert _close(100 * (p1 - p0), gt["rd_high_pct"])
    assert _close(100 * (p1 - p0 - 1.959964 * se), gt["rd_high_ci_low_pct"], rel=1e-5)
    assert _close(100 / (100 * (p1 - p0)), gt["nnt_high"])


def test_sensitivity_and_subgroups_recomputed(sc: Scenario, gt: dict[str, Any]) -> None:
    rows = _clean_rows(sc)

    def locf(r: dict[str, Any]) -> float:
        last = next(r[f"sbp{v}"] for v in (12, 8, 4, 0) if r[f"sbp{v}"] is not None)
        return float(last - r["sbp0"])

    fit = _ancova_normal_equations(
        [r["arm"] for r in rows], [r["sbp0"] for r in rows], [locf(r) for r in rows]
    )
    assert _close(fit["high_dose"][0], gt["locf_high_diff"]) and _close(
        fit["low_dose"][0], gt["locf_low_diff"]
    )
    # Multiple imputation has only one route: the seeded procedure, run on the parsed file with the seed the
    # meeting states.
    patients = hyp.parse_csv(sc.data_file("bp_readings_v2.csv").content)  # type: ignore[union-attr]
    clean, sites = hyp.repair_units(patients)
    assert sites == [gt["kpa_site"]]
    mi = hyp.multiple_imputation(clean, seed=_mi_seed(sc))
    assert _close(mi["high_dose"].diff, gt["mi_high_diff"]) and _close(mi["low_dose"].p, gt["mi_low_p"])
    # Sensitivity analyses agree with the primary on the 40 mg effect.
    for k in ("locf_high_diff", "mi_high_diff"):
        assert abs(gt[k] - gt["high_diff"]) < hyp.SENSITIVITY_AGREES
    # Sex interaction for 40 mg vs placebo, by a separate design matrix.
    cc = [r for r in rows if r["sbp12"] is not None and r["arm"] in ("placebo", "high_dose")]
    t = np.array([r["arm"] == "high_dose" for r in cc], dtype=float)
    g = np.array([r["sex"] == "F" for r in cc], dtype=float)
    b = np.array([r["sbp0"] for r in cc])
    y = np.array([r["sbp12"] - r["sbp0"] for r in cc])
    x = np.column_stack([np.ones(len(cc)), t, g, t * g, b])
    coef, res, _, _ = np.linalg.lstsq(x, y, rcond=None)
    df = len(y) - 5
    cov = float(res[0]) / df * np.linalg.inv(x.T @ x)
    p_int = 2 * stats.t.sf(abs(coef[3]) / math.sqrt(cov[3, 3]), df)
    assert _close(p_int, gt["interaction_sex_p"], rel=1e-5)
    assert gt["dredge_low_p"] < 0.05 < gt["dredge_interaction_p"]


def test_slides_are_built_from_the_data(sc: Scenario, gt: dict[str, Any]) -> None:
    slides = {t.screen.slide_id: t.screen for t in sc.turns if t.screen is not None}
    disp = slides["cro_disposition"].table
    assert disp is not None
    assert sum(int(r[1]) for r in disp.rows) == gt["n_total"]  # type: ignore[arg-type]
    assert sum(int(r[2]) for r in disp.rows) == gt["v1_completers_total"]  # type: ignore[arg-type]
    welch = slides["cro_welch"].table
    assert welch is not None and welch.rows[0][1] == round(gt["high_welch_diff"], 1)
    bars = slides["draft_bar_chart"].chart
    # The ground truth keeps nine significant digits: a bar rounded from the full value may sit half a cent off.
    assert bars is not None and abs(bars.series[0].values[2] - gt["obs_change_high_dose_w12"]) <= 0.005 + 1e-9


# --------------------------------------------------------------------------- products


def test_reference_contents_have_the_documented_shapes(sc: Scenario) -> None:
    chart = sc.product("sbp_change_by_arm").reference  # type: ignore[union-attr]
    assert isinstance(chart["series"], list) and isinstance(chart["categories"], list)
    assert set(chart) == {"chart_type", "title", "x_label", "y_label", "categories", "series"}
    assert all(len(s["values"]) == len(chart["categories"]) for s in chart["series"])
    doc = sc.product("statistical_report").reference  # type: ignore[union-attr]
    assert isinstance(doc["sections"], list) and all(set(x) == {"title", "text"} for x in doc["sections"])
    sheet = sc.product("results_tables").reference  # type: ignore[union-attr]
    assert all(
        isinstance(rows, dict) and all(isinstance(r, dict) for r in rows.values()) for rows in sheet.values()
    )


def _failures(sc: Scenario, pid: str, content: Any) -> list[str]:
    out = next(o for o in sc.expected_outputs if o.product_id == pid)
    return [
        c.id for c in out.verification_criteria if not isinstance(c, str) and not run_check(c, content).passed
    ]


def test_changed_references_fail_checks(sc: Scenario, gt: dict[str, Any]) -> None:
    rt = copy.deepcopy(sc.product("results_tables").reference)  # type: ignore[union-attr]
    rt["primary"]["high_vs_placebo"]["difference"] *= 1.2
    rt["primary"]["low_vs_placebo"]["p_value"] /= 2  # a one-sided p smuggled in
    rt["baseline"]["completers_w12"]["total"] = int(gt["v1_completers_total"])  # the stale v1 count
    assert set(_failures(sc, "results_tables", rt)) == {"rt_high_diff", "rt_low_p", "rt_completers"}
    sr = copy.deepcopy(sc.product("statistical_report").reference)  # type: ignore[union-attr]
    sr["sections"][-1]["text"] = "CVT-207 proves efficacy; progress both doses."
    assert "sr_no_proof" in _failures(sc, "statistical_report", sr)
    ch = copy.deepcopy(sc.product("sbp_change_by_arm").reference)  # type: ignore[union-attr]
    ch["chart_type"] = "bar"
    ch["series"][2]["values"][3] = ch["series"][2]["values"][3] - 3.0
    assert set(_failures(sc, "sbp_change_by_arm", ch)) == {"ch_type", "ch_high_w12"}


def test_mutations_build_the_products_step_by_step(sc: Scenario) -> None:
    phase = {t.turn_index: t.phase for t in sc.turns}
    seen: set[str] = set()
    for m in sc.expected_mutations:
        if m.mutation_type == "create":
            seen.add(m.product_id)
        assert m.product_id in seen, f"{m.product_id} edited before it is created"
        assert phase[m.turn_index] == "active_work"
    turns = [m.turn_index for m in sc.expected_mutations]
    assert turns == sorted(turns)
    for pid in ("results_tables", "statistical_report", "sbp_change_by_arm"):
        assert len({m.turn_index for m in sc.expected_mutations if m.product_id == pid}) >= 3
    assert len(set(turns)) >= 20
    # The v1 completers row is corrected after the kPa file, not written right first time.
    kpa_turn = next(t.turn_index for t in sc.turns if t.edge_case == "corrected_file_in_kpa")
    fixes = [m for m in sc.expected_mutations if m.path == "/baseline/completers_w12/total"]
    assert fixes and all(m.turn_index > kpa_turn for m in fixes)


# --------------------------------------------------------------------------- facts and references

_NUMBER = re.compile(r"(?<![\w.])([-−]?)(\d+(?:,\d{3})*(?:\.\d+)?)")


def _numbers(text: str) -> list[float]:
    return [(-1 if m.group(1) else 1) * float(m.group(2).replace(",", "")) for m in _NUMBER.finditer(text)]


def _stated(f: ExpectedFact, text: str) -> bool:
    low = text.lower()
    words = [str(f.value), *f.keywords] if isinstance(f.value, str) else f.keywords
    if any(re.search(r"(?<!\w)" + re.escape(w.lower()) + r"(?!\w)", low) for w in words):
        return True
    if isinstance(f.value, str):
        return False
    return any(numbers_close(n, float(f.value), f.tolerance_pct) for n in _numbers(text))


def _persona_text(t: Any) -> str:
    parts = [t.human_utterance, t.chat_message or ""]
    if t.screen is not None:
        parts.append(json.dumps(t.screen.model_dump()))
    return "\n".join(parts)


def test_every_turn_has_facts_stated_in_its_reference(sc: Scenario) -> None:
    ids = [f.id for t in sc.turns for f in t.expected_facts]
    assert len(ids) == len(set(ids))
    for t in sc.turns:
        assert t.expected_facts, f"turn {t.turn_index} has no expected fact"
        assert t.reference_response
        for f in t.expected_facts:
            assert _stated(f, t.reference_response), (
                f"turn {t.turn_index}: {f.id}={f.value!r} not in reference"
            )


def test_every_turn_asks_for_something_the_persona_did_not_say(sc: Scenario) -> None:
    for t in sc.turns:
        said = _persona_text(t)
        assert any(not _stated(f, said) for f in t.expected_facts), f"turn {t.turn_index} is all parrot"


def test_edge_case_references_show_good_signals_and_no_bad_ones(sc: Scenario) -> None:
    for t in sc.turns:
        if not t.edge_case:
            continue
        e = sc.edge_case(t.edge_case)
        assert e is not None
        low = t.reference_response.lower()
        good = [s for s in e.good_signals if s.lower() in low]
        assert len(good) >= 2, f"{e.name}: {good}"
        assert not [s for s in e.bad_signals if s.lower() in low], e.name


def test_derived_numbers_in_persona_lines_match_the_solution(sc: Scenario, gt: dict[str, Any]) -> None:
    """Where the persona quotes a result ('nine', 'seven percent'), it is the solved value."""
    said_high = round(abs(gt["high_diff"]))
    nine = next(t for t in sc.turns if t.human_utterance.startswith(f"{hyp.words(said_high).capitalize()}."))
    one_sided = next(t for t in sc.turns if t.edge_case == "post_hoc_one_sided")
    assert f"{hyp.words(round(gt['low_p'] * 100))} percent" in one_sided.human_utterance
    assert (
        0.05 < gt["low_p"] < 0.10 and gt["low_p_one_sided"] < 0.05 and nine.turn_index < one_sided.turn_index
    )
    # The competitor's figure is bigger than ours: that is why the committee will hold it up.
    assert f"showed {hyp.words(said_high + 2)} millimetres" in _persona_text(sc.turns[9])
    n_said = f"{hyp.words(int(gt['n_total'])).capitalize()} randomised"
    assert n_said in next(
        t.human_utterance for t in sc.turns if "locked export from the EDC" in t.human_utterance
    )


def _mi_seed(sc: Scenario) -> int:
    """The multiple-imputation seed, as the report's methods state it."""
    methods = sc.product("statistical_report").reference["sections"][0]["text"]  # type: ignore[union-attr]
    found = re.search(r"seed (\d+)", methods)
    assert found is not None
    return int(found.group(1))


# --------------------------------------------------------------------------- fresh instances


def test_the_published_instance_is_the_committed_trial_seed() -> None:
    assert built(0).seed == hyp.SEED


def _strings(o: object) -> list[str]:
    if isinstance(o, str):
        return [o]
    if isinstance(o, dict):
        return [x for v in o.values() for x in _strings(v)]
    if isinstance(o, list | tuple):
        return [x for v in o for x in _strings(v)]
    return []


def _key_figures(sc: Scenario) -> dict[str, str]:
    """Key figures as the script writes them (a pattern each), by what they are."""
    gt = sc.ground_truth

    def g(k: str) -> float:
        v = gt[k]
        assert isinstance(v, float)
        return v

    def mm(k: str) -> str:
        return f"{abs(g(k)):.1f}"

    n, n_arm = int(g("n_total")), int(g("n_placebo"))
    return {
        "randomised": rf"(?<![\d.]){n} randomised",
        "randomised said": f"{hyp.words(n).capitalize()} randomised",
        "per arm": rf"(?<![\d.]){n_arm} per arm",
        "v1 completers": rf"(?<![\d.]){int(g('v1_completers_total'))} of {n} patients",
        "completers": rf"(?<![\d.]){int(g('completers_total'))} observed cases",
        "missing": rf"(?<![\d.]){int(g('missing_w12_total'))} of {n} patients",
        "dropout": rf"\({g('dropout_pct_total'):.1f}%\) lack",
        "kPa readings": rf"all {int(g('kpa_readings'))} {gt['kpa_site']} patients",
        "women on placebo": rf"women are {g('female_pct_placebo'):.1f}% of placebo",
        "primary": rf"(?<![\d.]){mm('high_diff')} mmHg more than placebo",
        "primary CI": rf"95% CI -{mm('high_ci_low')} to -{mm('high_ci_high')}\)",
        "primary said": rf"(?m)^{hyp.words(round(abs(g('high_diff')))).capitalize()}\. What",
        "competitor said": rf"showed {hyp.words(round(abs(g('high_diff'))) + 2)} millimetres",
        "LS mean 40 mg": rf"-{mm('ls_mean_high_dose')} mmHg on 40 mg",
        "10 mg p": rf"p = {g('low_p'):.3f} two-sided",
        "10 mg p said": rf"{hyp.words(round(g('low_p') * 100))} percent two-sided",
        "10 mg one-sided p": rf"one-sided p would be {g('low_p_one_sided'):.3f}",
        "DBP 40 mg": rf"DBP -{mm('dbp_high_diff')} mmHg",
        "responders 40 mg": rf"\({int(g('responders_high_dose'))}/{n_arm}\)",
        "risk difference": rf"(?<![\d.]){g('rd_high_pct'):.1f} percentage points",
        "NNT": rf"NNT {g('nnt_high'):.1f}",
        "40 mg risers": rf"(?<![\d.]){int(g('high_risers_n'))} of the \d+ completers on 40 mg",
        "LOCF": rf"LOCF \(-{mm('locf_high_diff')} mmHg\)",
        "MI": rf"MI \(-{mm('mi_high_diff')} mmHg\)",
        "MI seed": rf"seed {_mi_seed(sc)}\b",
        "dredged p": rf"p = {g('dredge_low_p'):.3f}, but",
        "sex interaction": rf"interaction p = {g('interaction_sex_p'):.2f}\)",
    }


def test_fresh_instance_states_no_stale_figure() -> None:
    old, new = built(0), built(1)
    old_figs, new_figs = _key_figures(old), _key_figures(new)
    text0 = "\n".join(_strings(old.model_dump(mode="json")))
    text1 = "\n".join(_strings(new.model_dump(mode="json")))
    changed = [k for k in old_figs if old_figs[k] != new_figs[k]]
    assert len(changed) >= 0.9 * len(old_figs), sorted(old_figs.keys() - set(changed))
    for k in changed:
        assert re.search(old_figs[k], text0), (k, old_figs[k])  # the pattern is how the script writes it
        assert re.search(new_figs[k], text1), (k, new_figs[k])
        assert not re.search(old_figs[k], text1), (k, old_figs[k])


