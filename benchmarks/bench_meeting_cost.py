"""What one meeting costs, to size a machine or a Ray cluster (docs/scale.md): CPU seconds per meeting
second, peak memory, WebRTC bytes each way and the session folder's size.

Runs one session with a built-in agent in this process (persona and agent side both), the way a sweep
cell runs on a Ray worker:

    python benchmarks/bench_meeting_cost.py --transport webrtc --turns 4
    python benchmarks/bench_meeting_cost.py --transport inproc --turns 4
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from modylbench.scenarios import resolve_scenarios
from modylbench.simulator._runner import RunSpec, run_one
from modylbench.simulator._session import MeetingOptions


async def _poll_bytes(link: Any, seen: dict[str, int]) -> None:
    """Keep the harness peer's transport byte counters current until the meeting closes its peer."""
    while True:
        pc = getattr(link, "pc", None)
        if pc is not None:
            try:
                report = await pc.getStats()
            except Exception:  # noqa: BLE001 - the peer closed between two looks
                report = {}
            for stat in report.values():
                if getattr(stat, "type", "") == "transport":
                    seen["sent"] = max(seen.get("sent", 0), int(stat.bytesSent))
                    seen["received"] = max(seen.get("received", 0), int(stat.bytesReceived))
        await asyncio.sleep(0.5)


async def main(args: argparse.Namespace) -> dict[str, Any]:
    scenario = resolve_scenarios((), only=[args.scenario])[args.scenario]
    folder = Path(tempfile.mkdtemp(prefix="meeting-cost-")) / "session"
    seen: dict[str, int] = {}
    pollers: list[asyncio.Task[None]] = []

    def on_link(link: Any) -> None:
        if args.transport != "webrtc":
            return  # no peer; and a wall-clock sleep on the loop would make the virtual clock flow in real time
        pollers.append(asyncio.get_running_loop().create_task(_poll_bytes(link, seen)))

    spec = RunSpec(scenario, args.agent, folder, args.transport, meeting=MeetingOptions(turns=args.turns))
    cpu0, wall0 = time.process_time(), time.monotonic()
    try:
        result = await run_one(spec, on_link=on_link)
    finally:
        for task in pollers:
            task.cancel()
    cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    manifest = json.loads((folder / "manifest.json").read_text())
    size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    meeting = float(manifest["meeting_seconds"])
    return {
        "transport": args.transport, "turns": result.turns_played, "meeting_s": round(meeting, 1),
        "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "cores_while_running": round(cpu / wall, 3),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "webrtc_kbit_s_each_way": {k: round(v * 8 / 1000 / meeting, 1) for k, v in seen.items()},
        "folder_mb": round(size / 1e6, 2), "folder_kb_per_meeting_s": round(size / 1e3 / meeting, 1),
        "late_audio_frames": manifest.get("media", {}).get("audio_frames_late_20ms"),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=["webrtc", "inproc"], default="webrtc")
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--agent", default="oracle")
    parser.add_argument("--scenario", default="financial_analyst_lbo_model")
    print(json.dumps(asyncio.run(main(parser.parse_args())), indent=2))
