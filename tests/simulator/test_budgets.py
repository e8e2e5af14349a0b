"""Budgets per turn and per meeting (docs/protocol.md §8): whatever an agent keeps sending, the record stays
small and readable, repeated faults are one counted event per kind and turn, and a hard meeting budget ends
the agent with ``agent_error`` (issue 25, items 1-2)."""

from __future__ import annotations

import asyncio
import json
import textwrap
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from modylbench.agents import MeetingClient, TurnStarted, join_inprocess
from modylbench.channels import SYNC_UPDATE, InProcessMeeting, VirtualClock
from modylbench.channels._wire import MAX_TRANSCRIPT_TURN, encode_sync
from modylbench.personas import make_engine
from modylbench.record import read_record
from modylbench.scenarios import Scenario, load_path
from modylbench.simulator import MeetingOptions, MeetingResult
from modylbench.simulator._session import run_meeting
from modylbench.simulator._sessionkey import session_folders
from modylbench.simulator.cli import exit_code

ROOT = Path(__file__).resolve().parents[2]
MINI = load_path(ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl")[0]

Flood = Callable[[MeetingClient, VirtualClock], Awaitable[None]]


async def _meeting(folder: Path, flood: Flood, turns: int = 1) -> MeetingResult:
    """The mini scenario in process, with an agent that runs ``flood`` in its first turn and then says done."""
    clock = VirtualClock()
    link = InProcessMeeting(clock)
    speech = make_engine("espeak")

    async def agent() -> None:
        client = await join_inprocess(link, synthesize=speech.synthesize, receive_audio=False)
        async for ev in client.events():
            if isinstance(ev, TurnStarted) and ev.turn_index == 0:
                try:
                    await flood(client, clock)
                    await client.session.pipes["control"].send(json.dumps({"type": "done", "turn_index": 0}))
                except ConnectionError:  # the meeting ended (or ended the agent) first
                    pass
        await client.leave()

    result, _ = await asyncio.gather(
        run_meeting(link, MINI, "flood", folder, clock, speech, MeetingOptions(turns=turns)), agent())
    return result


def _lines(folder: Path) -> list[bytes]:
    return (folder / "record.jsonl").read_bytes().splitlines()


async def test_a_transcript_flood_is_rate_limited_and_its_joined_text_bounded(tmp_path: Path) -> None:
    async def flood(client: MeetingClient, clock: VirtualClock) -> None:
        pipe = client.session.pipes["control"]
        for _ in range(60):  # 8,000 characters, 100 a second, for 3 s: 480,000 characters
            for _ in range(10):
                await pipe.send(json.dumps({"type": "transcript", "text": "w " * 4_000}))
            await clock.sleep(0.1)

    result = await _meeting(tmp_path, flood)
    events = read_record(tmp_path).events
    assert events[-1].event == "session_end" and result.termination_reason == "max_turns"
    speech = [e for e in events if e.event == "agent_speech"]
    assert sum(len(e.transcript or "") for e in speech) <= MAX_TRANSCRIPT_TURN + 100  # + the joins' spaces
    # Before: the 480,000 characters were one 480 kB line.
    assert max(len(line) for line in _lines(tmp_path)) < 100_000
    floods = [e for e in events if e.event == "error" and e.kind == "transcript_flood"]
    assert 1 <= len(floods) <= 2 and sum(e.count for e in floods) > 100


async def test_repeated_faults_are_one_counted_event_per_kind_and_turn(tmp_path: Path) -> None:
    async def flood(client: MeetingClient, clock: VirtualClock) -> None:
        pipe = client.session.pipes["control"]
        for i in range(3_000):
            await pipe.send(json.dumps({"type": f"nonsense{i}"}))
            await pipe.send("{not json")
            if i % 100 == 99:
                await clock.sleep(0.2)

    result = await _meeting(tmp_path, flood)
    events = read_record(tmp_path).events
    assert events[-1].event == "session_end" and result.termination_reason == "max_turns"
    errors = [e for e in events if e.event == "error" and e.source == "agent"]
    # Before: 6,000 lines, one per fault.
    assert len(errors) <= 10, [(e.kind, e.count) for e in errors]
    by_kind: dict[str, int] = {}
    for e in errors:
        by_kind[e.kind] = by_kind.get(e.kind, 0) + e.count
    assert by_kind.get("malformed_json", 0) + by_kind.get("control_flood", 0) + by_kind.get("unknown_control", 0) == 6_000
    assert len(_lines(tmp_path)) < 100


async def test_a_doc_flood_is_refused_past_the_turns_budget(tmp_path: Path) -> None:
    async def flood(client: MeetingClient, clock: VirtualClock) -> None:
        pipe = client.session.pipes["doc"]
        for _ in range(40):  # 40 messages of 250 kB: 10 MB against a turn's 8 MiB
            await pipe.send(encode_sync(SYNC_UPDATE, b"\x00" * 250_000))
            await clock.sleep(0.05)

    await _meeting(tmp_path, flood)
    events = read_record(tmp_path).events
    refused = [e for e in events if e.event == "error" and e.kind == "doc_budget"]
    assert refused and sum(e.count for e in refused) >= 40 - (8 * 1024 * 1024) // 250_000
    assert len([e for e in events if e.event == "doc_update_rejected"]) <= (8 * 1024 * 1024) // 250_000


async def test_passing_a_hard_meeting_budget_ends_the_agent_with_agent_error(tmp_path: Path) -> None:
    async def flood(client: MeetingClient, clock: VirtualClock) -> None:
        pipe = client.session.pipes["files"]
        for i in range(8):  # 8 files of 50 MiB declared: 400 MiB against the meeting's 256 MiB
            await pipe.send(json.dumps({"type": "file_start", "id": f"f{i}", "name": "x.bin", "size": 50 * 2**20,
                                        "sha256": "0" * 64}))

    result = await _meeting(tmp_path, flood, turns=2)
    events = read_record(tmp_path).events
    assert result.termination_reason == "agent_error" and "budget" in result.detail
    assert [e.kind for e in events if e.event == "agent_error"] == ["budget_exceeded"]
    assert events[-1].event == "session_end"


async def _chatty(folder: Path, scenario: Scenario) -> tuple[MeetingResult, list[Any]]:
    """An agent that sends a chat and a malformed message every second for 200 s and never says done."""
    clock = VirtualClock()
    link = InProcessMeeting(clock)
    speech = make_engine("espeak")

    async def agent() -> None:
        client = await join_inprocess(link, synthesize=speech.synthesize, receive_audio=False)
        async for ev in client.events():
            if isinstance(ev, TurnStarted) and ev.turn_index == 0:
                try:
                    for i in range(200):
                        await client.chat(f"still working {i}")
                        await client.session.pipes["control"].send("{not json")
                        await clock.sleep(1.0)
                except ConnectionError:
                    pass
        await client.leave()

    result, _ = await asyncio.gather(
        run_meeting(link, scenario, "chatty", folder, clock, speech, MeetingOptions(turns=1)), agent())
    return result, read_record(folder).events


async def test_a_chat_a_second_does_not_keep_a_turn_open_past_its_budget(tmp_path: Path) -> None:
    result, events = await _chatty(tmp_path, MINI)  # turn 0's budget: 20 s
    end = next(e for e in events if e.event == "turn_end")
    # Before: the turn stayed open as long as the agent kept chatting (200 s).
    assert end.reason == "budget" and end.meeting_time < 30, (end.reason, end.meeting_time)
    assert result.termination_reason == "max_turns"


async def test_the_meeting_timeout_holds_during_a_turn(tmp_path: Path) -> None:
    long_turn = MINI.turns[0].model_copy(update={"wait_for_agent_sec": 600})
    scenario = MINI.model_copy(update={"timeout_minutes": 1, "turns": [long_turn]})
    result, events = await _chatty(tmp_path, scenario)
    # Before: the timeout was checked only between turns, so the 600 s turn ran to its end (or the agent's).
    assert result.termination_reason == "timeout", result.termination_reason
    assert events[-1].event == "session_end" and events[-1].meeting_time < 70


PINGER = """
    import json
    from modylbench.agents import MeetingEnded, TurnEnded, TurnStarted

    async def pings(client):
        async for ev in client.events():
            if isinstance(ev, TurnStarted) and ev.turn_index == 0:
                pipe = client.session.pipes["control"]
                for i in range(65_537):
                    await pipe.send(json.dumps({"type": "ping", "t": i}))
            elif isinstance(ev, TurnEnded):
                await client.done(ev.turn_index)
            elif isinstance(ev, MeetingEnded):
                return
    """


@pytest.mark.slow
def test_65537_pings_over_webrtc_do_not_end_the_meeting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent process sending 65,537 pings as fast as it can over real WebRTC: the harness drops all but its
    rate, counted, and the meeting ends as planned. Before, the flood held each ICE consent answer past aioice's
    0.5 s and the meeting ended as agent_disconnected (channels._compat.tolerate_late_consent_answers)."""
    (tmp_path / "ping_agent.py").write_text(textwrap.dedent(PINGER))
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "runs"
    assert exit_code(["run", "mini_fixture", "--scenarios", str(ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"),
                      "--out", str(out), "--progress", "off", "--agent", "py:ping_agent:pings",
                      "--agent-name", "pinger", "--turns", "2"]) == 0  # fmt: skip
    (folder,) = session_folders(out, agent_name="pinger")
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["transport"] == "webrtc" and manifest["termination_reason"] == "max_turns"
    events = read_record(folder).events
    assert events[-1].event == "session_end"
    assert [e.reason for e in events if e.event == "disconnect"] == ["agent left"]
    dropped = sum(e.count for e in events if e.event == "error" and e.kind == "control_flood")
    assert 60_000 <= dropped <= 65_537
