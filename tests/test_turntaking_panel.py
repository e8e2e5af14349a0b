"""The turn-taking panel (record.turn_taking, docs/scoring.md "Turn-taking") on hand-timed records: each
metric's event, its two outcomes, and the windows' edges; then end to end, derived from a played meeting."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from modylbench.record import (
    BACKCHANNEL_YIELD_WINDOW_S,
    NON_DIRECTED_RESPONSE_WINDOW_S,
    YIELD_WINDOW_S,
    AgentSpeech,
    ChatMessage,
    DocUpdate,
    Interruption,
    PersonaAnswer,
    PersonaAside,
    PersonaBackchannel,
    PersonaUtterance,
    turn_taking,
)


def _at(t: float, turn: int = 0) -> dict[str, Any]:
    return {"wall_time": 0.0, "meeting_time": t, "turn_index": turn}


def line(start: float, end: float, turn: int = 0) -> PersonaUtterance:
    return PersonaUtterance(**_at(end, turn), text="persona line", start=start, end=end)


def talk(onset: float, offset: float, turn: int = 0) -> AgentSpeech:
    return AgentSpeech(**_at(offset, turn), onset=onset, offset=offset, transcript="agent words")


def chat(t: float, turn: int = 0) -> ChatMessage:
    return ChatMessage(**_at(t, turn), sender="agent", text="agent chat")


def edit(t: float, turn: int = 0) -> DocUpdate:
    return DocUpdate(**_at(t, turn), origin="agent", update="AA==", size=1)


def mmhm(start: float, turn: int = 0) -> PersonaBackchannel:
    return PersonaBackchannel(**_at(start + 0.5, turn), text="Mm-hm.", start=start, end=start + 0.5)


def aside(start: float, end: float, turn: int = 0) -> PersonaAside:
    return PersonaAside(**_at(end, turn), text="Sam, close the door?", to="a colleague", start=start, end=end)


def test_a_response_is_the_first_act_after_the_line_before_the_next() -> None:
    p = turn_taking([line(0, 2), talk(2.4, 5), line(6, 8, 1), edit(9.5, 1), line(12, 14, 2)])
    assert (p.response.events, p.response.hits) == (3, 2)  # the third line got nothing before the meeting ended
    assert p.response_latency.n == 2
    assert p.response_latency.mean_s == pytest.approx((0.4 + 1.5) / 2)
    assert [t.responded for t in p.turns] == [True, True, False]


def test_chat_counts_as_a_response_and_acts_during_the_line_do_not() -> None:
    p = turn_taking([line(0, 2), edit(1.0), chat(3.0)])
    assert p.response.hits == 1 and p.response_latency.p50_s == pytest.approx(1.0)


def test_a_line_the_agent_talked_through_is_not_a_response_event() -> None:
    p = turn_taking([line(0, 2), talk(1, 4)])
    assert p.response.events == 0
    assert p.agent_interruptions == 1 and p.agent_interruption_rate == 1.0


def test_yielding_to_a_barge_in_within_the_window() -> None:
    cut = Interruption(**_at(10.0), by="persona", kind="barge_in")
    # The harness cuts an open segment at the turn's end: the two halves are one stretch of talk.
    p = turn_taking([line(0, 2), talk(2.5, 10.0), cut, talk(10.0, 10.0 + YIELD_WINDOW_S - 0.3, 1)])
    assert (p.yielding.events, p.yielding.hits) == (1, 1)
    assert p.yield_latency.mean_s == pytest.approx(YIELD_WINDOW_S - 0.3)


def test_talking_on_over_the_persona_is_not_yielding() -> None:
    p = turn_taking([line(0, 2), talk(2.5, 8.0), line(4.0, 6.0, 1)])
    assert (p.yielding.events, p.yielding.hits) == (1, 0) and p.yield_latency.n == 0
    assert p.agent_interruptions == 0  # it was talking first: the persona interrupted it


def test_a_spoken_answer_over_the_agent_is_a_takeover() -> None:
    ans = PersonaAnswer(**_at(6), question_id="q0.1", text="It's 4.5x.", channel="audio", start=5, end=6,
                        outcome="answered")
    p = turn_taking([line(0, 2), talk(2.5, 5.5), ans])
    assert (p.yielding.events, p.yielding.hits) == (1, 1)


def test_backchannel_talked_through_or_taken_for_a_turn() -> None:
    good = turn_taking([line(0, 2), talk(2.5, 9.0), mmhm(4.5)])
    bad = turn_taking([line(0, 2), talk(2.5, 4.5 + BACKCHANNEL_YIELD_WINDOW_S - 0.1), mmhm(4.5)])
    assert (good.backchannel.events, good.backchannel.hits) == (1, 1)
    assert (bad.backchannel.events, bad.backchannel.hits) == (1, 0)
    assert good.turns[0].backchannel == "correct" and bad.turns[0].backchannel == "error"
    # A backchannel is not the persona taking the floor: no yield event, no interruption.
    assert good.yielding.events == 0 and good.agent_interruptions == 0


def test_backchannel_after_the_agent_stopped_is_no_event() -> None:
    p = turn_taking([line(0, 2), talk(2.5, 4.0), mmhm(4.5)])
    assert p.backchannel.events == 0 and p.turns[0].backchannel is None


def test_speech_meant_for_someone_else_is_left_alone() -> None:
    quiet = turn_taking([aside(0, 2), line(4.5, 6.5), talk(7, 9)])
    answered = turn_taking([aside(0, 2), talk(2 + NON_DIRECTED_RESPONSE_WINDOW_S - 0.5, 4), line(4.5, 6.5)])
    posted = turn_taking([aside(0, 2), chat(1.0), line(4.5, 6.5)])
    late = turn_taking([aside(0, 2), chat(2 + NON_DIRECTED_RESPONSE_WINDOW_S + 0.2), line(4.5, 6.5)])
    assert (quiet.non_directed.events, quiet.non_directed.hits) == (1, 1)
    assert answered.non_directed.hits == 0 and answered.turns[0].non_directed == "error"
    assert posted.non_directed.hits == 0
    assert late.non_directed.hits == 1


def test_stopping_for_an_aside_while_talking_is_an_error() -> None:
    on = turn_taking([talk(0, 6), aside(2, 3)])
    stopped = turn_taking([talk(0, 2.5), aside(2, 3)])
    assert on.non_directed.hits == 1 and stopped.non_directed.hits == 0


def test_an_empty_record_has_no_rates() -> None:
    p = turn_taking([])
    assert p.response.rate is None and p.yielding.rate is None and p.agent_interruption_rate is None
    assert p.turns == []


# --------------------------------------------------------------------------- end to end


def test_a_played_meeting_carries_the_panel_in_measurements_and_scorecard(tmp_path: Path) -> None:
    """The oracle over the in-process transport: the LBO slice that holds a backchannel (turn 4) and an aside
    (turn 12). The oracle talks through the one and leaves the other alone; the scorecard carries the panel."""
    from click.testing import CliRunner

    from modylbench.simulator.cli import cli

    out = tmp_path / "runs"
    res = CliRunner().invoke(cli, ["run", "financial_analyst_lbo_model", "--agent", "oracle", "--transport",
                                    "inproc", "--turns", "13", "--out", str(out)])
    assert res.exit_code == 0, res.output
    card = json.loads((out / "scorecard.json").read_text())
    panel = card["scenarios"][0]["turn_taking"]
    assert panel["backchannel"] == {"events": 2, "hits": 2, "rate": 1.0}
    assert panel["non_directed"] == {"events": 1, "hits": 1, "rate": 1.0}
    assert panel["response"]["events"] == 13 and panel["response"]["hits"] == 13
    (session,) = [p for p in out.iterdir() if p.is_dir()]
    kinds = [json.loads(x)["data"]["event"] for x in (session / "record.jsonl").read_text().splitlines()]
    assert kinds.count("persona_backchannel") == 2 and kinds.count("persona_aside") == 1


def test_people_talking_to_each_other_is_speech_for_someone_else() -> None:
    """A multi-party line one participant says to another: not a line to respond to, an S_ND event."""
    side = PersonaUtterance(**_at(6, 1), text="Priya, is that the Q3 number?", start=4, end=6, speaker="Dana",
                            addressed_to="Priya")
    quiet = turn_taking([line(0, 2), talk(2.4, 3.5), side, line(9, 11, 2), talk(11.3, 12, 2)])
    butted_in = turn_taking([line(0, 2), talk(2.4, 3.5), side, talk(6.5, 8, 1), line(9, 11, 2)])
    assert quiet.response.events == 2 and quiet.response.hits == 2  # the side line is not one to respond to
    assert (quiet.non_directed.events, quiet.non_directed.hits) == (1, 1)
    assert butted_in.non_directed.hits == 0 and butted_in.turns[1].non_directed == "error"
