"""A sweep on a real two-node Ray cluster started with ``ray start`` on this machine: the cells spread over
both nodes, the second node's raylet is killed mid-sweep, and every cell is complete at the end."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("ray")

from modylbench.record import SessionFolder  # noqa: E402
from modylbench.simulator._runner import session_complete  # noqa: E402

BIN = Path(sys.executable).parent
RAY = str(BIN / "ray")
# Node death is noticed by the GCS's health checks; their defaults take ~30 s.
ENV = {
    **os.environ,
    "RAY_health_check_period_ms": "500",
    "RAY_health_check_failure_threshold": "4",
    "RAY_health_check_initial_delay_ms": "0",
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_AUTH_MODE": "disabled",
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _descendants(pid: int) -> list[tuple[int, str]]:
    """(pid, name) of every process below ``pid``, from /proc."""
    children: dict[int, list[tuple[int, str]]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append((int(entry), name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child[0])
    return out


def _node_id(temp_dir: Path) -> str | None:
    """The node id of the raylet that runs with this temp dir (Ray 2.60 names per-node port files after it)."""
    for f in (temp_dir / "session_latest").glob("runtime_env_agent_port_*"):
        m = re.search(r"([0-9a-f]{56})$", f.name)
        if m:
            return m.group(1)
    return None  # not started yet


class Node:
    def __init__(self, args: list[str], temp_dir: Path, log: Path):
        self.temp_dir = temp_dir
        # --block: the node's processes stay children of this one, so the test ends exactly what it started.
        self.proc = subprocess.Popen(
            [
                RAY,
                "start",
                "--block",
                "--temp-dir",
                str(temp_dir),
                "--num-cpus",
                "1",
                "--object-store-memory",
                "80000000",
                "--disable-usage-stats",
                *args,
            ],
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
            env=ENV,
            start_new_session=True,
        )
        self.seen: set[int] = set()

    def processes(self) -> list[tuple[int, str]]:
        found = _descendants(self.proc.pid)
        self.seen |= {pid for pid, _ in found}
        return found

    def stop(self) -> None:
        self.processes()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        for pid in self.seen:  # only processes this node started, by id
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[str, Node, Node]]:
    # Ray's unix sockets live under the temp dir, and a socket path may not exceed 107 bytes.
    short = Path(tempfile.mkdtemp(prefix="mbray-", dir="/tmp"))
    port = _free_port()
    address = f"127.0.0.1:{port}"
    head = Node(
        ["--head", "--port", str(port), "--node-ip-address", "127.0.0.1", "--include-dashboard", "false"],
        short / "h",
        tmp_path / "head.log",
    )
    nodes = [head]
    try:
        deadline = time.monotonic() + 60
        while not _listening(port):  # the GCS is up; the second node registers while the sweep starts
            assert time.monotonic() < deadline and head.proc.poll() is None, (
                tmp_path / "head.log"
            ).read_text()[-2000:]
            time.sleep(0.2)
        second = Node(
            [
                "--address",
                address,
                "--node-ip-address",
                "127.0.0.1",
                "--node-manager-port",
                str(_free_port()),
            ],
            short / "n2",
            tmp_path / "node2.log",
        )
        nodes.append(second)
        yield address, head, second
    finally:
        for node in reversed(nodes):
            node.stop()
        shutil.rmtree(short, ignore_errors=True)


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


SWEEP = """
scenarios = ["financial_analyst_lbo_model", "optimization_solver_supply_chain"]
agents = ["oracle", "null"]
trials = 2
turns = 2
speed = 30.0
[ray]
num_cpus = 1
"""


def test_sweep_survives_a_dead_node(cluster: tuple[str, Node, Node], tmp_path: Path) -> None:
    address, head, second = cluster
    sweep_file = tmp_path / "sweep.toml"
    sweep_file.write_text(SWEEP)
    out = tmp_path / "out"
    err = (tmp_path / "sweep.err").open("w")
    proc = subprocess.Popen(
        [str(BIN / "modylbench"), "sweep", str(sweep_file), "--out", str(out), "--ray", address],
        stdout=subprocess.PIPE,
        stderr=err,
        text=True,
        env=ENV,
    )
    node2 = None
    killed_cell: Path | None = None
    try:
        # Wait until node 2 has finished a cell and is running another one, then kill its raylet.
        deadline = time.monotonic() + 120
        while killed_cell is None:
            assert proc.poll() is None, (tmp_path / "sweep.err").read_text()
            assert time.monotonic() < deadline, "node 2 never ran a cell"
            node2 = node2 or _node_id(second.temp_dir)
            done_there = [
                d
                for d in out.glob("*__t*")
                if session_complete(d)
                and SessionFolder(d).read_manifest().node.get("ray_node_id") == node2  # type: ignore[union-attr]
            ]
            running = [p for p in second.processes() if p[1].startswith("ray::cell_task")]
            if done_there and running:
                raylet = next(pid for pid, name in second.processes() if name == "raylet")
                os.kill(raylet, signal.SIGKILL)
                killed_cell = done_there[0]
            time.sleep(0.1)
        stdout, _ = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
        err.close()
    log = (tmp_path / "sweep.err").read_text()
    assert proc.returncode == 0, log
    cells = sorted(d for d in out.iterdir() if d.is_dir() and "__t" in d.name and ".crashed-" not in d.name)
    assert len(cells) == 8, [c.name for c in cells]
    assert all(session_complete(c) for c in cells), log
    nodes = {SessionFolder(c).read_manifest().node["ray_node_id"] for c in cells}  # type: ignore[union-attr]
    assert node2 in nodes and len(nodes) == 2, nodes  # spread over both nodes
    # What node 2 finished before it died is still there, as it was.
    assert SessionFolder(killed_cell).read_manifest().node["ray_node_id"] == node2  # type: ignore[union-attr]
    card = json.loads((out / "scorecard.json").read_text())
    assert len(card["scenarios"]) == 8
    board = json.loads((out / "leaderboard.json").read_text())
    assert board["cells"] == {"planned": 8, "complete": 8, "failed": 0}
    assert [r["model"] for r in board["rows"]] == ["oracle", "null"]
