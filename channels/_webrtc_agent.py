"""The agent's end of the WebRTC transport: signaling client, peer connection, tracks and data channels,
wired to an ``AgentSession``. Used by ``modylbench.agents.join``."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamTrack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from modylbench.channels._agentside import AgentSession, Synthesize
from modylbench.channels._clock import Clock, WallClock, wait_for
from modylbench.channels._tasks import TaskOwner
from modylbench.channels._webrtc import (
    DataChannelPipe,
    PacedAudioTrack,
    consume_audio,
    consume_video,
    discard_audio,
    instrument_audio_receiver,
    rtc_configuration,
)
from modylbench.channels._wire import CHANNEL_LABELS, MAX_SIGNALING_MESSAGE
from modylbench.scenarios import MAX_PARTICIPANTS

logger = logging.getLogger(__name__)

PERSON_TRACKS = MAX_PARTICIPANTS
"""Receive-only audio transceivers ``participant_audio`` offers: one for each person a meeting can have."""


async def _opened_or_refused(ws: Any, opened: asyncio.Event) -> str | None:
    """Wait for the data channels to open; the harness's ``error`` or close on signaling ends the wait first.

    Returns None once open, else the harness's reason (``ice_failed: ...``, a close code), so an agent whose
    ICE failed learns it at once instead of at its timeout. Cancelling ``recv`` loses no message.
    """

    async def refused() -> str:
        try:
            while True:
                raw = await ws.recv()
                try:
                    msg = json.loads(raw) if isinstance(raw, str) else None
                except json.JSONDecodeError:
                    continue
                if isinstance(msg, dict) and msg.get("type") == "error":
                    return f"{msg.get('code')}: {msg.get('message')}"
        except ConnectionClosed as exc:
            code, why = (exc.rcvd.code, exc.rcvd.reason) if exc.rcvd else ("", "")
            return f"signaling closed {code} {why}".strip()

    race = TaskOwner("join", quiet=True)
    waiters = [race.start(opened.wait(), "opened"), race.start(refused(), "refused")]
    try:
        done, _ = await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waiters:
            w.cancel()
        await asyncio.gather(*waiters, return_exceptions=True)
    if waiters[0] in done and not waiters[0].cancelled():
        return None
    return str(waiters[1].result())


async def connect_agent(
    url: str,
    token: str,
    synthesize: Synthesize | None = None,
    receive_audio: bool = True,
    timeout: float = 10.0,
    clock: Clock | None = None,
    participant_audio: bool = False,
) -> tuple[AgentSession, Callable[[], Awaitable[None]]]:
    """Join the meeting at ``url``; returns the session and a coroutine function that hangs up.

    ``participant_audio``: also offer ``PERSON_TRACKS`` receive-only audio transceivers, which a multi-party
    meeting fills with each participant's own speech (docs/protocol.md §4a); their frames come as
    ``AudioReceived`` with ``participant`` set. Off, the offer is the one-track offer of a one-to-one agent."""
    clock = clock or WallClock()
    session = AgentSession(clock, synthesize, receive_audio, participant_audio=participant_audio)
    ws: ClientConnection = await connect(
        url,
        additional_headers={"Authorization": f"Bearer {token}"},
        max_size=MAX_SIGNALING_MESSAGE,
        open_timeout=timeout,
    )
    pc = RTCPeerConnection(rtc_configuration())
    audio_track = PacedAudioTrack(session.audio, clock)
    audio_tx = pc.addTransceiver(audio_track, direction="sendrecv")
    pc.addTransceiver("video", direction="recvonly")
    # After the video m-line, so the first two m-lines are those of a one-track offer.
    person_tx = [pc.addTransceiver("audio", direction="recvonly") for _ in range(PERSON_TRACKS if participant_audio else 0)]
    # Frames are decoded on the loop as they arrive (channels._webrtc.LoopOpus); an agent that does not listen
    # to audio decodes nothing.
    if receive_audio:
        arrivals = instrument_audio_receiver(audio_tx.receiver, clock, session.on_audio)
    else:
        arrivals = None
        discard_audio(audio_tx.receiver)

    def person_sink(tx: Any) -> Callable[[float, bytes], None]:
        def sink(t: float, pcm: bytes) -> None:
            if tx.mid is not None:
                session.on_participant_audio(tx.mid, t, pcm)

        return sink

    person_arrivals = [instrument_audio_receiver(tx.receiver, clock, person_sink(tx)) for tx in person_tx]
    opened = asyncio.Event()
    channels = {label: pc.createDataChannel(label, ordered=True) for label in CHANNEL_LABELS}
    for label, ch in channels.items():
        session.pipes[label] = DataChannelPipe(ch)
        ch.on("message", lambda data, label=label: session.on_message(label, data))

        def on_open() -> None:
            if all(c.readyState == "open" for c in channels.values()):
                opened.set()

        ch.on("open", on_open)
        ch.on("close", lambda: session.on_gone("data channel closed"))

    @pc.on("track")
    def on_track(track: MediaStreamTrack) -> None:
        person = next((i for i, tx in enumerate(person_tx) if tx.receiver.track is track), None)
        if person is not None:  # read whoever it is, even before hello says whose (unread tracks grow)
            sink = person_sink(person_tx[person])
            session.tasks.start(consume_audio(track, clock, person_arrivals[person], sink), "participant-audio")
        elif track.kind == "audio":
            session.tasks.start(consume_audio(track, clock, arrivals, session.on_audio), "persona-audio")
        else:
            session.tasks.start(consume_video(track, clock, session.on_screen), "screen")

    @pc.on("connectionstatechange")
    async def on_state() -> None:
        if pc.connectionState in ("failed", "closed"):
            session.on_gone(f"peer connection {pc.connectionState}")

    async def hang_up() -> None:
        audio_track.stop()
        await pc.close()
        await ws.close()
        await session.tasks.aclose()

    try:
        await pc.setLocalDescription(await pc.createOffer())
        await ws.send(json.dumps({"type": "offer", "sdp": pc.localDescription.sdp}))
        reply = json.loads(await wait_for(clock, ws.recv(), timeout))
        if reply.get("type") != "answer":
            raise ConnectionError(f"meeting refused the offer: {reply.get('code')}: {reply.get('message')}")
        await pc.setRemoteDescription(RTCSessionDescription(sdp=reply["sdp"], type="answer"))
        refusal = await wait_for(clock, _opened_or_refused(ws, opened), timeout)
        if refusal is not None:
            raise ConnectionError(f"meeting ended the join: {refusal}")
    except ConnectionClosed as exc:
        await hang_up()
        raise ConnectionError(f"meeting closed signaling: {exc.rcvd.code if exc.rcvd else ''} "
                              f"{exc.rcvd.reason if exc.rcvd else ''}") from None  # fmt: skip
    except BaseException:
        await hang_up()
        raise

    async def watch_signaling() -> None:
        try:
            async for _ in ws:
                pass
        except ConnectionClosed:
            pass
        session.on_gone("signaling connection closed")

    session.tasks.start(watch_signaling(), "signaling")
    return session, hang_up
