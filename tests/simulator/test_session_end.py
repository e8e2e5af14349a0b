"""How a meeting's end is reported: an agent that leaves before the meeting is over is ``agent_disconnected``
(docs/protocol.md §8), whichever turn it left in."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from modylbench.agents import join_inprocess
from modylbench.agents._reference import OracleAgent
from modylbench.channels import InProcessMeeting, VirtualClock
from modylbench.personas import make_engine
from modylbench.record import read_record
from modylbench.scenarios import load_path
from modylbench.simulator import MeetingOptions, MeetingResult
from modylbench.simulator._session import run_meeting

ROOT = Path(__file__).resolve().parents[2]
MINI = load_path(ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl")[0]


class LeavesInTurn(OracleAgent):
    """Answers like the oracle, then leaves (without waiting for the meeting to end) once turn ``leave_in`` opens."""

    leave_in = 3

    async def respond(self, turn_index: int) -> None:
        assert self.client is not None
        if turn_index >= self.leave_in:
            await self.client.leave()
            return
        await super().respond(turn_index)


async def _meeting(folder: Path, leave_in: int, turns: int | None = None) -> MeetingResult:
    clock = VirtualClock()
    link = InProcessMeeting(clock)
    speech = make_engine("espeak")
    agent = LeavesInTurn(MINI)
    agent.leave_in = leave_in

    async def agent_side() -> None:
        await agent.run(await join_inprocess(link, synthesize=speech.synthesize, receive_audio=False))

    result, _ = await asyncio.gather(
        run_meeting(link, MINI, "leaver", folder, clock, speech, MeetingOptions(turns=turns)), agent_side())
    return result


@pytest.mark.parametrize(("leave_in", "turns"), [(3, None), (1, 2)], ids=["last-turn", "last-turn-of-slice"])
async def test_leaving_during_the_last_turn_is_a_disconnect(tmp_path: Path, leave_in: int, turns: int | None) -> None:
    result = await _meeting(tmp_path, leave_in, turns)
    assert result.termination_reason == "agent_disconnected"
    assert result.detail == "agent left"
    events = read_record(tmp_path).events
    assert events[-1].event == "session_end" and events[-1].termination_reason == "agent_disconnected"
    assert json.loads((tmp_path / "manifest.json").read_text())["termination_reason"] == "agent_disconnected"


async def test_an_agent_that_stays_to_the_end_completes(tmp_path: Path) -> None:
    result = await _meeting(tmp_path, leave_in=99)
    assert result.termination_reason == "completed"
