"""Wall time of N sessions at concurrency 2 with 1 vs 2 worker processes (``run --workers``), medians of R runs.

Usage: python benchmarks/bench_workers.py [--sessions N] [--repeats R] [--transport inproc|webrtc] [--turns T]
                                          [--scenario ID]

Each run is a fresh ``modylbench run`` (a child process, so that spawning and warming the workers is counted) of
N sessions (the scenario's trials with the oracle agent) into an empty folder; the figure is the command's wall
time and the sessions' own meeting time as their scorecards' runs record it. With --workers 1 every session's
harness side (persona, recording, scoring, report) shares one event loop; with 2 they spread over two processes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"


def one_run(workers: int, sessions: int, transport: str, scenario: str, turns: int | None) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        argv = [sys.executable, "-m", "modylbench.simulator.cli", "run", scenario, "--agent", "oracle",
                "--trials", str(sessions), "--transport", transport, "--concurrency", "2", "--workers", str(workers),
                "--out", str(Path(tmp) / "runs"), "--progress", "off"]
        if scenario == "mini_fixture":
            argv += ["--scenarios", str(MINI)]
        if turns is not None:
            argv += ["--turns", str(turns)]
        t0 = time.monotonic()
        proc = subprocess.run(argv, capture_output=True, text=True, cwd=tmp)
        took = time.monotonic() - t0
        if proc.returncode != 0:
            raise SystemExit(f"run exited with {proc.returncode}:\n{proc.stderr[-2000:]}")
        return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--transport", choices=("inproc", "webrtc"), default="inproc")
    ap.add_argument("--scenario", default="mini_fixture")
    ap.add_argument("--turns", type=int, default=None)
    args = ap.parse_args()
    print(f"{args.sessions} sessions of {args.scenario} ({args.transport}), concurrency 2, {args.repeats} runs each; "
          f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at the start")
    times: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(args.repeats):  # interleaved, so that a change in the machine's load hits both alike
        for workers in (1, 2):
            times[workers].append(one_run(workers, args.sessions, args.transport, args.scenario, args.turns))
    for workers, ts in times.items():
        print(f"  --workers {workers}: median {statistics.median(ts):6.2f} s  (runs: "
              + ", ".join(f"{t:.2f}" for t in ts) + ")")
    ratio = statistics.median(times[1]) / statistics.median(times[2])
    print(f"  1 worker / 2 workers: {ratio:.2f}x; load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
