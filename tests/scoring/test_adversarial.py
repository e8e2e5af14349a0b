"""The adversarial suite (issue 13, item 9): what the scores must be, for every built-in scenario.

tests/support/modylbench_testsupport/adversarial.py derives, from each scenario, correct agents in many styles,
gaming agents and partially correct agents. A fair benchmark that cannot be gamed rates every
correct style at Consultant (>= 9.0), every gaming strategy below Peer (< 6.0) and the partial
agents in between, rising with how much is right; with the offline judge alone and with a panel
that adds a lenient LLM judge (served by a real local HTTP server). The reference agent's
responses for seed 0 scored against the scenario built with seed 1 must fall below Peer.

Each scenario's lines are scored once per session (one ``score`` call) and shared by the tests.
"""

from __future__ import annotations

import copy
import inspect
import json
from functools import cache
from typing import Any

import pytest

from modylbench.record import ScenarioResponses
from modylbench.scenarios import Scenario, resolve_scenarios
from modylbench.scoring import ScenarioScore, make_judges, score
from modylbench_testsupport import adversarial as ADV

from .openai_server import Answer, Script, good, openai_server

SCENARIOS: dict[str, Scenario] = resolve_scenarios([])
IDS = sorted(SCENARIOS)
# The panel sends every item of every strategy over HTTP: about 2,200 requests and 20-25 s per
# scenario on a laptop-class machine, so one scenario (Consultant tier) runs by default and the
# other five with --run-slow.
PANEL_DEFAULT = [s for s in ("financial_analyst_lbo_model",) if s in SCENARIOS]
LENIENT = 9.5
CORRECT_MIN, GAMING_MAX = 9.0, 6.0


def _lines(sc: Scenario) -> list[dict[str, Any]]:
    return [ADV.STRATEGIES[name](sc) for name in ADV.STRATEGIES]


def _by_model(card_entries: list[ScenarioScore]) -> dict[str, float]:
    out = {}
    for e in card_entries:
        assert e.modylbench_score is not None, f"{e.model_id}: unscored {e.unscored}"
        out[e.model_id] = e.modylbench_score
    return out


@cache
def offline_scores(sid: str) -> dict[str, float]:
    """strategy -> offline score on scenario ``sid``."""
    sc = SCENARIOS[sid]
    lines = [ScenarioResponses.model_validate(x) for x in _lines(sc)]
    card = score(lines, {sid: sc}, make_judges(["offline"]))
    return _by_model(card.scenarios)


class LenientLLM(Script):
    """A judge model that answers 9.5 on every dimension it is asked for, whatever it is shown."""

    def next(self, body: dict[str, Any]) -> Answer:
        with self.lock:
            self.requests.append({"model": body.get("model")})
        props = body["response_format"]["json_schema"]["schema"]["properties"]
        return good({d: LENIENT for d in props if d != "rationale"}, "looks great")


@cache
def panel_scores(sid: str) -> dict[str, float]:
    """strategy -> score by the panel [offline, lenient LLM] on scenario ``sid``."""
    sc = SCENARIOS[sid]
    lines = [ScenarioResponses.model_validate(x) for x in _lines(sc)]
    script = LenientLLM()
    with openai_server(script) as url:
        judges = make_judges(["offline", f"openai/lenient@{url}"], concurrency=32, max_attempts=1)
        card = score(lines, {sid: sc}, judges)
    assert script.requests, "the LLM judge was never asked"
    return _by_model(card.scenarios)


def _table(scores: dict[str, float], names: list[str]) -> str:
    return ", ".join(f"{n}={scores[n]:.2f}" for n in names)


# --------------------------------------------------------------------------- the suite itself


def test_suite_covers_the_issue() -> None:
    assert len(ADV.CORRECT_STYLES) >= 12
    assert len(ADV.GAMING) >= 15
    assert ADV.PARTIAL == ["partial_25", "partial_50", "partial_75"]
    groups = [set(ADV.CORRECT_STYLES), set(ADV.GAMING), set(ADV.PARTIAL)]
    assert sum(len(g) for g in groups) == len(set().union(*groups)) == len(ADV.STRATEGIES)
    assert set(ADV.GAMING) >= {
        "polite_only", "verbose_formatted", "confident_wrong", "prompt_injection", "final_state_dump",
        "final_state_burst", "scenario_echo", "late_split_dump", "late_per_turn_dump", "snapshot_only",
        "silent_journey", "number_spray", "candidate_spray", "hedging", "concede_edge_cases",
        "keyword_stuffing", "template_echo", "next_turn_echo", "products_only",
    }
    assert all(ADV.describe(n) for n in ADV.STRATEGIES)


@pytest.mark.parametrize("sid", IDS)
def test_lines_are_valid_and_deterministic(sid: str) -> None:
    sc = SCENARIOS[sid]
    for name, fn in ADV.STRATEGIES.items():
        a, b = fn(sc), fn(sc)
        assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True), name
        r = ScenarioResponses.model_validate(a)
        assert r.scenario_id == sid and r.model_id == name
        assert [t.turn_index for t in r.turns] == list(range(len(sc.turns)))


def _replayed(line: dict[str, Any]) -> dict[str, Any]:
    """Apply the recorded trajectory, checking each edit's old value against the state before it."""
    edits = []
    for m in line["mutation_trajectory"]:
        edits.append(ADV.Edit(m["turn_index"], m["product_id"], m["mutation_type"], m["path"], m["new_value"]))
    traj, contents = ADV.replay(edits)
    for got, want in zip(traj, line["mutation_trajectory"], strict=True):
        assert got["old_value"] == want["old_value"], (want["product_id"], want["path"])
    return contents


@pytest.mark.parametrize("sid", IDS)
def test_correct_styles_edit_consistently(sid: str) -> None:
    """Each correct style's trajectory, replayed, gives exactly its final products, in time order."""
    sc = SCENARIOS[sid]
    for name in [*ADV.CORRECT_STYLES, *ADV.PARTIAL]:
        line = ADV.STRATEGIES[name](sc)
        turns = [m["turn_index"] for m in line["mutation_trajectory"]]
        assert turns == sorted(turns), name
        contents = _replayed(line)
        delivered = {p["product_id"]: p["content"] for p in line["work_products"]}
        assert delivered == {pid: contents[pid] for pid in delivered}, name
        assert set(delivered) == {o.product_id for o in sc.expected_outputs if o.product_id}, name


@pytest.mark.parametrize("sid", IDS)
def test_correct_styles_make_edits_when_the_reference_does(sid: str) -> None:
    """Every style except the two-turns-late one edits each product in exactly the reference's turns."""
    sc = SCENARIOS[sid]
    ref_turns = {(m.product_id, m.turn_index) for m in sc.expected_mutations}
    for name in ADV.CORRECT_STYLES:
        turns = {(m["product_id"], m["turn_index"]) for m in ADV.STRATEGIES[name](sc)["mutation_trajectory"]}
        if name == "edits_two_turns_late":
            last = len(sc.turns) - 1
            assert turns == {(p, min(t + 2, last)) for p, t in ref_turns}
        else:
            assert turns == ref_turns, name


@pytest.mark.parametrize("sid", IDS)
def test_styles_change_what_they_claim(sid: str) -> None:
    """A style that leaves the reference untouched tests nothing: each must differ from it somewhere."""
    sc = SCENARIOS[sid]
    ref = json.dumps(ADV.STRATEGIES["reference"](sc) | {"model_id": ""}, sort_keys=True)
    scaled_money = any(f.unit in ("$M", "$K", "$B") for t in sc.turns for f in t.expected_facts)
    for name in ADV.CORRECT_STYLES:
        if name == "full_digits" and not scaled_money:
            continue  # every amount is already in full dollars (or there is no money at all)
        if name != "reference":
            line = ADV.STRATEGIES[name](sc) | {"model_id": ""}
            assert json.dumps(line, sort_keys=True) != ref, name


# --------------------------------------------------------------------------- offline judge


@pytest.mark.parametrize("sid", IDS)
@pytest.mark.parametrize("style", ADV.CORRECT_STYLES)
def test_correct_style_reaches_consultant(sid: str, style: str) -> None:
    assert offline_scores(sid)[style] >= CORRECT_MIN


@pytest.mark.parametrize("sid", IDS)
@pytest.mark.parametrize("strategy", ADV.GAMING)
def test_gaming_stays_below_peer(sid: str, strategy: str) -> None:
    assert offline_scores(sid)[strategy] < GAMING_MAX


def _check_partial(scores: dict[str, float]) -> None:
    """Partial agents rise strictly with p and stay below Consultant; three quarters right beats every
    gaming strategy, a quarter right beats the agents with nothing right (a quarter-right agent may
    legitimately sit below a gamer capped at the floor, so the lower ones are not held to that)."""
    got = [scores[n] for n in ADV.PARTIAL]
    assert got == sorted(got) and len(set(got)) == len(got), _table(scores, ADV.PARTIAL)
    assert all(x < CORRECT_MIN for x in got), _table(scores, ADV.PARTIAL)
    best_gaming = max(scores[n] for n in ADV.GAMING)
    assert got[-1] > best_gaming, f"{_table(scores, ADV.PARTIAL)}; best gaming {best_gaming:.2f}"
    nothing = max(scores[n] for n in ("polite_only", "template_echo", "scenario_echo"))
    assert got[0] > nothing, f"{_table(scores, ADV.PARTIAL)}; nothing-right agents {nothing:.2f}"


@pytest.mark.parametrize("sid", IDS)
def test_partial_agents_rise_with_how_much_is_right(sid: str) -> None:
    _check_partial(offline_scores(sid))


# --------------------------------------------------------------------------- panel with a lenient LLM


def _check_panel(sid: str) -> None:
    scores = panel_scores(sid)
    low = {n: round(scores[n], 2) for n in ADV.CORRECT_STYLES if scores[n] < CORRECT_MIN}
    high = {n: round(scores[n], 2) for n in ADV.GAMING if scores[n] >= GAMING_MAX}
    assert not low, f"correct styles below {CORRECT_MIN} with the panel: {low}"
    assert not high, f"gaming strategies at or above {GAMING_MAX} with the panel: {high}"
    _check_partial(scores)


@pytest.mark.parametrize("sid", PANEL_DEFAULT)
def test_panel_with_lenient_llm(sid: str) -> None:
    """The panel's pessimistic consensus keeps the bounds even when the LLM rates everything 9.5."""
    _check_panel(sid)


@pytest.mark.slow
@pytest.mark.parametrize("sid", [s for s in IDS if s not in PANEL_DEFAULT])
def test_panel_with_lenient_llm_all_scenarios(sid: str) -> None:
    _check_panel(sid)


# --------------------------------------------------------------------------- fresh instances


def _build_with_seed(sid: str, seed: int) -> Scenario:
    from modylbench.scenarios.builtin import build

    if "seed" not in inspect.signature(build).parameters:
        pytest.skip("modylbench.scenarios.builtin.build has no seed parameter yet (issue 13, item 8)")
    try:
        return build(sid, seed=seed)  # type: ignore[call-arg]
    except TypeError as exc:
        pytest.skip(f"{sid}: its builder takes no seed yet ({exc})")


@pytest.mark.parametrize("sid", IDS)
def test_memorised_answers_fail_a_fresh_instance(sid: str) -> None:
    """The oracle's responses for seed 0, scored against the scenario built with seed 1: below Peer."""
    fresh = _build_with_seed(sid, 1)
    assert fresh.scenario_id == sid
    old = ADV.STRATEGIES["reference"](SCENARIOS[sid])
    assert json.dumps(ADV.STRATEGIES["reference"](fresh)) != json.dumps(old), "seed 1 changed nothing"
    card = score([ScenarioResponses.model_validate(copy.deepcopy(old))], {sid: fresh}, make_judges(["offline"]))
    (entry,) = card.scenarios
    assert entry.modylbench_score is not None and entry.modylbench_score < GAMING_MAX
