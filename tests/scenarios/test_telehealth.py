"""Checks of the SEA telehealth scenario: structure, an independent re-solve from the pushed files, products.

Every check runs on the published instance (seed 0) and on fresh instances (seeds 1-3).
"""

from __future__ import annotations

import copy
import csv
import io
import math
import re
from pathlib import Path

import pytest

from modylbench.scenarios import Scenario, apply_mutations, run_check
from modylbench.scenarios.builtin import (
    telehealth,
)

from .instances import SEEDS, instance

DATA_FILE = Path(__file__).resolve().parents[2] / "scenarios" / "data" / f"{telehealth.SCENARIO_ID}.json"
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def built(seed: int) -> Scenario:
    return instance(telehealth.SCENARIO_ID, seed)


@pytest.fixture(scope="module", params=SEEDS, ids=[f"seed{s}" for s in SEEDS])
def scenario(request: pytest.FixtureRequest) -> Scenario:
    return built(request.param)


def numbers_in(text: str) -> list[float]:
    """Every number a listener would hear in ``text`` ($82.5M, 21.3%, 1,250, 2.46x), without sign."""
    return [float(m.group().replace(",", "")) for m in _NUMBER.finditer(text)]


# ----------------------------------------------------------------------------- structure


# ----------------------------------------------------------------------------- facts and responses


def test_reference_responses_state_their_facts(scenario: Scenario) -> None:
    for t in scenario.turns:
        said = t.reference_response + " " + (t.reference_chat or "")
        heard = numbers_in(said)
        for f in t.expected_facts:
            if isinstance(f.value, str):
                words = [f.value, *f.keywords]
                assert any(w.lower() in said.lower() for w in words), (t.turn_index, f.id)
            else:
                tol = max(abs(f.value) * f.tolerance_pct / 100, 1e-9)
                assert any(abs(n - abs(f.value)) <= tol for n in heard), (t.turn_index, f.id, f.value, said)


def test_numeric_facts_are_not_parroted(scenario: Scenario) -> None:
    """A reply that repeats the persona's line must not already contain the turn's numbers."""
    parroted = 0
    numeric = 0
    for t in scenario.turns:
        heard = numbers_in(t.human_utterance + " " + (t.chat_message or ""))
        for f in t.expected_facts:
            if isinstance(f.value, str):
                continue
            numeric += 1
            tol = max(abs(f.value) * f.tolerance_pct / 100, 1e-9)
            parroted += any(abs(n - abs(f.value)) <= tol for n in heard)
    assert numeric >= 80
    assert parroted <= 2, parroted


# ----------------------------------------------------------------------------- independent re-solve


def _rows(scenario: Scenario, name: str) -> list[dict[str, str]]:
    f = scenario.data_file(name)
    assert f is not None
    return list(csv.DictReader(io.StringIO(f.content)))


def _resolve(scenario: Scenario) -> dict[str, float | str]:
    """Recompute the headline figures from the pushed files only, by a different route where one exists."""
    markets: dict[str, dict[str, float]] = {
        r["country"]: {k: float(v) for k, v in r.items() if k not in ("country", "currency")}
        for r in _rows(scenario, "sea_market_inputs.csv")
    }
    comps = _rows(scenario, "sea_competitors.csv")
    inp = telehealth.inputs(scenario.seed)
    capture = inp.capture_of_tail_pct / 100
    out: dict[str, float | str] = {}
    sam: dict[str, float] = {}
    tam: dict[str, float] = {}
    top3: dict[str, float] = {}
    for c, m in markets.items():
        # Price the segments per consult first, then multiply by volume (the builder multiplies per segment).
        blended = (
            m["out_of_pocket_share_pct"] * min(m["consult_price_usd"], m["wtp_per_consult_usd"])
            + m["private_insured_pct"] * m["consult_price_usd"]
        ) / 100
        consults = (
            m["population_m"]
            * m["urban_share_pct"]
            * m["smartphone_penetration_pct"]
            * inp.adoption_pct
            * inp.consults_per_user
            / 1e6
        )
        tam[c] = consults * m["consult_price_usd"]
        out[f"tam_usd_m_{c.lower()}"] = tam[c]
        sam[c] = consults * blended
        # Top three = the whole market minus the aggregated tail row.
        tail = sum(
            float(r["consult_share_pct"]) for r in comps if r["country"] == c and int(r["players"]) > 1
        )
        top3[c] = 100 - tail
        out[f"sam_usd_m_{c.lower()}"] = sam[c]
        out[f"som_y5_usd_m_{c.lower()}"] = (
            sam[c] * (1 + m["telehealth_cagr_pct"] / 100) ** 5 * capture * (100 - top3[c]) / 100
        )
    out["tam_usd_m_total"] = sum(tam.values())
    out["sam_usd_m_total"] = sum(sam.values())

    raw: dict[str, dict[str, float]] = {
        "market_size": sam,
        "growth": {c: m["telehealth_cagr_pct"] for c, m in markets.items()},
        "digital": {c: m["smartphone_penetration_pct"] for c, m in markets.items()},
        "regulatory": {c: m["regulatory_openness_1to10"] for c, m in markets.items()},
        "competition": {c: -top3[c] for c in markets},
        "affordability": {c: math.log10(m["health_spend_per_capita_usd"]) for c, m in markets.items()},
        "clinical_need": {c: 1 / m["physicians_per_1000"] for c, m in markets.items()},
    }

    def scores(weights: dict[str, float]) -> dict[str, float]:
        # Negated top-3 share and log10 are affine images of the builder's metrics: min-max gives the same scores.
        norm = {
            k: {c: 10 * (v - min(d.values())) / (max(d.values()) - min(d.values())) for c, v in d.items()}
            for k, d in raw.items()
        }
        return {c: sum(weights[k] * norm[k][c] for k in weights) / sum(weights.values()) for c in markets}

    base = scores(dict(inp.base_weights))
    revised = scores(dict(inp.revised_weights))
    for c in markets:
        out[f"score_base_{c.lower()}"] = base[c]
        out[f"score_revised_{c.lower()}"] = revised[c]
    out["leader_base"] = max(base, key=base.__getitem__)
    lead = max(revised, key=revised.__getitem__)
    out["leader_revised"] = lead

    def flip(weights: dict[str, float], crit: str, a: str, b: str) -> float:
        # Bisection on the weight, the others scaled proportionally (the builder solves it in closed form).
        def gap(x: float) -> float:
            rest = sum(v for k, v in weights.items() if k != crit)
            w = {k: (x * 100 if k == crit else v * (100 - x * 100) / rest) for k, v in weights.items()}
            s = scores(w)
            return s[a] - s[b]

        lo, hi = 0.0, 1.0
        sign_lo = gap(lo) > 0
        for _ in range(60):
            mid = (lo + hi) / 2
            if (gap(mid) > 0) == sign_lo:
                lo = mid
            else:
                hi = mid
        return 100 * lo

    order_b = sorted(base, key=lambda c: -base[c])
    order_r = sorted(revised, key=lambda c: -revised[c])
    out["sam_weight_flip_pct"] = flip(dict(inp.base_weights), "market_size", order_b[0], order_b[1])
    out["regulatory_weight_flip_pct"] = flip(dict(inp.revised_weights), "regulatory", order_r[0], order_r[1])

    cost = next(r for r in _rows(scenario, "entry_cost_assumptions.csv") if r["country"] == lead)
    m = markets[lead]
    ramp = [r / 100 for r in inp.ramp_pct]
    cash = [-float(cost["launch_capex_usd_m"])]
    for t in range(1, 6):
        rev = (
            sam[lead]
            * (1 + m["telehealth_cagr_pct"] / 100) ** t
            * capture
            * (100 - top3[lead])
            / 100
            * ramp[t - 1]
        )
        opex = float(cost["fixed_opex_y1_usd_m"]) * (1 + float(cost["opex_growth_pct"]) / 100) ** (t - 1)
        e = rev * float(cost["contribution_margin_pct"]) / 100 - opex
        out[f"revenue_usd_m_y{t}"] = rev
        out[f"ebitda_usd_m_y{t}"] = e
        cash.append(e)
    running = 0.0
    trough = 0.0
    for cf in cash:
        running += cf
        trough = min(trough, running)
    out["funding_need_usd_m"] = -trough
    out["break_even_year"] = float(next(t for t in range(1, 6) if cash[t] >= 0))
    r, g = inp.discount_pct / 100, inp.terminal_growth_pct / 100
    # Terminal value discounted as year-6 cash flow growing forever, i.e. Gordon at year 5.
    pv_tv = cash[5] * (1 + g) / (r - g) / (1 + r) ** 5
    out["pv_terminal_usd_m"] = pv_tv
    out["npv_usd_m"] = sum(cf / (1 + r) ** t for t, cf in enumerate(cash)) + pv_tv
    return out


def test_ground_truth_recomputed_from_files(scenario: Scenario) -> None:
    mine = _resolve(scenario)
    gt = scenario.ground_truth
    for k, v in mine.items():
        assert k in gt, k
        if isinstance(v, str):
            assert gt[k] == v, k
        else:
            assert gt[k] == pytest.approx(v, rel=1e-6, abs=1e-6), k
    assert gt["recommended_country"] == gt["leader_revised"] != gt["leader_base"]


# ----------------------------------------------------------------------------- products and mutations


def test_mutations_build_step_by_step(scenario: Scenario) -> None:
    phase = {t.turn_index: t.phase for t in scenario.turns}
    seen: set[str] = set()
    for m in scenario.expected_mutations:
        if m.product_id not in seen:
            assert m.mutation_type == "create", m
            seen.add(m.product_id)
        assert phase[m.turn_index] in ("active_work", "edge_case")
    for p in scenario.products:
        turns = {m.turn_index for m in scenario.expected_mutations if m.product_id == p.product_id}
        assert len(turns) >= 6, (p.product_id, sorted(turns))
    assert len({m.turn_index for m in scenario.expected_mutations}) >= 25
    assert scenario.expected_mutations == sorted(scenario.expected_mutations, key=lambda m: m.turn_index)


def test_weight_change_rewrites_the_ranking(scenario: Scenario) -> None:
    (turn,) = [t for t in scenario.turns if t.edge_case == "weights_changed_midway"]
    before = apply_mutations([m for m in scenario.expected_mutations if m.turn_index < turn.turn_index])
    after = apply_mutations([m for m in scenario.expected_mutations if m.turn_index <= turn.turn_index])
    assert "rank_revised" not in before["market_model"]["scores"]["indonesia"]
    assert after["market_model"]["scores"]["indonesia"]["rank_revised"] == 1
    assert after["market_model"]["scores"]["philippines"]["rank_base"] == 1


def test_criteria_use_at_least_three_kinds_of_check(scenario: Scenario) -> None:
    for o in scenario.expected_outputs:
        crits = [c for c in o.verification_criteria if not isinstance(c, str)]
        assert len({c.check_type for c in crits}) >= 3, o.product_id


def test_changed_reference_fails(scenario: Scenario) -> None:
    model = copy.deepcopy(scenario.product("market_model").reference)  # type: ignore[union-attr]
    model["sizing"]["indonesia"]["tam_usd_m"]["value"] = 2000.0
    # The figure at the first rate she gave, before the correction.
    model["valuation"]["npv_usd_m"]["value"] = round(float(scenario.ground_truth["npv_usd_m_at_10pct"]), 2)
    model["scores"]["indonesia"]["rank_revised"] = 2
    (out,) = [o for o in scenario.expected_outputs if o.product_id == "market_model"]
    failed = {
        c.id for c in out.verification_criteria if not isinstance(c, str) and not run_check(c, model).passed
    }
    assert failed == {"mm_tam_id", "mm_npv", "mm_rank_rev_id"}

    doc = copy.deepcopy(scenario.product("entry_strategy").reference)  # type: ignore[union-attr]
    doc["sections"][5]["text"] = "No material findings."
    # A section's "contains" check reads the whole paper, so the cap must go from every section to be missed.
    cap = f"{telehealth.inputs(scenario.seed).foreign_cap_pct:.0f}%"
    for section in doc["sections"]:
        section["text"] = section["text"].replace(cap, "a majority")
    doc["sections"][0]["text"] += " We will be profitable in year 1."
    (out,) = [o for o in scenario.expected_outputs if o.product_id == "entry_strategy"]
    failed = {
        c.id for c in out.verification_criteria if not isinstance(c, str) and not run_check(c, doc).passed
    }
    assert failed == {"doc_reg_cap", "doc_reg_data", "doc_rec_no_y1"}


# ----------------------------------------------------------------------------- fresh instances


def test_every_instance_keeps_the_story(scenario: Scenario) -> None:
    assert not telehealth.story_breaks(telehealth.inputs(scenario.seed))


def _strings(o: object) -> list[str]:
    if isinstance(o, str):
        return [o]
    if isinstance(o, dict):
        return [x for v in o.values() for x in _strings(v)]
    if isinstance(o, list | tuple):
        return [x for v in o for x in _strings(v)]
    return []


def _key_figures(inp: telehealth.Inputs) -> dict[str, str]:
    """Input figures as the script writes them (a pattern each), by what they are."""
    idn = inp.markets[0]
    return {
        "adoption": rf"(?<![\d.]){inp.adoption_pct:.0f}% (adoption|of urban)",
        "adoption said": rf"about {telehealth.words(inp.adoption_pct)} percent",
        "consults per user": rf"(?<![\d.]){inp.consults_per_user:g} consults",
        "consults said": rf"average {telehealth.words(inp.consults_per_user)} consults",
        "capture said": rf"Is {telehealth.words(inp.capture_of_tail_pct)} percent of the long tail",
        "Indonesian price": rf"\${idn[12]:.2f} (going )?price",
        "Indonesian urban share": rf"(?<![\d.]){idn[2]}% urban",
        "Indonesian smartphone share": rf"(?<![\d.]){idn[3]}% smartphone",
        "Indonesian out-of-pocket": rf"(?<![\d.]){idn[9]}% out-of-pocket",
        "Indonesian population said": telehealth.words(int(idn[1])).capitalize() + " million",
        "claimed TAM": re.escape(telehealth.billions(inp.claimed_tam_usd_m)),
        "claimed TAM said": rf"TAM is {telehealth.words(inp.claimed_tam_usd_m / 1000)} billion",
        "hurdle rate": rf"(?<![\d.]){inp.discount_pct:.0f}% hurdle",
        "first rate said": rf"Discount at {telehealth.words(inp.first_discount_pct)} percent",
        "terminal growth": rf"(?<![\d.]){inp.terminal_growth_pct:g}% terminal growth",
        "ownership cap": rf"at most {inp.foreign_cap_pct:.0f}% foreign-owned",
        "base weights said": re.escape(telehealth.weights_said(inp.base_weights)),
        "revised weights": "Re-ranked on "
        + "/".join(str(inp.revised_weights[k]) for k in telehealth.CRITERIA)
        + ":",
        "launch year": rf"launch(ing)? in {inp.launch_year}\b",
        "Indonesian capex": rf"\${inp.costs[0][1]:.1f}M (of )?launch capex",
    }


def test_fresh_instance_states_no_stale_figure() -> None:
    old, new = telehealth.inputs(0), telehealth.inputs(1)
    old_figs, new_figs = _key_figures(old), _key_figures(new)
    text0 = "\n".join(_strings(built(0).model_dump()))
    text1 = "\n".join(_strings(built(1).model_dump()))
    changed = [k for k in old_figs if old_figs[k] != new_figs[k]]
    assert len(changed) >= 12, changed
    for k in changed:
        assert re.search(old_figs[k], text0), (k, old_figs[k])  # the pattern is how the script writes it
        assert re.search(new_figs[k], text1), (k, new_figs[k])
        assert not re.search(old_figs[k], text1), (k, old_figs[k])


def test_the_draw_itself_repeats() -> None:
    draw = telehealth.inputs.__wrapped__  # past the cache (builds: tests/scenarios/test_fresh_instances.py)
    assert draw(5) == draw(5) != telehealth.TODAY
