"""The LiveKit integration's parts, fast and real: the meeting's tools as LiveKit function tools edit the shared
document, chat and read files over the protocol (an in-process meeting); the audio output plays LiveKit frames on
the meeting's track and reports each segment's playback as LiveKit expects (played to the end, or cut by
``clear_buffer``); the audio input hands the persona's frames to the session; the agent's turn is complete only
when its answer is; the example's one line without a meeting."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
from livekit import rtc
from livekit.agents.llm import RawFunctionTool
from livekit.agents.voice.io import PlaybackFinishedEvent

from modylbench.agents import FileReceived, join_inprocess
from modylbench.channels import (
    SYNC_STEP1,
    SYNC_UPDATE,
    AgentAudio,
    AgentChat,
    AgentDocMessage,
    InProcessMeeting,
    SharedDocument,
    VirtualClock,
    WallClock,
    sync_message,
)
from modylbench.integrations._toolbox import TOOL_SPECS
from modylbench.integrations.livekit import Meeting, MeetingTools
from modylbench.integrations.livekit._meeting import _AgentTurn

ROOT = Path(__file__).resolve().parents[2]


async def _tool(tools: MeetingTools, tool_name: str, **args: Any) -> dict[str, Any]:
    (tool,) = [t for t in tools.tools if t.info.name == tool_name]
    assert isinstance(tool, RawFunctionTool)
    return json.loads(await tool(raw_arguments=args))


async def test_function_tools_edit_the_document_chat_and_read_files_over_the_protocol() -> None:
    link = InProcessMeeting(WallClock())
    shared = SharedDocument()
    shared.create_product("persona", "model", "kv", "Model", {"ebitda": None, "notes": "x"})
    meeting = Meeting(await join_inprocess(link, receive_audio=False))
    tools = MeetingTools(meeting)
    events = link.events()
    try:
        # LiveKit sees the tools as the meeting describes them.
        assert [t.info.raw_schema["name"] for t in tools.tools] == [s.name for s in TOOL_SPECS]
        set_value = next(t for t in tools.tools if t.info.name == "set_value")
        assert set_value.info.raw_schema["parameters"]["required"] == ["product_id", "pointer", "value_json"]

        await meeting.start_reading()
        await link.send_doc(sync_message(SYNC_UPDATE, shared.full_state()))
        await link.send_doc(sync_message(SYNC_STEP1, shared.state_vector()))
        async for ev in events:
            if isinstance(ev, AgentDocMessage):
                shared.handle_message("agent", ev.data)
                if ev.data[1] == 1:  # sync step 2: the agent has handled everything before our step 1
                    break
        assert meeting.doc.products()["model"]["content"] == {"ebitda": None, "notes": "x"}

        assert await _tool(tools, "set_value", product_id="model", pointer="/ebitda", value_json="2.0") == {
            "ok": "saved"
        }
        assert await _tool(tools, "delete_value", product_id="model", pointer="/notes") == {"ok": "saved"}
        refused = await _tool(tools, "set_value", product_id="nope", pointer="/a", value_json="1")
        assert "create_product" in refused["error"]
        assert "not JSON" in (await _tool(tools, "set_value", product_id="model", pointer="/a", value_json="{"))[
            "error"
        ]
        assert "8000" in (await _tool(tools, "chat", text="x" * 8001))["error"]
        assert await _tool(tools, "chat", text="EBITDA = 2.0") == {"ok": "posted"}

        await link.send_doc(sync_message(SYNC_STEP1, shared.state_vector()))
        chats: list[str] = []
        async for ev in events:
            if isinstance(ev, AgentChat):
                chats.append(ev.text)
            elif isinstance(ev, AgentDocMessage):
                shared.handle_message("agent", ev.data)
                if ev.data[1] == 1:
                    break
        assert chats == ["EBITDA = 2.0"]
        assert shared.products()["model"]["content"] == {"ebitda": 2.0}

        outcome = await link.push_file("inputs.csv", b"revenue,margin\n10,0.2\n", "text/csv")
        assert outcome.ok
        while not isinstance(await meeting.next_event(), FileReceived):
            pass
        assert (await _tool(tools, "read_file", name="inputs.csv", offset=8))["ok"] == "margin\n10,0.2\n"
        assert [name for name, _ in tools.calls][:2] == ["set_value", "delete_value"]
    finally:
        await meeting.leave()
        await link.close()
        shared.close()


def _tone(seconds: float, rate: int = 24_000) -> list[rtc.AudioFrame]:
    """A 440 Hz tone at ``rate`` in 100 ms LiveKit frames (what LiveKit's OpenAI TTS gives at 24 kHz)."""
    n = int(rate * 0.1)
    t = np.arange(int(rate * seconds)) / rate
    pcm = (np.sin(2 * np.pi * 440 * t) * 8000).astype("<i2")
    return [rtc.AudioFrame(pcm[i : i + n].tobytes(), rate, 1, len(pcm[i : i + n])) for i in range(0, len(pcm), n)]


async def test_audio_output_plays_on_the_track_and_reports_playback_as_livekit_expects() -> None:
    clock = VirtualClock()
    link = InProcessMeeting(clock)
    meeting = Meeting(await join_inprocess(link))
    out = meeting.audio_output
    finished: list[PlaybackFinishedEvent] = []
    out.on("playback_finished", finished.append)
    voiced = 0

    async def listen() -> None:
        nonlocal voiced
        async for ev in link.events():
            if isinstance(ev, AgentAudio):
                voiced += int(np.count_nonzero(np.frombuffer(ev.pcm, dtype="<i2")))

    listener = asyncio.create_task(listen())
    try:
        # Played to the end: resampled to the track's 48 kHz, the whole segment reported, not interrupted.
        for frame in _tone(0.5):
            await out.capture_frame(frame)
        out.flush()
        ev = await out.wait_for_playout()
        assert not ev.interrupted and abs(ev.playback_position - 0.5) < 0.03, ev
        assert abs(out.seconds_out - 0.5) < 0.03
        await clock.sleep(0.2)
        assert 0.45 * 48_000 < voiced <= 0.52 * 48_000  # the tone went out on the track at 48 kHz

        # Cut: clear_buffer stops the track at once; the flushed segment reports how far it got, interrupted.
        frames = _tone(2.0)
        for frame in frames[:3]:
            await out.capture_frame(frame)
        out.clear_buffer()
        for frame in frames[3:]:
            await out.capture_frame(frame)  # LiveKit may still push: nothing more is played
        out.flush()
        ev = await out.wait_for_playout()
        assert ev.interrupted and ev.playback_position < 0.35, ev
        assert len(finished) == 2 and not out.playing

        # The transcription output declares each piece of speech once, as one transcript.
        await meeting.text_output.capture_text("EBITDA is ")
        await meeting.text_output.capture_text("2.0 million.")
        meeting.text_output.flush()
        await clock.sleep(0.1)
        assert meeting.text_output.declared == ["EBITDA is 2.0 million."]
    finally:
        await meeting.leave()
        await link.close()
        listener.cancel()
        await asyncio.gather(listener, return_exceptions=True)


async def test_audio_input_hands_the_persona_frames_to_the_session_until_the_meeting_ends() -> None:
    link = InProcessMeeting(WallClock())
    meeting = Meeting(await join_inprocess(link))
    audio = meeting.audio_input
    for i in range(3):
        audio.push(bytes([i, 0]) * 960)
    audio.end()
    frames = [f async for f in audio]
    assert [(f.sample_rate, f.num_channels, f.samples_per_channel) for f in frames] == [(48_000, 1, 960)] * 3
    assert bytes(frames[2].data)[:2] == bytes([2, 0])
    await meeting.leave()
    await link.close()


def test_the_agents_turn_is_complete_only_when_its_answer_is() -> None:
    class Handle:  # stands for a SpeechHandle: the rule only keeps it in a set
        pass

    turn = _AgentTurn()
    early, first, second = Handle(), Handle(), Handle()
    turn.speech_created(early)  # type: ignore[arg-type]
    turn.speech_done(early)  # type: ignore[arg-type]
    turn.state_changed("listening")
    turn.open_floor(2)
    turn.reply_asked()
    assert not turn.complete(playing=False)  # asked, but no speech since the floor opened: the STT may be slow
    turn.speech_created(first)  # type: ignore[arg-type]
    turn.state_changed("speaking")
    assert not turn.complete(playing=False)
    turn.speech_created(second)  # type: ignore[arg-type]  # the reply to a tool call's result
    turn.speech_done(first)  # type: ignore[arg-type]
    turn.state_changed("listening")
    assert not turn.complete(playing=False)  # the tool reply is still scheduled
    turn.speech_done(second)  # type: ignore[arg-type]
    assert not turn.complete(playing=True)  # its last audio is still on the track
    assert turn.complete(playing=False) and turn.turn == 2
    turn.close_floor()  # turn_closed, a new turn_start, or done sent
    assert not turn.complete(playing=False)
    turn.open_floor(3)
    turn.speech_created(first)  # type: ignore[arg-type]
    turn.speech_done(first)  # type: ignore[arg-type]
    assert not turn.complete(playing=False)  # spoke, but the turn's reply was not asked for yet


def test_example_needs_the_meeting_in_its_environment() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MODYLBENCH_")}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "livekit_agent.py")], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].startswith("livekit_agent: set MODYLBENCH_URL and MODYLBENCH_TOKEN")
