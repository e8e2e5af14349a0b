"""The WebRTC transport's harness side: a websocket signaling server (one URL and token per meeting) and
``WebRTCMeeting``, the ``MeetingLink`` over an aiortc peer connection. Protocol: docs/protocol.md."""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import secrets
from http import HTTPStatus
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from aiortc import RTCDataChannel, RTCPeerConnection, RTCRtpSender, RTCSessionDescription
from aiortc.mediastreams import MediaStreamTrack
from PIL import Image
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from modylbench.channels._clock import Clock, ClockTimeout, WallClock, wait_for
from modylbench.channels._harness import LinkBase
from modylbench.channels._interface import LinkOptions, MeetingEnd
from modylbench.channels._webrtc import (
    DataChannelPipe,
    PacedAudioTrack,
    ScreenTrack,
    consume_audio,
    consume_video,
    instrument_audio_receiver,
    rtc_configuration,
    sdp_summary,
    video_codecs,
)
from modylbench.channels._wire import CHANNEL_LABELS, dumps

logger = logging.getLogger(__name__)

MAX_SIGNALING_MESSAGE = 256 * 1024
"""Largest websocket message accepted (bytes); larger ones close the socket with 1009."""
OFFER_TIMEOUT = 10.0
"""Seconds the server waits for the offer after the websocket opens."""

CLOSE_NORMAL = 1000
CLOSE_BAD_MESSAGE = 4400
CLOSE_BAD_SDP = 4406
CLOSE_TIMEOUT = 4408
CLOSE_ALREADY_JOINED = 4409
CLOSE_MEETING_OVER = 4410


class WebRTCMeeting(LinkBase):
    """A ``MeetingLink`` to an agent that joins over WebRTC through a ``SignalingServer``."""

    transport: Literal["webrtc", "inproc"] = "webrtc"

    def __init__(
        self, meeting_id: str, token: str, clock: Clock | None = None, options: LinkOptions | None = None
    ) -> None:
        super().__init__(clock or WallClock(), options)
        self.meeting_id = meeting_id
        self.token = token
        self.url = ""
        self.pc: RTCPeerConnection | None = None
        self.audio_track = PacedAudioTrack(self.audio, self.clock)
        self.screen_track = ScreenTrack(self.clock, self.options.screen_fps, self.options.screen_size)
        self._channels: dict[str, RTCDataChannel] = {}
        self._ws: ServerConnection | None = None
        self._ended = False

    # ---------------------------------------------------------------- negotiation

    async def accept_offer(self, sdp: str) -> str:
        """Answer the agent's offer; raises ValueError for an unusable SDP."""
        summary = sdp_summary(sdp)
        if "application" not in summary["media"]:
            raise ValueError("offer has no data channels (m=application); create them before the offer")
        pc = RTCPeerConnection(rtc_configuration())
        self.pc = pc
        pc.on("datachannel", self._on_datachannel)
        pc.on("track", self._on_track)
        pc.on("connectionstatechange", self._on_state)
        try:
            await pc.setRemoteDescription(RTCSessionDescription(sdp=sdp, type="offer"))
            for transceiver in pc.getTransceivers():
                if transceiver.kind == "audio":
                    transceiver.sender.replaceTrack(self.audio_track)
                    transceiver.direction = "sendrecv"
                    self._arrivals = instrument_audio_receiver(transceiver.receiver, self.clock)
                elif transceiver.kind == "video":
                    if "vp8" in video_codecs(sdp):  # the track sends VP8 it encoded itself
                        transceiver.setCodecPreferences([c for c in RTCRtpSender.getCapabilities("video").codecs
                                                         if c.mimeType.lower() in ("video/vp8", "video/rtx")])
                    transceiver.sender.replaceTrack(self.screen_track)
                    self.screen_track.sender = transceiver.sender
                    if not hasattr(transceiver.sender, "_RTCRtpSender__force_keyframe"):
                        logger.warning("aiortc internals changed: key-frame requests (PLI) are not seen; "
                                       "the screen share still sends a key frame every %g s",
                                       self.screen_track.keyframe_interval)
                    transceiver.direction = "sendrecv" if transceiver.direction == "sendrecv" else "sendonly"
            await pc.setLocalDescription(await pc.createAnswer())
            self.screen_track.encode_vp8 = video_codecs(pc.localDescription.sdp)[:1] == ["vp8"]
        except Exception as exc:
            await pc.close()
            self.pc = None
            raise ValueError(f"cannot answer the offer: {exc}") from exc
        return pc.localDescription.sdp

    def _on_datachannel(self, channel: RTCDataChannel) -> None:
        label = channel.label
        if label not in CHANNEL_LABELS or label in self._channels:
            self._fault("unknown_channel", f"data channel {label[:100]!r} ignored", label[:100])
            return
        self._channels[label] = channel
        channel.on("message", lambda data, label=label: self.on_message(label, data))
        channel.on("close", lambda: self._agent_gone(f"{label} channel closed") if not self._ended else None)

        def opened() -> None:
            self.pipes[label] = DataChannelPipe(channel)
            if len(self.pipes) == len(CHANNEL_LABELS) and not self.connected:
                self.tasks.start(self.pipes["control"].send(self.hello_message()), "hello")
                self._mark_connected()

        if channel.readyState == "open":
            opened()
        else:
            channel.on("open", opened)

    def _on_track(self, track: MediaStreamTrack) -> None:
        # Both remote tracks are read to the end: unread tracks grow memory without bound.
        if track.kind == "audio":
            arrivals = getattr(self, "_arrivals", None)
            self.tasks.start(consume_audio(track, self.clock, arrivals, self.on_agent_audio), "agent-audio")
        else:
            self.tasks.start(consume_video(track, self.clock, None), "agent-video")

    async def _on_state(self) -> None:
        if self.pc is not None and self.pc.connectionState in ("failed", "closed"):
            self._agent_gone(f"peer connection {self.pc.connectionState}")

    # ---------------------------------------------------------------- media

    def media_stats(self) -> dict[str, float | int]:
        """How well the persona's tracks kept their schedule: frames sent, late frames, worst lateness."""
        a, v = self.audio_track.stats, self.screen_track.stats
        return {"audio_frames_sent": a.frames, "audio_frames_late_20ms": a.late_frames,
                "audio_max_late_ms": round(a.max_late * 1000, 3), "screen_frames_sent": v.frames,
                "screen_changes": self.screen_track.changes}

    def prepare_screen(self, image: Image.Image) -> None:
        self.screen_track.prepare(image)

    async def show(self, image: Image.Image) -> float:
        # Converting a 1280x720 picture to a video frame takes ~6 ms; doing it on the event loop made the
        # audio track's first frames late (measured at meeting start), so a picture not prepared before the
        # meeting is converted in a worker thread.
        frame = self.screen_track.prepared(image)
        if frame is None:
            frame = await asyncio.to_thread(self.screen_track.convert, image)
        self.screen_track.show(frame)
        return self.clock.now()

    # ---------------------------------------------------------------- lifecycle

    def _agent_gone(self, reason: str) -> None:
        was_gone = self._gone
        super()._agent_gone(reason)
        if not was_gone:
            self.tasks.start(self._teardown(), "teardown")

    async def _teardown(self) -> None:
        self.audio_track.stop()
        self.screen_track.stop()
        if self.pc is not None:
            await self.pc.close()
        if self._ws is not None:
            await self._ws.close(CLOSE_NORMAL, "meeting over")

    async def close(self, reason: str = "completed") -> None:
        if self.connected:
            await self.send_control(MeetingEnd(reason))
            # Give SCTP a moment to deliver meeting_end before the connection goes.
            await asyncio.sleep(0.05)
        self._ended = True
        self._agent_gone("meeting ended" if reason == "completed" else reason)
        await self._teardown()
        await self.tasks.aclose()


class SignalingServer:
    """Websocket signaling on ``ws://host:port/meetings/<meeting_id>``; the token goes in the
    ``Authorization: Bearer`` header or the ``token`` query parameter and is checked before the upgrade."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host, self.port = host, port
        self.meetings: dict[str, WebRTCMeeting] = {}
        self._server: Server | None = None
        self.refused: list[tuple[str, str]] = []  # (path, reason), for the record and tests

    async def start(self) -> SignalingServer:
        self._server = await serve(
            self._handle, self.host, self.port, process_request=self._check, max_size=MAX_SIGNALING_MESSAGE,
            max_queue=4, open_timeout=OFFER_TIMEOUT,
        )  # fmt: skip
        sock = next(iter(self._server.sockets))
        self.port = sock.getsockname()[1]
        return self

    async def __aenter__(self) -> SignalingServer:
        return await self.start()

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def close(self) -> None:
        for meeting in list(self.meetings.values()):
            await meeting.close("interrupted")
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def create_meeting(self, clock: Clock | None = None, options: LinkOptions | None = None,
                       meeting_id: str | None = None) -> WebRTCMeeting:  # fmt: skip
        """A new meeting with its own URL (``meeting.url``) and token (``meeting.token``)."""
        mid = meeting_id or secrets.token_urlsafe(9)
        meeting = WebRTCMeeting(mid, secrets.token_urlsafe(24), clock, options)
        meeting.url = f"ws://{self.host}:{self.port}/meetings/{mid}"
        self.meetings[mid] = meeting
        return meeting

    def _lookup(self, path: str) -> tuple[WebRTCMeeting | None, str]:
        parts = urlsplit(path)
        segs = parts.path.strip("/").split("/")
        meeting = self.meetings.get(segs[1]) if len(segs) == 2 and segs[0] == "meetings" else None
        token = parse_qs(parts.query).get("token", [""])[0]
        return meeting, token

    def _check(self, connection: ServerConnection, request: Request) -> Response | None:
        meeting, token = self._lookup(request.path)
        auth = request.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            token = auth[7:]
        if meeting is None:
            self.refused.append((request.path[:200], "unknown meeting"))
            return connection.respond(HTTPStatus.NOT_FOUND, "unknown meeting\n")
        if not hmac.compare_digest(token.encode(), meeting.token.encode()):
            self.refused.append((request.path[:200], "bad token"))
            return connection.respond(HTTPStatus.UNAUTHORIZED, "missing or wrong token\n")
        return None

    async def _handle(self, ws: ServerConnection) -> None:
        meeting, _ = self._lookup(ws.request.path if ws.request else "")
        if meeting is None:
            return
        if meeting.pc is not None or meeting._gone:
            await self._refuse(ws, CLOSE_ALREADY_JOINED if not meeting._gone else CLOSE_MEETING_OVER,
                               "already_joined" if not meeting._gone else "meeting_over", "meeting already has its agent")  # fmt: skip
            return
        # Connect time counts from the agent opening signaling, not from when the meeting was created.
        meeting._started_at = meeting.clock.now()
        try:
            raw = await wait_for(meeting.clock, ws.recv(), OFFER_TIMEOUT)
        except ClockTimeout:
            await self._refuse(ws, CLOSE_TIMEOUT, "timeout", f"no offer within {OFFER_TIMEOUT:g} s")
            return
        except ConnectionClosed:
            return
        try:
            msg = json.loads(raw)
            if not isinstance(msg, dict) or msg.get("type") != "offer" or not isinstance(msg.get("sdp"), str):
                raise ValueError('expected {"type": "offer", "sdp": string}')
        except ValueError as exc:
            await self._refuse(ws, CLOSE_BAD_MESSAGE, "bad_message", str(exc)[:200])
            return
        try:
            answer = await meeting.accept_offer(msg["sdp"])
        except ValueError as exc:
            await self._refuse(ws, CLOSE_BAD_SDP, "bad_sdp", str(exc)[:200])
            return
        meeting._ws = ws
        await ws.send(dumps({"type": "answer", "sdp": answer}))
        # The websocket stays open for the whole meeting: its closing is the fastest sign the agent is gone.
        try:
            async for raw in ws:
                try:
                    msg = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(msg, dict) and msg.get("type") == "bye":
                    meeting._agent_gone("agent left")
                    break
        except ConnectionClosed:
            pass
        if not meeting._ended:
            meeting._agent_gone("signaling connection closed")

    async def _refuse(self, ws: ServerConnection, code: int, kind: str, message: str) -> None:
        self.refused.append((ws.request.path[:200] if ws.request else "", kind))
        try:
            await ws.send(dumps({"type": "error", "code": kind, "message": message}))
            await ws.close(code, kind)
        except ConnectionClosed:
            pass
