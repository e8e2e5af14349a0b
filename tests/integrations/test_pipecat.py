"""A real Pipecat pipeline (pipecat-ai's own OpenAI LLM service, our eSpeak TTS service, the meeting transport and
tools) takes part in a meeting over WebRTC: it hears every turn, answers every one by voice with ``done``, chats,
edits the shared document through function calls, and is scored. The model is a local OpenAI-compatible server
streaming text and tool calls."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pipecat.frames.frames import InputAudioRawFrame, TranscriptionFrame
from pipecat.observers.base_observer import BaseObserver, FramePushed

from modylbench.channels import SignalingServer, WallClock
from modylbench.integrations.pipecat import MeetingInputTransport, meeting_instructions
from modylbench.record import read_record
from modylbench.scenarios import load_path
from modylbench.simulator import score_session
from modylbench.simulator._runner import speech_engines
from modylbench.simulator._session import run_meeting
from tests.scoring.openai_server import Answer, Script, openai_server, tool_call

ROOT = Path(__file__).resolve().parents[2]
MINI = load_path(ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl")[0]
EXAMPLE = ROOT / "examples" / "pipecat_agent.py"

SPOKEN = {
    0: "Hello Ana. Let's compute EBITDA together.",
    1: "EBITDA is 2.0 million: revenue of 10 at a 20 percent margin.",
    2: "No, EBITDA is 2.0 million, not 3 million.",
    3: "Let me check the file first.",
}
VOICED_RMS = 32768 * 10 ** (-45 / 20)
"""The meeting's voice-activity level (-45 dBFS) as an s16 RMS."""
AFTER_TOOLS = {1: "The model holds EBITDA of 2.0 now.", 3: "The model is in the shared document, EBITDA 2.0."}


def _text(content: Any) -> str:
    if isinstance(content, list):  # content parts
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content or "")


def brain(body: dict[str, Any]) -> Answer:
    """The model: answers the turn it hears (speech as text, edits and chat as tool calls), then confirms after
    its tool results come back."""
    messages = body["messages"]
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    heard = _text(messages[users[-1]]["content"])
    turn = max(t.turn_index for t in MINI.turns if t.human_utterance in heard or t.turn_index == 0)
    if messages[-1]["role"] == "tool":
        return Answer(content=AFTER_TOOLS.get(turn, "Done."))
    calls: list[dict[str, Any]] = []
    if turn == 1:
        calls = [
            tool_call("c1", "set_value", {"product_id": "model", "pointer": "/ebitda", "value_json": "2.0"}),
            tool_call("c2", "chat", {"text": "EBITDA = 10 x 20% = 2.0"}),
        ]
    elif turn == 3:
        calls = [tool_call("c3", "read_file", {"name": "inputs.csv"})]
    return Answer(content=SPOKEN[turn], tool_calls=calls or None)


class Probe(BaseObserver):
    """What the input transport pushed into the pipeline: persona audio (rate, level) and transcriptions."""

    def __init__(self) -> None:
        super().__init__()
        self.rates: set[int] = set()
        self.audio_frames = 0
        self.voiced_frames = 0
        self.transcriptions: list[str] = []

    async def on_push_frame(self, data: FramePushed) -> None:
        if not isinstance(data.source, MeetingInputTransport):
            return
        frame = data.frame
        if isinstance(frame, InputAudioRawFrame):
            self.audio_frames += 1
            self.rates.add(frame.sample_rate)
            samples = np.frombuffer(frame.audio, dtype="<i2").astype(np.float64)
            if samples.size and np.sqrt(np.mean(samples**2)) > VOICED_RMS:
                self.voiced_frames += 1
        elif isinstance(frame, TranscriptionFrame):
            self.transcriptions.append(frame.text)


def _load_example() -> Any:
    spec = importlib.util.spec_from_file_location("pipecat_agent", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.timeout(180)
async def test_pipecat_agent_answers_every_turn_and_is_scored(tmp_path: Path) -> None:
    example = _load_example()
    script = Script(reply=brain)
    probe = Probe()
    folder = tmp_path / "session"
    persona_speech, _ = speech_engines(MINI)
    with openai_server(script) as base_url:
        wall = WallClock()
        async with SignalingServer() as server:
            meeting = server.create_meeting(wall)
            agent = asyncio.create_task(
                example.run(meeting.url, meeting.token, model="brain", base_url=base_url, observers=[probe])
            )
            result = await run_meeting(meeting, MINI, "pipecat", folder, wall, persona_speech)
            tools = await asyncio.wait_for(agent, 30)
    assert result.termination_reason == "completed", result.detail

    # The LLM is pipecat's OpenAI service, streaming; it had the meeting's tools and the briefing.
    assert script.requests and all(r["stream"] and r["model"] == "brain" for r in script.requests)
    names = {t["function"]["name"] for t in script.requests[0]["tools"]}
    assert {"set_value", "delete_value", "create_product", "read_products", "chat", "read_file"} <= names
    assert script.requests[0]["messages"][0]["content"].startswith(meeting_instructions(None)[:10])
    assert "Compute EBITDA." in script.requests[0]["messages"][0]["content"]  # the briefing's goal
    assert [name for name, _ in tools.calls] == ["set_value", "chat", "read_file"]

    # Persona audio came in as Pipecat input audio at the pipeline's 16 kHz, voiced; captions, chat and the
    # file note as transcriptions.
    assert probe.rates == {16_000}
    assert probe.audio_frames > 100 and probe.voiced_frames > 20
    heard = " ".join(probe.transcriptions)
    for turn in MINI.turns:
        assert turn.human_utterance in heard
    assert "[chat] Inputs: revenue 10, margin 20%" in heard and "[file inputs.csv shared:" in heard

    events = read_record(folder).events
    ends = [e for e in events if e.event == "turn_end"]
    assert [e.turn_index for e in ends] == [0, 1, 2, 3]
    assert [e.reason for e in ends] == ["agent_done"] * 4  # every turn answered and closed by the bot's done
    speech = [e for e in events if e.event == "agent_speech"]
    for turn_index, words in SPOKEN.items():
        said = " ".join(e.transcript or "" for e in speech if e.turn_index == turn_index)
        assert words in said, (turn_index, said)
        voiced = [e.offset - e.onset for e in speech if e.turn_index == turn_index]
        assert max(voiced) > 1.0, voiced  # the words were heard on the track, not only declared
    assert AFTER_TOOLS[1] in " ".join(e.transcript or "" for e in speech if e.turn_index == 1)
    chats = [e for e in events if e.event == "chat_message" and e.sender == "agent"]
    assert [(c.turn_index, c.text) for c in chats] == [(1, "EBITDA = 10 x 20% = 2.0")]
    assert any(e.event == "doc_update" and e.origin == "agent" and e.turn_index == 1 for e in events)

    scored = score_session(folder, {MINI.scenario_id: MINI}, ["offline"]).scenarios[0]
    assert scored.modylbench_score is not None and "turns_unanswered" not in scored.flags, scored.flags
    assert [t.turn_index for t in scored.turns if t.score is not None] == [0, 1, 2, 3]
    (product,) = scored.products
    assert product.product_id == "model" and product.checks and all(c.passed for c in product.checks)
    print(f"pipecat agent scored {scored.modylbench_score:.2f} ({scored.tier}); flags {scored.flags}")


@pytest.mark.slow
@pytest.mark.timeout(420)
async def test_pipecat_agent_takes_part_in_a_multi_party_meeting_through_the_mixed_track(tmp_path: Path) -> None:
    """A room meeting's first six turns (the host, then the CFO who joins): Pipecat takes the mixed track, hears every
    line in its speaker's voice, and is scored."""
    from modylbench.scenarios.builtin import build

    room = build("financial_analyst_lbo_room").first_turns(6)
    example = _load_example()
    script = Script(reply=lambda body: Answer(content="Noted, I'll put it in the model."))
    probe = Probe()
    folder = tmp_path / "session"
    persona_speech, _ = speech_engines(room)
    with openai_server(script) as base_url:
        wall = WallClock()
        async with SignalingServer() as server:
            meeting = server.create_meeting(wall)
            agent = asyncio.create_task(
                example.run(meeting.url, meeting.token, model="brain", base_url=base_url, observers=[probe])
            )
            result = await run_meeting(meeting, room, "pipecat", folder, wall, persona_speech)
            await asyncio.wait_for(agent, 30)
    assert result.termination_reason == "completed", result.detail
    assert meeting.person_tracks == {}  # Pipecat offers one audio transceiver: the mixed track only
    heard = " ".join(probe.transcriptions)
    for turn in room.turns:
        assert turn.human_utterance in heard
    assert probe.rates == {16_000} and probe.voiced_frames > 100
    events = read_record(folder).events
    speakers = [e.speaker for e in events if e.event == "persona_utterance"]
    assert speakers == [room.speaker_of(t) for t in room.turns] and len(set(speakers)) == 2
    assert [e.turn_index for e in events if e.event == "turn_end"] == list(range(6))
    scored = score_session(folder, {room.scenario_id: room}, ["offline"]).scenarios[0]
    assert scored.modylbench_score is not None
    print(f"pipecat agent in the room scored {scored.modylbench_score:.2f} ({scored.tier}); flags {scored.flags}")
