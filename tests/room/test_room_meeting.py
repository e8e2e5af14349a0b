"""A multi-party meeting over the in-process transport: what an agent receives (docs/protocol.md "Several
people"), and agents written for one person (the echo example) taking part through the mixed track."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from modylbench.agents import (
    ActiveSpeakerChanged,
    CaptionReceived,
    ChatReceived,
    Hello,
    MeetingClient,
    MeetingEnded,
    ParticipantJoinedReceived,
    ParticipantLeftReceived,
    TurnEnded,
)
from modylbench.scenarios import Scenario
from modylbench.scenarios.builtin import build
from modylbench.simulator.testing import run_meeting

TURNS = 7
SEEN: list[Any] = []
"""What ``listener`` received (the in-process transport runs it in this process)."""


async def listener(client: MeetingClient) -> None:
    """Records every event; says done at each turn's end."""
    async for ev in client.events():
        SEEN.append(ev)
        if isinstance(ev, TurnEnded):
            await client.done(ev.turn_index)
        if isinstance(ev, MeetingEnded):
            break


def _slice() -> Scenario:
    """The LBO room meeting's first turns, its CFO leaving after her first line (turn 4)."""
    sc = build("financial_analyst_lbo_room").first_turns(TURNS)
    data = sc.model_dump(mode="python")
    data["room"]["participants"][1]["leaves_after_turn"] = 4
    data["room"]["participants"] = data["room"]["participants"][:2] + [
        {**data["room"]["participants"][2], "joins_at_turn": 6}]
    data["turns"][6].update(speaker="Marcus Bell", addressed_to="room", expected_facts=[], reference_response="",
                            human_utterance="Marcus here, sorry I'm late.")
    data["turns"][5]["chat_message"] = "Hurdles: 25% IRR, 3.0x MOIC."
    return Scenario.model_validate(data)


def test_an_agent_hears_who_is_in_the_room_and_who_speaks(tmp_path: Path) -> None:
    SEEN.clear()
    seen = SEEN
    sc = _slice()
    run = run_meeting(sc, listener, out=tmp_path / "m", report=False)
    hello = next(e for e in seen if isinstance(e, Hello))
    assert hello.room is not None and hello.room.agent_name == "Alex"
    assert [(p.name, p.present) for p in hello.room.participants] == [
        ("Dana Whitfield", True), ("Priya Raman", False), ("Marcus Bell", False)]
    captions = [e for e in seen if isinstance(e, CaptionReceived)]
    assert [c.speaker for c in captions] == [sc.speaker_of(t) for t in sc.turns]
    speakers = [e.speaker for e in seen if isinstance(e, ActiveSpeakerChanged)]
    assert speakers[:2] == ["Dana Whitfield", None] and "Priya Raman" in speakers and "Marcus Bell" in speakers
    joined = [(e.name, e.role) for e in seen if isinstance(e, ParticipantJoinedReceived)]
    assert [n for n, _ in joined] == ["Priya Raman", "Marcus Bell"] and all(r for _, r in joined)
    assert [e.name for e in seen if isinstance(e, ParticipantLeftReceived)] == ["Priya Raman"]
    # The order an SFU gives: the join before the person's first words, the leave after their last.
    order = [("join", e.name) if isinstance(e, ParticipantJoinedReceived) else ("left", e.name)
             if isinstance(e, ParticipantLeftReceived) else ("said", e.speaker) for e in seen
             if isinstance(e, ParticipantJoinedReceived | ParticipantLeftReceived | CaptionReceived)]
    assert order.index(("join", "Priya Raman")) < order.index(("said", "Priya Raman")) < order.index(
        ("left", "Priya Raman"))
    chats = [e for e in seen if isinstance(e, ChatReceived) and e.text.startswith("Hurdles")]
    assert [c.sender for c in chats] == ["Dana Whitfield"]
    # The record says who spoke each line.
    said = [json.loads(x) for x in (run.folder / "record.jsonl").read_text().splitlines()]
    assert [e["data"]["speaker"] for e in said if e["data"].get("event") == "persona_utterance"] == [
        sc.speaker_of(t) for t in sc.turns]


def test_one_to_one_meetings_send_no_room(tmp_path: Path) -> None:
    SEEN.clear()
    seen = SEEN
    run_meeting("financial_analyst_lbo_model", listener, turns=2, out=tmp_path / "m", report=False)
    hello = next(e for e in seen if isinstance(e, Hello))
    assert hello.room is None and "room" not in hello.data
    assert {e.speaker for e in seen if isinstance(e, CaptionReceived)} == {"persona"}
    assert not any(isinstance(e, ActiveSpeakerChanged | ParticipantJoinedReceived) for e in seen)


@pytest.mark.parametrize("agent", ["py:examples.echo_agent:agent", "oracle"])
def test_agents_for_one_person_take_part_in_a_multi_party_meeting(tmp_path: Path, agent: str) -> None:
    run = run_meeting(_slice(), agent, out=tmp_path / "m", report=False)
    assert run.scorecard.scenarios[0].termination_reason == "completed"
    answered = [t for t in run.scorecard.scenarios[0].turns if "no_response" not in t.flags]
    assert answered


def test_a_guest_asked_by_name_answers_from_their_own_knowledge() -> None:
    from modylbench.personas import RoomPlayer, make_engine

    sc = build("financial_analyst_lbo_room")
    room = RoomPlayer(sc, make_engine("espeak"))
    during = sc.turns[20]
    answerer, q, who = room.answerer_for("Priya, what is capex as a share of revenue?", during)
    assert who == "Priya Raman" and answerer is not None and q == "what is capex as a share of revenue?"
    assert "6" in answerer.answer(q).text
    _, _, marcus = room.answerer_for("What is the capex run rate this year, Marcus?", during)
    assert marcus == "Marcus Bell"
    assert room.answerer_for("What is the senior interest rate?", during)[2] is None  # the host's
    # Not in the meeting yet (Marcus joins at turn 14): the host answers.
    assert room.answerer_for("Marcus, what is the capex run rate?", sc.turns[2])[2] is None


HEARD: dict[str | None, int] = {}


async def person_listener(client: MeetingClient) -> None:
    """Counts voiced frames by track (None: the mixed one); says done at each turn's end."""
    from modylbench.agents import AudioReceived
    from modylbench.channels._audio import frame_dbfs

    async for ev in client.events():
        if isinstance(ev, AudioReceived) and frame_dbfs(ev.pcm) > -45:
            HEARD[ev.participant] = HEARD.get(ev.participant, 0) + 1
        if isinstance(ev, TurnEnded):
            await client.done(ev.turn_index)
        if isinstance(ev, MeetingEnded):
            break


person_listener.participant_audio = True  # type: ignore[attr-defined]


def test_an_agent_that_asks_for_each_persons_audio_gets_only_theirs_on_each(tmp_path: Path) -> None:
    HEARD.clear()
    sc = _slice()
    run_meeting(sc, person_listener, out=tmp_path / "m", report=False)
    speakers = {sc.speaker_of(t) for t in sc.turns}
    assert {k for k in HEARD if k is not None} == speakers
    # Each person's frames add up to the mixed track's (backchannels and asides included): nobody's speech is lost
    # and none is on two tracks.
    assert abs(sum(v for k, v in HEARD.items() if k is not None) - HEARD[None]) <= 2 * len(sc.turns)
    SEEN.clear()
    run_meeting(sc, listener, out=tmp_path / "m2", report=False)
    from modylbench.agents import AudioReceived

    assert all(e.participant is None for e in SEEN if isinstance(e, AudioReceived))
