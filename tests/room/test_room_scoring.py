"""Scoring several people in the room (docs/scoring.md "Several people"): each check moves with the behaviour it
names, the agents that answer everything or only their name lose, and the searches find no way around it."""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from modylbench.record import ScenarioResponses
from modylbench.scenarios import Scenario
from modylbench.scenarios.builtin import build, generate
from modylbench.scoring import ScenarioScore, make_judges, score
from modylbench.scoring._room import RoomCheck, addressee, attributed, kept_quiet, turn_checks

ROOT = Path(__file__).resolve().parents[2]
ROOMS = ("financial_analyst_lbo_room", "optimization_solver_supply_chain_room")
PEER, CONSULTANT = 6.0, 9.0


from modylbench_testsupport import make_fixtures as FIX  # noqa: E402
from modylbench_testsupport import search as S  # noqa: E402

MOVES = S.ROOM


@cache
def scenario(sid: str, seed: int = 0) -> Scenario:
    return build(sid, seed)


def scored(sc: Scenario, line: dict[str, Any]) -> ScenarioScore:
    card = score([ScenarioResponses.model_validate(line)], {sc.scenario_id: sc}, make_judges(["offline"]))
    return card.scenarios[0]


def oracle(sc: Scenario) -> dict[str, Any]:
    return FIX.correct(sc)


def with_speech(sc: Scenario, line: dict[str, Any], speech: list[str]) -> dict[str, Any]:
    out = copy.deepcopy(line)
    for t, s in zip(out["turns"], speech, strict=True):
        t["agent_response"] = s
    return FIX.with_replies(sc, out)


def checks(sc: Scenario, line: dict[str, Any], kind: str) -> list[RoomCheck]:
    r = ScenarioResponses.model_validate(line)
    by = {t.turn_index: t for t in r.turns}
    return [c for t in sc.turns for c in turn_checks(sc, t, by.get(t.turn_index)) if c.kind == kind]


def speech_of(line: dict[str, Any]) -> list[str]:
    return [t.get("agent_response", "") for t in line["turns"]]


@pytest.mark.parametrize("sid", ROOMS)
def test_the_oracle_plays_every_multi_party_meeting_as_a_consultant(sid: str) -> None:
    sc = scenario(sid)
    s = scored(sc, oracle(sc))
    assert s.modylbench_score is not None and s.modylbench_score >= CONSULTANT, s.flags
    assert "room_misread" not in s.flags
    assert all(c.credit == 1.0 for kind in ("quiet", "asker", "attribution", "contradiction")
               for c in checks(sc, oracle(sc), kind))


@pytest.mark.parametrize("sid", ROOMS)
def test_answering_everything_and_answering_only_your_name_both_lose(sid: str) -> None:
    sc = scenario(sid)
    line = oracle(sc)
    best = scored(sc, line).modylbench_score
    assert best is not None
    talker = with_speech(sc, line, MOVES.blind(sc, [t.human_utterance for t in sc.turns], speech_of(line),
                                               [[] for _ in sc.turns], {"room_floor": "talk_always"})[0])
    named = with_speech(sc, line, MOVES.blind(sc, [t.human_utterance for t in sc.turns], speech_of(line),
                                              [[] for _ in sc.turns], {"room_floor": "named_only"})[0])
    t, n = scored(sc, talker), scored(sc, named)
    assert t.modylbench_score is not None and n.modylbench_score is not None
    assert t.modylbench_score < CONSULTANT and t.modylbench_score < best - 1.0, t.flags
    assert "room_misread" in t.flags
    assert any("spoke_out_of_turn" in ts.flags for ts in t.turns)
    assert n.modylbench_score < PEER


def test_quiet_means_not_taking_the_floor() -> None:
    assert kept_quiet("") and kept_quiet("Mm-hm.") and kept_quiet("Okay, noted.")
    assert not kept_quiet("It's 6.0 percent.") and not kept_quiet("I think we should look at the capex again")


def test_the_answer_goes_to_the_person_who_asked() -> None:
    sc = scenario("financial_analyst_lbo_room")
    asked = next(t for t in sc.turns if t.addressed_to == "agent" and sc.speaker_of(t) == "Marcus Bell"
                 and not t.contradiction)
    ref = asked.reference_response
    assert addressee(ref, sc) == "Marcus Bell"

    def credit(text: str) -> float:
        from modylbench.record import TurnResponse

        r = TurnResponse(turn_index=asked.turn_index, agent_response=text)
        return next(c.credit for c in turn_checks(sc, asked, r) if c.kind == "asker")

    body = ref.split(", ", 1)[1]
    assert credit(ref) == 1.0
    assert credit(f"{body.rstrip('.')}, Marcus.") == 1.0  # named at the end
    assert credit(f"Thanks Marcus, {body}") == 1.0
    assert credit(f"{body} I checked with Dana.") == 0.5  # naming someone is not addressing them
    assert credit(body) == 0.5  # answers, naming nobody
    assert credit(f"Dana, {body}") == 0.0  # answers the wrong person
    assert credit(f"Dana, Priya, Marcus: {body}") == 0.0  # naming everyone is naming someone else first
    assert credit("") == 0.0


def test_a_figure_is_said_of_the_person_who_gave_it() -> None:
    sc = scenario("financial_analyst_lbo_room")
    assert attributed("Priya said 6.0 percent; Marcus says 8.0 percent.", sc, 6.0, "%", 1.0) == ["Priya Raman"]
    assert attributed("Marcus said 6.0 percent.", sc, 6.0, "%", 1.0) == ["Marcus Bell"]
    assert attributed("6.0 percent, per Priya.", sc, 6.0, "%", 1.0) == ["Priya Raman"]
    assert attributed("Capex is six percent.", sc, 6.0, "%", 1.0) == [None]
    assert attributed("Marcus said 8.5 percent. Sorry, I misspoke: 8.0.", sc, 8.0, "%", 1.0) == ["Marcus Bell"]
    # Spraying every name before each figure attributes it to the last one named.
    assert attributed("Per Priya and Marcus: 6.0 percent.", sc, 6.0, "%", 1.0) == ["Marcus Bell"]


@pytest.mark.parametrize("sid", ROOMS)
def test_each_check_moves_with_its_behaviour(sid: str) -> None:
    sc = scenario(sid)
    line = oracle(sc)
    speech = speech_of(line)
    utter = [t.human_utterance for t in sc.turns]
    none: list[list[str]] = [[] for _ in sc.turns]
    # Contradiction: dropping one side's name and figure is not surfacing it.
    c_turn = next(t for t in sc.turns if t.contradiction)
    cl = c_turn.contradiction.claims  # type: ignore[union-attr]
    plain = list(speech)
    plain[c_turn.turn_index] = next(t for t in sc.turns if t.turn_index > c_turn.turn_index
                                    and t.reference_response).reference_response if False else (
        " ".join(f.description + " " + str(f.value) for f in c_turn.expected_facts))
    assert all(x.credit == 1.0 for x in checks(sc, line, "contradiction"))
    missed = checks(sc, with_speech(sc, line, plain), "contradiction")
    assert missed and missed[0].credit < 1.0, (cl, missed)
    # Attribution: spraying names next to every figure loses what the right name earned.
    spray = with_speech(sc, line, MOVES.blind(sc, utter, speech, none, {"room_attrib": "spray"})[0])
    assert sum(c.credit for c in checks(sc, spray, "attribution")) < len(checks(sc, line, "attribution"))
    # Asker: naming the host first, or everyone, answers someone else.
    for naming in ("host", "all"):
        named = with_speech(sc, line, MOVES.blind(sc, utter, speech, none, {"room_names": naming})[0])
        assert sum(c.credit for c in checks(sc, named, "asker")) < len(checks(sc, line, "asker"))


@pytest.mark.parametrize("sid", ROOMS)
def test_substance_kept_in_other_words_keeps_the_credit(sid: str) -> None:
    sc = scenario(sid)
    for g in ({"room_name_at_end": True}, {"room_full_names": True}, {"room_backchannel": True},
              {name: True for name in MOVES.FAIR_ROOM_GENES}):
        speech, _ = MOVES.fair(sc, speech_of(oracle(sc)), [[] for _ in sc.turns], g)
        s = scored(sc, with_speech(sc, oracle(sc), speech))
        assert s.modylbench_score is not None and s.modylbench_score >= CONSULTANT, (g, s.flags)


@pytest.mark.parametrize("sid", [ROOMS[0], pytest.param(ROOMS[1], marks=pytest.mark.slow)])
def test_the_blind_adversary_stays_below_peer(sid: str) -> None:
    res = S.search(scenario(sid, 1), budget=10, seed=0)
    assert res.score < PEER, res.description


@pytest.mark.parametrize("sid", [ROOMS[0], pytest.param(ROOMS[1], marks=pytest.mark.slow)])
def test_the_fairness_search_finds_no_unfair_drop(sid: str) -> None:
    res = S.fairness_search(scenario(sid, 1), budget=5, seed=0)
    assert res.score >= CONSULTANT, res.description


def test_one_to_one_meetings_have_no_room_checks() -> None:
    sc = generate("financial_analyst_lbo_model")
    line = FIX.correct(sc)
    assert all(not checks(sc, line, kind) for kind in ("quiet", "asker", "attribution", "contradiction"))
