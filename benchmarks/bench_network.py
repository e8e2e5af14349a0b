"""The degradation table of docs/network.md: agents over real WebRTC under each network profile and at
0-10 % loss; plus the CPU cost of the impairment layer.

    python benchmarks/bench_network.py                       # oracle and the echo example, every profile
    python benchmarks/bench_network.py --agents oracle --profiles clean,loss=5%
    python benchmarks/bench_network.py --cpu-only
    python benchmarks/bench_network.py --agents pipecat       # the Pipecat example, its model a local server

Each cell is one real-time meeting of the mini fixture (4 turns, speech, chat, a file, the shared document,
~17 s) on loopback with the profile applied to its packets (seed 0), scored by the offline judge. Columns:
score; the agent's median response latency (``latency_ms``: persona speech end to its first response);
the one-way delay the network added toward the agent (mean, as delivered); the persona's audio frames sent
over 20 ms late (its schedule under the profile); the file push time (send to the agent's verified
acknowledgement); loss toward the agent as sent and as the agent's RTCP reported it; and the
network_impaired flag.

``pipecat`` is examples/pipecat_agent.py as a ``py:pipecat_agent:play`` agent (its own process over WebRTC):
Pipecat's OpenAI LLM service streams from a local OpenAI-compatible server (tests/scoring/openai_server.py)
playing the scripted model of tests/integrations/test_pipecat.py (the mini fixture's answers, tool calls
included); it hears the persona through the meeting's captions (no STT) and speaks with the embedded eSpeak
TTS. Needs the ``pipecat`` extra; not in the default run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"
PROFILES = ["clean", "home-wifi", "mobile", "congested", "lossy-burst", "loss=2%", "loss=5%", "loss=10%"]
AGENTS = {"oracle": "oracle", "echo": f"cmd:{sys.executable} {ROOT / 'examples' / 'echo_agent.py'}",
          "pipecat": "py:pipecat_agent:play"}
MODEL_ENV = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "MODYLBENCH_AGENT_MODEL")
"""What the Pipecat agent's process is given of ours: where its model is."""


@contextlib.contextmanager
def agent_backend(agent: str) -> Iterator[None]:
    """What the agent needs running beside the meeting: for ``pipecat``, the scripted local model server, named
    in the environment its process inherits."""
    if agent != "pipecat":
        yield
        return
    sys.path[:0] = [str(ROOT), str(ROOT / "examples")]  # tests.* (the model, the server) and pipecat_agent
    from tests.integrations.test_pipecat import brain
    from tests.scoring.openai_server import Script, openai_server

    with openai_server(Script(reply=brain)) as base_url:
        saved = {k: os.environ.get(k) for k in MODEL_ENV}
        os.environ.update(OPENAI_BASE_URL=base_url, OPENAI_API_KEY="none", MODYLBENCH_AGENT_MODEL="brain")
        try:
            yield
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


async def one_cell(agent: str, profile: str, folder: Path) -> dict[str, Any]:
    from modylbench.channels import LinkOptions, parse_profile
    from modylbench.record import read_record
    from modylbench.scenarios import load_path
    from modylbench.simulator._runner import RunSpec, run_one, score_session
    from modylbench.simulator._session import MeetingOptions

    scenarios = {s.scenario_id: s for s in load_path(MINI)}
    file_times: list[float] = []

    def on_link(link: Any) -> None:
        push = link.push_file

        async def timed(name: str, data: bytes, media_type: str) -> Any:
            out = await push(name, data, media_type)
            file_times.append(out.finished - out.started if out.ok else float("nan"))
            return out

        link.push_file = timed

    spec = RunSpec(scenarios["mini_fixture"], AGENTS[agent], folder, transport="webrtc",
                   meeting=MeetingOptions(judges=["offline"]),
                   link=LinkOptions(network=parse_profile(profile), network_seed=0), agent_name=agent,
                   agent_env=MODEL_ENV if agent == "pipecat" else ())  # fmt: skip
    t0 = time.monotonic()
    result = await run_one(spec, on_link=on_link)
    wall = time.monotonic() - t0
    card = score_session(folder, scenarios, ["offline"])
    entry = card.scenarios[0]
    responses = json.loads((folder / "responses.jsonl").read_text().splitlines()[0])
    m = responses["measurements"]
    net = m.get("network") or {}
    lat = [t["latency_ms"] for t in m["turns"] if t.get("latency_ms") is not None]
    events = read_record(folder).events
    samples = [e for e in events if e.event == "network_stats"]
    last = samples[-1] if samples else None
    reported = [s.packets_lost for s in last.streams if s.direction == "to_agent" and s.packets_lost is not None] if last else []
    down = net.get("to_agent", {})
    return {
        "agent": agent, "profile": profile, "termination": result.termination_reason,
        "score": entry.modylbench_score, "flags": entry.flags,
        "latency_ms_median": statistics.median(lat) if lat else None,
        "added_delay_ms": down.get("delay_mean_ms"), "to_agent_loss": down.get("loss"),
        "to_agent_lost_reported": sum(reported) if reported else None,
        "persona_late_frames": result.media.get("audio_frames_late_20ms"),
        "persona_frames": result.media.get("audio_frames_sent"),
        "file_s": file_times[0] if file_times else None, "wall_s": round(wall, 1),
        "round_trip_ms": down.get("round_trip_ms"), "nacks_from_agent": net.get("from_agent", {}).get("nacks"),
        "sctp_retransmissions": down.get("sctp_retransmissions"),
        "turn_ends": [e.reason for e in events if e.event == "turn_end"],
    }  # fmt: skip


def cpu_cost(packets: int = 20_000) -> dict[str, float]:
    """CPU per datagram of the layer: counting only (clean) and a full profile (loss, bursts, delay, jitter,
    rate), synthetic 200-byte RTP datagrams 1 ms apart on a virtual clock, delivered by the delay line."""
    from modylbench.channels import VirtualClock, parse_profile
    from modylbench.channels._network import Impairment

    out: dict[str, float] = {}
    rtp = bytes([0x80, 111, 0, 1]) + bytes(4) + (1234).to_bytes(4, "big") + bytes(188)

    async def run(spec: str) -> float:
        clock = VirtualClock()
        net = Impairment(parse_profile(spec), 0, clock)
        delivered = 0

        def deliver(data: bytes, component: int) -> None:
            nonlocal delivered
            delivered += 1

        tasks: list[asyncio.Task[Any]] = []
        net.start(lambda coro, name: tasks.append(asyncio.ensure_future(coro)) or tasks[-1])
        c0 = time.process_time()
        for i in range(packets):
            net.handle("to_agent", rtp, 1, deliver)
            if i % 20 == 19:
                await clock.sleep(0.02)
        await clock.sleep(1.0)
        spent = time.process_time() - c0
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return spent / packets * 1e6

    for spec in ("clean", "lossy-burst", "mobile"):
        out[spec] = round(asyncio.run(run(spec)), 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agents", default="oracle,echo")
    ap.add_argument("--profiles", default=",".join(PROFILES), help="Comma-separated; ';' inside a spec is fine.")
    ap.add_argument("--cpu-only", action="store_true")
    ap.add_argument("--json", type=Path, default=None, help="Also write the rows as JSON here.")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    cpu = cpu_cost()
    print("CPU per datagram (µs):", cpu)
    if args.cpu_only:
        return
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-network-") as tmp:
        for agent in args.agents.split(","):
            with agent_backend(agent):
                for i, profile in enumerate(p for p in args.profiles.split(",") if p):
                    row = asyncio.run(one_cell(agent, profile, Path(tmp) / f"{agent}-{i}"))
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    print()
    print("| agent | network | score | flags | median latency ms | added delay ms | loss to agent | "
          "persona late frames | file s | RTT ms |")
    print("|---|---|---|---|---|---|---|---|---|---|")

    def f(x: Any, fmt: str) -> str:
        return "—" if x is None else format(x, fmt)

    for r in rows:
        flags = ", ".join(x for x in r["flags"] if x in ("network_impaired", "ended_early", "agent_error")) or ""
        print(f"| {r['agent']} | `{r['profile']}` | {f(r['score'], '.2f')} | {flags} | {f(r['latency_ms_median'], '.0f')} | "
              f"{f(r['added_delay_ms'], '.0f')} | {f(r['to_agent_loss'], '.1%')} | {r['persona_late_frames']} / "
              f"{r['persona_frames']} | {f(r['file_s'], '.2f')} | {f(r['round_trip_ms'], '.0f')} |")
    if args.json:
        args.json.write_text(json.dumps({"cpu_us_per_datagram": cpu, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
