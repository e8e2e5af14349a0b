"""A meeting-bot API bot in a meeting: ``examples/attendee_bot.py`` (a process of its own, Attendee's API) joins a
meeting served with the bot API, over loopback WebRTC in real time, as ``serve --bot-api`` runs it. Prints, per
run: turns answered, persona audio frames late by > 20 ms (and the worst), the agent's latency per turn (from
``responses.jsonl``), the offline score and the wall time. ``--same-loop`` runs the API on the meeting's own
event loop instead of a thread of its own (what the thread avoids).

    python benchmarks/bench_bot_api.py --repeat 3
    python benchmarks/bench_bot_api.py --scenario financial_analyst_lbo_model --turns 3
    python benchmarks/bench_bot_api.py --baseline --repeat 3    # the example SDK agent, no bot API: the floor
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from modylbench.channels import SignalingServer, WallClock
from modylbench.record import SessionFolder, read_record
from modylbench.scenarios import load_builtin, load_path
from modylbench.simulator._botapi import BotApi, BotApiThread, persona_name
from modylbench.simulator._runner import score_session, speech_engines
from modylbench.simulator._session import MeetingOptions, run_meeting

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "attendee_bot.py"


async def one(scenario: Any, turns: int | None, same_loop: bool, echo_audio: bool, baseline: bool = False
              ) -> dict[str, Any]:  # fmt: skip
    persona_speech, _ = speech_engines(scenario)
    wall = WallClock()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "s"
        t0 = time.monotonic()
        async with SignalingServer() as server:
            meeting = server.create_meeting(wall)
            if baseline:  # the SDK's example agent in a process of its own: this machine's floor right now
                api = None
                bot = await asyncio.create_subprocess_exec(
                    sys.executable, str(ROOT / "examples" / "echo_agent.py"), meeting.url, meeting.token,
                    stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)  # fmt: skip
            else:
                kind = BotApi if same_loop else BotApiThread
                api = await kind(meeting.url, meeting.token, persona_name(scenario)).start()
                bot = await asyncio.create_subprocess_exec(
                    sys.executable, str(EXAMPLE), "--api", api.base_url, f"--token={meeting.token}", "--meeting-url",
                    meeting.url, *(["--echo-audio"] if echo_audio else []), stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.DEVNULL)  # fmt: skip
            result = await run_meeting(meeting, scenario, "attendee-bot", folder, wall, persona_speech,
                                       MeetingOptions(turns=turns))  # fmt: skip
            if api is not None:
                await api.bot_done()
            await asyncio.wait_for(bot.communicate(), 60)
            if api is not None:
                await api.close()
        wall_s = time.monotonic() - t0
        events = read_record(folder).events
        card = score_session(folder, {scenario.scenario_id: scenario}, ["offline"]).scenarios[0]
        resp = json.loads(SessionFolder(folder).responses.read_text())
    played = result.turns_played
    answered = len({e.turn_index for e in events if e.event == "agent_speech"})
    latency = [t.get("latency_ms") for t in resp["turns"]]
    media = result.media
    return {"end": result.termination_reason, "turns": played, "answered": answered,
            "frames": media.get("audio_frames_sent", 0), "late": media.get("audio_frames_late_20ms", 0),
            "max_late_ms": media.get("audio_max_late_ms", 0.0), "latency_ms": latency,
            "score": card.modylbench_score, "wall_s": wall_s}  # fmt: skip


async def main(a: argparse.Namespace) -> None:
    if a.scenario == "mini_fixture":
        scenario = load_path(ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl")[0]
    else:
        scenario = {s.scenario_id: s for s in load_builtin()}[a.scenario]
    rows = []
    for r in range(a.repeat):
        row = await one(scenario, a.turns, a.same_loop, a.echo_audio, a.baseline)
        rows.append(row)
        lat = ", ".join("-" if x is None else f"{x:.0f}" for x in row["latency_ms"])
        print(f"run {r + 1}: {row['end']} answered {row['answered']}/{row['turns']} turns, "
              f"late {row['late']}/{row['frames']} (max {row['max_late_ms']:.0f} ms), latency per turn ms [{lat}], "
              f"score {row['score']:.2f}, wall {row['wall_s']:.1f}s", flush=True)  # fmt: skip
    if a.repeat > 1:
        print(f"median late {statistics.median(r['late'] for r in rows):.0f}, "
              f"median max_late_ms {statistics.median(r['max_late_ms'] for r in rows):.0f}")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scenario", default="mini_fixture")
    p.add_argument("--turns", type=int, default=None)
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--same-loop", action="store_true", help="the API on the meeting's event loop (no thread)")
    p.add_argument("--echo-audio", action="store_true", help="the bot answers with realtime_audio.bot_output")
    p.add_argument("--baseline", action="store_true",
                   help="instead: examples/echo_agent.py joins directly (no bot API), for the machine's floor")
    asyncio.run(main(p.parse_args()))
