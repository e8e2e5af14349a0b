"""A real LiveKit ``AgentSession`` (livekit-agents' own OpenAI LLM, STT and TTS plugins, its bundled Silero VAD,
the meeting as its audio input, audio output and transcription output, the meeting's tools as function tools)
takes part in a meeting over WebRTC: it hears every turn through speech-to-text (or, with no STT, through the
meeting's captions), answers each by voice with ``done``, chats, edits the shared document, and is scored. The models are a local OpenAI-compatible server:
scripted chat completions, an eSpeak voice, a recogniser that knows the persona's utterances
(tests/integrations/voice_model.py)."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path
from typing import Any

import pytest
from livekit.agents import AgentSession
from livekit.plugins import openai

from modylbench.channels import SignalingServer, WallClock
from modylbench.integrations.livekit import Meeting, MeetingOptions, meeting_instructions
from modylbench.record import read_record
from modylbench.simulator._runner import score_session, speech_engines
from modylbench.simulator._session import run_meeting
from tests.integrations.voice_model import AFTER_TOOLS, MINI, SPOKEN, voice_script
from tests.scoring.openai_server import openai_server

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "livekit_agent.py"


def _load_example() -> Any:
    spec = importlib.util.spec_from_file_location("livekit_agent", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def _captions_agent(example: Any, url: str, token: str, base_url: str) -> Any:
    """The example's agent on a session with no STT (and no VAD): the meeting's captions are the persona's words."""
    session = AgentSession(
        llm=openai.LLM(model="brain", base_url=base_url, api_key="none"),
        tts=openai.TTS(response_format="pcm", base_url=base_url, api_key="none"),
        vad=None,
        turn_handling={"turn_detection": "manual", "interruption": {"resume_false_interruption": False}},
    )
    meeting = await Meeting.connect(url, token, MeetingOptions(captions=True))
    return await example.take_part(meeting, session=session)


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.parametrize("hearing", ["stt", "captions"])
async def test_livekit_agent_session_hears_answers_every_turn_and_is_scored(tmp_path: Path, hearing: str) -> None:
    example = _load_example()
    persona_speech, _ = speech_engines(MINI)
    script, recogniser = voice_script(persona_speech)
    folder = tmp_path / "session"
    with openai_server(script) as base_url:
        wall = WallClock()
        async with SignalingServer() as server:
            meeting = server.create_meeting(wall)
            if hearing == "stt":
                joining = example.run(meeting.url, meeting.token, model="brain", base_url=base_url)
            else:
                joining = _captions_agent(example, meeting.url, meeting.token, base_url)
            agent = asyncio.create_task(joining)
            result = await run_meeting(meeting, MINI, "livekit", folder, wall, persona_speech)
            tools = await asyncio.wait_for(agent, 30)
    asked = [[str(m["content"])[:60] for m in r["messages"] if m["role"] == "user"] for r in script.requests]
    events = read_record(folder).events
    ends = [e for e in events if e.event == "turn_end"]
    story = ([(e.turn_index, e.reason, round(e.meeting_time, 2)) for e in ends], recogniser.heard, asked)
    print("turn ends, heard, asked:", story)
    assert result.termination_reason == "completed", result.detail

    if hearing == "stt":
        # The persona was heard through LiveKit's STT plugin (audio/transcriptions), every utterance recognised.
        assert script.transcriptions and {r["model"] for r in script.transcriptions} == {"gpt-4o-mini-transcribe"}
        heard = [text for text, _ in recogniser.heard if text]
        for turn in MINI.turns:
            assert turn.human_utterance in heard, (turn.turn_index, recogniser.heard)
    else:
        # No STT: the meeting's captions were the persona's words.
        assert script.transcriptions == []
        for turn in MINI.turns:
            said = [str(m["content"]) for r in script.requests for m in r["messages"] if m["role"] == "user"]
            assert any(turn.human_utterance in u for u in said), (turn.turn_index, said)
    # The LLM is LiveKit's OpenAI plugin, streaming, with the meeting's tools and the briefing; it read the
    # persona's words, its chat and the file note as the user's.
    assert script.requests and all(r["stream"] and r["model"] == "brain" for r in script.requests)
    names = {t["function"]["name"] for t in script.requests[0]["tools"]}
    assert {"set_value", "delete_value", "create_product", "read_products", "chat", "read_file"} <= names
    system = script.requests[0]["messages"][0]
    assert system["role"] in ("system", "developer") and "Compute EBITDA." in str(system["content"])
    assert str(system["content"]).startswith(meeting_instructions(None)[:10])
    last_users = " ".join(str(m["content"]) for m in script.requests[-1]["messages"] if m["role"] == "user")
    assert "[chat] Inputs: revenue 10, margin 20%" in last_users and "[file inputs.csv shared:" in last_users, story
    assert [name for name, _ in tools.calls] == ["set_value", "chat", "read_file"], story
    # The voice is LiveKit's OpenAI TTS plugin (audio/speech, pcm), every reply spoken.
    spoken = [r["input"] for r in script.speech_requests]
    assert {r["response_format"] for r in script.speech_requests} == {"pcm"}
    for words in [*SPOKEN.values(), *AFTER_TOOLS.values()]:
        assert any(words in s for s in spoken), (words, spoken, story)

    assert [e.turn_index for e in ends] == [0, 1, 2, 3]
    assert [e.reason for e in ends] == ["agent_done"] * 4, story  # every turn answered and closed by its done
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
    stats = [e for e in events if e.event == "network_stats"][-1]
    print(
        f"livekit agent scored {scored.modylbench_score:.2f} ({scored.tier}); flags {scored.flags}; persona frames "
        f"late {stats.persona_audio_late_frames}/{stats.persona_audio_frames}"
    )


@pytest.mark.slow
@pytest.mark.timeout(240)
async def test_a_model_that_is_down_is_recorded_as_the_agents_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``py:livekit_agent:play`` over inproc (``run``'s own path), its LLM answering 500: LiveKit retries, then its
    unrecoverable ``error`` event reaches the record as ``agent_error`` (``model_error``) in each turn."""
    from modylbench.simulator._runner import RunSpec, run_one
    from modylbench.simulator._session import MeetingOptions as Meeting_
    from tests.scoring.openai_server import Answer

    persona_speech, _ = speech_engines(MINI)
    script, _ = voice_script(persona_speech)
    script.reply = lambda body: Answer(status=500, content="the model is down")
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    folder = tmp_path / "session"
    with openai_server(script) as base_url:
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "none")
        spec = RunSpec(MINI, "py:livekit_agent:play", folder, transport="inproc", meeting=Meeting_(turns=2))
        result = await run_one(spec)
    assert result.termination_reason == "max_turns", result.detail
    errors = [e for e in read_record(folder).events if e.event == "agent_error"]
    assert [(e.turn_index, e.kind) for e in errors] == [(0, "model_error"), (1, "model_error")], errors
    assert all("the model is down" in e.message for e in errors)
