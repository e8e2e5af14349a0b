"""The evidence model (docs/scoring.md, "What counts as evidence"): each rule, shown on a built-in scenario.

A credit needs a change toward the truth, made by the agent, in its window, stated precisely, against
the meeting as scheduled. Each test builds one agent from the reference solution (fixtures/responses/
adversarial.py) that breaks or keeps one part of that sentence, and checks the score follows.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from modylbench.record import ScenarioResponses
from modylbench.scenarios import ExpectedFact, Scenario, number_matches, quantities, resolve_scenarios
from modylbench.scoring import ScenarioScore, make_judges, score
from modylbench_testsupport import adversarial as ADV

SCENARIOS: dict[str, Scenario] = resolve_scenarios([])
LBO = SCENARIOS["financial_analyst_lbo_model"]


def _score(line: dict[str, Any], sc: Scenario = LBO) -> ScenarioScore:
    return score([ScenarioResponses.model_validate(line)], {sc.scenario_id: sc}, make_judges(["offline"])).scenarios[0]


@cache
def _reference(sid: str) -> float:
    sc = SCENARIOS[sid]
    s = _score(ADV.emit(sc, "reference", ADV.reference_work(sc)), sc).modylbench_score
    assert s is not None
    return s


def _final_edits(sc: Scenario) -> list[Any]:
    """The reference's final products, one whole-product write each."""
    _, final = ADV.replay(ADV.reference_work(sc).edits)
    return [ADV.Edit(0, pid, "update_value", "", copy.deepcopy(v)) for pid, v in sorted(final.items())]


# --------------------------------------------------------------------------- evidence is a change


@pytest.mark.parametrize("how", ["rewrite", "blank_refill"])
def test_touching_a_value_held_before_it_was_asked_for_is_no_evidence(how: str) -> None:
    """Final products written at turn 0, then rewritten whole every turn (or blanked and refilled): the
    right words throughout, yet almost no expected edit is a change made in its window."""
    sc = LBO
    w = ADV.reference_work(sc)
    final = _final_edits(sc)
    edits = list(final)
    for t in range(1, len(sc.turns)):
        for e in final:
            if how == "blank_refill" and t % 2 == 1:
                edits.append(replace(e, turn=t, value={}))
            else:
                edits.append(replace(e, turn=t))
    card = _score(ADV.emit(sc, how, ADV.Work(w.speech, w.chat, edits)))
    assert card.modylbench_score is not None and card.modylbench_score < 6.0
    for p in card.products:
        if p.expected_mutations_total:
            assert p.expected_mutations_matched is not None
            assert p.expected_mutations_matched <= p.expected_mutations_total // 3, p.product_id


def test_the_same_products_built_in_time_are_evidence() -> None:
    """The control: the same final products reached edit by edit in their windows score as the reference."""
    assert _reference(LBO.scenario_id) >= 9.0


def test_the_evidence_cap_is_a_slope() -> None:
    """Holding back a share of every product's edits to the last turn costs in proportion, with no step."""
    sc = LBO
    w = ADV.reference_work(sc)
    last = len(sc.turns) - 1
    scores = []
    for share in (0.0, 0.25, 0.5, 0.75):
        edits = []
        for k, e in enumerate(w.edits):
            held = e.mtype != "create" and (k % 4) < round(share * 4)
            edits.append(replace(e, turn=last) if held else e)
        s = _score(ADV.emit(sc, f"held_{share}", ADV.Work(w.speech, w.chat, edits))).modylbench_score
        assert s is not None
        scores.append(s)
    assert scores == sorted(scores, reverse=True)
    assert scores[2] < 8.0  # half the work held back is not Mentor any more (it cost almost nothing before)
    steps = [a - b for a, b in zip(scores, scores[1:], strict=False)]
    assert max(steps) < 2.5, scores  # no cliff


def test_snapshots_replay_a_chart_that_gains_a_series() -> None:
    """Per-turn snapshots without an edit log: every list growth replays (no replay error), and the
    products keep their score."""
    sc = next(s for s in SCENARIOS.values() if any(p.output_type == "chart" for p in s.products))
    w = ADV.reference_work(sc)
    line = ADV.emit(sc, "snap", w, trajectory=False)
    contents: dict[str, Any] = {}
    by_turn: dict[int, list[Any]] = {}
    for e in sorted(w.edits, key=lambda e: e.turn):
        by_turn.setdefault(e.turn, []).append(e)
    for t in line["turns"]:
        for e in by_turn.get(t["turn_index"], []):
            _, contents = ADV.replay([*_as_edits(contents), e])
        t["work_products"] = ADV.products_of(sc, contents)
    card = _score(line, sc)
    assert "trajectory_replay_error" not in card.flags
    assert card.modylbench_score is not None and card.modylbench_score >= 9.0


def _as_edits(contents: dict[str, Any]) -> list[Any]:
    return [ADV.Edit(0, pid, "create", "", copy.deepcopy(v)) for pid, v in contents.items()]


def test_an_edit_that_cannot_be_replayed_is_flagged() -> None:
    sc = LBO
    w = ADV.reference_work(sc)
    line = ADV.emit(sc, "bad_path", w)
    line["mutation_trajectory"].append({"turn_index": 3, "product_id": sc.products[0].product_id,
                                        "mutation_type": "update_value", "path": "/no/such/list/7/x",
                                        "old_value": None, "new_value": 1})
    # A list where a dict is expected: "/no/such/list" exists nowhere, so build one that cannot descend.
    line["mutation_trajectory"].insert(0, {"turn_index": 3, "product_id": sc.products[0].product_id,
                                           "mutation_type": "update_value", "path": "/no", "old_value": None,
                                           "new_value": 5})
    assert "trajectory_replay_error" in _score(line).flags


# --------------------------------------------------------------------------- the meeting as scheduled


def test_leaving_early_scores_against_the_scheduled_meeting() -> None:
    sc = LBO
    line = ADV.emit(sc, "leaver", ADV.reference_work(sc))
    line["turns"] = [t for t in line["turns"] if t["turn_index"] < 2]
    line["mutation_trajectory"] = [m for m in line["mutation_trajectory"] if m["turn_index"] < 2]
    line["work_products"] = []
    line.update(termination_reason="agent_disconnected", turns_played=2, turns_scheduled=len(sc.turns))
    card = _score(line)
    assert card.modylbench_score is not None and card.modylbench_score < 4.0
    assert len(card.turns) == len(sc.turns)


def test_evaluate_refuses_a_line_of_another_instance(tmp_path: Path) -> None:
    line = ADV.emit(LBO, "seeded", ADV.reference_work(LBO))
    line["scenario_seed"] = 0
    src = tmp_path / "r.jsonl"
    src.write_text(json.dumps(line) + "\n")
    cmd = [sys.executable, "-m", "modylbench.simulator.cli", "evaluate", "--responses", str(src),
           "--output", str(tmp_path / "s.json"), "--seed", "1", "--quiet", "--progress", "off"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().count("\n") == 0 and "instance 0" in done.stderr and "--seed 1" in done.stderr
    # Without --seed the line is scored on its own instance, and the scorecard says which.
    ok = subprocess.run(cmd[:-5] + ["--quiet", "--progress", "off"], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    card = json.loads((tmp_path / "s.json").read_text())
    assert card["scenarios"][0]["scenario_seed"] == 0


# --------------------------------------------------------------------------- stated precisely


def _fact(value: float, unit: str) -> ExpectedFact:
    return ExpectedFact(id="f", description="price", value=value, unit=unit, tolerance_pct=0.5)


@pytest.mark.parametrize(("said", "ok"), [
    ("$57.5M", True), ("57.5 million", True), ("$57,500,000", True), ("57.5", True),
    ("$57.5K", False), ("$57.5 billion", False), ("57.5 thousand", False), ("$57.5bn", False),
])
def test_a_quantity_is_its_digits_its_scale_and_its_unit(said: str, ok: bool) -> None:
    f = _fact(57.5, "$M")
    assert any(number_matches(q, float(f.value), f.unit, f.tolerance_pct) for q in quantities(said)) is ok


def _with_speech(sc: Scenario, fn: Any, chat: Any = None) -> dict[str, Any]:
    w = ADV.reference_work(sc)
    speech = [fn(t, s) for t, s in enumerate(w.speech)]
    chats = w.chat if chat is None else [chat(t, c) for t, c in enumerate(w.chat)]
    return ADV.emit(sc, "variant", ADV.Work(speech, chats, w.edits))


def test_retracting_every_figure_withdraws_the_claims() -> None:
    card = _score(_with_speech(LBO, lambda t, s: s + " Actually, disregard that."))
    assert card.journey is not None and card.journey < 6.0


def test_a_retraction_opening_the_next_turn_withdraws_the_last_one() -> None:
    card = _score(_with_speech(LBO, lambda t, s: ("Disregard what I said last turn. " if t else "") + s))
    assert card.journey is not None and card.journey < 6.0


def test_a_self_correction_said_as_such_keeps_the_claim() -> None:
    """'27%... sorry, I misspoke: 24.6%, not 27%' states 24.6%."""

    def corrected(t: int, s: str) -> str:
        facts = [f for f in LBO.turns[t].expected_facts if isinstance(f.value, int | float)]
        if not facts:
            return s
        f = facts[0]
        wrong = float(f.value) * 1.37
        return f"My first read was {wrong:.4g}{'%' if f.unit == '%' else ''}. " + \
            f"Sorry, I misspoke: {s}"

    card = _score(_with_speech(LBO, corrected))
    assert card.modylbench_score is not None and card.modylbench_score >= 9.0


def test_a_different_headline_figure_every_turn_weakens_the_claims() -> None:
    """Each turn restates the previous turn's figures changed by a third, naming them, without a correction."""

    def restate(t: int, s: str) -> str:
        if t == 0:
            return s
        prev = [f for f in LBO.turns[t - 1].expected_facts if isinstance(f.value, int | float) and f.value]
        extra = " ".join(f"The {f.description} is {float(f.value) * 1.33:.4g}{f.unit if f.unit in ('%', 'x') else ''}."
                         for f in prev)
        return s + " " + extra

    card = _score(_with_speech(LBO, restate))
    flagged = sum(1 for t in card.turns if "restated_differently" in t.flags)
    assert flagged >= len(LBO.turns) // 3
    assert card.journey is not None and card.journey < _score(ADV.emit(LBO, "r", ADV.reference_work(LBO))).journey - 1.0


# --------------------------------------------------------------------------- curveballs, timing


def test_a_neutral_reply_to_every_curveball_is_not_handling_it() -> None:
    edge_turns = {t.turn_index for t in LBO.turns if t.edge_case}
    card = _score(_with_speech(LBO, lambda t, s: "Noted, thanks. Let's keep going." if t in edge_turns else s,
                               lambda t, c: [] if t in edge_turns else c))
    assert "edge_cases_unhandled" in card.flags
    assert card.modylbench_score is not None and card.modylbench_score <= 4.5


@pytest.mark.parametrize("sid", sorted(SCENARIOS))
def test_an_answer_a_turn_late_after_a_question_is_credited(sid: str) -> None:
    """Every turn: a clarifying question now, the answer at the start of the agent's next turn (with several
    people, lines for someone else stay quiet, as the reference does: the answer waits for the agent's turn)."""
    sc = SCENARIOS[sid]
    w = ADV.reference_work(sc)
    n = len(sc.turns)
    own = [t for t in range(n) if not sc.expects_quiet(sc.turns[t])]
    speech, chat = list(w.speech), list(w.chat)
    for k, t in enumerate(own):
        ask = "Before I answer: which basis do you want me to use? I'll confirm next turn."
        prev = w.speech[own[k - 1]] if k else ""
        speech[t] = (prev + " " + (ask if k < len(own) - 1 else w.speech[t])).strip()
    card = _score(ADV.emit(sc, "late", ADV.Work(speech, chat, w.edits)), sc)
    assert card.modylbench_score is not None and card.modylbench_score >= 9.0, card.flags
    assert sum(1 for t in card.turns if "answered_late" in t.flags) >= n // 2


def test_an_answer_two_turns_late_is_not_credited() -> None:
    sc = LBO
    w = ADV.reference_work(sc)
    speech = ["Let me come back on that."] * 2 + w.speech[:-2]
    card = _score(ADV.emit(sc, "late2", ADV.Work(speech, w.chat, w.edits)))
    assert card.modylbench_score is not None and card.modylbench_score < 6.0


def test_what_the_network_destroyed_is_not_charged_to_the_agent() -> None:
    """A turn whose speech the network lost, answered badly, is left out of the journey; a turn it impaired
    that the agent answered well keeps its score."""
    sc = LBO
    line = ADV.emit(sc, "net", ADV.reference_work(sc))
    lost = 7
    for t in line["turns"]:
        if t["turn_index"] == lost:
            t["agent_response"] = ""
            t.pop("chat_messages", None)
    plain = _score(copy.deepcopy(line))
    line["measurements"] = {"network": {"impaired": [
        {"turn_index": lost, "kind": "speech_to_agent", "lost_pct": 12.0},
        {"turn_index": 3, "kind": "speech_to_agent", "lost_pct": 6.0},
    ]}}
    card = _score(line)
    by = {t.turn_index: t for t in card.turns}
    assert "network_excused" in by[lost].flags and "network_excused" not in by[3].flags
    assert "network_impaired" in card.flags
    assert card.journey is not None and plain.journey is not None and card.journey > plain.journey
    assert card.journey == pytest.approx(sum(t.score for t in card.turns if t.turn_index != lost) / (len(card.turns) - 1))


def test_a_slice_played_to_its_scheduled_end_did_not_end_early() -> None:
    sc = LBO
    line = ADV.emit(sc, "slice", ADV.reference_work(sc))
    line["turns"] = [t for t in line["turns"] if t["turn_index"] < 2]
    line["mutation_trajectory"] = [m for m in line["mutation_trajectory"] if m["turn_index"] < 2]
    line["work_products"] = []
    line.update(termination_reason="max_turns", turns_played=2, turns_scheduled=2)
    card = _score(line)
    assert "max_turns" in card.flags and "ended_early" not in card.flags


def test_evaluate_does_not_take_a_files_word_for_what_the_network_destroyed(tmp_path: Path) -> None:
    """network_excused rests on the session record; a responses line claiming an impaired network excuses nothing."""
    line = ADV.emit(LBO, "claims_network", ADV.reference_work(LBO))
    for t in line["turns"]:
        if t["turn_index"] == 7:
            t["agent_response"] = ""
            t.pop("chat_messages", None)
    from modylbench.record import turn_taking

    claimed = turn_taking([]).model_dump(mode="json")
    line["measurements"] = {"network": {"impaired": [{"turn_index": 7, "kind": "speech_to_agent"}]},
                            "turn_taking": claimed}
    src = tmp_path / "r.jsonl"
    src.write_text(json.dumps(line) + "\n")
    out = tmp_path / "s.json"
    done = subprocess.run([sys.executable, "-m", "modylbench.simulator.cli", "evaluate", "--responses", str(src),
                           "--output", str(out), "--quiet", "--progress", "off"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    entry = json.loads(out.read_text())["scenarios"][0]
    turn7 = next(t for t in entry["turns"] if t["turn_index"] == 7)
    assert "network_excused" not in turn7["flags"] and "network_impaired" not in entry["flags"]
    # The turn-taking panel is measured from a record, never taken from a file either.
    assert entry["turn_taking"] is None


# --------------------------------------------------------------------------- what the agent was shown (issue 23)


def test_a_calendar_year_is_a_label_not_a_measurement() -> None:
    """2026 is within 0.5 % of 2027, yet it does not state it; a year said right does."""
    from modylbench.scenarios import same_number

    assert not same_number(2026, 2027.0) and not same_number("2030", 2029.0)
    assert same_number(2027, 2027.0) and same_number("2027", 2027.0)
    assert same_number(2026.4, 2027.0 * 0.9999)  # not a whole year on the agent's side: a measurement


def _telehealth(seed: int) -> Scenario:
    from modylbench.scenarios.builtin import build

    return build("business_strategist_telehealth_entry", seed)


def test_a_heading_the_template_holds_is_no_evidence_for_a_section() -> None:
    """A section whose heading the template already holds and whose text states 60 % of its figures was
    on time by the 80 % rule (heading 1.0, text 0.6); its text alone is the work, so it is not."""
    from modylbench.record import Mutation
    from modylbench.scoring._evidence import edit_evidence

    sc = _telehealth(0)
    i, e = next((i, m) for i, m in enumerate(sc.expected_mutations)
                if m.product_id == "entry_strategy" and m.mutation_type == "add_section"
                and len(quantities((m.value or m.expected_value)["text"])) >= 5)
    want = e.value or e.expected_value
    import re

    nums = list(re.finditer(r"\d+\.\d+", want["text"]))
    assert len(nums) >= 5
    text = want["text"]
    for m in reversed(nums[len(nums) * 6 // 10:]):  # the last 40 % of its decimal figures said wrong
        text = text[: m.start()] + "999.9" + text[m.end():]

    def ev(t: str) -> Any:
        m = Mutation(turn_index=e.turn_index, product_id=e.product_id, mutation_type="update_value",
                     path=e.path, old_value=None, new_value={"title": want["title"], "text": t})
        return edit_evidence([m], sc).edits[i]
    assert ev(want["text"]).status == "on_time"
    assert ev(text).status != "on_time"


def test_a_lookup_of_a_shown_input_counts_half_and_derived_work_does_not() -> None:
    """A value whose every figure the meeting showed (a pushed file's cell) is a lookup; a figure worked out
    from the inputs is not. Lookups and public edits weigh half in a product's evidence share."""
    from modylbench.scoring._offline import is_lookup, shown_numbers
    from modylbench.scoring._scorecard import _public_edits

    sc = _telehealth(1)
    shown = shown_numbers(sc)
    facts = {f.id: f for t in sc.turns for f in t.expected_facts}
    assert is_lookup(facts["f05_sg_top3"].value, shown)  # read off the competitor file
    assert not is_lookup(facts["f07_tam_total"].value, shown)  # the combined TAM: derived
    assert not is_lookup("pre-tax", shown) and not is_lookup(2030, shown)  # no figure, or a year only
    half = _public_edits(sc)
    lookups = [i for i, m in enumerate(sc.expected_mutations)
               if is_lookup(m.value if m.value is not None else m.expected_value, shown)]
    assert lookups and set(lookups) <= half


def test_what_counts_half_is_worth_what_the_line_shows_of_its_own_work() -> None:
    """On a fresh instance, seed 0's answer recited (its public talking points right, its figures stale) keeps
    half the credit of the public facts; the reference, stating the meeting's own facts, keeps all of it."""
    from modylbench.record import TurnResponse
    from modylbench.scoring._offline import own_fact_share

    sc, pub = _telehealth(1), _telehealth(0)
    ref = {t.turn_index: TurnResponse(turn_index=t.turn_index, agent_response=t.reference_response) for t in sc.turns}
    recited = {t.turn_index: TurnResponse(turn_index=t.turn_index, agent_response=t.reference_response)
               for t in pub.turns}
    assert own_fact_share(sc, ref) == pytest.approx(1.0, abs=0.05)
    assert own_fact_share(sc, recited) < 0.2
    # A turn whose facts are all public (text talking points the instances share) scores lower for the recital.
    ti = next(t.turn_index for t in sc.turns
              if t.expected_facts and all(isinstance(f.value, str) for f in t.expected_facts)
              and t.reference_response == pub.turns[t.turn_index].reference_response)
    line_ref = {"scenario_id": sc.scenario_id, "model_id": "ref", "scenario_seed": 1,
                "turns": [r.model_dump() for r in ref.values()]}
    line_rec = {**line_ref, "model_id": "recited", "turns": [r.model_dump() for r in recited.values()]}
    s_ref = next(t for t in _score(line_ref, sc).turns if t.turn_index == ti).score
    s_rec = next(t for t in _score(line_rec, sc).turns if t.turn_index == ti).score
    assert s_ref is not None and s_rec is not None and s_ref >= 9.0 and s_rec < 7.0
