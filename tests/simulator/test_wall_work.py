"""Time-compressed runs skip only dead air (issue 16): over ``--transport inproc`` an agent that waits on a
model, a thread or a wall-clock timer gets that time for real, and scripted agents still run at full speed."""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from modylbench.record import read_record
from modylbench.simulator._sessionkey import SessionKey
from modylbench.simulator.cli import exit_code
from tests.scoring.openai_server import Answer, Script, openai_server, tool_call

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"
SAID = "EBITDA is 120, up from 100."


def _run(out: Path, *args: str) -> tuple[int, float]:
    t0 = time.perf_counter()
    code = exit_code(
        [
            "run",
            "mini_fixture",
            "--scenarios",
            str(MINI),
            "--out",
            str(out),
            "--progress",
            "off",
            "--transport",
            "inproc",
            *args,
        ]
    )
    return code, time.perf_counter() - t0


def _session(out: Path) -> Path:
    (folder,) = [p for p in out.iterdir() if p.is_dir()]
    return folder


def _turns(folder: Path) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = json.loads((folder / "responses.jsonl").read_text().splitlines()[0])[
        "turns"
    ]
    return turns


@pytest.mark.parametrize("delay", [0.6, pytest.param(2.0, marks=pytest.mark.slow)])
def test_an_llm_agent_on_a_slow_model_answers_every_turn_with_its_real_latency(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, delay: float
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    turns = 3
    script = Script(default=Answer(tool_calls=[tool_call("c1", "say", {"text": SAID})]), delay_s=delay)
    with openai_server(script) as url:
        code, wall = _run(
            tmp_path, "--turns", str(turns), "--agent", f"llm/slow-model@{url}", "--agent-name", "slow"
        )
    assert code == 0
    assert len(script.requests) == turns  # one model call per turn, none cut short by the meeting
    played = _turns(_session(tmp_path))
    assert [t["agent_response"] for t in played] == [SAID] * turns
    for t in played:
        # The built-in llm agent waits for the persona's speech to end plus 0.3 s (meeting time, skipped),
        # then calls its model: the latency is the model's time, measured at the wall rate.
        assert delay * 1000 <= t["latency_ms"] <= (delay + 0.3 + 0.5) * 1000, t
    # Only the model's seconds take wall time; the rest of the meeting (minutes of it) is skipped.
    assert turns * delay <= wall <= turns * delay + 8.0


AGENTS_PY = """
    import asyncio
    import time

    from modylbench.agents import MeetingEnded, TurnEnded

    def works_with(wait):
        async def agent(client):
            async for ev in client.events():
                if isinstance(ev, TurnEnded):
                    await wait()
                    playback = await client.say(f"turn {ev.turn_index} answered")
                    await playback.ended
                    await client.done(ev.turn_index)
                elif isinstance(ev, MeetingEnded):
                    return
        return agent

    async def _thread():
        await asyncio.to_thread(time.sleep, 0.4)  # a blocking SDK call in a worker thread

    async def _timer():
        await asyncio.sleep(0.4)  # a wall-clock wait (a retry back-off, a rate limit)

    async def _subprocess():
        proc = await asyncio.create_subprocess_exec("sleep", "0.4")
        await proc.wait()

    in_thread = works_with(_thread)
    on_timer = works_with(_timer)
    in_subprocess = works_with(_subprocess)
"""


@pytest.mark.parametrize("form", ["in_thread", "on_timer", "in_subprocess"])
def test_an_sdk_agent_working_outside_the_loop_gets_real_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str
) -> None:
    """Not only the built-in llm agent: any py: agent's thread jobs, wall-clock timers and child processes
    make meeting time flow while they last."""
    (tmp_path / "wall_agents.py").write_text(textwrap.dedent(AGENTS_PY))
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "runs"
    code, _ = _run(out, "--turns", "2", "--agent", f"py:wall_agents:{form}", "--agent-name", form)
    assert code == 0
    played = _turns(_session(out))
    assert [t["agent_response"] for t in played] == ["turn 0 answered", "turn 1 answered"]
    for t in played:
        assert 400 <= t["latency_ms"] <= 1500, t


def test_scripted_agents_still_skip_the_dead_air(tmp_path: Path) -> None:
    """The oracle does no wall-clock work: its meeting jumps from deadline to deadline, so two runs have the
    same timeline to the microsecond (any stretch at the wall rate would differ) and take a fraction of it."""
    timelines = []
    for run in ("a", "b"):
        code, wall = _run(tmp_path / run, "--agent", "oracle")
        assert code == 0
        folder = _session(tmp_path / run)
        timelines.append([(e.event, e.meeting_time) for e in read_record(folder).events])
        meeting = json.loads((folder / "manifest.json").read_text())["meeting_seconds"]
        assert len(_turns(folder)) == 4
        assert wall < meeting / 3, (meeting, wall)
    assert timelines[0] == timelines[1]


def test_inproc_meetings_side_by_side_share_the_loop_and_both_finish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--concurrency 2`` over inproc runs both meetings on one loop, one clock each: a scripted agent's and
    one whose model takes real time (its calls make the other meeting flow too, which costs only speed)."""
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    script = Script(default=Answer(tool_calls=[tool_call("c1", "say", {"text": SAID})]), delay_s=0.4)
    with openai_server(script) as url:
        code, _ = _run(
            tmp_path,
            "--agent",
            "oracle",
            "--agent",
            f"llm/m@{url}",
            "--agent-name",
            "oracle",
            "--agent-name",
            "slow",
            "--concurrency",
            "2",
        )
    assert code == 0
    slow = _turns(SessionKey("mini_fixture", f"llm/m@{url}", "slow", "inproc", None, 0, 0).folder(tmp_path))
    assert [t["agent_response"] for t in slow] == [SAID] * 4
    assert all(400 <= t["latency_ms"] <= 1500 for t in slow), slow
    assert len(_turns(tmp_path / "mini_fixture__oracle__inproc__all__seed0__t0")) == 4
