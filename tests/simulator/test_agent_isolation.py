"""Agents kept in their place (issue 25, items 5 and 6): a cmd:/py: agent's process gets an allow-listed
environment (never the harness's keys) unless a name is passed with --agent-env, and every process it starts
dies with ``run``, even when ``run`` is killed with SIGKILL before the agent joined."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from modylbench.channels import WallClock
from modylbench.simulator._external import AGENT_ENV, AgentProcess, command_env

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"
SECRETS = {"OPENAI_API_KEY": "sk-judge", "AWS_SECRET_ACCESS_KEY": "aws", "HF_TOKEN": "hf", "GITHUB_TOKEN": "gh"}


def test_the_agents_environment_is_allow_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    for k, v in SECRETS.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    env = command_env("http://127.0.0.1:1/m", "tok")
    assert not set(SECRETS) & set(env)
    assert env["MODYLBENCH_URL"] == "http://127.0.0.1:1/m" and env["MODYLBENCH_TOKEN"] == "tok"
    assert env["PATH"] == os.environ["PATH"] and env["LC_ALL"] == "C.UTF-8"
    assert set(env) <= {*AGENT_ENV, "LC_ALL", "LC_CTYPE", "LANG", "MODYLBENCH_URL", "MODYLBENCH_TOKEN",
                        "PYTHONUNBUFFERED", *(k for k in os.environ if k.startswith("LC_"))}
    passed = command_env("u", "t", ("OPENAI_API_KEY",))
    assert passed["OPENAI_API_KEY"] == "sk-judge" and "HF_TOKEN" not in passed


async def test_an_agent_process_sees_no_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for k, v in SECRETS.items():
        monkeypatch.setenv(k, v)
    child = AgentProcess("env", tmp_path, command_env("u", "t"))
    await child.start()
    await child.wait()
    await child.stop(WallClock())
    seen = (tmp_path / "agent.stdout.log").read_text()
    assert "MODYLBENCH_TOKEN=t" in seen and not any(f"{k}=" in seen for k in SECRETS)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead (it waits for its parent to collect it).
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_kill_9_of_run_ends_an_agent_that_never_joined_and_its_children(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    # The shell, a background child and a grandchild; it never joins the meeting.
    command = f"cmd:sh -c 'sleep 300 & echo $! >> {pids}; sleep 300' & echo $$ >> {pids}; echo $! >> {pids}; wait"
    run = subprocess.Popen(
        [sys.executable, "-m", "modylbench.simulator.cli", "run", "mini_fixture", "--scenarios", str(MINI),
         "--agent", command, "--transport", "webrtc", "--join-timeout", "600", "--out", str(tmp_path / "out"),
         "--progress", "off"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not pids.exists() or len(pids.read_text().split()) < 3):
            time.sleep(0.1)
        started = [int(p) for p in pids.read_text().split()]
        assert len(started) == 3 and all(_alive(p) for p in started)
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(p) for p in started):
        time.sleep(0.05)
    left = [p for p in started if _alive(p)]
    for p in left:
        os.kill(p, signal.SIGKILL)
    assert not left, f"{len(left)} of the agent's processes outlived kill -9 of run"


async def test_a_normal_stop_ends_the_reaper_too(tmp_path: Path) -> None:
    child = AgentProcess("sleep 300", tmp_path, command_env("u", "t"))
    await child.start()
    reaper = child._reaper
    assert reaper is not None and reaper.poll() is None
    await child.stop(WallClock(), grace=0.1, term_grace=0.1)
    assert reaper.poll() is not None and child.ended_by == "terminated"
    await asyncio.sleep(0)
