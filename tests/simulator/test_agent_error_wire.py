"""An agent outside the harness's process reports its own failures over the wire (control ``error``,
docs/protocol.md §3): recorded as ``agent_error`` events, flagged on the scorecard, a fatal one ends the meeting
as ``agent_error``; an in-process agent's report is recorded once, not twice."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from modylbench.agents import join_inprocess
from modylbench.channels import AgentDisconnected, AgentReportedError, InProcessMeeting, VirtualClock
from modylbench.record import AgentError, read_record
from modylbench.simulator.cli import exit_code

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"
PY = shlex.quote(sys.executable)

# On the SDK: every answer fails at its model, which it says, and it keeps taking part.
FLAKY = """
import asyncio, os
from modylbench.agents import MeetingEnded, TurnEnded, join

async def main():
    client = await join(os.environ["MODYLBENCH_URL"], os.environ["MODYLBENCH_TOKEN"])
    async for ev in client.events():
        if isinstance(ev, TurnEnded):
            client.report_error("model_error", f"turn {ev.turn_index}: 503 from my model\\nretry later")
            await client.done(ev.turn_index)
        elif isinstance(ev, MeetingEnded):
            break
    await client.leave()

asyncio.run(main())
"""

# The raw protocol on the control channel: a kind the harness does not know (a protocol fault), then a fatal
# model_error, after which it stays connected doing nothing: the harness ends its part itself.
GIVES_UP = """
import asyncio, json, os
from modylbench.agents import TurnEnded, join

async def main():
    client = await join(os.environ["MODYLBENCH_URL"], os.environ["MODYLBENCH_TOKEN"])
    control = client.session.pipes["control"]
    async for ev in client.events():
        if isinstance(ev, TurnEnded):
            await control.send(json.dumps({"type": "error", "kind": "exited", "message": "not mine to say"}))
            await control.send(json.dumps({"type": "error", "kind": "model_error", "message": "API key revoked",
                                           "fatal": True}))
    await client.leave()

asyncio.run(main())
"""

def session_folder(out: Path, agent: str, scenario: str = "mini_fixture") -> Path:
    """The one session folder of ``agent`` in ``out`` (named by its whole session key: transport, slice, seed,
    trial, and a hash where the agent's name is not its spec)."""
    found = [p for p in out.iterdir() if p.is_dir() and (p.name.startswith(f"{scenario}__{agent}__")
                                                          or p.name.startswith(f"{scenario}__{agent}-"))]
    assert len(found) == 1, f"{agent}: {[p.name for p in out.iterdir()]}"
    return found[0]



def _card(out: Path) -> dict[str, Any]:
    return {e["model_id"]: e for e in json.loads((out / "scorecard.json").read_text())["scenarios"]}


def test_cmd_agents_report_their_failures_over_webrtc(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "flaky.py").write_text(FLAKY)
    (tmp_path / "gives_up.py").write_text(GIVES_UP)
    out = tmp_path / "runs"
    code = exit_code(["run", "mini_fixture", "--scenarios", str(MINI), "--out", str(out), "--progress", "off",
                      "--turns", "2", "--agent", f"cmd:{PY} {shlex.quote(str(tmp_path / 'flaky.py'))}",
                      "--agent-name", "flaky", "--agent", f"cmd:{PY} {shlex.quote(str(tmp_path / 'gives_up.py'))}",
                      "--agent-name", "gives_up"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 4, err  # every session of each agent failed
    card = _card(out)

    flaky_events = read_record(session_folder(out, "flaky")).events
    flaky = [e for e in flaky_events if isinstance(e, AgentError)]
    assert [(e.kind, e.fatal, e.turn_index) for e in flaky] == [("model_error", False, 0), ("model_error", False, 1)]
    assert flaky[0].message == "turn 0: 503 from my model retry later"  # one line in the record
    assert sum(e.event == "agent_done" for e in flaky_events) == 2  # it kept taking part
    assert card["flaky"]["termination_reason"] == "max_turns" and "agent_error" in card["flaky"]["flags"]

    gave_up_events = read_record(session_folder(out, "gives_up")).events
    gave_up = [e for e in gave_up_events if isinstance(e, AgentError)]
    assert [(e.kind, e.fatal, e.message) for e in gave_up] == [("model_error", True, "API key revoked")]
    faults = [e for e in gave_up_events if e.event == "error" and e.source == "agent"]
    assert [f.kind for f in faults] == ["unknown_error_kind"]
    assert card["gives_up"]["termination_reason"] == "agent_error" and "agent_error" in card["gives_up"]["flags"]
    manifest = json.loads((session_folder(out, "gives_up") / "manifest.json").read_text())
    assert manifest["termination_reason"] == "agent_error" and manifest["turns_played"] <= 1  # ended at once, not after turn 2
    assert "mini_fixture × gives_up: agent_error (model_error, fatal): API key revoked" in err


async def test_a_report_goes_through_the_harness_hook_or_the_wire_never_both() -> None:
    """Run in the harness's process (``on_error`` set) a report is the hook's alone; without one it goes on
    the control channel; either way it reaches the record once."""
    link = InProcessMeeting(VirtualClock())
    client = await join_inprocess(link, receive_audio=False)
    await link.wait_connected()
    hooked: list[tuple[str, str, str | None]] = []
    client.on_error = lambda kind, message, tb: hooked.append((kind, message, tb))
    client.report_error("empty_answer", "nothing came back")
    client.on_error = None
    client.report_error("model_error", "timed out")
    client.report_error("no_such_kind", "odd")  # as the harness hook does: an unknown kind is a crash
    await client.leave()
    events = [e async for e in link.events()]
    assert hooked == [("empty_answer", "nothing came back", None)]
    assert [(e.kind, e.message) for e in events if isinstance(e, AgentReportedError)] == [
        ("model_error", "timed out"), ("crash", "odd")]  # fmt: skip
    assert isinstance(events[-1], AgentDisconnected)
    client.report_error("crash", "after leaving")  # the meeting is over: only logged, never raises
