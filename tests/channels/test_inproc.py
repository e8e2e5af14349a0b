"""The in-process transport end to end on a virtual clock: every channel, and the faults the issue lists."""

from __future__ import annotations

import asyncio
import hashlib
import json

import pytest
from PIL import Image

from modylbench.agents import (
    AudioReceived,
    CaptionReceived,
    ChatReceived,
    FileReceived,
    MeetingEnded,
    ScreenFrameReceived,
    TurnStarted,
    join_inprocess,
)
from modylbench.channels import (
    SYNC_UPDATE,
    AgentAudio,
    AgentChat,
    AgentDisconnected,
    AgentDocMessage,
    AgentDoneSignal,
    AgentFile,
    AgentSpeechOffset,
    AgentSpeechOnset,
    AgentTranscript,
    Caption,
    InProcessMeeting,
    LinkOptions,
    ProtocolFault,
    TurnStartMarker,
    VirtualClock,
    fallback_speech,
)
from modylbench.channels._wire import encode_sync


async def test_full_meeting_over_inproc() -> None:
    clock = VirtualClock()
    link = InProcessMeeting(clock)
    client = await join_inprocess(link)
    assert await link.wait_connected() == 0.0
    got: list[object] = []
    harness: list[object] = []

    async def agent() -> None:
        async for ev in client.events():
            got.append(ev)
            if isinstance(ev, TurnStarted):
                await client.chat("hello from the agent")
                pb = await client.say("I will look at the numbers now")
                await pb.ended
                ok = await client.send_file("../../etc/re port.csv", b"a,b\n1,2\n", "text/csv")
                assert ok
                await client.send_doc(encode_sync(SYNC_UPDATE, b"\x00\x00"))
                await client.done()
            if isinstance(ev, MeetingEnded):
                break

    async def persona() -> None:
        async for ev in link.events():
            if not isinstance(ev, AgentAudio):
                harness.append(ev)
            if isinstance(ev, AgentDoneSignal):
                await link.close()

    img = Image.new("RGB", (1280, 720), "navy")
    await link.show(img)
    pb = await link.play(fallback_speech("good morning team"))
    await link.send_control(Caption("good morning team"))
    await link.send_control(TurnStartMarker(0, "kickoff"))
    await link.send_chat("numbers attached")
    outcome_task = asyncio.ensure_future(link.push_file("q3.csv", b"x" * 100_000, "text/csv"))
    async with asyncio.TaskGroup() as tg:
        tg.create_task(agent())
        tg.create_task(persona())
    outcome = await outcome_task
    assert outcome.ok and outcome.size == 100_000
    # Playback starts on the next 20 ms frame boundary and lasts as long as the PCM.
    assert pb.started.result() <= 0.02 and abs(pb.ended.result() - pb.started.result() - pb.duration) < 1e-9
    kinds = {type(e) for e in got}
    assert {
        CaptionReceived,
        TurnStarted,
        ChatReceived,
        FileReceived,
        ScreenFrameReceived,
        AudioReceived,
    } <= kinds
    f = next(e for e in got if isinstance(e, FileReceived))
    assert hashlib.sha256(f.data).hexdigest() == outcome.sha256
    assert {AgentChat, AgentTranscript, AgentFile, AgentDocMessage, AgentDoneSignal} <= {
        type(e) for e in harness
    }
    af = next(e for e in harness if isinstance(e, AgentFile))
    assert af.ok and af.name == "re port.csv" and af.data == b"a,b\n1,2\n"
    onsets = [e for e in harness if isinstance(e, AgentSpeechOnset)]
    offsets = [e for e in harness if isinstance(e, AgentSpeechOffset)]
    assert len(onsets) == 1 and len(offsets) == 1
    transcript = next(e for e in harness if isinstance(e, AgentTranscript))
    # No network in between: speech begins on the first frame after say().
    assert 0 <= onsets[0].time - transcript.time <= 0.04
    assert isinstance(harness[-1], AgentDisconnected)


async def test_chat_flood_and_bad_messages_are_dropped_and_reported() -> None:
    clock = VirtualClock()
    link = InProcessMeeting(clock, LinkOptions(chat_rate=5, chat_burst=10))
    client = await join_inprocess(link, receive_audio=False)
    await link.wait_connected()
    pipes = client.session.pipes
    for i in range(1000):
        await client.chat(f"spam {i}")
    await pipes["chat"].send("{not json")
    await pipes["control"].send(json.dumps({"type": "launch_missiles"}))
    await pipes["doc"].send(b"\x00\x07\x01")
    await pipes["files"].send(
        json.dumps({"type": "file_start", "id": "a", "size": 10**12, "sha256": "0" * 64})
    )
    await asyncio.sleep(0)
    link.sever("test over")
    events = [e async for e in link.events()]
    chats = [e for e in events if isinstance(e, AgentChat)]
    faults = [e.kind for e in events if isinstance(e, ProtocolFault)]
    assert 10 <= len(chats) <= 11
    assert "chat_flood" in faults and "malformed_json" in faults and "unknown_control" in faults
    assert "malformed_doc_message" in faults
    refused = [e for e in events if isinstance(e, AgentFile)]
    assert refused and not refused[0].ok and "file_too_large" in refused[0].reason
    assert isinstance(events[-1], AgentDisconnected) and events[-1].reason == "test over"


async def test_unfinished_file_is_abandoned_after_timeout() -> None:
    clock = VirtualClock()
    link = InProcessMeeting(clock, LinkOptions(file_timeout=5.0))
    client = await join_inprocess(link, receive_audio=False)
    await link.wait_connected()
    await client.session.pipes["files"].send(
        json.dumps({"type": "file_start", "id": "half", "name": "x.bin", "size": 100, "sha256": "a" * 64})
    )
    await client.session.pipes["files"].send(bytes([4]) + b"half" + b"z" * 50)
    seen = []
    async for ev in link.events():
        if isinstance(ev, AgentFile):
            seen.append(ev)
            link.sever()
    assert len(seen) == 1 and not seen[0].ok and "unfinished" in seen[0].reason
    assert 5.0 <= seen[0].time <= 7.0


async def test_agent_vanishing_mid_meeting_ends_stream_and_pending_push() -> None:
    clock = VirtualClock()
    link = InProcessMeeting(clock, LinkOptions(file_timeout=30.0))
    client = await join_inprocess(link, receive_audio=False)
    await link.wait_connected()
    # The agent never reads; it just vanishes while a large push is in flight.
    push = asyncio.ensure_future(link.push_file("big.bin", b"\x01" * 3_000_000, "application/octet-stream"))
    await clock.sleep(0.5)
    link.sever("connection lost")
    outcome = await push
    assert not outcome.ok
    last = [e async for e in link.events()][-1]
    assert isinstance(last, AgentDisconnected) and last.reason == "connection lost"
    assert client.session._closed
    await link.close()


async def test_every_slot_is_delivered_in_order_with_the_speech_where_it_was_played() -> None:
    """Both directions on the virtual clock's slot callbacks: the agent gets one 20 ms frame per slot, none lost
    or shifted, the persona's speech starting at the slot its ``Playback`` says, every sample of it; the harness
    hears the agent's speech with its onset at the agent's own ``Playback`` start and all of its samples."""
    clock = VirtualClock()
    link = InProcessMeeting(clock)
    client = await join_inprocess(link)
    await link.wait_connected()
    frames: list[AudioReceived] = []
    heard: list[AgentAudio] = []
    onsets: list[float] = []
    persona_pcm = fallback_speech("the numbers for the third quarter")
    agent_pcm = fallback_speech("thank you I will update the model")

    async def agent() -> None:
        async for ev in client.events():
            if isinstance(ev, AudioReceived):
                frames.append(ev)
            if isinstance(ev, MeetingEnded):
                break

    async def harness() -> None:
        async for ev in link.events():
            if isinstance(ev, AgentAudio):
                heard.append(ev)
            elif isinstance(ev, AgentSpeechOnset):
                onsets.append(ev.time)

    agent_task, harness_task = asyncio.ensure_future(agent()), asyncio.ensure_future(harness())
    await clock.sleep(1.234)  # off the slot grid: the speech starts at the next slot
    persona = await link.play(persona_pcm)
    started = await persona.started
    await persona.ended
    await clock.sleep(2.0)  # silence both ways: slots nobody listens to in between
    mine = await client.say("thank you", agent_pcm)
    agent_started = await mine.started
    await mine.ended
    await clock.sleep(1.0)
    end = clock.now()
    await link.close()
    await asyncio.gather(agent_task, harness_task)

    for stream in (frames, heard):
        times = [f.time for f in stream]
        assert times[0] == 0.0 and all(b - a == pytest.approx(0.02, abs=1e-9) for a, b in zip(times, times[1:], strict=False))
        assert len(stream) >= int(end / 0.02) and all(len(f.pcm) == 1920 for f in stream)
    assert 1.234 < started <= 1.234 + 0.02
    first = next(i for i, f in enumerate(frames) if f.pcm.strip(b"\x00"))
    assert frames[first].time == started  # the utterance's onset at the agent: the slot its Playback names
    got = b"".join(f.pcm for f in frames[first:])[: len(persona_pcm)]
    assert got == persona_pcm  # every sample, in order
    assert onsets and onsets[0] == pytest.approx(agent_started, abs=0.02 * 2)
    first_heard = next(i for i, f in enumerate(heard) if f.pcm.strip(b"\x00"))
    assert heard[first_heard].time == agent_started
    assert b"".join(f.pcm for f in heard[first_heard:])[: len(agent_pcm)] == agent_pcm
