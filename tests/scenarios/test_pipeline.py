"""The pipeline-diagnosis scenario: structure, an independent re-solve from the pushed CSVs, products and facts,
for the committed instance (seed 0) and fresh ones (seeds 1–3)."""

from __future__ import annotations

import copy
import csv
import datetime as dt
import io
import math
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from modylbench.scenarios import Scenario, apply_mutations, run_check
from modylbench.scenarios.builtin import (
    pipeline,
)

from .instances import SEEDS, instance

RANK = {"Lead": 0, "MQL": 1, "SQL": 2, "Opportunity": 3, "Proposal": 4, "Closed Lost": 4, "Closed Won": 5}
DATA_FILE = Path(__file__).resolve().parents[2] / "scenarios" / "data" / f"{pipeline.SCENARIO_ID}.json"
FRESH = (1, 2, 3)


def _build(seed: int) -> Scenario:
    return instance(pipeline.SCENARIO_ID, seed)


@pytest.fixture(scope="module", params=SEEDS, ids=[f"seed{s}" for s in SEEDS])
def scenario(request: pytest.FixtureRequest) -> Scenario:
    return _build(request.param)


def _seed_of(s: Scenario) -> int:
    return next(seed for seed in SEEDS if _build(seed) is s)


def _rows(s: Scenario, name: str) -> list[dict[str, str]]:
    f = s.data_file(name)
    assert f is not None
    return list(csv.DictReader(io.StringIO(f.content)))


def _week(row: dict[str, str]) -> int:
    return dt.date.fromisoformat(row["created_date"]).isocalendar()[1]


def _conv(rows: list[dict[str, str]], frm: int = 2, to: int = 3) -> tuple[int, int]:
    base = [r for r in rows if RANK[r["stage_reached"]] >= frm]
    return len(base), sum(1 for r in base if RANK[r["stage_reached"]] >= to)


def _pct(k: int, n: int) -> float:
    return 100.0 * k / n


def _z_p(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    # Plain-math pooled z-test, a different route from solve()'s scipy call.
    p = (k1 + k2) / (n1 + n2)
    z = (k1 / n1 - k2 / n2) / math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    return z, math.erfc(abs(z) / math.sqrt(2))


def test_data_is_deterministic_and_small(scenario: Scenario) -> None:
    again = pipeline.generate(pipeline.instance(_seed_of(scenario))[0])
    assert again.export_csv == scenario.data_file(pipeline.EXPORT_NAME).content  # type: ignore[union-attr]
    assert sum(len(f.content.encode()) for f in scenario.data_files) < 400_000
    assert 2500 <= len(_rows(scenario, pipeline.EXPORT_NAME)) <= 5000


def test_independent_resolve_matches_ground_truth(scenario: Scenario) -> None:
    gt = scenario.ground_truth
    rows = _rows(scenario, pipeline.EXPORT_NAME)
    q2 = [r for r in rows if 14 <= _week(r) <= 26]
    q3 = [r for r in rows if 27 <= _week(r) <= 39]
    assert gt["rows"] == len(rows) and gt["q2_leads"] == len(q2) and gt["q3_leads"] == len(q3)
    for name, quarter in (("q2", q2), ("q3", q3)):
        n, k = _conv(quarter)
        assert gt[f"{name}_sql_to_opportunity_pct"] == pytest.approx(_pct(k, n), abs=1e-4)

    mm = {q: [r for r in rows_q if r["segment"] == "Mid-Market"] for q, rows_q in (("q2", q2), ("q3", q3))}
    (n2, k2), (n3, k3) = _conv(mm["q2"]), _conv(mm["q3"])
    assert gt["sql_opp_mid_market_q2"] == pytest.approx(_pct(k2, n2), abs=1e-4)
    assert gt["sql_opp_mid_market_q3"] == pytest.approx(_pct(k3, n3), abs=1e-4)
    z, p = _z_p(k2, n2, k3, n3)
    assert gt["sql_opp_mid_market_z"] == pytest.approx(z, rel=1e-4)
    assert gt["sql_opp_mid_market_p_value"] == pytest.approx(p, rel=1e-5)
    assert gt["largest_drop_cell"] == "mid_market/sql_to_opportunity"

    mmi = [r for r in rows if r["segment"] == "Mid-Market" and r["source"] == "Inbound"]
    pre_n, pre_k = _conv([r for r in mmi if _week(r) < 31])
    post_n, post_k = _conv([r for r in mmi if _week(r) >= 31])
    assert gt["mm_inbound_pre_pct"] == pytest.approx(_pct(pre_k, pre_n), abs=1e-4)
    assert gt["mm_inbound_post_pct"] == pytest.approx(_pct(post_k, post_n), abs=1e-4)
    # The planted break is a step at week 31, not a summer sag.
    w30, w31 = _conv([r for r in mmi if _week(r) == 30]), _conv([r for r in mmi if _week(r) == 31])
    mid = (_pct(pre_k, pre_n) + _pct(post_k, post_n)) / 2
    assert _pct(w30[1], w30[0]) > mid > _pct(w31[1], w31[0])
    july = _conv([r for r in mmi if 27 <= _week(r) <= 30])
    assert gt["mm_inbound_july_pct"] == pytest.approx(_pct(july[1], july[0]), abs=1e-4)

    # Mix vs rate: the two parts add up to the total, computed from segment counts.
    total = 0.0
    mix = 0.0
    all2, all3 = _conv(q2), _conv(q3)
    for seg in pipeline.SEGMENTS:
        a = _conv([r for r in q2 if r["segment"] == seg])
        b = _conv([r for r in q3 if r["segment"] == seg])
        mix += (b[0] / all3[0] - a[0] / all2[0]) * _pct(a[1], a[0])
        total += b[0] / all3[0] * (_pct(b[1], b[0]) - _pct(a[1], a[0]))
    assert gt["mix_effect_pp"] == pytest.approx(mix, abs=1e-4)
    assert gt["rate_effect_pp"] == pytest.approx(total, abs=1e-4)
    assert mix + total == pytest.approx(_pct(all3[1], all3[0]) - _pct(all2[1], all2[0]), abs=1e-9)

    # New rep vs peers on post-change inbound SQLs.
    post = [r for r in mmi if _week(r) >= 31]
    tb = _conv([r for r in post if r["owner"] == pipeline.NEW_REP])
    peers = _conv([r for r in post if r["owner"] != pipeline.NEW_REP])
    assert gt["new_rep_vs_peers_p"] == pytest.approx(_z_p(tb[1], tb[0], peers[1], peers[0])[1], rel=1e-4)
    assert gt["new_rep_vs_peers_p"] > 0.05

    # Impact: missing opportunities × Q2 average closed-won deal × Q2 win rate.
    missing = post_n * (_pct(pre_k, pre_n) - _pct(post_k, post_n)) / 100
    won = [float(r["deal_size"]) for r in mm["q2"] if r["stage_reached"] == "Closed Won"]
    opp_n, won_n = _conv(mm["q2"], 3, 5)
    expected = missing * (sum(won) / len(won)) * won_n / opp_n
    assert gt["lost_bookings_usd"] == pytest.approx(expected, rel=1e-4)


def test_duplicates_change_the_answer_and_dedupe_restores_it(scenario: Scenario) -> None:
    gt = scenario.ground_truth
    refresh = _rows(scenario, pipeline.REFRESH_NAME)
    ids = Counter(r["opportunity_id"] for r in refresh)
    assert sum(c - 1 for c in ids.values()) == gt["refresh_duplicate_rows"]
    assert gt["refresh_duplicate_rows"] == pipeline.instance(_seed_of(scenario))[0].duplicated_sqls
    inbound = [r for r in refresh if r["source"] == "Inbound"]
    naive = _conv(inbound)
    seen: set[str] = set()
    deduped = []
    for r in inbound:
        if r["opportunity_id"] not in seen:
            seen.add(r["opportunity_id"])
            deduped.append(r)
    dd = _conv(deduped)
    assert gt["refresh_naive_q3_mm_inbound_pct"] == pytest.approx(_pct(naive[1], naive[0]), abs=1e-4)
    assert gt["refresh_dedup_q3_mm_inbound_pct"] == pytest.approx(_pct(dd[1], dd[0]), abs=1e-4)
    assert gt["refresh_dedup_q3_mm_inbound_pct"] == pytest.approx(
        gt["sql_opp_mid_market_inbound_q3"], abs=1e-9
    )
    assert (
        abs(float(gt["refresh_naive_q3_mm_inbound_pct"]) - float(gt["refresh_dedup_q3_mm_inbound_pct"])) > 3
    )
    backlog = _rows(scenario, pipeline.BACKLOG_NAME)
    assert len(backlog) == gt["mm_inbound_post_unconverted"] == gt["backlog_rows"]


def test_perturbed_references_fail(scenario: Scenario) -> None:
    contents = apply_mutations(scenario.expected_mutations)
    broken = copy.deepcopy(contents)
    broken["funnel_analysis"]["sql_to_opportunity"]["mid_market"]["q3"] += 8.0
    broken["funnel_analysis"]["impact"]["win_rate_pct"]["result"] = round(
        float(scenario.ground_truth["mm_win_rate_q3_pct"]), 2
    )
    broken["conversion_trend"]["series"][0]["values"][17] += 30.0
    broken["diagnosis_memo"]["sections"][2]["text"] = "The new hire caused the drop."
    failed = {
        c.id
        for o in scenario.expected_outputs
        for c in o.verification_criteria
        if not isinstance(c, str) and not run_check(c, broken[o.product_id]).passed
    }
    assert {"fa_mm_q3", "fa_win_rate", "ch_w31", "memo_root_rep"} <= failed


def test_mutations_build_products_step_by_step(scenario: Scenario) -> None:
    muts = scenario.expected_mutations
    turns = {m.turn_index for m in muts}
    active = {t.turn_index for t in scenario.turns if t.phase in ("active_work", "edge_case")}
    assert turns <= active
    assert len(turns) >= 15
    for pid in ("funnel_analysis", "diagnosis_memo", "conversion_trend"):
        own = [m for m in muts if m.product_id == pid]
        assert own[0].mutation_type == "create"
        assert len({m.turn_index for m in own}) >= 3, pid


_NUM = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?")


def _numbers(text: str) -> list[float]:
    return [float(m.group().replace(",", "")) for m in _NUM.finditer(text)]


def test_every_fact_is_stated_in_its_reference_response(scenario: Scenario) -> None:
    for t in scenario.turns:
        text = t.reference_response + "\n" + (t.reference_chat or "")
        for f in t.expected_facts:
            if isinstance(f.value, str):
                words = [f.value, *f.keywords]
                assert any(w.lower() in text.lower() for w in words), (t.turn_index, f.id)
            else:
                tol = max(abs(f.value) * f.tolerance_pct / 100, 1e-9)
                assert any(abs(n - f.value) <= tol for n in _numbers(text)), (t.turn_index, f.id, f.value)


_CALENDAR = re.compile(r"\b(?:weeks?|July) \d+(?:th)?(?:(?: to | through |–)\d+)?")


def test_facts_are_not_parroted_from_the_persona(scenario: Scenario) -> None:
    parroted = 0
    numeric = 0
    for t in scenario.turns:
        # Calendar references ("week 30", "weeks 14 through 39", "July 28th") are not figures.
        spoken = _CALENDAR.sub(" ", t.human_utterance + " " + (t.chat_message or ""))
        said = _numbers(spoken)
        for f in t.expected_facts:
            if isinstance(f.value, float | int):
                numeric += 1
                parroted += any(abs(n - f.value) <= abs(f.value) * f.tolerance_pct / 100 for n in said)
    assert numeric >= 60
    assert parroted == 0


# --------------------------------------------------------------------------- instances


def test_the_committed_instance_holds_every_premise_and_a_broken_one_is_named() -> None:
    _, _, sol = pipeline.instance(0)
    assert pipeline.story_breaks(sol) == []
    worse = copy.deepcopy(sol)
    worse.gt["largest_drop_cell"] = "enterprise/proposal_to_won"
    worse.gt["new_rep_vs_peers_p"] = 0.01
    assert pipeline.story_breaks(worse) == [
        "the largest drop is mid-market SQL→opportunity",
        "the new AE is below his peers, not significantly",
    ]


@pytest.mark.parametrize("seed", FRESH)
def test_fresh_inputs_stay_near_the_committed_ones(seed: int) -> None:
    inputs = pipeline.instance(seed)[0]
    base = pipeline.Inputs()
    assert inputs.generator_seed != base.generator_seed and inputs.systematic
    for key, volume in base.lead_volume.items():
        assert 0.8 * volume <= inputs.lead_volume[key] <= 1.2 * volume
    for name in ("p_mql", "p_sql", "p_opp", "p_proposal"):
        for key, p in getattr(base, name).items():
            assert 0.9 * p <= getattr(inputs, name)[key] <= 1.1 * p, (name, key)
    assert 0.65 * base.p_opp_after_routing <= inputs.p_opp_after_routing <= 0.9 * base.p_opp_after_routing
    assert 0.75 * base.duplicated_sqls <= inputs.duplicated_sqls <= 1.25 * base.duplicated_sqls
    assert inputs != base


def _numeric_facts(s: Scenario) -> dict[str, float]:
    return {
        f.id: float(f.value) for t in s.turns for f in t.expected_facts if isinstance(f.value, int | float)
    }


def _strings(x: Any) -> Iterator[str]:
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from _strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from _strings(v)


def _pc(x: float) -> str:
    return f"{x:.1f}%"


def _kusd(x: float) -> str:
    return f"${x / 1e3:.1f}K"


def _musd(x: float) -> str:
    return f"${x / 1e6:.2f}M"


# Key figures, written the way the script writes them.
KEY_FIGURES = {
    "mm_inbound_pre_pct": _pc,
    "mm_inbound_post_pct": _pc,
    "sql_opp_mid_market_q2": _pc,
    "sql_opp_mid_market_q3": _pc,
    "sql_opp_mid_market_inbound_q2": _pc,
    "sql_opp_mid_market_inbound_q3": _pc,
    "q2_sql_to_opportunity_pct": _pc,
    "q3_sql_to_opportunity_pct": _pc,
    "mm_inbound_july_pct": _pc,
    "other_pre_pct": _pc,
    "other_post_pct": _pc,
    "refresh_naive_q3_mm_inbound_pct": _pc,
    "mm_share_of_drop_pct": _pc,
    "mm_win_rate_q2_pct": _pc,
    "peers_post_pct": _pc,
    "lost_bookings_usd": _kusd,
    "lost_bookings_q3_winrate_usd": _kusd,
    "mm_avg_won_deal_usd": _kusd,
    "q3_mm_bookings_usd": _kusd,
    "lost_pipeline_usd": _musd,
    "rows": lambda x: f"{int(x):,} records",
    "refresh_duplicate_rows": lambda x: f"{int(x)} duplicate",
    "mm_inbound_post_sqls": lambda x: f"{int(x)} mid-market inbound SQLs",
    "sql_opp_mid_market_z": lambda x: f"z = {x:.2f}",
    "holdout_sqls_per_arm": lambda x: f"{int(x)} SQLs per arm",
}


def test_no_string_of_a_fresh_instance_keeps_a_committed_figure() -> None:
    old, new = _build(0), _build(1)
    dumped = new.model_dump()
    dumped.pop("data_files")
    text = "\n".join(_strings(dumped))
    # A figure the new instance states for another quantity is not a leftover.
    own = {
        fmt(float(v))
        for fmt in set(KEY_FIGURES.values())
        for v in new.ground_truth.values()
        if isinstance(v, float | int)
    }
    changed = {
        key: fmt(float(old.ground_truth[key]))  # type: ignore[arg-type]
        for key, fmt in KEY_FIGURES.items()
        if fmt(float(old.ground_truth[key])) != fmt(float(new.ground_truth[key]))  # type: ignore[arg-type]
    }
    assert len(changed) >= 0.8 * len(KEY_FIGURES)
    leftovers = {k: v for k, v in changed.items() if v in text and v not in own}
    assert not leftovers
    for key, figure in changed.items():
        assert figure in "\n".join(_strings(old.model_dump())), key  # the figure is written this way


