"""N meetings side by side over loopback WebRTC: persona audio, 2 fps screen share, chat and a file push.

All persona peers share this process and its event loop; the agent peers run in ``--agent-procs`` child
processes. The N meetings run in lock step (each shows a slide, posts chat, speaks, then repeats; each
first pushes a 1 MB file), the worst case for a shared loop. Prints, per N: connect time, audio frames
sent, frames late by > 20 ms, the largest lateness, persona speech delay at the agent (packet arrival and
after the jitter buffer), screen frames, CPU, memory and media bandwidth per meeting on each side.

    python benchmarks/bench_transport.py --n 1 4 8 --seconds 10 --repeat 3
    python benchmarks/bench_transport.py --n 8 16 32 --audio-only      # no screen share
    python benchmarks/bench_transport.py --n 8 16 32 64 --base /tmp/h30-base --repeat 3
        # side by side with the code of another checkout (a git worktree of an earlier commit): each run in
        # a fresh process, the two alternating; medians per N and the machine's load
    python benchmarks/bench_transport.py --n 32 --harness-procs 2 --agent-procs 2   # harness over 2 processes
        # (one event loop each, as run --workers); with --base the run ends with issue 30's targets and,
        # when one is not met, where the harness's time goes (by part and by function)
    python benchmarks/bench_transport.py --n 32 --profile            # where the persona process's time goes
    python benchmarks/bench_transport.py --file-cost     # CPU per MB of a file push (aiortc's SCTP)
    python benchmarks/bench_transport.py --agent-push 50 --repeat 3   # persona audio while an agent floods 50 MB
    python benchmarks/bench_transport.py --asr-delay 2 --turns 3      # a real meeting, ASR off then on (2 s server)
    python benchmarks/bench_transport.py --asr-delay 0 --asr-answer-mb 120 --turns 2 [--before]  # hostile ASR
    python benchmarks/bench_transport.py --realtime-delta-mb 7.8 --deltas 20 [--before]  # hostile realtime model
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import os
import statistics
import subprocess
import sys
import time
from typing import Any

from _code_from import CODE_FROM  # before modylbench: it may point the imports elsewhere
from PIL import Image, ImageDraw

from modylbench.channels import AgentChat, AgentDisconnected, LinkOptions, SignalingServer, WallClock  # noqa: E402
from modylbench.channels._audio import fallback_speech, frame_dbfs  # noqa: E402

logger = logging.getLogger(__name__)


async def agent_main(specs: list[dict[str, str]]) -> None:
    """Child process: one agent per meeting; report when the persona's speech first arrived."""
    from modylbench.agents import AudioReceived, CaptionReceived, Disconnected, MeetingEnded, join

    async def one(spec: dict[str, str]) -> None:
        try:
            # Many agents of one process joining at once on a loaded machine take longer than the default 10 s.
            client = await join(spec["url"], spec["token"], timeout=120.0)
        except Exception as exc:
            print(f"agent failed to join: {exc!r}", file=sys.stderr, flush=True)
            raise
        clock = client.session.clock
        expect: float | None = None
        async for ev in client.events():
            if isinstance(ev, CaptionReceived) and ev.text.startswith("@"):
                expect = float(ev.text[1:])  # wall time the persona scheduled its speech for
            elif isinstance(ev, AudioReceived) and expect is not None and frame_dbfs(ev.pcm) > -40:
                arrival = clock.wall_time() - (clock.now() - ev.time)  # wall time the packet arrived
                delivered = clock.wall_time()
                await client.chat(json.dumps({"arrival": arrival - expect, "delivered": delivered - expect}))
                expect = None
            elif isinstance(ev, MeetingEnded | Disconnected):
                break
        await client.leave()

    await asyncio.gather(*(one(s) for s in specs))


def slide(i: int) -> Image.Image:
    img = Image.new("RGB", (1280, 720), (245, 245, 250))
    d = ImageDraw.Draw(img)
    d.rectangle((60, 60, 1220, 160), fill=(30, 60, 120))
    d.text((80, 90), f"Slide {i}: quarterly review", fill="white")
    for k in range(8):
        d.rectangle(
            (100 + k * 130, 600 - (k * 37 + i * 23) % 400, 200 + k * 130, 600), fill=(200, 80 + k * 20, 60)
        )
    return img


def _rss_mb(pid: int) -> float:
    """Resident memory of a running process (Linux /proc), MB."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a running process (Linux /proc; this machine)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _loadavg() -> float:
    return os.getloadavg()[0]


async def _rtp_bytes(meetings: list[object]) -> float:
    """Media bytes the persona side has sent so far, all meetings (RTP outbound streams, aiortc's getStats)."""
    total = 0.0
    for m in meetings:
        pc = getattr(m, "pc", None)
        if pc is None:
            continue
        report = await pc.getStats()
        total += sum(getattr(s, "bytesSent", 0) for s in report.values() if s.type == "outbound-rtp")
    return total


def _start_agents(specs: list[dict[str, str]], procs: int) -> list[subprocess.Popen[str]]:
    children = []
    for k in range(max(1, min(procs, len(specs)))):
        child = subprocess.Popen([sys.executable, __file__, "--agents"], stdin=subprocess.PIPE, text=True)
        assert child.stdin is not None
        child.stdin.write(json.dumps(specs[k :: max(1, min(procs, len(specs)))]))
        child.stdin.close()
        children.append(child)
    return children


_WINDOW_PROFILER: Any = None
"""A ``cProfile.Profile`` enabled for the measured window of a run (``--profile``), not for its set-up."""


async def run(n: int, seconds: float, audio_only: bool = False, agent_procs: int = 1) -> dict[str, float]:
    clock = WallClock()
    # Prepared before the meetings run, as the persona prepares its speech and slides.
    speech = fallback_speech("revenue grew four percent while costs stayed flat")
    slides = [slide(i) for i in range(8)]
    payload = os.urandom(1_000_000)
    rss_before = _rss_mb(os.getpid())
    async with SignalingServer() as server:
        # Joins of many agents at once on a loaded machine take longer than the default 10 s.
        options = LinkOptions(connect_timeout=120.0)
        meetings = [server.create_meeting(clock, options) for _ in range(n)]
        for m in meetings:
            if hasattr(m, "prepare_speech"):  # absent from the code before pre-encoded media
                m.prepare_speech(speech)
            if not audio_only:
                for img in slides:
                    m.prepare_screen(img)
        children = _start_agents([{"url": m.url, "token": m.token} for m in meetings], agent_procs)
        connects = await asyncio.gather(*(m.wait_connected() for m in meetings))
        cpu0, wall0 = (_cpu_seconds(os.getpid()), sum(_cpu_seconds(c.pid) for c in children)), time.monotonic()
        sent0 = await _rtp_bytes(meetings)
        load0 = _loadavg()
        if _WINDOW_PROFILER is not None:
            _WINDOW_PROFILER.enable()
        for m in meetings:
            for f in m.audio_track.stats, m.screen_track.stats:
                f.frames, f.late_frames, f.max_late = 0, 0, 0.0
        delays: list[dict[str, float]] = []
        gone: list[str] = []

        async def persona(m: object) -> asyncio.Task[None]:
            from modylbench.channels import Caption, WebRTCMeeting

            assert isinstance(m, WebRTCMeeting)

            async def listen() -> None:
                async for ev in m.events():
                    if isinstance(ev, AgentChat):
                        delays.append(json.loads(ev.text))
                    if isinstance(ev, AgentDisconnected):
                        gone.append(f"{ev.reason} at {ev.time:.1f} s")
                        return

            listener = asyncio.create_task(listen())
            if not audio_only:
                await m.show(slides[0])
            await m.push_file("data.csv", payload, "text/csv")
            end = clock.now() + seconds
            i = 0
            while clock.now() < end:
                if listener.done() or any(c.poll() is not None for c in children):
                    # An agent that failed to join (a loaded machine) ends its meeting: its playback would
                    # never end, and the run would wait for ever.
                    raise RuntimeError(f"an agent left or its process died before the end of the run: {gone[:3]}, "
                                       f"agent processes' exit codes {[c.poll() for c in children]}")
                i += 1
                if not audio_only:
                    await m.show(slides[i % len(slides)])
                await m.send_chat(f"look at slide {i}")
                await clock.sleep(0.3)
                pb = await m.play(speech)
                start = await pb.started
                # The link's clock starts at the join: meeting times come from it, not from the base clock.
                await m.send_control(Caption(f"@{m.clock.wall_time() - (m.clock.now() - start)}"))
                await asyncio.wait_for(pb.ended, pb.duration + 30)
                await clock.sleep(0.5)
            return listener

        listeners = await asyncio.gather(*(persona(m) for m in meetings))
        if _WINDOW_PROFILER is not None:
            _WINDOW_PROFILER.disable()
        cpu1, wall1 = (_cpu_seconds(os.getpid()), sum(_cpu_seconds(c.pid) for c in children)), time.monotonic()
        sent1 = await _rtp_bytes(meetings)
        load1 = _loadavg()
        rss = (_rss_mb(os.getpid()), sum(_rss_mb(c.pid) for c in children))
        for m, listener in zip(meetings, listeners, strict=True):
            await m.close()
            await asyncio.wait_for(listener, 5)
        for c in children:
            c.wait(timeout=30)
    audio = [m.audio_track.stats for m in meetings]
    screen = [m.screen_track.stats for m in meetings]
    persona_cpu, agent_cpu = ((b - a) / (wall1 - wall0) / n * 100 for a, b in zip(cpu0, cpu1, strict=True))
    arr = [d["arrival"] * 1000 for d in delays]
    dlv = [d["delivered"] * 1000 for d in delays]
    return {
        "n": n,
        "connect_ms_max": max(connects) * 1000,
        "connect_ms_mean": statistics.mean(connects) * 1000,
        "audio_frames": sum(s.frames for s in audio),
        "late_frames": sum(s.late_frames for s in audio),
        "max_late_ms": max(s.max_late for s in audio) * 1000,
        "speech_arrival_ms_max": max(arr) if arr else float("nan"),
        "speech_delivered_ms_median": statistics.median(dlv) if dlv else float("nan"),
        "speech_delivered_ms_max": max(dlv) if dlv else float("nan"),
        "delivered_ms": dlv,  # pooled across processes by --harness-procs
        "screen_frames": sum(s.frames for s in screen),
        "screen_max_late_ms": max(s.max_late for s in screen) * 1000,
        "cpu_persona_pct": persona_cpu,
        "cpu_agent_pct": agent_cpu,
        "rss_persona_mb": rss[0],
        "mb_per_meeting": (rss[0] - rss_before) / n,
        "rss_agent_mb": rss[1],
        "kbit_s_per_meeting": (sent1 - sent0) * 8 / 1000 / (wall1 - wall0) / n,
        "load": (load0 + load1) / 2,
    }


def spread_run(n: int, seconds: float, audio_only: bool, agent_procs: int, procs: int) -> dict[str, Any]:
    """N meetings whose harness side is spread over ``procs`` processes (one event loop each, as
    ``run --workers`` spreads sessions), each with its own agent processes; started together, merged into one
    row (sums, worst cases, the median of every delivery, CPU and memory per meeting)."""
    sizes = [n // procs + (1 if i < n % procs else 0) for i in range(procs)]
    each_agents = max(1, agent_procs // procs)
    children = [subprocess.Popen([sys.executable, __file__, "--json", "--n", str(k), "--seconds", str(seconds),
                                  "--agent-procs", str(each_agents), *(["--audio-only"] if audio_only else [])],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for k in sizes if k > 0]  # fmt: skip
    rows = []
    for child in children:
        out, err = child.communicate(timeout=600 + 4 * n)
        got = [json.loads(line[5:]) for line in out.splitlines() if line.startswith("JSON ")]
        if not got:
            tail = [line for line in err.strip().splitlines() if not line.startswith((" ", "Traceback"))][-3:]
            raise RuntimeError(f"a harness process failed: {' | '.join(tail) or 'no output'}")
        rows.append(got[0])
    dlv = [d for r in rows for d in r["delivered_ms"]]
    m = {k: [r[k] for r in rows] for k in rows[0]}
    weights = [r["n"] for r in rows]

    def per_meeting(key: str) -> float:
        return sum(v * w for v, w in zip(m[key], weights, strict=True)) / sum(weights)

    return {
        "n": n, "connect_ms_max": max(m["connect_ms_max"]), "connect_ms_mean": per_meeting("connect_ms_mean"),
        "audio_frames": sum(m["audio_frames"]), "late_frames": sum(m["late_frames"]),
        "max_late_ms": max(m["max_late_ms"]), "speech_arrival_ms_max": max(m["speech_arrival_ms_max"]),
        "speech_delivered_ms_median": statistics.median(dlv) if dlv else float("nan"),
        "speech_delivered_ms_max": max(dlv) if dlv else float("nan"), "delivered_ms": dlv,
        "screen_frames": sum(m["screen_frames"]), "screen_max_late_ms": max(m["screen_max_late_ms"]),
        "cpu_persona_pct": per_meeting("cpu_persona_pct"), "cpu_agent_pct": per_meeting("cpu_agent_pct"),
        "rss_persona_mb": sum(m["rss_persona_mb"]), "mb_per_meeting": per_meeting("mb_per_meeting"),
        "rss_agent_mb": sum(m["rss_agent_mb"]), "kbit_s_per_meeting": per_meeting("kbit_s_per_meeting"),
        "load": statistics.mean(m["load"]),
    }  # fmt: skip


async def run_row(n: int, seconds: float, audio_only: bool, agent_procs: int, harness_procs: int) -> dict[str, Any]:
    if harness_procs > 1 and n > 1:
        return await asyncio.to_thread(spread_run, n, seconds, audio_only, agent_procs, min(harness_procs, n))
    return await run(n, seconds, audio_only, agent_procs)


COLUMNS = {
    "n": "meetings",
    "connect_ms_max": "slowest join (signaling + ICE + DTLS + data channels), ms",
    "audio_frames": "persona audio frames sent, all meetings",
    "late_frames": "of those, sent > 20 ms after their slot",
    "max_late_ms": "largest lateness of any audio frame, ms",
    "speech_arrival_ms_max": "latest first speech packet at the agent's socket after its scheduled time, ms",
    "speech_delivered_ms_median": "median time from scheduled speech to the agent's event (after the 80 ms jitter buffer), ms",  # noqa: E501
    "speech_delivered_ms_max": "worst of those, ms",
    "screen_frames": "screen-share frames sent (2 fps; a static pre-encoded screen sends none)",
    "screen_max_late_ms": "largest screen-frame lateness, ms",
    "cpu_persona_pct": "CPU of the persona (harness) process per meeting, % of one core",
    "cpu_agent_pct": "CPU of the agent processes per meeting, % of one core",
    "rss_persona_mb": "resident memory of the persona process at the end (all N meetings), MB",
    "mb_per_meeting": "persona process memory grown during the run, per meeting, MB",
    "rss_agent_mb": "resident memory of the agent processes at the end, MB",
    "kbit_s_per_meeting": "media (RTP) the persona side sends per meeting, kbit/s",
    "load": "1-minute load average of the machine during the run (2 cores, shared)",
}


async def main(ns: list[int], seconds: float, repeat: int, audio_only: bool, agent_procs: int,
               as_json: bool = False, harness_procs: int = 1) -> None:  # fmt: skip
    if as_json:
        for n in ns:
            print("JSON " + json.dumps(await run_row(n, seconds, audio_only, agent_procs, harness_procs)), flush=True)
        return
    print(f"# harness side in {harness_procs} process(es), agents in {agent_procs} process(es), {seconds:g} s per run")
    for c, meaning in COLUMNS.items():
        print(f"# {c}: {meaning}")
    cols = list(COLUMNS)
    print(" ".join(["n/r", *(f"{c[:12]:>12}" for c in cols[1:])]))
    for n in ns:
        rows = []
        for r in range(repeat):
            rows.append(await run_row(n, seconds, audio_only, agent_procs, harness_procs))
            label = f"{n}/{r + 1}"
            print(" ".join([f"{label:>3}", *(f"{rows[-1][c]:>12.1f}" for c in cols[1:])]), flush=True)
        if repeat > 1:
            med = {c: statistics.median(row[c] for row in rows) for c in cols[1:]}
            worst = max(row["late_frames"] for row in rows)
            print(" ".join([f"{n:>2}~", *(f"{med[c]:>12.1f}" for c in cols[1:])]),
                  f"  <- median of {repeat}; late frames in the worst run: {worst}", flush=True)  # fmt: skip


SIDE_BY_SIDE = ["late_frames", "max_late_ms", "speech_delivered_ms_median", "speech_delivered_ms_max",
                "screen_frames", "cpu_persona_pct", "mb_per_meeting", "kbit_s_per_meeting", "cpu_agent_pct",
                "connect_ms_max", "load"]  # fmt: skip


def _one_run(code_from: str | None, n: int, seconds: float, audio_only: bool, agent_procs: int,
             harness_procs: int = 1) -> dict[str, float] | None:  # fmt: skip
    env = dict(os.environ)
    env.pop(CODE_FROM, None)
    if code_from:
        env[CODE_FROM] = code_from
    args = [sys.executable, __file__, "--json", "--n", str(n), "--seconds", str(seconds),
            "--agent-procs", str(agent_procs), "--harness-procs", str(harness_procs),
            *(["--audio-only"] if audio_only else [])]  # fmt: skip
    try:
        out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600 + 4 * n)
    except subprocess.TimeoutExpired:
        print(f"# run timed out ({code_from or 'this checkout'}, n={n})", flush=True)
        return None
    for line in out.stdout.splitlines():
        if line.startswith("JSON "):
            return dict(json.loads(line[5:]))
    lines = [line for line in out.stderr.strip().splitlines() if not line.startswith((" ", "Traceback"))]
    print(f"# run failed ({code_from or 'this checkout'}, n={n}): {' | '.join(lines[-4:]) or 'no output'}", flush=True)
    return None


def side_by_side(base: str, ns: list[int], seconds: float, repeat: int, audio_only: bool, agent_procs: int,
                 new: str | None = None, harness_procs: int = 1) -> None:  # fmt: skip
    """Each N with the code of ``base`` and of this checkout (or of ``new``, a snapshot of it that later edits
    here do not change), alternating, each run in a fresh process."""
    base_commit = subprocess.run(["git", "-C", base, "rev-parse", "--short", "HEAD"], capture_output=True,
                                 text=True).stdout.strip()  # fmt: skip
    here = new or os.path.dirname(os.path.abspath(__file__))
    here_commit = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True,
                                 text=True).stdout.strip()  # fmt: skip
    print(f"# today = {base} ({base_commit}); new = {new or 'this checkout'} ({here_commit}); {seconds:g} s per run; "
          f"{'audio only' if audio_only else 'audio + 720p screen share at 2 fps'}; harness side in {harness_procs} "
          f"process(es), agents in {agent_procs} process(es); medians of {repeat}")
    for c in SIDE_BY_SIDE:
        print(f"# {c}: {COLUMNS[c]}")
    print(f"{'n':>3} {'code':>5} " + " ".join(f"{c[:12]:>12}" for c in SIDE_BY_SIDE) + "  late frames per run")
    new_medians: dict[int, dict[str, float] | None] = {}
    for n in ns:
        rows: dict[str, list[dict[str, float]]] = {"today": [], "new": []}
        for _ in range(repeat):
            for label, code in (("today", base), ("new", new)):
                row = _one_run(code, n, seconds, audio_only, agent_procs, harness_procs)
                if row is not None:
                    rows[label].append(row)
                    print(f"{n:>3} {label:>5} " + " ".join(f"{row[c]:>12.1f}" for c in SIDE_BY_SIDE) + "  (one run)",
                          flush=True)  # fmt: skip
        for label, got in rows.items():
            if not got:
                print(f"{n:>3} {label:>5} no run completed", flush=True)
                if label == "new":
                    new_medians[n] = None
                continue
            med = {c: statistics.median(r[c] for r in got) for c in SIDE_BY_SIDE}
            if label == "new":
                new_medians[n] = med
            print(f"{n:>3} {label:>5} " + " ".join(f"{med[c]:>12.1f}" for c in SIDE_BY_SIDE),
                  f"  median of {len(got)}; late frames per run:", [int(r["late_frames"]) for r in got], flush=True)  # fmt: skip
    if not targets(new_medians, audio_only):
        n = min(8, max(ns))
        print(f"# a target is not met: where the new code's harness time goes, {n} meetings under cProfile", flush=True)
        env = dict(os.environ)
        env.pop(CODE_FROM, None)
        if new:
            env[CODE_FROM] = new
        args = [sys.executable, __file__, "--profile", "--n", str(n), "--seconds", str(min(seconds, 10.0)),
                "--agent-procs", str(agent_procs), *(["--audio-only"] if audio_only else [])]  # fmt: skip
        out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=900)
        print("\n".join(out.stdout.splitlines()[:60]), flush=True)


TARGETS = {"late_frames": ("audio frames late > 20 ms", 0.0), "speech_delivered_ms_median": ("speech delivered, median ms", 100.0),
           "cpu_persona_pct": ("harness CPU per meeting, % of a core", 1.5), "mb_per_meeting": ("harness memory per meeting, MB", 40.0)}  # fmt: skip
"""Issue 30's targets for the harness side: at most this much, at every N (32 with screen share, 64 audio only)."""


def targets(medians: dict[int, dict[str, float] | None], audio_only: bool) -> bool:
    """Print each target against the new code's medians; True when all are met at every N and the N the issue
    names (32 with a screen share, 64 audio only) was run."""
    need = 64 if audio_only else 32
    ok = bool(medians) and max(medians) >= need
    print(f"# targets (issue 30), new code: {need} meetings {'audio only' if audio_only else 'with screen share'} "
          f"{'run' if max(medians, default=0) >= need else 'NOT run'}")  # fmt: skip
    for n, med in sorted(medians.items()):
        if med is None:
            print(f"#   {n} meetings: no run completed  -> not met")
            ok = False
            continue
        for key, (what, bound) in TARGETS.items():
            met = med[key] <= bound
            ok = ok and met
            print(f"#   {n} meetings: {what} {med[key]:.1f} (target <= {bound:g})  -> {'met' if met else 'NOT met'}")
    return ok


def profile(n: int, seconds: float, audio_only: bool, agent_procs: int, top: int = 25) -> None:
    """One run of N meetings, its measured window under cProfile (which slows it down): the persona process's
    time by function (encoding ahead of the meeting is not in it)."""
    import cProfile
    import pstats

    global _WINDOW_PROFILER
    prof = _WINDOW_PROFILER = cProfile.Profile()
    try:
        row = asyncio.run(run(n, seconds, audio_only, agent_procs))
        print(f"# n={n}: late frames {row['late_frames']:.0f}, persona CPU {row['cpu_persona_pct']:.2f} % of a "
              f"core per meeting (under the profiler), load {row['load']:.1f}")
    except RuntimeError as exc:  # the window so far is still worth seeing
        prof.disable()
        print(f"# n={n}: the run failed ({exc}); the profile of its window so far:")
    _WINDOW_PROFILER = None
    stats = pstats.Stats(prof)
    busy: dict[str, float] = {}
    for (file, _line, func), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        part = _component(file, func)
        busy[part] = busy.get(part, 0.0) + tottime
    idle = busy.pop("waiting for the network or a timer (epoll)", 0.0)
    total = sum(busy.values())
    print(f"# where the busy time goes ({total:.1f} s busy, {idle:.1f} s idle in epoll), by part:")
    for part, t in sorted(busy.items(), key=lambda kv: -kv[1]):
        print(f"#   {100 * t / total:5.1f} %  {part}")
    stats.sort_stats("tottime").print_stats(top)


_COMPONENTS = [
    ("aiortc/rtcrtpsender", "aiortc: sending RTP (packetise, SRTP protect)"),
    ("aiortc/rtcrtpreceiver", "aiortc: receiving RTP (parse, jitter buffer, RTCP)"),
    ("aiortc/jitterbuffer", "aiortc: receiving RTP (parse, jitter buffer, RTCP)"),
    ("aiortc/rtp.py", "aiortc: receiving RTP (parse, jitter buffer, RTCP)"),
    ("aiortc/rtcdtlstransport", "aiortc: DTLS/SRTP transport (demux, protect, unprotect)"),
    ("pylibsrtp", "aiortc: DTLS/SRTP transport (demux, protect, unprotect)"),
    ("aiortc/rtcsctptransport", "aiortc: SCTP (data channels: chat, files, doc)"),
    ("aiortc/rtcdatachannel", "aiortc: SCTP (data channels: chat, files, doc)"),
    ("aioice", "aioice: ICE (datagram demux, consent)"),
    ("channels/_network", "modylbench: network counters and impairment hook per datagram"),
    ("channels/_encoded", "modylbench: the persona's pre-encoded media (packets, pacing)"),
    ("channels/_webrtc", "modylbench: receiving the agent's audio (decode on the loop, VAD input)"),
    ("channels/", "modylbench: the meeting (harness, signaling, events)"),
    ("aiortc/", "aiortc: the rest (peer connection, clock, stats)"),
    ("asyncio/", "asyncio: the event loop's own passes (handles, futures, queues, timers)"),
]


def _component(file: str, func: str) -> str:
    if func == "<method 'poll' of 'select.epoll' objects>":
        return "waiting for the network or a timer (epoll)"
    if "sendto" in func or "recvfrom" in func or "'recv' of '_socket" in func:
        return "socket system calls (sendto, recvfrom)"
    if "srtp" in func:
        return "aiortc: DTLS/SRTP transport (demux, protect, unprotect)"
    if "_socket" in func:
        return "socket system calls (sendto, recvfrom)"
    for needle, part in _COMPONENTS:
        if needle in file:
            return part
    if "av." in func or "numpy" in func or "/av/" in file or "/numpy/" in file:
        return "codecs and arrays (PyAV, numpy)"
    if file == "~":
        return "Python builtins called from the parts above (len, isinstance, bytes, struct)"
    return "other (the benchmark's own loop, websockets, logging)"


async def _media_cost_one(label: str, meetings: int, seconds: float, speech: bytes, slides: list[Image.Image]) -> None:
    from modylbench.channels import VirtualClock
    from modylbench.channels._audio import AudioSource
    from modylbench.channels._encoded import (
        EncodedAudioSource,
        PreEncodedAudioTrack,
        PreEncodedScreenTrack,
        speech_packets,
    )
    from modylbench.channels._webrtc import PacedAudioTrack, ScreenTrack

    clock = VirtualClock()
    rss0, c0 = _rss_mb(os.getpid()), time.process_time()
    pairs: list[tuple[Any, Any]] = []
    for _ in range(meetings):
        if label.startswith("frame"):
            source = AudioSource()
            audio: Any = PacedAudioTrack(source, clock)
            screen: Any = ScreenTrack(clock, 2.0)
            for img in slides:
                screen.prepare(img)
        else:
            source = EncodedAudioSource()
            audio = PreEncodedAudioTrack(source, clock)
            screen = PreEncodedScreenTrack(clock, 2.0)
            speech_packets(speech)
            for img in slides:
                screen.prepare(img)
        pairs.append((audio, screen))
    prepare = time.process_time() - c0
    c1 = time.process_time()
    sent = {"audio": 0, "video": 0}

    async def pull(track: Any, kind: str) -> None:
        while clock.now() < seconds:
            sent[kind] += len(bytes(await track.recv()))

    async def persona(audio: Any, screen: Any) -> None:
        while clock.now() < seconds:
            if label.startswith("frame"):
                screen.show(screen.prepared(slides[int(clock.now() // 10) % len(slides)]))
            else:
                await screen.show_image(slides[int(clock.now() // 10) % len(slides)])
            for _ in range(2):
                pb = audio.source.play(speech)
                await pb.ended
                await clock.sleep(5.0 - pb.duration)

    async def one(audio: Any, screen: Any) -> None:
        driver = asyncio.ensure_future(persona(audio, screen))
        await asyncio.gather(pull(audio, "audio"), pull(screen, "video"))
        driver.cancel()

    await asyncio.gather(*(one(a, s) for a, s in pairs))
    cpu = time.process_time() - c1
    rss = (_rss_mb(os.getpid()) - rss0) / meetings
    print(f"{label:<26} {prepare / meetings:>10.3f} {cpu / seconds / meetings * 100:>11.2f} {rss:>6.1f} "
          f"{sent['audio'] / seconds / meetings:>10.0f} {sent['video'] / seconds / meetings:>10.0f}",
          flush=True)  # fmt: skip
    for a, s in pairs:
        a.stop()
        s.stop()
    del pairs


async def media_cost(meetings: int, seconds: float) -> None:
    """CPU and memory of the persona's media alone, per meeting: today's tracks (Opus per frame, a VP8 encoder
    per meeting) against the pre-encoded ones, ``meetings`` at once on one loop with a virtual clock. Each
    meeting speaks 3 s of every 5 and changes slide every 10 s at 2 fps; the tracks are pulled as aiortc's
    sender pulls them. CPU is process time (all threads), steadier than lateness on a shared machine."""

    speech = fallback_speech("revenue grew four percent while costs stayed flat")
    slides = [slide(i) for i in range(8)]
    print(f"# {meetings} meetings, {seconds:g} s of meeting each, load {_loadavg():.1f}")
    print(f"{'path':<26} {'prepare s':>10} {'cpu % core':>11} {'MB':>6} {'audio B/s':>10} {'video B/s':>10} "
          "  (per meeting)")
    for label in ("frame by frame (today)", "pre-encoded (new)"):
        await _media_cost_one(label, meetings, seconds, speech, slides)


async def file_cost(megabytes: int = 4, repeat: int = 3) -> None:
    """CPU that a WebRTC file push costs (sender and receiver in this one process), beyond an idle meeting."""
    from modylbench.agents import Disconnected, MeetingEnded, join

    def cpu() -> float:
        t = os.times()
        return t.user + t.system

    async with SignalingServer() as server:
        m = server.create_meeting()
        client = await join(m.url, m.token)
        await m.wait_connected()

        async def drain() -> None:
            async for ev in client.events():
                if isinstance(ev, MeetingEnded | Disconnected):
                    return

        drainer = asyncio.create_task(drain())
        costs = []
        for _ in range(repeat):
            c0, w0 = cpu(), time.monotonic()
            await asyncio.sleep(2.0)
            idle = (cpu() - c0) / (time.monotonic() - w0)
            data = os.urandom(megabytes * 1_000_000)
            c0, w0 = cpu(), time.monotonic()
            outcome = await m.push_file("cost.bin", data, "application/octet-stream")
            assert outcome.ok, outcome.reason
            extra = (cpu() - c0) - idle * (time.monotonic() - w0)
            costs.append(extra * 1000 / megabytes)
            print(f"push {megabytes} MB in {time.monotonic() - w0:.2f} s: {costs[-1]:.0f} ms of CPU per MB", flush=True)
        print(f"median {statistics.median(costs):.0f} ms of CPU per MB (both sides of the data channel)")
        await m.close()
        await client.leave()
        await asyncio.wait_for(drainer, 5)


async def hostile_push(spec: dict[str, str], megabytes: int) -> None:
    """Child process: an agent that pushes ``megabytes`` on the files channel with no pacing at all."""
    import secrets

    from modylbench.agents import Disconnected, MeetingEnded, join
    from modylbench.channels._wire import FILE_CHUNK, FileHeader, chunk_frame, dumps, sha256_hex

    client = await join(spec["url"], spec["token"])
    data = os.urandom(megabytes * 1_000_000)
    header = FileHeader(secrets.token_hex(8), "flood.bin", "application/octet-stream", len(data),
                        await sha256_hex(data))  # fmt: skip
    pipe = client.session.pipes["files"]
    await asyncio.sleep(1.0)  # the persona is speaking by now
    t0 = time.monotonic()
    await pipe.send(dumps(header.to_json()))
    for i in range(0, len(data), FILE_CHUNK):
        await pipe.send(chunk_frame(header.file_id, data[i : i + FILE_CHUNK]))
    await pipe.send(dumps({"type": "file_end", "id": header.file_id}))
    await client.chat(json.dumps({"push_s": time.monotonic() - t0}))
    async for ev in client.events():
        if isinstance(ev, MeetingEnded | Disconnected):
            break
    await client.leave()


async def hostile_flood(spec: dict[str, str], seconds: float) -> None:
    """Child process: an agent that floods chat, files and doc at once at the documented limits for ``seconds``:
    8,000-character chats 5 a second, a 4 MB file pushed unpaced every 2 s, a 249 kB doc update 4 a second."""
    import secrets

    from modylbench.agents import Disconnected, MeetingEnded, join
    from modylbench.channels._wire import FILE_CHUNK, SYNC_UPDATE, FileHeader, chunk_frame, dumps, encode_sync

    client = await join(spec["url"], spec["token"])
    pipes = client.session.pipes
    data = os.urandom(4_000_000)
    sha = hashlib.sha256(data).hexdigest()
    doc = encode_sync(SYNC_UPDATE, b"\x00" * 249_000)  # within the doc limit; refused by the document, not the wire
    await asyncio.sleep(1.0)  # the persona is speaking by now

    async def chats() -> None:
        while True:
            await pipes["chat"].send(dumps({"type": "chat", "text": "x" * 8_000}))
            await asyncio.sleep(0.2)

    async def files() -> None:
        while True:
            header = FileHeader(secrets.token_hex(8), "flood.bin", "application/octet-stream", len(data), sha)
            await pipes["files"].send(dumps(header.to_json()))
            for i in range(0, len(data), FILE_CHUNK):
                await pipes["files"].send(chunk_frame(header.file_id, data[i : i + FILE_CHUNK]))
            await pipes["files"].send(dumps({"type": "file_end", "id": header.file_id}))
            await asyncio.sleep(2.0)

    async def docs() -> None:
        while True:
            await pipes["doc"].send(doc)
            await asyncio.sleep(0.25)

    tasks = [asyncio.ensure_future(f()) for f in (chats, files, docs)]
    await asyncio.sleep(seconds)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await client.chat(json.dumps({"push_s": seconds}))
    async for ev in client.events():
        if isinstance(ev, MeetingEnded | Disconnected):
            break
    await client.leave()


async def agent_push(megabytes: int, seconds: float, child_args: list[str] | None = None) -> dict[str, float]:
    """One meeting; the persona speaks without pause while the agent floods the files channel."""
    from modylbench.channels import AgentFile, WebRTCMeeting

    clock = WallClock()
    async with SignalingServer() as server:
        m = server.create_meeting(clock)
        assert isinstance(m, WebRTCMeeting)
        speech = fallback_speech("revenue grew four percent while costs stayed flat")
        child = subprocess.Popen([sys.executable, __file__, *(child_args or ["--push-child", str(megabytes)])],
                                 stdin=subprocess.PIPE,
                                 text=True, stderr=subprocess.DEVNULL)  # fmt: skip
        assert child.stdin is not None
        child.stdin.write(json.dumps({"url": m.url, "token": m.token}))
        child.stdin.close()
        await m.wait_connected()
        m.audio_track.stats.frames, m.audio_track.stats.late_frames, m.audio_track.stats.max_late = 0, 0, 0.0
        got: dict[str, float] = {}

        async def listen() -> None:
            async for ev in m.events():
                if isinstance(ev, AgentFile):
                    got["received_mb"] = len(ev.data) / 1e6
                elif isinstance(ev, AgentChat) and ev.text.startswith("{"):
                    got.update(json.loads(ev.text))
                elif isinstance(ev, AgentDisconnected):
                    return

        listener = asyncio.create_task(listen())
        end = clock.now() + seconds
        while clock.now() < end or "received_mb" not in got and clock.now() < end + 60 and not child_args:
            pb = await m.play(speech)
            await pb.ended
        stats = m.audio_track.stats
        await m.close()
        await asyncio.wait_for(listener, 5)
        child.wait(timeout=30)
    return {"audio_frames": stats.frames, "late_frames": stats.late_frames, "max_late_ms": stats.max_late * 1000,
            "push_s": got.get("push_s", float("nan")), "received_mb": got.get("received_mb", 0.0)}  # fmt: skip


async def agent_push_main(megabytes: int, seconds: float, repeat: int) -> None:
    rows = []
    for r in range(repeat):
        rows.append(await agent_push(megabytes, seconds))
        print(f"run {r + 1}: " + " ".join(f"{k}={v:.1f}" for k, v in rows[-1].items()), flush=True)
    if repeat > 1:
        print("median: " + " ".join(f"{k}={statistics.median(row[k] for row in rows):.1f}" for k in rows[0]),
              f"  worst late frames: {max(row['late_frames'] for row in rows):.0f}")  # fmt: skip


async def asr_meeting(delay: float, turns: int, repeat: int, answer_mb: float = 0.0) -> None:
    """A real meeting (oracle agent over loopback WebRTC, the first ``turns`` turns of the LBO scenario) with
    speech recognition off, then on against a local transcription server that answers after ``delay`` s (and
    every third request with a 429): persona audio frames late by > 20 ms, and ASR round trips per minute
    of agent speech. With ``answer_mb`` the server is hostile instead: every answer is a 200 whose JSON body is
    that many megabytes (prebuilt, so the server's own work is a socket write); ``peak_mb`` is the process's
    peak resident memory after the row."""
    import importlib.util
    import resource
    import tempfile
    from pathlib import Path

    from modylbench.record import AgentSpeechRecognised, AgentSpeechUnrecognised, read_record
    from modylbench.scenarios import load_builtin
    from modylbench.simulator._runner import RunSpec, run_one
    from modylbench.simulator._session import MeetingOptions

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("asr_server", root / "tests" / "scoring" / "transcription_server.py")
    assert spec is not None and spec.loader is not None
    srv = importlib.util.module_from_spec(spec)
    sys.modules["asr_server"] = srv  # dataclasses resolve their module by name
    spec.loader.exec_module(srv)
    lbo = {s.scenario_id: s for s in load_builtin()}["financial_analyst_lbo_model"]
    print("# asr   : off, or on (server answers after --asr-delay s, every third request a 429 with Retry-After 0)")
    print("# late  : persona audio frames sent > 20 ms after their slot; max_ms the worst")
    print("# trips : ASR requests (retries included); per_min: per minute of agent speech")
    print(f"{'asr':>4} {'frames':>7} {'late':>5} {'max_ms':>7} {'speech_s':>9} {'segments':>9} {'heard':>6} "
          f"{'unheard':>8} {'trips':>6} {'per_min':>8} {'wall_s':>7} {'peak_mb':>8}")
    hostile = None
    if answer_mb:
        words = "heard " * int(answer_mb * 1e6 / 6)
        hostile = srv.Fault(200, raw_body=json.dumps({"text": words}).encode())
        print(f"# hostile: every answer is a {len(hostile.raw_body) / 1e6:.0f} MB JSON body")
    for _ in range(repeat):
        for on in (False, True):
            faults = [srv.Fault() if i % 3 else srv.Fault(429, headers={"retry-after": "0"}) for i in range(1, 200)]
            t = srv.Transcriber(default_text="heard", delay_s=delay, faults=[] if hostile else faults,
                                always=hostile)
            with tempfile.TemporaryDirectory() as tmp, srv.transcription_server(t) as url:
                os.environ["MODYLBENCH_CACHE"] = tmp  # a cold recognition cache: every segment is asked
                folder = Path(tmp) / "s"
                asr = f"openai/bench-{time.time_ns()}@{url}" if on else None
                t0 = time.monotonic()
                result = await run_one(RunSpec(lbo, "oracle", folder, transport="webrtc",
                                               meeting=MeetingOptions(turns=turns, asr=asr)))
                wall = time.monotonic() - t0
                events = read_record(folder).events
            media = result.media
            speech = sum(e.offset - e.onset for e in events if getattr(e, "event", "") == "agent_speech")
            segs = sum(1 for e in events if getattr(e, "event", "") == "agent_speech" and e.audio is not None)
            heard = sum(1 for e in events if isinstance(e, AgentSpeechRecognised))
            unheard = sum(1 for e in events if isinstance(e, AgentSpeechUnrecognised))
            trips = len(t.requests)
            print(f"{'on' if on else 'off':>4} {media.get('audio_frames_sent', 0):>7} "
                  f"{media.get('audio_frames_late_20ms', 0):>5} {media.get('audio_max_late_ms', 0.0):>7.1f} "
                  f"{speech:>9.1f} {segs:>9} {heard:>6} {unheard:>8} {trips:>6} "
                  f"{trips / (speech / 60) if speech else 0.0:>8.1f} {wall:>7.1f} "
                  f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:>8.0f}", flush=True)


async def realtime_flood(delta_mb: float, count: int, before: bool) -> None:
    """A real meeting (the ``realtime`` agent in this process, loopback WebRTC, the first turn of the telehealth
    scenario) against a local realtime server whose answer is ``count`` audio deltas of ``delta_mb`` MB each:
    persona audio frames late, the process's peak memory, what the agent recorded. ``before``: with the bounds
    of before the fix (8 MiB messages, no bound on a response's audio)."""
    import importlib.util
    import resource
    import tempfile
    from pathlib import Path

    import modylbench.agents._realtime as rt
    from modylbench.record import read_record
    from modylbench.scenarios import load_builtin
    from modylbench.simulator._runner import RunSpec, run_one
    from modylbench.simulator._session import MeetingOptions

    if before:
        rt.MAX_SERVER_MESSAGE, rt.MAX_RESPONSE_AUDIO_S = 8 * 2**20, float("inf")
    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root))
    spec = importlib.util.spec_from_file_location("rt_server", root / "tests" / "agents" / "_realtime_server.py")
    assert spec is not None and spec.loader is not None
    srv = importlib.util.module_from_spec(spec)
    sys.modules["rt_server"] = srv
    spec.loader.exec_module(srv)
    scenario = load_builtin(only=["business_strategist_telehealth_entry"])[0]
    server = srv.RealtimeServer(scenario, flood=(int(delta_mb * 1e6), count))
    with server as url, tempfile.TemporaryDirectory() as tmp:
        t0 = time.monotonic()
        result = await run_one(RunSpec(scenario, f"realtime/bench@{url}", Path(tmp) / "s", transport="webrtc",
                                       meeting=MeetingOptions(turns=1)))
        wall = time.monotonic() - t0
        events = read_record(Path(tmp) / "s").events
    media = result.media
    spoken = sum(e.offset - e.onset for e in events if e.event == "agent_speech")
    errors = [e.message[:90] for e in events if e.event == "agent_error"]
    print(f"bounds={'before' if before else 'after'} deltas={count}x{delta_mb:g}MB "
          f"frames={media.get('audio_frames_sent', 0)} late={media.get('audio_frames_late_20ms', 0)} "
          f"max_late_ms={media.get('audio_max_late_ms', 0.0):.1f} "
          f"peak_mb={resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} agent_speech_s={spoken:.1f} "
          f"end={result.termination_reason} wall_s={wall:.1f} errors={errors}", flush=True)


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, nargs="+", default=[1, 4, 8])
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--repeat", type=int, default=1, help="runs per N; with more than one a median row follows")
    p.add_argument("--agents", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--audio-only", action="store_true", help="the persona never shares its screen")
    p.add_argument("--agent-procs", type=int, default=1, help="child processes the agent peers are spread over")
    p.add_argument("--harness-procs", type=int, default=1,
                   help="processes the harness side of the N meetings is spread over (one event loop each; "
                        "--agent-procs is divided among them)")  # fmt: skip
    p.add_argument("--base", metavar="DIR",
                   help="side by side with the code of DIR (a git worktree of another commit), fresh process per run")
    p.add_argument("--new", metavar="DIR", help="with --base: the new side's code from DIR instead of this checkout")
    p.add_argument("--profile", action="store_true", help="instead: one run per N under cProfile, top functions")
    p.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--media-cost", action="store_true",
                   help="instead: CPU and memory of the persona's media tracks alone, today's against pre-encoded")
    p.add_argument("--file-cost", action="store_true", help="instead: CPU per MB of a file push (SCTP)")
    p.add_argument("--agent-push", type=int, metavar="MB",
                   help="instead: persona audio lateness while the agent pushes MB megabytes unpaced")  # fmt: skip
    p.add_argument("--push-child", type=int, help=argparse.SUPPRESS)
    p.add_argument("--flood", type=float, metavar="S",
                   help="instead: persona audio lateness while the agent floods chat, files and doc at the limits for S s")
    p.add_argument("--flood-child", type=float, help=argparse.SUPPRESS)
    p.add_argument("--asr-delay", type=float, metavar="S",
                   help="instead: a real meeting with speech recognition off, then on against a server answering in S s")
    p.add_argument("--asr-answer-mb", type=float, default=0.0, metavar="MB",
                   help="with --asr-delay: a hostile server whose every answer is a JSON body of MB megabytes")
    p.add_argument("--turns", type=int, default=3, help="with --asr-delay: turns of the meeting")
    p.add_argument("--realtime-delta-mb", type=float, metavar="MB",
                   help="instead: a meeting with the realtime agent against a server sending --deltas deltas of MB")
    p.add_argument("--deltas", type=int, default=20, help="with --realtime-delta-mb: deltas in the answer")
    p.add_argument("--before", action="store_true",
                   help="with --realtime-delta-mb or --asr-answer-mb: the bounds as they were before issue 25's fix")
    a = p.parse_args()
    if a.realtime_delta_mb is not None:
        asyncio.run(realtime_flood(a.realtime_delta_mb, a.deltas, a.before))
    elif a.asr_delay is not None:
        if a.before:
            import modylbench.scoring._asr as asr_mod

            asr_mod.bounded_http_client = lambda _n: None  # type: ignore[assignment]  # the old, unbounded client

        asyncio.run(asr_meeting(a.asr_delay, a.turns, a.repeat, a.asr_answer_mb))
    elif a.flood_child:
        asyncio.run(hostile_flood(json.loads(sys.stdin.read()), a.flood_child))
    elif a.flood:
        print(asyncio.run(agent_push(0, a.flood + 2, ["--flood-child", str(a.flood)])), flush=True)
    elif a.push_child:
        asyncio.run(hostile_push(json.loads(sys.stdin.read()), a.push_child))
    elif a.agent_push:
        asyncio.run(agent_push_main(a.agent_push, a.seconds, a.repeat))
    elif a.file_cost:
        asyncio.run(file_cost())
    elif a.agents:
        asyncio.run(agent_main(json.loads(sys.stdin.read())))
    elif a.media_cost:
        asyncio.run(media_cost(a.n[0], a.seconds))
    elif a.base:
        side_by_side(a.base, a.n, a.seconds, a.repeat, a.audio_only, a.agent_procs, a.new, a.harness_procs)
    elif a.profile:
        for n in a.n:
            profile(n, a.seconds, a.audio_only, a.agent_procs)
    else:
        asyncio.run(main(a.n, a.seconds, a.repeat, a.audio_only, a.agent_procs, a.json, a.harness_procs))
