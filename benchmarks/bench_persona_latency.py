"""Answer latency over WebRTC: from the question detected to the answer's audio starting at the agent.

A real meeting over loopback WebRTC in real time (the harness's signaling server, the persona with eSpeak
and the offline answerer) with examples/testing/protocol_agent.py, an agent written from docs/protocol.md
alone, asking knowledge questions in chat after each turn's line. Per question:

* detected -> audio at agent: the record's ``question_asked.wall_time`` (the persona took the question) to the
  agent's first audible frame of the answer (after its receive buffer);
* asked -> audio at agent: the agent's own view, from sending the chat message;
* pause: the designed pause before answering (``ANSWER_PAUSE_S``); what is left is synthesis, the poll and
  the transport.

    python benchmarks/bench_persona_latency.py [--turns 3] [--per-turn 3] [--scenario ID]

Prints each exchange and the medians. Loaded-machine figures: quote medians with ``uptime``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from pathlib import Path

from modylbench.channels import LinkOptions, SignalingServer, WallClock
from modylbench.personas import make_engine
from modylbench.personas._answerer import ANSWER_PAUSE_S
from modylbench.record import read_record
from modylbench.scenarios import load_builtin
from modylbench.simulator._session import MeetingOptions, run_meeting

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "testing"))
from protocol_agent import ProtocolAgent  # noqa: E402


def questions(scenario: object, turns: int, per_turn: int) -> list[list[str]]:
    """Knowledge questions a participant would ask (not withheld ones: those are the meeting's own business)."""
    items = [i for i in scenario.knowledge.items if not i.withheld and not i.id.startswith("file.")]  # type: ignore[attr-defined]
    qs = [f"What's the {i.label}?" for i in items]
    return [qs[t * per_turn:(t + 1) * per_turn] for t in range(turns)]


async def measure(scenario_id: str, turns: int, per_turn: int, folder: Path) -> list[dict[str, float | str]]:
    scenario = next(s for s in load_builtin() if s.scenario_id == scenario_id)
    clock = WallClock()
    server = await SignalingServer("127.0.0.1", 0).start()
    try:
        meeting = server.create_meeting(clock, LinkOptions())
        agent = ProtocolAgent(meeting.url, meeting.token, questions(scenario, turns, per_turn))
        await asyncio.gather(
            run_meeting(meeting, scenario, "protocol_agent", folder, clock, make_engine("espeak"),
                        MeetingOptions(turns=turns)),
            agent.run())
    finally:
        await server.close()
    events = read_record(folder).events
    asked = [e for e in events if e.event == "question_asked" and e.outcome == "answered"]
    answers = {e.question_id: e for e in events if e.event == "persona_answer"}
    rows = []
    for ex in agent.exchanges:
        q = next((e for e in asked if e.question_id == ex.reply_to), None)
        a = answers.get(ex.reply_to)
        if q is None or a is None or ex.audio_at is None:
            rows.append({"question": ex.question, "missing": ex.reply_to or "no answer"})
            continue
        rows.append({"question": ex.question, "answer": ex.answer,
                     "detected_to_audio_ms": (ex.audio_at - q.wall_time) * 1000,
                     "asked_to_audio_ms": (ex.audio_at - ex.sent) * 1000,
                     "harness_asked_to_start_ms": (a.start - q.asked_at) * 1000})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenario", default="financial_analyst_lbo_model")
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--per-turn", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = asyncio.run(measure(args.scenario, args.turns, args.per_turn, Path(tmp) / "session"))
    ok = [r for r in rows if "missing" not in r]
    for r in rows:
        if "missing" in r:
            print(f"  {r['question']!r}: {r['missing']}")
        else:
            print(f"  {r['question']!r} -> {r['answer']!r}: detected->audio {r['detected_to_audio_ms']:.0f} ms, "
                  f"asked->audio {r['asked_to_audio_ms']:.0f} ms, harness asked->start {r['harness_asked_to_start_ms']:.0f} ms")
    if not ok:
        print("no exchange measured")
        return
    med = {k: statistics.median(float(r[k]) for r in ok)
           for k in ("detected_to_audio_ms", "asked_to_audio_ms", "harness_asked_to_start_ms")}
    print(f"{args.scenario}: {len(ok)}/{len(rows)} answers heard; median detected->audio at agent "
          f"{med['detected_to_audio_ms']:.0f} ms (designed pause {ANSWER_PAUSE_S * 1000:.0f} ms, the rest "
          f"{med['detected_to_audio_ms'] - ANSWER_PAUSE_S * 1000:.0f} ms), asked->audio {med['asked_to_audio_ms']:.0f} ms, "
          f"harness asked->answer start {med['harness_asked_to_start_ms']:.0f} ms; load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
