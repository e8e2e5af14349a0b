"""What an agent is told about its turns: ``turn_closed`` with the reason its window closed (docs/protocol.md §3),
and the per-turn latencies the record yields (§7)."""

from __future__ import annotations

import asyncio
import wave
from pathlib import Path

import numpy as np

from modylbench.agents import TurnClosed, TurnEnded, join_inprocess
from modylbench.agents._reference import OracleAgent
from modylbench.channels import InProcessMeeting, MeetingEnded, VirtualClock
from modylbench.personas import make_engine
from modylbench.record import attachment_path, derive_responses, read_record
from modylbench.scenarios import load_path
from modylbench.simulator import MeetingOptions, MeetingResult
from modylbench.simulator._session import run_meeting

ROOT = Path(__file__).resolve().parents[2]
MINI = load_path(ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl")[0]


class Scripted(OracleAgent):
    """Turn 0: says done. Turn 1: speaks and goes quiet. Turn 2: chats only. Turn 3: never answers."""

    seen: list[object]

    async def respond(self, turn_index: int) -> None:
        assert self.client is not None
        if turn_index == 0:
            await self.client.chat("hello")
            await self.client.done(turn_index)
        elif turn_index == 1:
            await self.say("EBITDA is two million.")
        elif turn_index == 2:
            await self.client.chat("No, it is 2.0 million.")


async def _meeting(folder: Path, agent: OracleAgent | None = None,
                   turns: int | None = None) -> tuple[MeetingResult, list[object], list[str]]:
    """Play the mini scenario in process; returns the result, the turn events and the meeting_end reasons seen."""
    clock = VirtualClock()
    link = InProcessMeeting(clock)
    speech = make_engine("espeak")
    player = agent or Scripted(MINI)
    seen: list[object] = []
    ended: list[str] = []

    async def agent_side() -> None:
        client = await join_inprocess(link, synthesize=speech.synthesize, receive_audio=False)
        events = client.events

        async def spy():  # type: ignore[no-untyped-def]
            async for ev in events():
                if isinstance(ev, TurnClosed | TurnEnded):
                    seen.append(ev)
                elif isinstance(ev, MeetingEnded):
                    ended.append(ev.reason)
                yield ev

        client.events = spy  # type: ignore[method-assign]
        await player.run(client)

    result, _ = await asyncio.gather(
        run_meeting(link, MINI, "scripted", folder, clock, speech, MeetingOptions(turns=turns)), agent_side())
    return result, seen, ended


async def test_the_agent_is_told_when_and_why_its_window_closed(tmp_path: Path) -> None:
    result, seen, _ended = await _meeting(tmp_path)
    assert result.termination_reason == "completed"
    closed = [e for e in seen if isinstance(e, TurnClosed)]
    assert [(e.turn_index, e.reason) for e in closed] == [
        (0, "agent_done"), (1, "silence"), (2, "silence"), (3, "budget")]
    # Each turn_closed follows that turn's turn_end and matches the record's turn_end reason and time.
    ends = [e for e in read_record(tmp_path).events if e.event == "turn_end"]
    assert [e.reason for e in ends] == [e.reason for e in closed]
    assert all(abs(c.time - r.meeting_time) < 1e-6 for c, r in zip(closed, ends, strict=True))
    order = [(type(e).__name__, e.turn_index) for e in seen]  # type: ignore[attr-defined]
    for i in range(4):
        assert order.index(("TurnEnded", i)) < order.index(("TurnClosed", i))


async def test_agent_speech_carries_the_received_audio(tmp_path: Path) -> None:
    await _meeting(tmp_path)
    speech = [e for e in read_record(tmp_path).events if e.event == "agent_speech" and e.onset < e.offset]
    assert speech, "the agent's voice was not detected"
    for e in speech:
        assert e.audio is not None and e.audio.media_type == "audio/wav"
        with wave.open(str(attachment_path(tmp_path, e.audio))) as w:
            assert w.getnchannels() == 1
            assert abs(w.getnframes() / w.getframerate() - (e.offset - e.onset)) < 0.01
            pcm = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16)
        assert np.abs(pcm.astype(np.int32)).max() > 1000  # speech, not silence


async def test_both_latencies_are_reported_and_latency_ms_is_the_first_response(tmp_path: Path) -> None:
    await _meeting(tmp_path)
    responses = derive_responses(read_record(tmp_path).events)
    rows = {r["turn_index"]: r for r in (responses.measurements or {})["turns"]}
    for turn in responses.turns:
        row = rows[turn.turn_index]
        assert row["latency_ms"] == turn.latency_ms
        kinds = {"speech": row["latency_speech_ms"], "chat": row["latency_chat_ms"], "doc": row["latency_doc_ms"],
                 "file": row["latency_file_ms"]}
        present = {k: v for k, v in kinds.items() if v is not None}
        assert turn.latency_ms == (min(present.values()) if present else None)
        assert row["latency_first"] == (min(present, key=lambda k: present[k]) if present else None)
        written = [v for k, v in present.items() if k != "speech"]
        assert row["latency_action_ms"] == (min(written) if written else None)
    # Turn 0 answered in chat only, turn 1 by voice only: each latency is reported under its own name.
    assert rows[0]["latency_first"] == "chat" and rows[0]["latency_speech_ms"] is None
    assert rows[1]["latency_first"] == "speech" and rows[1]["latency_action_ms"] is None
    assert rows[3]["latency_ms"] is None and rows[3]["latency_first"] is None


async def test_meeting_end_tells_the_agent_the_records_reason(tmp_path: Path) -> None:
    """A --turns slice ends as max_turns in the record, and the agent is told max_turns, not completed."""
    result, _seen, ended = await _meeting(tmp_path, OracleAgent(MINI), turns=2)
    assert result.termination_reason == "max_turns"
    assert ended == ["max_turns"]
