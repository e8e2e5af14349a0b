"""Bring your own agent: ``--agent 'cmd:…'`` and ``--agent py:…`` through ``run``, agent failures recorded as
``agent_error`` (flag, exit 4), the child process ended whatever it does, bounded output, and ``serve``'s
ready-to-paste command."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from modylbench.agents import join_inprocess
from modylbench.channels import InProcessMeeting, VirtualClock, WallClock
from modylbench.record import AgentError, read_record
from modylbench.simulator import UserError, resolve_agent
from modylbench.simulator._external import AgentProcess
from modylbench.simulator.cli import exit_code

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"
ECHO = ROOT / "examples" / "echo_agent.py"
PY = shlex.quote(sys.executable)

def session_folder(out: Path, agent: str, scenario: str = "mini_fixture") -> Path:
    """The one session folder of ``agent`` in ``out`` (named by its whole session key: transport, slice, seed,
    trial, and a hash where the agent's name is not its spec)."""
    found = [p for p in out.iterdir() if p.is_dir() and (p.name.startswith(f"{scenario}__{agent}__")
                                                          or p.name.startswith(f"{scenario}__{agent}-"))]
    assert len(found) == 1, f"{agent}: {[p.name for p in out.iterdir()]}"
    return found[0]



def _run(out: Path, *args: str) -> int:
    return exit_code(["run", "mini_fixture", "--scenarios", str(MINI), "--out", str(out), "--progress", "off",
                      *args])


def _events(folder: Path) -> list[Any]:
    return read_record(folder).events


def _manifest(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "manifest.json").read_text())


def _card(out: Path) -> dict[str, Any]:
    return {e["model_id"]: e for e in json.loads((out / "scorecard.json").read_text())["scenarios"]}


# ------------------------------------------------------------------ resolving --agent


def test_agent_specs_resolve_and_mistakes_are_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(ROOT)
    assert resolve_agent("oracle").kind == "builtin"
    cmd = resolve_agent("cmd: python examples/echo_agent.py")
    assert (cmd.kind, cmd.target, cmd.name) == ("cmd", "python examples/echo_agent.py", "python-examples-echo_agent.py")
    py = resolve_agent("py:examples.echo_agent:agent", "echo")
    assert (py.kind, py.target, py.name) == ("py", "examples.echo_agent:agent", "echo")
    for bad, says in [("py:no_such_module_xyz:run", "no module named 'no_such_module_xyz'"),
                      ("py:examples.echo_agent:nope", "has no attribute 'nope'"),
                      ("py:examples.echo_agent:answer", "is not an async function"),
                      ("py:examples.echo_agent", "expected py:MODULE:FUNCTION"),
                      ("cmd:", "no command"),
                      ("wizard", "unknown agent 'wizard'")]:
        with pytest.raises(UserError, match=None) as info:
            resolve_agent(bad)
        assert says in str(info.value) and "\n" not in str(info.value)


def test_cli_refuses_bad_agents_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert _run(tmp_path / "o", "--agent", "py:nowhere_module:run", "--transport", "inproc") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --agent 'py:nowhere_module:run': no module named") and err.count("\n") == 1
    assert _run(tmp_path / "o", "--agent", "cmd:true", "--transport", "inproc") == 2
    assert "a cmd: agent joins over WebRTC; use --transport webrtc" in capsys.readouterr().err
    assert _run(tmp_path / "o", "--agent", "oracle", "--agent", "null", "--agent-name", "x") == 2
    assert "one name per --agent" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()  # refused before anything ran


# ------------------------------------------------------------------ the SDK once the meeting is over


async def test_actions_after_the_meeting_ended_are_quiet_no_ops() -> None:
    link = InProcessMeeting(VirtualClock())
    client = await join_inprocess(link)
    await link.close("completed")
    assert not client.over
    await client.done(0)  # the echo example's crash: ConnectionError from done after the end
    await client.chat("late")
    await client.send_doc(b"\x00\x00\x01\x00")
    playback = await client.say("late words", b"\x01\x00" * 960)
    assert playback.ended.done() and playback.cut
    assert await client.send_file("late.txt", b"x") is False
    assert client.over
    await client.leave()
    await client.leave()  # leaving twice is harmless


# ------------------------------------------------------------------ py: agents


def _write_module(folder: Path, name: str, body: str) -> None:
    (folder / f"{name}.py").write_text(textwrap.dedent(body))


def test_py_agents_in_process_failures_flagged_and_exit_4(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The echo example as a py: agent plays a whole meeting; a py: agent that raises ends its meeting as
    agent_error (recorded with its traceback, printed, flagged) and, as every session of it failed, run exits 4;
    one that reports a model failure keeps playing and is flagged."""
    _write_module(tmp_path, "byo_agents_py", """
        from modylbench.agents import MeetingEnded, TurnEnded

        async def crashes(client):
            async for ev in client.events():
                if isinstance(ev, TurnEnded):
                    raise RuntimeError("my model client blew up")

        async def flaky(client):
            async for ev in client.events():
                if isinstance(ev, TurnEnded):
                    client.report_error("model_error", f"turn {ev.turn_index}: 503 from my model")
                    await client.done(ev.turn_index)
                elif isinstance(ev, MeetingEnded):
                    return
        """)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(ROOT))  # examples.echo_agent, as from the repository's root
    out = tmp_path / "runs"
    code = _run(out, "--transport", "inproc", "--agent", "py:examples.echo_agent:agent", "--agent",
                "py:byo_agents_py:crashes", "--agent", "py:byo_agents_py:flaky",
                "--agent-name", "echo", "--agent-name", "crashy", "--agent-name", "flaky")
    err = capsys.readouterr().err
    assert code == 4, err
    card = _card(out)
    echo = _events(session_folder(out, "echo"))
    assert card["echo"]["termination_reason"] == "completed" and "agent_error" not in card["echo"]["flags"]
    assert sum(e.event == "agent_done" for e in echo) == 4 and not any(isinstance(e, AgentError) for e in echo)
    assert any(e.event == "file_transfer" and e.direction == "from_agent" and e.ok for e in echo)

    crashed = [e for e in _events(session_folder(out, "crashy")) if isinstance(e, AgentError)]
    assert [(e.kind, e.fatal) for e in crashed] == [("crash", True)]
    assert "RuntimeError: my model client blew up" in crashed[0].message and "Traceback" in (crashed[0].traceback or "")
    assert card["crashy"]["termination_reason"] == "agent_error" and "agent_error" in card["crashy"]["flags"]
    assert _manifest(session_folder(out, "crashy"))["agent_kind"] == "py"
    assert "mini_fixture × crashy: agent_error (crash, fatal): the agent raised RuntimeError" in err

    flaky = [e for e in _events(session_folder(out, "flaky")) if isinstance(e, AgentError)]
    assert [(e.kind, e.fatal, e.turn_index) for e in flaky] == [("model_error", False, i) for i in range(4)]
    assert card["flaky"]["termination_reason"] == "completed" and "agent_error" in card["flaky"]["flags"]
    assert "every session of agent 'crashy'" in err and "every session of agent 'flaky'" in err
    assert "every session of agent 'echo'" not in err


def test_py_agent_over_webrtc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same py: agent over real WebRTC peers (a one-turn slice: real time)."""
    monkeypatch.chdir(ROOT)
    out = tmp_path / "runs"
    assert _run(out, "--agent", "py:examples.echo_agent:agent", "--agent-name", "echo", "--turns", "1") == 0
    assert _manifest(session_folder(out, "echo"))["transport"] == "webrtc"
    assert sum(e.event == "agent_done" for e in _events(session_folder(out, "echo"))) == 1


def test_py_agent_over_webrtc_runs_in_its_own_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Over WebRTC a py: agent runs in a child process (its CPU cannot stall the persona's media): it chats its
    pid, which is not the harness's; the module is found from the current folder as in-process; what it
    reports (report_error) and its crash (with the traceback) are recorded as agent_error as before."""
    _write_module(tmp_path, "byo_agents_pid", """
        import os
        from modylbench.agents import MeetingEnded, TurnEnded

        async def pid(client):
            async for ev in client.events():
                if isinstance(ev, TurnEnded):
                    await client.chat(f"pid={os.getpid()}")
                    client.report_error("model_error", f"turn {ev.turn_index}: 503 from my model")
                    await client.done(ev.turn_index)
                elif isinstance(ev, MeetingEnded):
                    return

        async def crashes(client):
            async for ev in client.events():
                if isinstance(ev, TurnEnded):
                    raise RuntimeError("my pipeline blew up")
        """)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "runs"
    # A mistake is still one line, found here before any meeting (or process) starts.
    assert _run(out, "--agent", "py:byo_agents_pid:nope") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --agent 'py:byo_agents_pid:nope': module byo_agents_pid has no attribute")
    assert err.count("\n") == 1 and not out.exists()
    code = _run(out, "--agent", "py:byo_agents_pid:pid", "--agent", "py:byo_agents_pid:crashes",
                "--agent-name", "pid", "--agent-name", "crashy", "--turns", "1")
    assert code == 4  # every session of each agent recorded an agent failure
    events = _events(session_folder(out, "pid"))
    chats = [e.text for e in events if e.event == "chat_message" and e.sender == "agent"]
    assert len(chats) == 1 and chats[0].startswith("pid=")
    assert int(chats[0][4:]) not in (os.getpid(), 0)
    manifest = _manifest(session_folder(out, "pid"))
    assert manifest["agent_kind"] == "py" and manifest["transport"] == "webrtc"
    assert manifest["agent_process"]["pid"] == int(chats[0][4:])
    assert manifest["termination_reason"] == "max_turns"
    errors = [e for e in events if isinstance(e, AgentError)]
    assert [(e.kind, e.fatal, e.message) for e in errors] == [("model_error", False, "turn 0: 503 from my model")]

    crashed = [e for e in _events(session_folder(out, "crashy")) if isinstance(e, AgentError)]
    assert [(e.kind, e.fatal) for e in crashed] == [("crash", True)]
    assert "the agent raised RuntimeError: my pipeline blew up" in crashed[0].message
    assert "Traceback" in (crashed[0].traceback or "") and "byo_agents_pid.py" in (crashed[0].traceback or "")
    assert _manifest(session_folder(out, "crashy"))["termination_reason"] == "agent_error"
    assert "my pipeline blew up" in (session_folder(out, "crashy") / "agent.stderr.log").read_text()


async def test_agent_process_reports_are_bounded(tmp_path: Path) -> None:
    """A py: agent's process reports failures on a pipe of its own: each one reaches the harness, in order;
    an oversized or unreadable line is dropped, and past MAX_REPORTS the rest are read and dropped."""
    from modylbench.simulator._external import MAX_REPORTS

    script = textwrap.dedent("""
        import json, os, sys
        out = os.fdopen(int(os.environ["MODYLBENCH_REPORT_FD"]), "w")
        out.write("x" * 300_000 + "\\n")
        out.write("not json\\n")
        for i in range(int(sys.argv[1])):
            out.write(json.dumps({"kind": "model_error", "message": f"m{i}", "fatal": False}) + "\\n")
        """)
    got: list[dict[str, Any]] = []
    child = AgentProcess("", tmp_path, dict(os.environ), argv=[sys.executable, "-c", script, str(MAX_REPORTS + 5)],
                         on_report=got.append)
    await child.start()
    assert await child.wait() == 0
    await child.stop(WallClock())
    assert child.reports_read is not None and child.reports_read.done()
    assert [g["message"] for g in got] == [f"m{i}" for i in range(MAX_REPORTS)]


# ------------------------------------------------------------------ cmd: agents


def test_echo_example_as_a_cmd_agent_plays_to_the_end(tmp_path: Path) -> None:
    """The README's example, started by run for the meeting: it answers every turn, leaves at the end (no
    ConnectionError from done), exits by itself, and its output is in the session folder."""
    out = tmp_path / "runs"
    assert _run(out, "--agent", f"cmd:{PY} {shlex.quote(str(ECHO))}", "--agent-name", "echo", "--turns", "2") == 0
    folder = session_folder(out, "echo")
    events = _events(folder)
    assert sum(e.event == "agent_done" for e in events) == 2
    assert any(e.event == "chat_message" and e.sender == "agent" for e in events)
    assert not any(isinstance(e, AgentError) for e in events)
    manifest = _manifest(folder)
    assert manifest["termination_reason"] == "max_turns" and manifest["agent_kind"] == "cmd"
    assert manifest["agent_process"]["ended_by"] == "exited" and manifest["agent_process"]["exit_code"] == 0
    log = (folder / "agent.stderr.log").read_text()
    assert "meeting over: max_turns" in log and "Traceback" not in log
    assert _card(out)["echo"]["model_id"] == "echo"


def test_cmd_agent_that_exits_at_once_or_never_joins(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Exits at once: the meeting ends at once as agent_error with its status and last stderr line. Never
    joins (and floods its output meanwhile): ended after --join-timeout, the child gone, the capture bounded."""
    out = tmp_path / "runs"
    t0 = time.monotonic()
    flood = (f"{PY} -c \"import sys, time; sys.stdout.buffer.write(b'x' * (24 << 20)); sys.stdout.flush(); "
             "time.sleep(120)\"")
    code = _run(out, "--agent", "cmd:echo 'no model key' >&2; exit 3", "--agent-name", "quits",
                "--agent", f"cmd:{flood}", "--agent-name", "silent", "--join-timeout", "2")
    err = capsys.readouterr().err
    assert code == 4, err
    assert time.monotonic() - t0 < 30  # not the harness's 600 s wait

    quits = session_folder(out, "quits")
    errors = [e for e in _events(quits) if isinstance(e, AgentError)]
    assert [(e.kind, e.fatal) for e in errors] == [("crash", True)]
    assert "exited with code 3 before joining the meeting" in errors[0].message
    assert "its last stderr line: no model key" in errors[0].message
    manifest = _manifest(quits)
    assert manifest["termination_reason"] == "agent_error" and manifest["agent_process"]["exit_code"] == 3
    assert "mini_fixture × quits: agent_error (crash, fatal)" in err

    silent = session_folder(out, "silent")
    errors = [e for e in _events(silent) if isinstance(e, AgentError)]
    assert [(e.kind, e.fatal) for e in errors] == [("no_join", True)]
    proc = _manifest(silent)["agent_process"]
    assert proc["ended_by"] in ("terminated", "killed")
    with pytest.raises(ProcessLookupError):
        os.kill(proc["pid"], 0)
    kept = proc["output"]["agent.stdout.log"]
    assert kept["kept"] == 10 * 1024 * 1024 and kept["dropped"] == 14 * 1024 * 1024
    log = (silent / "agent.stdout.log").read_bytes()
    assert len(log) < 10 * 1024 * 1024 + 200 and log.rstrip().endswith(b"were read and dropped]")


CRASHER = """
import asyncio, os, sys
from modylbench.agents import TurnEnded, join

async def main():
    client = await join(os.environ["MODYLBENCH_URL"], os.environ["MODYLBENCH_TOKEN"])
    async for ev in client.events():
        if isinstance(ev, TurnEnded):
            print("model backend refused: 401", file=sys.stderr, flush=True)
            os._exit(5)  # dies mid-meeting, without leaving

asyncio.run(main())
"""


def test_cmd_agent_that_crashes_during_the_meeting(tmp_path: Path) -> None:
    """The websocket drops as the process dies; the meeting ends at once and is charged as the crash it was
    (agent_error with the exit status and stderr), not as the agent leaving."""
    script = tmp_path / "crasher.py"
    script.write_text(CRASHER)
    out = tmp_path / "runs"
    assert _run(out, "--agent", f"cmd:{PY} {shlex.quote(str(script))}", "--agent-name", "crasher") == 4
    folder = session_folder(out, "crasher")
    errors = [e for e in _events(folder) if isinstance(e, AgentError)]
    assert [(e.kind, e.fatal) for e in errors] == [("crash", True)]
    assert "exited with code 5 during the meeting; its last stderr line: model backend refused: 401" in errors[0].message
    manifest = _manifest(folder)
    assert manifest["termination_reason"] == "agent_error" and manifest["turns_played"] <= 1


HANGER = """
import asyncio, os, signal
from modylbench.agents import MeetingEnded, TurnEnded, join

async def main():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # deaf to the polite request
    client = await join(os.environ["MODYLBENCH_URL"], os.environ["MODYLBENCH_TOKEN"])
    async for ev in client.events():
        if isinstance(ev, TurnEnded):
            await client.done(ev.turn_index)
        elif isinstance(ev, MeetingEnded):
            break
    await asyncio.sleep(3600)  # and never leaves

asyncio.run(main())
"""


def test_cmd_agent_that_hangs_past_the_meeting_is_killed(tmp_path: Path) -> None:
    script = tmp_path / "hanger.py"
    script.write_text(HANGER)
    out = tmp_path / "runs"
    assert _run(out, "--agent", f"cmd:{PY} {shlex.quote(str(script))}", "--agent-name", "hanger",
                "--turns", "1") == 0
    manifest = _manifest(session_folder(out, "hanger"))
    assert manifest["termination_reason"] == "max_turns"
    assert manifest["agent_process"]["ended_by"] == "killed"
    with pytest.raises(ProcessLookupError):
        os.kill(manifest["agent_process"]["pid"], 0)


async def test_agent_process_ends_its_whole_group_and_bounds_output(tmp_path: Path) -> None:
    """A command that starts a background job, ignores SIGTERM and floods stderr: after stop() nothing of its
    process group is left and each log holds at most the bound plus the note."""
    pidfile = tmp_path / "bg.pid"
    command = (f"sleep 300 & echo $! > {shlex.quote(str(pidfile))}; trap '' TERM; "
               f"{PY} -c \"import sys; sys.stderr.buffer.write(b'e' * 5000); sys.stderr.flush()\"; sleep 300")
    child = AgentProcess(command, tmp_path, dict(os.environ), max_output=1000)
    await child.start()
    while not pidfile.exists() or not pidfile.read_text().strip():
        await asyncio.sleep(0.05)
    await child.stop(WallClock(), grace=0.2, term_grace=0.2)
    assert child.ended_by == "killed" and child.returncode == -signal.SIGKILL
    with pytest.raises(ProcessLookupError):
        os.kill(int(pidfile.read_text()), 0)  # the background job went with the group
    assert child.captured["agent.stderr.log"] == {"kept": 1000, "dropped": 4000}
    assert (tmp_path / "agent.stderr.log").read_bytes().startswith(b"e" * 1000)


# ------------------------------------------------------------------ serve's ready-to-paste command


def test_serve_prints_a_command_that_joins_with_the_example(tmp_path: Path) -> None:
    folder = tmp_path / "served"
    serve = subprocess.Popen(
        [sys.executable, "-m", "modylbench.simulator.cli", "serve", "mini_fixture", "--scenarios", str(MINI),
         "--port", "0", "--turns", "1", "--wait", "60", "--out", str(folder)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        assert serve.stdout is not None and serve.stderr is not None
        ready = json.loads(serve.stdout.readline())
        assert ready["event"] == "meeting_ready" and set(ready) >= {"url", "token", "scenario_id", "seed",
                                                                    "session_folder"}
        command = ""
        for line in serve.stderr:
            if line.strip().startswith("try it:"):
                command = line.split("try it:", 1)[1].strip()
                break
        assert ready["url"] in command and ready["token"] in command and "-m modylbench.examples.echo_agent " in command
        agent = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert agent.returncode == 0, agent.stderr[-2000:]
        assert serve.wait(timeout=120) == 0
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
    assert _manifest(folder)["termination_reason"] == "max_turns"
    assert sum(e.event == "agent_done" for e in _events(folder)) == 1


# ------------------------------------------------------------------ the llm agent without its model


def test_llm_agent_that_cannot_reach_its_model_is_flagged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No silent 1.00: each failed model call is an agent_error (model_error) printed by run, the scorecard
    flags it, and run exits 4."""
    import socket

    with socket.socket() as s:  # a port nothing listens on: connection refused at once
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "runs"
    code = _run(out, "--transport", "inproc", "--turns", "1", "--agent", f"llm/m@http://127.0.0.1:{port}/v1",
                "--agent-name", "nomodel")
    err = capsys.readouterr().err
    assert code == 4, err
    errors = [e for e in _events(session_folder(out, "nomodel")) if isinstance(e, AgentError)]
    assert [(e.kind, e.turn_index, e.fatal) for e in errors] == [("model_error", 0, False)]
    assert f"127.0.0.1:{port}" in errors[0].message and "APIConnectionError" in errors[0].message
    assert "agent_error (model_error): turn 0: the call to m" in err
    assert "agent_error" in _card(out)["nomodel"]["flags"]
