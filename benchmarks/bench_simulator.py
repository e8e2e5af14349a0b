"""Whole meetings with the oracle agent: real-time WebRTC slices and time-compressed in-process runs.

Prints, per scenario: turns played, meeting time, wall time, the process's CPU time for the meeting (a
steadier figure than wall time on a shared machine; not measured for --concurrency, where meetings run in
worker processes), the meeting seconds that flowed at the wall rate on the in-process transport's virtual
clock (0 for a scripted agent: it does no wall-clock work; an llm agent's model time otherwise), speed-up over real time, persona audio frames sent, frames late by > 20 ms, the largest
lateness, and the offline-judge score.

    python benchmarks/bench_simulator.py --transport webrtc --turns 8      # real time, zero late frames?
    python benchmarks/bench_simulator.py --transport inproc --repeat 3     # full scenarios, >= 20x?
    python benchmarks/bench_simulator.py --transport webrtc --turns 8 --concurrency 8 --repeat 2
        # 12 real-time sessions, 8 at a time, each in its own process as `run --concurrency` does;
        # one row per session, then the totals
    BENCH_CODE_FROM=/tmp/base python benchmarks/bench_simulator.py   # the code of another checkout
    python benchmarks/bench_simulator.py --base /tmp/base --repeat 3  # today's code (a checkout) and this, side by side
    python benchmarks/bench_simulator.py --scenario financial_analyst_lbo_model --profile   # time by function

"cpu x" is meeting seconds per CPU second of this process: the speed-up a core gives when nothing else runs
on it (wall-clock speed-up on a shared machine is lower by the load).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _code_from import CODE_FROM  # before modylbench: it may point the imports elsewhere

from modylbench.channels import VirtualClock
from modylbench.scenarios import resolve_scenarios
from modylbench.simulator._runner import RunSpec, SessionWorkers, run_one, score_session
from modylbench.simulator._session import MeetingOptions, MeetingResult

HEADER = (f"{'scenario':<38} {'turns':>5} {'meeting s':>10} {'wall s':>8} {'cpu s':>7} {'flowed s':>8} {'speed-up':>9} {'cpu x':>7} "
          f"{'frames':>7} {'late>20ms':>9} {'max late ms':>11} {'score':>6}")


def _virtual_clock(link: Any) -> VirtualClock | None:
    """The link's virtual clock under its meeting clock (JoinClock), if it runs on one."""
    clock = getattr(link, "clock", None)
    while clock is not None and not isinstance(clock, VirtualClock):
        clock = getattr(clock, "base", None)
    return clock


async def _side_by_side(specs: list[RunSpec], concurrency: int) -> list[tuple[RunSpec, MeetingResult, float]]:
    pool = SessionWorkers(min(concurrency, len(specs)))
    sem = asyncio.Semaphore(concurrency)

    async def one(spec: RunSpec) -> tuple[RunSpec, MeetingResult, float]:
        async with sem:
            t0 = time.perf_counter()
            result = await pool.run(spec)
            return spec, result, time.perf_counter() - t0

    try:
        return await asyncio.gather(*(one(s) for s in specs))
    finally:
        pool.close()


def concurrent(args: argparse.Namespace, ids: list[str], scenarios: dict) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        specs = [RunSpec(scenarios[sid], args.agent, Path(tmp) / f"{sid}_{r}", args.transport, meeting=MeetingOptions(turns=args.turns))
                 for r in range(args.repeat) for sid in ids]
        t0 = time.perf_counter()
        done = asyncio.run(_side_by_side(specs, args.concurrency))
        total = time.perf_counter() - t0
        print(HEADER)
        late_all, frames_all, worst = 0, 0, 0.0
        for spec, result, wall in done:
            media = result.media
            meeting = json.loads((spec.folder / "manifest.json").read_text())["meeting_seconds"]
            card = score_session(spec.folder, scenarios, ["offline"], write=False)
            late, frames = media.get("audio_frames_late_20ms", 0), media.get("audio_frames_sent", 0)
            late_all, frames_all = late_all + late, frames_all + frames
            worst = max(worst, media.get("audio_max_late_ms", 0.0))
            print(f"{spec.scenario.scenario_id:<38} {result.turns_played:>5} {meeting:>10.1f} {wall:>8.1f} {'-':>7} {'-':>8} "
                  f"{meeting / wall:>8.1f}x {'-':>7} {frames:>7} {late:>9} {media.get('audio_max_late_ms', 0.0):>11.1f} "
                  f"{card.scenarios[0].modylbench_score or 0.0:>6.2f}", flush=True)
        print(f"{len(done)} sessions, {min(args.concurrency, len(done))} at a time, {total:.0f} s wall: "
              f"{late_all} of {frames_all} audio frames late by > 20 ms, worst {worst:.1f} ms")


def profile(sid: str, args: argparse.Namespace, scenarios: dict, top: int = 30) -> None:
    """One meeting under cProfile (slower than without): where the in-process path's time goes."""
    import cProfile
    import pstats

    with tempfile.TemporaryDirectory() as tmp:
        prof = cProfile.Profile()
        c0 = time.process_time()
        prof.enable()
        asyncio.run(run_one(RunSpec(scenarios[sid], args.agent, Path(tmp) / "s", args.transport,
                                    meeting=MeetingOptions(turns=args.turns))))  # fmt: skip
        prof.disable()
        print(f"# {sid}: {time.process_time() - c0:.1f} s CPU under the profiler")
        pstats.Stats(prof).sort_stats("tottime").print_stats(top)


def side_by_side(base: str, args: argparse.Namespace, ids: list[str]) -> None:
    """Each scenario with the code of ``base`` (a checkout of another commit, through BENCH_CODE_FROM) and of this
    checkout, one after the other in child processes, each the median of --repeat runs: "cpu x" side by side."""
    import subprocess
    import sys

    here = Path(__file__).resolve()
    commit = subprocess.run(["git", "-C", base, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    print(f"# today = {base} ({commit.stdout.strip() or 'not a git checkout'}); new = this checkout; agent {args.agent}, "
          f"median of {args.repeat} per side; cpu x = meeting seconds per CPU second", flush=True)
    print(f"{'scenario':<38} {'meeting s':>10} {'today cpu x':>12} {'new cpu x':>10} {'ratio':>6}", flush=True)
    for sid in ids:
        figures: dict[str, tuple[float, float]] = {}
        for label, code in (("today", base), ("new", None)):
            env = dict(os.environ)
            env.pop(CODE_FROM, None)
            if code:
                env[CODE_FROM] = code
            cmd = [sys.executable, str(here), "--transport", "inproc", "--scenario", sid, "--repeat", str(args.repeat),
                   "--agent", args.agent] + (["--turns", str(args.turns)] if args.turns else [])
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
            rows = [line.split() for line in out.stdout.splitlines() if line.startswith(sid)]
            if out.returncode != 0 or not rows:
                last = (out.stderr or out.stdout).strip().splitlines()[-1:] or ["no output"]
                print(f"# {label} run of {sid} failed: {last[0][:300]}", flush=True)
                break
            figures[label] = (float(rows[0][2]), float(rows[0][7].rstrip("x")))
        if len(figures) < 2:
            continue
        meeting, today, new = figures["new"][0], figures["today"][1], figures["new"][1]
        print(f"{sid:<38} {meeting:>10.1f} {today:>11.0f}x {new:>9.0f}x {new / today:>5.2f}x", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--transport", choices=["webrtc", "inproc"], default="inproc")
    ap.add_argument("--turns", type=int, default=None)
    ap.add_argument("--agent", default="oracle")
    ap.add_argument("--repeat", type=int, default=1, help="runs per scenario; medians are printed")
    ap.add_argument("--scenario", action="append", help="only these scenarios (default: all built-in ones)")
    ap.add_argument("--concurrency", type=int, default=1,
                    help="run the sessions (scenarios x repeat) this many at a time, one process each")
    ap.add_argument("--profile", action="store_true",
                    help="instead: each scenario once in-process under cProfile; the top functions by own time")
    ap.add_argument("--base", metavar="DIR",
                    help="instead: each scenario with the code of DIR (a checkout of today's code) and of this "
                         "checkout, side by side, --repeat runs each (in-process)")
    args = ap.parse_args()
    scenarios = resolve_scenarios()
    ids = args.scenario or list(scenarios)
    if args.base:
        side_by_side(args.base, args, ids)
        return
    # Warm the speech cache so synthesis (done before the clock starts) does not count.
    with tempfile.TemporaryDirectory() as tmp:
        for sid in ids:
            asyncio.run(run_one(RunSpec(scenarios[sid], args.agent, Path(tmp) / sid, "inproc", meeting=MeetingOptions(turns=args.turns))))
    if args.concurrency > 1:
        concurrent(args, ids, scenarios)
        return
    if args.profile:
        for sid in ids:
            profile(sid, args, scenarios)
        return
    if os.environ.get(CODE_FROM):
        print(f"# code from {os.environ[CODE_FROM]}")
    print(HEADER)
    for sid in ids:
        rows = []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp) / "s"
                links: list[Any] = []
                t0, c0 = time.perf_counter(), time.process_time()
                result = asyncio.run(run_one(RunSpec(scenarios[sid], args.agent, folder, args.transport, meeting=MeetingOptions(turns=args.turns)),
                                             on_link=links.append))
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                clock = _virtual_clock(links[0]) if links else None
                manifest = json.loads((folder / "manifest.json").read_text())
                card = score_session(folder, scenarios, ["offline"], write=False)
                rows.append((result.turns_played, manifest["meeting_seconds"], wall, result.media,
                             card.scenarios[0].modylbench_score or 0.0, cpu, clock.flowed if clock else None))
        turns = rows[0][0]
        meeting = statistics.median(r[1] for r in rows)
        wall = statistics.median(r[2] for r in rows)
        frames = statistics.median(r[3].get("audio_frames_sent", 0) for r in rows)
        late = max(r[3].get("audio_frames_late_20ms", 0) for r in rows)
        max_late = max(r[3].get("audio_max_late_ms", 0.0) for r in rows)
        score = statistics.median(r[4] for r in rows)
        cpu = statistics.median(r[5] for r in rows)
        flowed = "-" if rows[0][6] is None else f"{statistics.median(r[6] for r in rows):.1f}"
        print(f"{sid:<38} {turns:>5} {meeting:>10.1f} {wall:>8.1f} {cpu:>7.1f} {flowed:>8} {meeting / wall:>8.1f}x "
              f"{meeting / cpu:>6.0f}x {frames:>7.0f} "
              f"{late:>9} {max_late:>11.1f} {score:>6.2f}", flush=True)


if __name__ == "__main__":
    main()
