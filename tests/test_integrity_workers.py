"""One writer per session folder, workers that die with their parent, crashed sessions kept (issue 14, item 4).

Real processes throughout: a second Python process holds the lock; a real `modylbench run` is killed with
SIGKILL mid-meeting.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from modylbench.record import RecordWriter, SessionBusyError, SessionLock
from modylbench.simulator.cli import exit_code

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"
CLI = [sys.executable, "-m", "modylbench.simulator.cli"]


def _until(condition: object, timeout: float, what: str) -> None:
    """Poll another process's progress (there is no event to await across processes)."""
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def _children(pid: int) -> set[int]:
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.add(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    """Any thread of the process still running: a killed process's leader turns zombie while its other
    threads are still exiting, and until the last one has gone its files (and the session lock) are open."""
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return False
    for task in tasks:
        try:
            state = (task / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in ("Z", "X"):
            return True
    return False


HOLDER = """
import sys
from modylbench.record import SessionLock
lock = SessionLock(sys.argv[1]).acquire()
print("held", flush=True)
sys.stdin.read()
"""


def test_a_session_folder_has_one_writer_at_a_time(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "runs" / "mini_fixture__oracle__inproc__all__seed0__t0"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(SessionBusyError, match=f"pid {holder.pid}"):
            RecordWriter(folder)
        capsys.readouterr()
        code = exit_code(["run", "mini_fixture", "--scenarios", str(MINI), "--transport", "inproc",
                     "--out", str(tmp_path / "runs")])
        err = capsys.readouterr().err
        assert code == 2 and "being written by another process" in err and f"pid {holder.pid}" in err
        assert "Traceback" not in err
        assert folder.exists() and not (folder / "record.jsonl").exists()  # left alone
    finally:
        holder.communicate("")
    # The holder is gone, and with it the lock (no stale lock file to clean up by hand).
    with SessionLock(folder):
        RecordWriter(folder).close()


def test_the_lock_is_reentrant_within_a_process(tmp_path: Path) -> None:
    with SessionLock(tmp_path), SessionLock(tmp_path):
        writer = RecordWriter(tmp_path)
        writer.close()
    probe = subprocess.run([sys.executable, "-c", HOLDER, str(tmp_path)], input="", capture_output=True, text=True)
    assert probe.stdout.strip() == "held"


def test_killed_sweep_takes_its_workers_with_it_and_a_rerun_keeps_the_crashed_sessions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs"
    args = ["run", "mini_fixture", "--scenarios", str(MINI), "--agent", "oracle", "--agent", "polite",
            "--out", str(out)]
    parent = subprocess.Popen([*CLI, *args, "--transport", "webrtc", "--concurrency", "2"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    folders = [out / f"mini_fixture__{a}__webrtc__all__seed0__t0" for a in ("oracle", "polite")]
    try:
        _until(lambda: all((f / "record.jsonl").exists() and (f / "record.jsonl").stat().st_size > 0 for f in folders),
               240, "both meetings to start")
        workers = {pid for pid in _children(parent.pid) if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text()}
        # Two meeting workers, and the Manager process that carries their progress events back.
        assert len(workers) == 3
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        _until(lambda: not any(_alive(pid) for pid in workers), 30, "the workers to die with their parent")
    finally:
        if parent.poll() is None:
            os.killpg(parent.pid, signal.SIGKILL)
            parent.wait()
    crashed = {f: (f / "record.jsonl").read_bytes() for f in folders}
    assert all(not json.loads((f / "manifest.json").read_text())["complete"] for f in folders)

    capsys.readouterr()
    # The same configuration again (the folder's name holds the transport): the crashed folders are moved aside.
    assert exit_code([*args, "--transport", "webrtc", "--concurrency", "2"]) == 0
    err = capsys.readouterr().err
    for folder in folders:
        assert f"{folder} held an incomplete session" in err
        aside = [p for p in out.iterdir() if p.name.startswith(folder.name + ".crashed-")]
        assert len(aside) == 1, aside
        assert (aside[0] / "record.jsonl").read_bytes() == crashed[folder]  # kept, untouched
        manifest = json.loads((folder / "manifest.json").read_text())
        assert manifest["complete"] and manifest["transport"] == "webrtc"  # run again, to the end


def test_serve_refuses_a_folder_another_process_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "session"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        capsys.readouterr()
        code = exit_code(["serve", "mini_fixture", "--scenarios", str(MINI), "--out", str(folder), "--port", "0"])
        err = capsys.readouterr().err
        assert code == 2 and "being written by another process" in err and "Traceback" not in err
        assert not (folder / "record.jsonl").exists()
    finally:
        holder.communicate("")


AGENT = '''
import asyncio, os, pathlib

async def agent(client):
    pathlib.Path("agent.pid").write_text(str(os.getpid()))
    async for _ in client.events():
        pass
    await asyncio.sleep(3600)  # a badly behaved agent: it does not stop when the meeting is gone
'''


def test_a_py_agents_process_dies_with_a_killed_run(tmp_path: Path) -> None:
    """Over WebRTC a py: agent has a process of its own; a run killed with -9 must not leave it behind."""
    (tmp_path / "pid_agent.py").write_text(AGENT)
    args = ["run", "mini_fixture", "--scenarios", str(MINI), "--agent", "py:pid_agent:agent", "--transport", "webrtc",
            "--out", str(tmp_path / "runs")]  # fmt: skip
    parent = subprocess.Popen([*CLI, *args], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)  # fmt: skip
    pid_file = tmp_path / "agent.pid"
    agent = 0
    try:
        _until(lambda: pid_file.exists() and pid_file.read_text().strip().isdigit(), 120, "the agent to join")
        agent = int(pid_file.read_text())
        assert agent != parent.pid and _alive(agent)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        _until(lambda: not _alive(agent), 15, "the agent's process to die with the run")
    finally:
        if parent.poll() is None:
            os.killpg(parent.pid, signal.SIGKILL)
            parent.wait()
        if agent and _alive(agent):  # the failure being reported: leave no process behind
            os.kill(agent, signal.SIGKILL)


def test_ctrl_c_under_concurrency_is_heard_at_once_and_stops_quickly(tmp_path: Path) -> None:
    # It once took ~11 s (each worker gave its agent 10 s after the stopped meeting), printed nothing meanwhile,
    # and its last line still counted a session as running.
    out = tmp_path / "runs"
    proc = subprocess.Popen([*CLI, "run", "mini_fixture", "--scenarios", str(MINI), "--agent", "oracle", "--agent",
                             "polite", "--transport", "webrtc", "--concurrency", "2", "--out", str(out),
                             "--progress", "lines"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stderr is not None
    try:
        started = 0
        for line in proc.stderr:  # until both meetings are in their first turn
            started += "turn 1/4" in line and "ended" not in line
            if started == 2:
                break
        assert started == 2, "the meetings never started"
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole group
        t0 = time.monotonic()
        rest = proc.stderr.read()
        code = proc.wait(timeout=60)
        took = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    lines = rest.splitlines()
    assert code == 130, rest
    assert lines[0] == "Ctrl-C: stopping 2 running sessions (Ctrl-C again to quit at once)", rest
    assert took < 6.0, (took, rest)
    finished = [ln for ln in lines if "run interrupted:" in ln]
    assert len(finished) == 1 and "0 done, 2 failed, 0 skipped, 0 running, 0 waiting" in finished[0], rest
    assert lines[-1].startswith("interrupted: 0 sessions finished"), rest
    assert "Traceback" not in rest and "aborted" not in rest
    # Both folders are kept, incomplete: the next run moves them aside and plays them again.
    for agent in ("oracle", "polite"):
        manifest = json.loads((out / f"mini_fixture__{agent}__webrtc__all__seed0__t0" / "manifest.json").read_text())
        assert manifest["complete"] is False
