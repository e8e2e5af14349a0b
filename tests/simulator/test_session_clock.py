"""Time zero of a meeting is the agent's join (docs/protocol.md §7), however long the harness waited for it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from modylbench.agents import Hello, join_inprocess, make_agent
from modylbench.channels import InProcessMeeting, LinkOptions, VirtualClock
from modylbench.personas import make_engine
from modylbench.record import read_record
from modylbench.scenarios import load_path
from modylbench.simulator._session import run_meeting

ROOT = Path(__file__).resolve().parents[2]
MINI = load_path(ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl")[0]


async def test_the_meeting_clock_starts_when_the_agent_joins(tmp_path: Path) -> None:
    clock = VirtualClock()
    link = InProcessMeeting(clock, LinkOptions(connect_timeout=600))
    speech = make_engine("espeak")
    agent = make_agent("oracle", MINI)
    hellos: list[Hello] = []
    on_hello = agent.on_hello
    agent.on_hello = lambda h: (hellos.append(h), on_hello(h))[1]  # type: ignore[method-assign]

    async def late_agent() -> None:
        await clock.sleep(45.0)  # the agent joins 45 s after the harness was ready
        await agent.run(await join_inprocess(link, synthesize=speech.synthesize, receive_audio=False))

    result, _ = await asyncio.gather(run_meeting(link, MINI, "oracle", tmp_path, clock, speech), late_agent())
    assert result.termination_reason == "completed"
    assert hellos and hellos[0].time == 0.0
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    events = read_record(tmp_path).events
    first_turn = next(e for e in events if e.event == "turn_start")
    assert first_turn.meeting_time < 5.0
    # The meeting lasted from the join to its end: the 45 s of waiting are not meeting time.
    assert abs(manifest["meeting_seconds"] - (events[-1].meeting_time)) < 1e-6
    assert manifest["meeting_seconds"] < clock.now() - 44.0
    assert events[0].meeting_time == 0.0
