"""A multi-party meeting over loopback WebRTC with four people: late frames and speech delivery, per speaker.

The LBO room meeting (the VP, the CFO, the operations lead) plus a fourth participant (an associate, own voice)
for its first turns, played in real time over WebRTC to a listening agent in its own process (the SDK, the
mixed audio track). Prints the harness's persona audio frames and how many went out > 20 ms late, and per
speaker: lines said, lines whose voice reached the agent, and the delay from the caption (sent with the first
audio frame) to the first voiced audio frame at the agent (median and max).

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

from modylbench.agents import AudioReceived, CaptionReceived, MeetingClient, MeetingEnded, TurnEnded
from modylbench.channels._audio import frame_dbfs
from modylbench.scenarios import Participant, PersonaVoice, Scenario
from modylbench.scenarios._room import insert_turns, line
from modylbench.scenarios.builtin import build

VOICED_DBFS = -45.0
OUT = Path(tempfile.gettempdir()) / f"modylbench_bench_room_{os.getuid()}.json"
"""Where the agent (a process of its own, with its own environment) leaves what it heard."""
FOURTH = "Olu Adeyemi"


async def agent(client: MeetingClient) -> None:
    """Listens on the mixed track: for each caption, when its first voiced frame arrived (agent's clock)."""
    rows: list[dict[str, Any]] = []
    pending: dict[str, Any] | None = None
    async for ev in client.events():
        if isinstance(ev, CaptionReceived) and ev.reply_to is None:
            pending = {"speaker": ev.speaker, "caption_at": ev.time, "voice_at": None}
            rows.append(pending)
        elif isinstance(ev, AudioReceived) and pending is not None and pending["voice_at"] is None:
            if frame_dbfs(ev.pcm) > VOICED_DBFS:
                pending["voice_at"] = ev.time
        elif isinstance(ev, TurnEnded):
            await client.done(ev.turn_index)
        elif isinstance(ev, MeetingEnded):
            break
    OUT.write_text(json.dumps(rows))


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
    args = ap.parse_args()
    from modylbench.simulator.testing import run_meeting

    sc = four_people(args.turns)
    with tempfile.TemporaryDirectory() as tmp:
        out = OUT
        out.unlink(missing_ok=True)
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        run = run_meeting(sc, "py:bench_room:agent", transport="webrtc", out=Path(tmp) / "m", report=False)
        manifest = json.loads((run.folder / "manifest.json").read_text())
        rows = json.loads(out.read_text()) if out.exists() else []
    media = manifest.get("media") or {}
    print(f"# {len(sc.room.participants)} participants, {len(sc.turns)} turns over WebRTC (loopback), "  # type: ignore[union-attr]
          f"load {os.getloadavg()[0]:.2f}")
    print(f"persona audio frames {media.get('audio_frames_sent', 0)}, late > 20 ms {media.get('audio_frames_late_20ms', 0)}, "
          f"max late {media.get('audio_max_late_ms', 0.0):.1f} ms")
    print(f"{'speaker':<16} {'lines':>5} {'heard':>5} {'delay_med_ms':>13} {'delay_max_ms':>13}")
    for p in sc.room.participants:  # type: ignore[union-attr]
        said = [t for t in sc.turns if sc.speaker_of(t) == p.name]
        got = [r for r in rows if r["speaker"] == p.name]
        delays = [(r["voice_at"] - r["caption_at"]) * 1000 for r in got if r["voice_at"] is not None]
        med = f"{statistics.median(delays):.0f}" if delays else "-"
        mx = f"{max(delays):.0f}" if delays else "-"
        print(f"{p.name:<16} {len(said):>5} {len(delays):>5} {med:>13} {mx:>13}")
    print(f"termination: {run.scorecard.scenarios[0].termination_reason}")


if __name__ == "__main__":
    main()
