"""The LiveKit Agents figures of docs/integrations.md: examples/livekit_agent.py (an ``AgentSession`` with LiveKit's
OpenAI LLM, STT and TTS plugins and its bundled Silero VAD) plays the 4-turn mini fixture and is scored, in each
form it runs in: ``cmd:`` over WebRTC, ``py:`` over WebRTC (its own process) and ``py:`` over inproc (``run``'s
process, on the meeting's clock). Its models are the local OpenAI-compatible server of the tests, playing
tests/integrations/voice_model.py: scripted chat completions with tool calls, an eSpeak voice for
``audio/speech``, a recogniser of the persona's utterances for ``audio/transcriptions``.

    python benchmarks/bench_livekit.py                      # the three forms
    python benchmarks/bench_livekit.py --forms cmd-webrtc   # one

Per form: how the meeting ended and each turn's end, the score (offline judge), each turn's latency
(``latency_ms``: persona speech end to the agent's first response), what the STT heard, and the persona's
audio frames sent over 20 ms late (WebRTC; their worst lateness). Each is the same path as
``modylbench run mini_fixture --scenarios fixtures/scenarios/mini_fixture.jsonl --transport T --agent A
--agent-env OPENAI_BASE_URL --agent-env OPENAI_API_KEY --agent-env MODYLBENCH_AGENT_MODEL``.
Needs the ``livekit`` extra.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"
FORMS = {
    "cmd-webrtc": ("webrtc", f"cmd:{sys.executable} {ROOT / 'examples' / 'livekit_agent.py'}"),
    "py-webrtc": ("webrtc", "py:livekit_agent:play"),
    "py-inproc": ("inproc", "py:livekit_agent:play"),
}
MODEL_ENV = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "MODYLBENCH_AGENT_MODEL")
"""What the agent's process is given of ours: where its models are."""


async def one(form: str, folder: Path, recogniser: Any) -> dict[str, Any]:
    from modylbench.record import read_record
    from modylbench.scenarios import load_path
    from modylbench.simulator._runner import RunSpec, run_one, score_session
    from modylbench.simulator._session import MeetingOptions

    scenarios = {s.scenario_id: s for s in load_path(MINI)}
    transport, agent = FORMS[form]
    spec = RunSpec(scenarios["mini_fixture"], agent, folder, transport=transport,
                   meeting=MeetingOptions(judges=["offline"]), agent_name=f"livekit-{form}", agent_env=MODEL_ENV)  # fmt: skip
    heard0 = len(recogniser.heard)
    t0 = time.monotonic()
    result = await run_one(spec)
    wall = time.monotonic() - t0
    entry = score_session(folder, scenarios, ["offline"]).scenarios[0]
    m = json.loads((folder / "responses.jsonl").read_text().splitlines()[0])["measurements"]
    events = read_record(folder).events
    return {
        "form": form, "termination": result.termination_reason, "score": entry.modylbench_score,
        "tier": entry.tier, "flags": entry.flags,
        "turn_ends": [e.reason for e in events if e.event == "turn_end"],
        "latency_ms": [t.get("latency_ms") for t in m["turns"]],
        "heard": [text for text, _ in recogniser.heard[heard0:]],
        "persona_late_frames": result.media.get("audio_frames_late_20ms"),
        "persona_frames": result.media.get("audio_frames_sent"),
        "persona_max_late_ms": result.media.get("audio_max_late_ms"),
        "wall_s": round(wall, 1),
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--forms", default=",".join(FORMS), help=f"Comma-separated, of {', '.join(FORMS)}.")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    sys.path[:0] = [str(ROOT), str(ROOT / "examples")]  # tests.* (the models, the server) and livekit_agent
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT / "examples"), os.environ.get("PYTHONPATH", "")])
    from modylbench.scenarios import load_path
    from modylbench.simulator._runner import speech_engines
    from tests.integrations.voice_model import voice_script
    from tests.scoring.openai_server import openai_server

    persona_speech, _ = speech_engines(load_path(MINI)[0])
    script, recogniser = voice_script(persona_speech)
    rows = []
    with openai_server(script) as base_url, tempfile.TemporaryDirectory(prefix="bench-livekit-") as tmp:
        os.environ.update(OPENAI_BASE_URL=base_url, OPENAI_API_KEY="none", MODYLBENCH_AGENT_MODEL="brain")
        for form in (f for f in args.forms.split(",") if f):
            row = asyncio.run(one(form, Path(tmp) / form, recogniser))
            rows.append(row)
            print(json.dumps(row))
    print(f"load: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} CPUs")
    print("| form | ended | turns | score | latency per turn (ms) | persona frames late (max ms) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        late = (f"{r['persona_late_frames']} / {r['persona_frames']} ({r['persona_max_late_ms']})"
                if r["persona_frames"] else "n/a")  # fmt: skip
        lat = ", ".join("-" if x is None else f"{x:.0f}" for x in r["latency_ms"])
        score = "-" if r["score"] is None else f"{r['score']:.2f} ({r['tier']})"
        print(f"| {r['form']} | {r['termination']} | {'/'.join(r['turn_ends'])} | {score} | {lat} | {late} |")


if __name__ == "__main__":
    main()
