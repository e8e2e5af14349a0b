"""An agent written from docs/protocol.md alone (examples/testing/protocol_agent.py: aiortc, websockets, no
ModylBench import) asks the persona over real loopback WebRTC and is answered: in the persona's voice with a
caption naming its question, from the persona's knowledge, recorded as question_asked / persona_answer."""

from __future__ import annotations

import ast
import asyncio
import sys
from pathlib import Path

import pytest

from modylbench.channels import LinkOptions, SignalingServer, WallClock
from modylbench.personas import make_engine
from modylbench.record import read_record
from modylbench.scenarios import load_builtin
from modylbench.simulator._session import MeetingOptions, run_meeting

AGENT = Path(__file__).resolve().parents[2] / "examples" / "testing" / "protocol_agent.py"
sys.path.insert(0, str(AGENT.parent))
from protocol_agent import ProtocolAgent  # noqa: E402

LBO = next(s for s in load_builtin() if s.scenario_id == "financial_analyst_lbo_model")


def test_the_agent_uses_nothing_of_modylbench() -> None:
    tree = ast.parse(AGENT.read_text(encoding="utf-8"))
    imported = {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert imported <= {"__future__", "asyncio", "json", "os", "sys", "time", "dataclasses", "typing", "aioice", "numpy",
                        "websockets", "aiortc"}, imported


@pytest.mark.slow
async def test_a_protocol_only_agent_asks_and_is_answered_over_webrtc(tmp_path: Path) -> None:
    clock = WallClock()
    server = await SignalingServer("127.0.0.1", 0).start()
    try:
        meeting = server.create_meeting(clock, LinkOptions())
        agent = ProtocolAgent(meeting.url, meeting.token, [["What's the fund IRR hurdle?", "What's the IRR of the deal?"]])
        await asyncio.gather(run_meeting(meeting, LBO, "protocol_agent", tmp_path, clock, make_engine("espeak"),
                                         MeetingOptions(turns=1)), agent.run())
    finally:
        await server.close()
    events = read_record(tmp_path).events
    asked = [e for e in events if e.event == "question_asked"]
    answers = [e for e in events if e.event == "persona_answer"]
    assert [(e.channel, e.outcome) for e in asked] == [("chat", "answered"), ("chat", "deliverable")]
    assert [a.knowledge for a in answers] == [["hurdle_irr"], []]
    # Each answer came in the persona's voice with a caption naming the question, and the agent heard it.
    hurdle, irr = agent.exchanges
    assert (hurdle.reply_to, hurdle.channel) == (asked[0].question_id, "audio") and "25%" in hurdle.answer
    assert (irr.reply_to, irr.answer) == (asked[1].question_id, "That's what I need from you.")
    assert hurdle.audio_at is not None and hurdle.audio_at > hurdle.sent
    assert all(a.channel == "audio" and a.audio is not None for a in answers)
    assert agent.closed_reasons == ["agent_done"]


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_the_protocol_only_agent_takes_part_in_a_multi_party_meeting(tmp_path: Path) -> None:
    """It reads hello.room and each person's own track (by mid), answers the line that names it, and is scored."""
    import json

    from modylbench.simulator.testing import run_meeting as run_scored

    turns = 6
    run = run_scored("financial_analyst_lbo_room", f"cmd:{sys.executable} {AGENT} --room", turns=turns,
                     transport="webrtc", out=tmp_path / "m", report=False)
    assert run.meeting.termination_reason == "max_turns", run.meeting.detail  # the slice played to its end
    assert run.scorecard.scenarios[0].modylbench_score is not None
    said = json.loads((run.folder / "agent.stdout.log").read_text().strip().splitlines()[-1])
    room = said["room"]
    assert room["agent_name"] == run.scenario.room.agent_name
    tracks = [p.get("track") for p in room["participants"]]
    assert all(tracks) and len(set(tracks)) == len(tracks)
    speakers = {run.scenario.speaker_of(t) for t in run.scenario.turns}
    # Energy on exactly the tracks of the people who spoke in the slice.
    assert {name for name, frames in said["heard_from"].items() if frames > 10} == speakers
    assert said["turns"] == turns
