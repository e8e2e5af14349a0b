"""Whole meetings with the oracle agent: real-time WebRTC slices and time-compressed in-process runs.

Prints, per scenario: turns played, meeting time, wall time, speed-up over real time, persona audio frames
sent, frames late by > 20 ms, the largest lateness, and the offline-judge score.

    python benchmarks/bench_simulator.py --transport webrtc --turns 8      # real time, zero late frames?
    python benchmarks/bench_simulator.py --transport inproc --repeat 3     # full scenarios, >= 20x?
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from modylbench.scenarios import resolve_scenarios
from modylbench.simulator._runner import RunSpec, run_one, score_session


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--transport", choices=["webrtc", "inproc"], default="inproc")
    ap.add_argument("--turns", type=int, default=None)
    ap.add_argument("--agent", default="oracle")
    ap.add_argument("--repeat", type=int, default=1, help="runs per scenario; medians are printed")
    ap.add_argument("--scenario", action="append", help="only these scenarios (default: all six)")
    args = ap.parse_args()
    scenarios = resolve_scenarios()
    ids = args.scenario or list(scenarios)
    # Warm the speech cache so synthesis (done before the clock starts) does not count.
    with tempfile.TemporaryDirectory() as tmp:
        for sid in ids:
            asyncio.run(run_one(RunSpec(scenarios[sid], args.agent, Path(tmp) / sid, "inproc", args.turns)))
    print(f"{'scenario':<38} {'turns':>5} {'meeting s':>10} {'wall s':>8} {'speed-up':>9} {'frames':>7} "
          f"{'late>20ms':>9} {'max late ms':>11} {'score':>6}")
    for sid in ids:
        rows = []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp) / "s"
                t0 = time.perf_counter()
                result = asyncio.run(run_one(RunSpec(scenarios[sid], args.agent, folder, args.transport, args.turns)))
                wall = time.perf_counter() - t0
                manifest = json.loads((folder / "manifest.json").read_text())
                card = score_session(folder, scenarios, ["offline"], write=False)
                rows.append((result.turns_played, manifest["meeting_seconds"], wall, result.media,
                             card.scenarios[0].modylbench_score or 0.0))
        turns = rows[0][0]
        meeting = statistics.median(r[1] for r in rows)
        wall = statistics.median(r[2] for r in rows)
        frames = statistics.median(r[3].get("audio_frames_sent", 0) for r in rows)
        late = max(r[3].get("audio_frames_late_20ms", 0) for r in rows)
        max_late = max(r[3].get("audio_max_late_ms", 0.0) for r in rows)
        score = statistics.median(r[4] for r in rows)
        print(f"{sid:<38} {turns:>5} {meeting:>10.1f} {wall:>8.1f} {meeting / wall:>8.1f}x {frames:>7.0f} "
              f"{late:>9} {max_late:>11.1f} {score:>6.2f}", flush=True)


if __name__ == "__main__":
    main()
