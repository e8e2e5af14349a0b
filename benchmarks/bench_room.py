"""A multi-party meeting over loopback WebRTC with four people: late frames and speech delivery, per speaker.

The LBO room meeting (the VP, the CFO, the operations lead) plus a fourth participant (an associate, own voice)
for its first turns, played in real time over WebRTC to a listening agent in its own process (the SDK with
``participant_audio=True``: the mixed track and each person's own track). Prints the harness's audio frames and
how many went out > 20 ms late, for the mixed track and each person's track, and per speaker: lines said, lines
whose voice reached the agent on the mixed track and on their own track, the delay from the caption (sent with
the first audio frame) to the first voiced frame at the agent on each (median and max), and voiced frames on
their track while somebody else was the active speaker (should be 0).

    python benchmarks/bench_room.py --turns 12
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from modylbench.agents import (
    ActiveSpeakerChanged,
    AudioReceived,
    CaptionReceived,
    MeetingClient,
    MeetingEnded,
    TurnEnded,
    join,
)
from modylbench.channels._audio import frame_dbfs
from modylbench.scenarios import Participant, PersonaVoice, Scenario
from modylbench.scenarios._room import insert_turns, line
from modylbench.scenarios.builtin import build

VOICED_DBFS = -45.0
OUT = Path(tempfile.gettempdir()) / f"modylbench_bench_room_{os.getuid()}.json"
"""Where the agent (a process of its own, with its own environment) leaves what it heard."""
FOURTH = "Olu Adeyemi"


async def agent(client: MeetingClient) -> None:
    """Listens on every track: for each caption, when its first voiced frame arrived on the mixed track and on the
    speaker's own track (agent's clock); voiced frames on a person's track while another was the active speaker."""
    rows: list[dict[str, Any]] = []
    pending: dict[str, Any] | None = None
    active: str | None = None
    changed = 0.0
    leaks: dict[str, int] = {}
    frames: dict[str, int] = {}
    async for ev in client.events():
        if isinstance(ev, CaptionReceived) and ev.reply_to is None:
            pending = {"speaker": ev.speaker, "caption_at": ev.time, "voice_at": None, "own_at": None}
            rows.append(pending)
        elif isinstance(ev, ActiveSpeakerChanged):
            active, changed = ev.speaker, ev.time
        elif isinstance(ev, AudioReceived):
            who = ev.participant or "(mixed)"
            frames[who] = frames.get(who, 0) + 1
            voiced = frame_dbfs(ev.pcm) > VOICED_DBFS
            if voiced and ev.participant is not None and active not in (None, ev.participant) \
                    and ev.time - changed > 0.3:  # a change of speaker is sent when the line starts
                leaks[ev.participant] = leaks.get(ev.participant, 0) + 1
            if pending is not None and voiced:
                if ev.participant is None and pending["voice_at"] is None:
                    pending["voice_at"] = ev.time
                elif ev.participant == pending["speaker"] and pending["own_at"] is None:
                    pending["own_at"] = ev.time
        elif isinstance(ev, TurnEnded):
            await client.done(ev.turn_index)
        elif isinstance(ev, MeetingEnded):
            break
    OUT.write_text(json.dumps({"rows": rows, "leaks": leaks, "frames": frames}))


async def agent_process() -> None:
    """The agent as a ``cmd:`` of its own (a ``py:`` agent is joined with the mixed track only)."""
    client = await join(os.environ["MODYLBENCH_URL"], os.environ["MODYLBENCH_TOKEN"], participant_audio=True)
    try:
        await agent(client)
    finally:
        await client.leave()


def four_people(turns: int) -> Scenario:
    """The LBO room meeting's first ``turns`` with a fourth participant who talks early."""
    sc = build("financial_analyst_lbo_room").first_turns(turns)
    assert sc.room is not None
    olu = Participant(name=FOURTH, role="Associate, Harborview Capital Partners", agenda=["Keep the model tidy"],
                      voice=PersonaVoice(engine_voice="en-us", openai_voice="echo", words_per_minute=180))
    data = sc.model_dump(mode="python")
    data["room"]["participants"].append(olu.model_dump(mode="python"))
    sc = Scenario.model_validate(data)
    host = sc.room.host.name  # type: ignore[union-attr]
    sc = insert_turns(sc, 1, [
        line(FOURTH, host, "Dana, I've set up the tabs in the shared doc, same layout as the last deal."),
        line(host, FOURTH, "Thanks, Olu. Keep an eye on the debt schedule while we go."),
    ])
    data = sc.model_dump(mode="python")
    data["room"]["participants"][-1]["joins_at_turn"] = 1  # joins late: at his first line
    return Scenario.model_validate(data)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=12, help="turns of the meeting played (real time)")
    ap.add_argument("--agent", action="store_true", help=argparse.SUPPRESS)  # the agent's own process
    args = ap.parse_args()
    if args.agent:
        import asyncio

        asyncio.run(agent_process())
        return
    from modylbench.simulator.testing import run_meeting

    sc = four_people(args.turns)
    with tempfile.TemporaryDirectory() as tmp:
        out = OUT
        out.unlink(missing_ok=True)
        run = run_meeting(sc, f"cmd:{sys.executable} {Path(__file__).resolve()} --agent", transport="webrtc",
                          out=Path(tmp) / "m", report=False)
        manifest = json.loads((run.folder / "manifest.json").read_text())
        heard = json.loads(out.read_text()) if out.exists() else {"rows": [], "leaks": {}, "frames": {}}
    rows = heard["rows"]
    media = manifest.get("media") or {}
    print(f"# {len(sc.room.participants)} participants, {len(sc.turns)} turns over WebRTC (loopback), "  # type: ignore[union-attr]
          f"load {os.getloadavg()[0]:.2f}")
    print(f"{'track':<16} {'frames_sent':>11} {'late_20ms':>9} {'max_late_ms':>11} {'frames_heard':>12}")
    tracks = {"(mixed)": media, **(media.get("person_audio") or {})}
    for name, m in tracks.items():
        print(f"{name:<16} {m.get('audio_frames_sent', 0):>11} {m.get('audio_frames_late_20ms', 0):>9} "
              f"{m.get('audio_max_late_ms', 0.0):>11.1f} {heard['frames'].get(name, 0):>12}")
    print(f"{'speaker':<16} {'lines':>5} {'mixed':>5} {'own':>4} {'mixed_med_ms':>12} {'mixed_max_ms':>12} "
          f"{'own_med_ms':>10} {'own_max_ms':>10} {'leaked':>6}")

    def stat(values: list[float]) -> tuple[str, str]:
        return (f"{statistics.median(values):.0f}", f"{max(values):.0f}") if values else ("-", "-")

    for p in sc.room.participants:  # type: ignore[union-attr]
        said = [t for t in sc.turns if sc.speaker_of(t) == p.name]
        got = [r for r in rows if r["speaker"] == p.name]
        mixed = [(r["voice_at"] - r["caption_at"]) * 1000 for r in got if r["voice_at"] is not None]
        own = [(r["own_at"] - r["caption_at"]) * 1000 for r in got if r["own_at"] is not None]
        (mm, mx), (om, ox) = stat(mixed), stat(own)
        print(f"{p.name:<16} {len(said):>5} {len(mixed):>5} {len(own):>4} {mm:>12} {mx:>12} {om:>10} {ox:>10} "
              f"{heard['leaks'].get(p.name, 0):>6}")
    print(f"termination: {run.scorecard.scenarios[0].termination_reason}")


if __name__ == "__main__":
    main()
