"""N meetings side by side over loopback WebRTC: persona audio, 2 fps screen share, chat and a file push.

All persona peers share this process and its event loop, all agent peers share one child process. The N
meetings run in lock step (each shows a slide, posts chat, speaks, then repeats; each first pushes a 1 MB
file), the worst case for a shared loop. Prints, per N: connect time, audio frames sent, frames late by
> 20 ms, the largest lateness, persona speech delay at the agent (packet arrival and after the jitter
buffer), screen frames and CPU per meeting on each side.

    python benchmarks/bench_transport.py --n 1 4 8 --seconds 10 --repeat 3
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

from PIL import Image, ImageDraw

from modylbench.channels import AgentChat, AgentDisconnected, SignalingServer, WallClock
from modylbench.channels._audio import fallback_speech, frame_dbfs

logger = logging.getLogger(__name__)


async def agent_main(specs: list[dict[str, str]]) -> None:
    """Child process: one agent per meeting; report when the persona's speech first arrived."""
    from modylbench.agents import AudioReceived, CaptionReceived, Disconnected, MeetingEnded, join

    async def one(spec: dict[str, str]) -> None:
        client = await join(spec["url"], spec["token"])
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


async def run(n: int, seconds: float) -> dict[str, float]:
    clock = WallClock()
    async with SignalingServer() as server:
        meetings = [server.create_meeting(clock) for _ in range(n)]
        # Prepared before the meetings run, as the persona prepares its speech and slides.
        speech = fallback_speech("revenue grew four percent while costs stayed flat")
        slides = [slide(i) for i in range(8)]
        payload = os.urandom(1_000_000)
        for m in meetings:
            for img in slides:
                m.prepare_screen(img)
        specs = [{"url": m.url, "token": m.token} for m in meetings]
        child = subprocess.Popen(
            [sys.executable, __file__, "--agents"],
            stdin=subprocess.PIPE,
            text=True,
            stderr=subprocess.DEVNULL,
        )
        assert child.stdin is not None
        child.stdin.write(json.dumps(specs))
        child.stdin.close()
        connects = await asyncio.gather(*(m.wait_connected() for m in meetings))
        cpu0, wall0 = (_cpu_seconds(os.getpid()), _cpu_seconds(child.pid)), time.monotonic()
        for m in meetings:
            for f in m.audio_track.stats, m.screen_track.stats:
                f.frames, f.late_frames, f.max_late = 0, 0, 0.0
        delays: list[dict[str, float]] = []

        async def persona(m: object) -> asyncio.Task[None]:
            from modylbench.channels import Caption, WebRTCMeeting

            assert isinstance(m, WebRTCMeeting)

            async def listen() -> None:
                async for ev in m.events():
                    if isinstance(ev, AgentChat):
                        delays.append(json.loads(ev.text))
                    if isinstance(ev, AgentDisconnected):
                        return

            listener = asyncio.create_task(listen())
            await m.show(slides[0])
            await m.push_file("data.csv", payload, "text/csv")
            end = clock.now() + seconds
            i = 0
            while clock.now() < end:
                i += 1
                await m.show(slides[i % len(slides)])
                await m.send_chat(f"look at slide {i}")
                await clock.sleep(0.3)
                pb = await m.play(speech)
                start = await pb.started
                # The link's clock starts at the join: meeting times come from it, not from the base clock.
                await m.send_control(Caption(f"@{m.clock.wall_time() - (m.clock.now() - start)}"))
                await pb.ended
                await clock.sleep(0.5)
            return listener

        listeners = await asyncio.gather(*(persona(m) for m in meetings))
        cpu1, wall1 = (_cpu_seconds(os.getpid()), _cpu_seconds(child.pid)), time.monotonic()
        rss = (_rss_mb(os.getpid()), _rss_mb(child.pid))
        for m, listener in zip(meetings, listeners, strict=True):
            await m.close()
            await asyncio.wait_for(listener, 5)
        child.wait(timeout=30)
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
        "screen_frames": sum(s.frames for s in screen),
        "screen_max_late_ms": max(s.max_late for s in screen) * 1000,
        "cpu_persona_pct": persona_cpu,
        "cpu_agent_pct": agent_cpu,
        "rss_persona_mb": rss[0],
        "rss_agent_mb": rss[1],
    }


COLUMNS = {
    "n": "meetings",
    "connect_ms_max": "slowest join (signaling + ICE + DTLS + data channels), ms",
    "audio_frames": "persona audio frames sent, all meetings",
    "late_frames": "of those, sent > 20 ms after their slot",
    "max_late_ms": "largest lateness of any audio frame, ms",
    "speech_arrival_ms_max": "latest first speech packet at the agent's socket after its scheduled time, ms",
    "speech_delivered_ms_median": "median time from scheduled speech to the agent's event (after the 80 ms jitter buffer), ms",  # noqa: E501
    "speech_delivered_ms_max": "worst of those, ms",
    "screen_frames": "screen-share frames sent (2 fps)",
    "screen_max_late_ms": "largest screen-frame lateness, ms",
    "cpu_persona_pct": "CPU of the persona process per meeting, % of one core",
    "cpu_agent_pct": "CPU of the agent process per meeting, % of one core",
    "rss_persona_mb": "resident memory of the persona process at the end (all N meetings; grows with earlier runs), MB",
    "rss_agent_mb": "resident memory of the agent process at the end, MB",
}


async def main(ns: list[int], seconds: float, repeat: int) -> None:
    for c, meaning in COLUMNS.items():
        print(f"# {c}: {meaning}")
    cols = list(COLUMNS)
    print(" ".join(["n/r", *(f"{c:>12}" for c in cols[1:])]))
    for n in ns:
        rows = []
        for r in range(repeat):
            rows.append(await run(n, seconds))
            label = f"{n}/{r + 1}"
            print(" ".join([f"{label:>3}", *(f"{rows[-1][c]:>12.1f}" for c in cols[1:])]), flush=True)
        if repeat > 1:
            med = {c: statistics.median(row[c] for row in rows) for c in cols[1:]}
            worst = max(row["late_frames"] for row in rows)
            print(" ".join([f"{n:>2}~", *(f"{med[c]:>12.1f}" for c in cols[1:])]),
                  f"  <- median of {repeat}; late frames in the worst run: {worst}", flush=True)  # fmt: skip


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
    else:
        asyncio.run(main(a.n, a.seconds, a.repeat))
