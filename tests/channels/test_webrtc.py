"""Two real aiortc peers on loopback through the signaling server: media encoded and decoded, every data
channel, and the signaling / peer faults the issue lists."""

from __future__ import annotations

import asyncio
import hashlib
import json

import pytest
import websockets
from PIL import Image
from websockets.exceptions import ConnectionClosed, InvalidStatus

from modylbench.agents import (
    AudioReceived,
    CaptionReceived,
    FileReceived,
    ScreenFrameReceived,
    TurnStarted,
    join,
)
from modylbench.channels import (
    SYNC_STEP1,
    AgentChat,
    AgentDisconnected,
    AgentDocMessage,
    AgentDoneSignal,
    AgentFile,
    AgentSpeechOffset,
    AgentSpeechOnset,
    AgentTranscript,
    Caption,
    ProtocolFault,
    SignalingServer,
    TurnStartMarker,
    fallback_speech,
)
from modylbench.channels._audio import frame_dbfs
from modylbench.channels._wire import encode_sync

pytestmark = pytest.mark.timeout(60)


async def test_meeting_over_two_real_peers() -> None:
    async with SignalingServer() as server:
        meeting = server.create_meeting()
        client = await join(meeting.url, meeting.token)
        assert await meeting.wait_connected() < 1.0
        assert meeting.screen_track.encode_vp8  # negotiated VP8: the track sends what it encoded itself
        # where aiortc notes a PLI; if this breaks after an aiortc upgrade, ScreenTrack no longer sees them
        assert hasattr(meeting.screen_track.sender, "_RTCRtpSender__force_keyframe")
        await meeting.show(Image.new("RGB", (1280, 720), (20, 60, 160)))
        speech = fallback_speech("quarterly numbers are in the deck")
        playback = await meeting.play(speech)
        await meeting.send_control(Caption("quarterly numbers are in the deck"))
        await meeting.send_control(TurnStartMarker(0, "review"))
        await meeting.send_chat("see the file")
        outcome = await meeting.push_file("q3 numbers.csv", bytes(range(256)) * 2000, "text/csv")
        assert outcome.ok, outcome.reason
        got: dict[str, list[object]] = {}
        said_at: list[float] = []

        async def agent() -> None:
            async for ev in client.events():
                got.setdefault(type(ev).__name__, []).append(ev)
                if isinstance(ev, TurnStarted):
                    said_at.append(meeting.clock.now())
                    pb = await client.say("the margin fell two points")
                    await pb.ended
                    await client.chat("margin down 2 pts")
                    assert await client.send_file("summary.txt", b"margin -2pt\n", "text/plain")
                    await client.send_doc(encode_sync(SYNC_STEP1, b"\x00"))
                    await asyncio.sleep(0.5)  # let VAD see the silence after speech
                    await client.done()

        task = asyncio.create_task(agent())
        harness: list[object] = []
        async for ev in meeting.events():
            harness.append(ev)
            if isinstance(ev, AgentDoneSignal):
                break
        await playback.ended
        await meeting.close()
        await asyncio.wait_for(task, 5)
        await client.leave()

    assert {"Hello", "CaptionReceived", "TurnStarted", "ChatReceived", "FileReceived"} <= set(got)
    f = got["FileReceived"][0]
    assert isinstance(f, FileReceived) and hashlib.sha256(f.data).hexdigest() == outcome.sha256
    frames = [e for e in got["ScreenFrameReceived"] if isinstance(e, ScreenFrameReceived)]
    assert frames and frames[-1].image.size == (1280, 720)
    r, g, b = frames[-1].image.resize((1, 1)).getpixel((0, 0))  # type: ignore[misc]
    assert abs(r - 20) < 25 and abs(g - 60) < 25 and abs(b - 160) < 25  # decoded VP8, so roughly
    voiced = [e for e in got["AudioReceived"] if isinstance(e, AudioReceived) and frame_dbfs(e.pcm) > -40]
    assert len(voiced) > 20  # the persona's speech was really encoded, sent and decoded
    kinds = {type(e) for e in harness}
    assert {
        AgentChat,
        AgentTranscript,
        AgentFile,
        AgentDocMessage,
        AgentSpeechOnset,
        AgentSpeechOffset,
    } <= kinds
    onset = next(e for e in harness if isinstance(e, AgentSpeechOnset))
    # Onset is placed at the packets' arrival, not after the jitter buffer: within a frame slot + loopback.
    assert 0.0 <= onset.time - said_at[0] < 0.1
    assert isinstance(got["CaptionReceived"][0], CaptionReceived)


async def test_wrong_or_missing_token_is_refused_before_webrtc() -> None:
    async with SignalingServer() as server:
        meeting = server.create_meeting()
        for url in (
            meeting.url,
            meeting.url + "?token=nope",
            meeting.url.replace(meeting.meeting_id, "other"),
        ):
            with pytest.raises(InvalidStatus) as info:
                async with websockets.connect(url):
                    pass
            assert info.value.response.status_code in (401, 404)
        assert meeting.pc is None
        assert [r for _, r in server.refused] == ["bad token", "bad token", "unknown meeting"]


async def _refused(server: SignalingServer, meeting_url: str, token: str, payload: str) -> tuple[int, dict]:
    async with websockets.connect(meeting_url + "?token=" + token, max_size=None) as ws:
        await ws.send(payload)
        try:
            reply = json.loads(await ws.recv())
        except ConnectionClosed:
            reply = {}
        with pytest.raises(ConnectionClosed):
            await ws.recv()
        assert ws.close_code is not None
        return ws.close_code, reply


async def test_malformed_signaling_and_sdp_are_refused_and_meeting_survives() -> None:
    async with SignalingServer() as server:
        meeting = server.create_meeting()
        code, reply = await _refused(server, meeting.url, meeting.token, "{not json")
        assert code == 4400 and reply["code"] == "bad_message"
        code, reply = await _refused(
            server, meeting.url, meeting.token, json.dumps({"type": "offer", "sdp": "hello"})
        )
        assert code == 4406 and reply["code"] == "bad_sdp"
        code, _ = await _refused(server, meeting.url, meeting.token, "x" * 300_000)
        assert code == 1009  # over the signaling size limit
        bad = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"
        code, reply = await _refused(
            server, meeting.url, meeting.token, json.dumps({"type": "offer", "sdp": bad})
        )
        assert code == 4406
        assert meeting.pc is None
        # After all that, a proper agent still joins.
        client = await join(meeting.url, meeting.token, receive_audio=False)
        assert await meeting.wait_connected() > 0
        await meeting.close()
        await client.leave()


async def test_oversized_and_flooding_agent_messages_are_dropped() -> None:
    async with SignalingServer() as server:
        meeting = server.create_meeting()
        client = await join(meeting.url, meeting.token, receive_audio=False)
        await meeting.wait_connected()
        pipes = client.session.pipes
        with pytest.raises(ValueError):
            await pipes["doc"].send(b"\x00" * 300_000)  # over the data channel's max message
        await pipes["chat"].send(json.dumps({"type": "chat", "text": "x" * 70_000}))  # over the JSON limit
        for i in range(200):
            await client.chat(f"flood {i}")
        await client.chat("still here")
        await pipes["control"].send(json.dumps({"type": "done", "turn_index": 3}))
        faults: list[str] = []
        chats = 0
        async for ev in meeting.events():
            if isinstance(ev, ProtocolFault):
                faults.append(ev.kind)
            elif isinstance(ev, AgentChat):
                chats += 1
            elif isinstance(ev, AgentDoneSignal):
                assert ev.turn_index == 3
                break
        assert "oversized_message" in faults and "chat_flood" in faults
        assert chats <= 25
        await meeting.close()
        await client.leave()


async def test_agent_vanishing_mid_meeting_is_recorded() -> None:
    async with SignalingServer() as server:
        meeting = server.create_meeting()
        client = await join(meeting.url, meeting.token, receive_audio=False)
        await meeting.wait_connected()
        await meeting.play(fallback_speech("are you there"))
        push = asyncio.create_task(
            meeting.push_file("big.bin", b"\x02" * 4_000_000, "application/octet-stream")
        )
        await asyncio.sleep(0.3)
        # No bye, no meeting_end: the agent's side just drops everything.
        await client._closer()  # type: ignore[misc]
        last = None
        async for ev in meeting.events():
            last = ev
        assert isinstance(last, AgentDisconnected)
        outcome = await asyncio.wait_for(push, 10)
        assert not outcome.ok
        await meeting.close()
        # A second join on a finished meeting is refused cleanly.
        with pytest.raises(ConnectionError):
            await join(meeting.url, meeting.token, timeout=3)


async def test_screen_share_falls_back_to_h264_when_the_offer_has_no_vp8(monkeypatch: pytest.MonkeyPatch) -> None:
    import aiortc.codecs

    from modylbench.channels._webrtc import video_codecs

    h264_only = [c for c in aiortc.codecs.CODECS["video"] if c.mimeType.lower() != "video/vp8"]
    monkeypatch.setitem(aiortc.codecs.CODECS, "video", h264_only)
    async with SignalingServer() as server:
        meeting = server.create_meeting()
        client = await join(meeting.url, meeting.token)
        await meeting.wait_connected()
        assert meeting.pc is not None and "vp8" not in video_codecs(meeting.pc.localDescription.sdp)
        assert meeting.screen_track.encode_vp8 is False
        await meeting.show(Image.new("RGB", (1280, 720), (200, 40, 40)))
        frame = None
        async for ev in client.events():
            if isinstance(ev, ScreenFrameReceived) and ev.image.resize((1, 1)).getpixel((0, 0))[0] > 150:  # type: ignore[index]
                frame = ev
                break
        await meeting.close()
        await client.leave()
    assert frame is not None and frame.image.size == (1280, 720)


def test_video_codecs_reads_the_first_video_section() -> None:
    from modylbench.channels._webrtc import video_codecs

    sdp = ("v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\n"
           "m=video 9 UDP/TLS/RTP/SAVPF 96 97 102\r\na=rtpmap:96 VP8/90000\r\na=rtpmap:97 rtx/90000\r\n"
           "a=rtpmap:102 H264/90000\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n")  # fmt: skip
    assert video_codecs(sdp) == ["vp8", "rtx", "h264"]
    assert video_codecs("v=0\r\nm=audio 9 RTP 0\r\n") == []


async def test_a_send_waiting_for_the_buffer_to_drain_ends_when_the_channel_closes() -> None:
    async with SignalingServer() as server:
        meeting = server.create_meeting()
        client = await join(meeting.url, meeting.token, receive_audio=False)
        await meeting.wait_connected()
        pipe = client.session.pipes["files"]
        channel = pipe.channel  # type: ignore[attr-defined]
        while channel.bufferedAmount <= 8 * pipe.high:  # type: ignore[attr-defined]
            channel.send(b"\x00" * 60_000)  # queued at once; SCTP drains ~10 MB/s here
        blocked = asyncio.create_task(pipe.send(b"\x00" * 60_000))
        await asyncio.sleep(0)
        assert not blocked.done()  # waiting for "bufferedamountlow"
        await meeting.close()  # the harness hangs up: the agent's channels close, their buffers never drain
        with pytest.raises(ConnectionError, match="files channel is closed"):
            await asyncio.wait_for(blocked, 10)
        await client.leave()


async def test_meeting_end_carries_the_termination_reason_and_max_turns_is_not_the_agent_leaving() -> None:
    from modylbench.agents import MeetingEnded

    async with SignalingServer() as server:
        meeting = server.create_meeting()
        client = await join(meeting.url, meeting.token, receive_audio=False)
        await meeting.wait_connected()
        await meeting.close("max_turns")
        ended = [ev async for ev in client.events() if isinstance(ev, MeetingEnded)]
        harness = [ev async for ev in meeting.events()]
        await client.leave()
    assert [ev.reason for ev in ended] == ["max_turns"]
    assert isinstance(harness[-1], AgentDisconnected) and harness[-1].reason == "meeting ended"
