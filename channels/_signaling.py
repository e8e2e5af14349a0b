"""The WebRTC transport's harness side: a websocket signaling server (one URL and token per meeting) and
``WebRTCMeeting``, the ``MeetingLink`` over an aiortc peer connection. Protocol: docs/protocol.md."""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import secrets
from collections import deque
from http import HTTPStatus
from typing import Any, Literal, NamedTuple
from urllib.parse import parse_qs, urlsplit

from aiortc import RTCDataChannel, RTCPeerConnection, RTCRtpSender, RTCSessionDescription
from aiortc.mediastreams import MediaStreamTrack
from PIL import Image
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode
from websockets.http11 import Request, Response
from websockets.protocol import State

from modylbench.channels._clock import Clock, ClockTimeout, WallClock, wait_for
from modylbench.channels._compat import (
    RecoveringJitterBuffer,
    SctpRetransmissions,
    count_sctp_retransmissions,
    encoded_packets_supported,
    ice_connections,
    intercept_datagrams,
    jitter_buffer_of,
    keyframe_requests_visible,
)
from modylbench.channels._encoded import (
    EncodedAudioSource,
    EncodedSpeech,
    PreEncodedAudioTrack,
    PreEncodedScreenTrack,
    speech_packets,
)
from modylbench.channels._harness import LinkBase, closing_reason
from modylbench.channels._interface import LinkOptions, MediaStats, MeetingEnd, Playback, media_stats
from modylbench.channels._network import PROFILES, Impairment, network_sample
from modylbench.channels._protocol import hello_message, room_with_tracks
from modylbench.channels._webrtc import (
    ArrivalTimes,
    DataChannelPipe,
    consume_audio,
    consume_video,
    instrument_audio_receiver,
    rtc_configuration,
    sdp_summary,
    video_codecs,
)
from modylbench.channels._wire import CHANNEL_LABELS, MAX_SIGNALING_MESSAGE, dumps

logger = logging.getLogger(__name__)

OFFER_TIMEOUT = 10.0
"""Seconds the server waits for the offer after the websocket opens."""
ICE_TIMEOUT = 30.0
"""Seconds from the answer for the agent's data channels to open. aioice gives up on candidates that never
answer only after ~60 s (measured: one unreachable host candidate, 63 s); on loopback or a LAN the channels
open in well under a second."""
MEETING_END_TIMEOUT = 2.0
"""Seconds ``close()`` waits to hand ``meeting_end`` to the control channel. A send waits while the channel's
buffer is over its high-water mark, and an association the network starves never drains it: without a bound
the meeting never ended (docs/network.md, "Known problems")."""
TEARDOWN_TIMEOUT = 10.0
"""Seconds ``close()`` gives the peer connection and the signaling socket to shut down."""

CLOSE_NORMAL = 1000
CLOSE_BAD_MESSAGE = 4400
CLOSE_BAD_SDP = 4406
CLOSE_TIMEOUT = 4408
CLOSE_ALREADY_JOINED = 4409
CLOSE_MEETING_OVER = 4410
CLOSE_ICE_FAILED = 4502
REFUSALS_KEPT = 256

MEETINGS_PATH = "/meetings/"


class Refusal(NamedTuple):
    """Why a signaling socket is turned away: its close code, the ``error`` message's code and text."""

    code: int
    kind: str
    message: str


def error_message(kind: str, message: str) -> str:
    """The ``error`` message sent before every refusing close (docs/protocol.md §1)."""
    return dumps({"type": "error", "code": kind, "message": message})


def parse_offer(raw: str | bytes) -> dict[str, Any]:
    """The agent's first message as an offer, or ValueError with a message an agent's author can act on."""
    if isinstance(raw, bytes):
        # json.loads would guess UTF-16/32 from the first bytes and answer with a codec error.
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"message is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
                             "send the offer as JSON in a text frame") from None  # fmt: skip
    try:
        msg = json.loads(raw)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except ValueError as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(msg, dict) or msg.get("type") != "offer" or not isinstance(msg.get("sdp"), str):
        raise ValueError('expected {"type": "offer", "sdp": string}')
    return msg


class SignalingConnection(ServerConnection):
    """A server connection that says why before closing a signaling socket for a frame it cannot take.

    websockets refuses an oversized frame inside its parser, from its header alone, and closes with 1009
    at once; a text frame that is not UTF-8 it closes with 1007. docs/protocol.md §1 promises an ``error``
    message before every refusing close, so the Sans-I/O protocol's public ``fail`` is wrapped to queue
    that message ahead of the close frame; bad UTF-8 closes 4400 like any other unreadable message
    (written for websockets 15-17).
    """

    def __init__(self, protocol: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(protocol, *args, **kwargs)
        fail = protocol.fail

        def fail_with_error(code: int, reason: str = "") -> None:
            path = self.request.path if self.request is not None else ""
            if protocol.state is State.OPEN and path.startswith(MEETINGS_PATH):
                if code == CloseCode.MESSAGE_TOO_BIG:
                    text = f"message over {MAX_SIGNALING_MESSAGE} bytes"
                    protocol.send_text(error_message("message_too_large", text).encode())
                    reason = "message_too_large"
                elif code == CloseCode.INVALID_DATA:
                    text = f"message is not UTF-8 text ({reason})"
                    protocol.send_text(error_message("bad_message", text).encode())
                    code, reason = CLOSE_BAD_MESSAGE, "bad_message"
            fail(code, reason)

        protocol.fail = fail_with_error


class PersonTrack(NamedTuple):
    """One participant's own audio track in a multi-party meeting (docs/protocol.md §4a): only their speech."""

    name: str
    mid: str
    """The ``mid`` of the agent's audio transceiver it goes out on (``hello.room.participants[i].track``)."""
    source: EncodedAudioSource
    track: PreEncodedAudioTrack


class WebRTCMeeting(LinkBase):
    """A ``MeetingLink`` to an agent that joins over WebRTC through a ``SignalingServer``."""

    transport: Literal["webrtc", "inproc"] = "webrtc"
    ice_timeout = ICE_TIMEOUT

    def __init__(
        self, meeting_id: str, token: str, clock: Clock | None = None, options: LinkOptions | None = None
    ) -> None:
        super().__init__(clock or WallClock(), options)
        self.meeting_id = meeting_id
        self.token = token
        self.url = ""
        self.pc: RTCPeerConnection | None = None
        # The persona's media is encoded once per process and sent by every meeting (channels/_encoded.py).
        self.audio = audio = EncodedAudioSource()
        self.audio_track = PreEncodedAudioTrack(audio, self.clock)
        self.screen_track = PreEncodedScreenTrack(self.clock, self.options.screen_fps, self.options.screen_size)
        self.person_tracks: dict[str, PersonTrack] = {}
        """Each participant's own track in a multi-party meeting, by name (set up with the answer, for the agent's
        extra audio transceivers; empty one-to-one or when the agent offered none)."""
        self._mixed_receiver: Any = None
        self._channels: dict[str, RTCDataChannel] = {}
        self._ws: ServerConnection | None = None
        self._ended = False
        self._offer_lock = asyncio.Lock()  # one offer is answered at a time: the first to complete wins
        self._arrivals: ArrivalTimes | None = None
        """When each of the agent's audio packets arrived (set up with the answer)."""
        self._gone_reason = ""
        self._offer_candidates = 0
        self.network = Impairment(self.options.network or PROFILES["clean"], self.options.network_seed,
                                  self.clock.base)
        """The network between harness and agent: applied to this meeting's datagrams, and counted."""
        self._sctp_retransmissions: SctpRetransmissions | None = None
        self._agent_audio_buffer: RecoveringJitterBuffer | None = None
        self._close: tuple[int, str, str] = (CLOSE_NORMAL, "meeting over", "")
        """How the signaling socket closes at teardown: code, reason, and the ``error`` message if any."""

    # ---------------------------------------------------------------- negotiation

    def refusal(self) -> Refusal | None:
        """Why a signaling socket cannot join this meeting now, or None if it can."""
        if self._gone:
            return Refusal(CLOSE_MEETING_OVER, "meeting_over", "the meeting is over")
        if self.pc is not None:
            return Refusal(CLOSE_ALREADY_JOINED, "already_joined",
                           "the meeting already has its agent (another connection joined first)")  # fmt: skip
        return None

    async def answer_join(self, sdp: str, ws: ServerConnection) -> str | Refusal:
        """Answer the offer that came on ``ws``, or say why not. A socket may have opened before the agent
        joined and offer afterwards: the meeting is checked again under the lock, so the first offer to be
        answered keeps the meeting and every later one is refused (4409)."""
        async with self._offer_lock:
            refusal = self.refusal()
            if refusal is not None:
                return refusal
            try:
                answer = await self.accept_offer(sdp)
            except ValueError as exc:
                return Refusal(CLOSE_BAD_SDP, "bad_sdp", str(exc)[:200])
            self._ws = ws
        self.tasks.start(self.join_deadline(), "join-deadline")
        return answer

    def signaling_closed(self, reason: str = "signaling connection closed") -> None:
        """The agent's signaling socket said ``bye`` or closed: unless the meeting already ended, it is gone."""
        if not self._ended:
            self._agent_gone(reason)

    async def accept_offer(self, sdp: str) -> str:
        """Answer the agent's offer; raises ValueError for an unusable SDP."""
        summary = sdp_summary(sdp)
        if not encoded_packets_supported():
            logger.warning("aiortc internals changed: its sender may no longer send the persona's pre-encoded "
                           "packets as they are; run tests/channels/test_compat.py")
        if "application" not in summary["media"]:
            raise ValueError("offer has no data channels (m=application); create them before the offer")
        lines = sdp.splitlines()
        self._offer_candidates = sum(1 for line in lines if line.startswith("a=candidate:"))
        # aioice drops every ICE component the remote end has no candidate for as soon as it hears
        # end-of-candidates; heard before the answer's own gathering, that left the answer with no candidates
        # and the connection "new" forever. End-of-candidates is signalled once the answer is complete.
        sdp = "\r\n".join(line for line in lines if line.strip() != "a=end-of-candidates") + "\r\n"
        pc = RTCPeerConnection(rtc_configuration())
        self.pc = pc
        pc.on("datachannel", self._on_datachannel)
        pc.on("track", self._on_track)
        pc.on("connectionstatechange", self._on_state)
        try:
            await pc.setRemoteDescription(RTCSessionDescription(sdp=sdp, type="offer"))
            self._impair(pc, sdp)
            extra_audio = []
            for transceiver in pc.getTransceivers():
                if transceiver.kind == "audio" and self._mixed_receiver is not None:
                    extra_audio.append(transceiver)  # a track of one participant's own, or nothing
                elif transceiver.kind == "audio":
                    self._mixed_receiver = transceiver.receiver
                    transceiver.sender.replaceTrack(self.audio_track)
                    transceiver.direction = "sendrecv"
                    self._arrivals = instrument_audio_receiver(transceiver.receiver, self.clock, self.on_agent_audio)
                    buffer = jitter_buffer_of(transceiver.receiver)
                    if isinstance(buffer, RecoveringJitterBuffer):
                        self._agent_audio_buffer = buffer
                elif transceiver.kind == "video":
                    if "vp8" in video_codecs(sdp):  # the track sends VP8 it encoded itself
                        transceiver.setCodecPreferences([c for c in RTCRtpSender.getCapabilities("video").codecs
                                                         if c.mimeType.lower() in ("video/vp8", "video/rtx")])
                    transceiver.sender.replaceTrack(self.screen_track)
                    self.screen_track.sender = transceiver.sender
                    if not keyframe_requests_visible(transceiver.sender):
                        logger.warning("aiortc internals changed: key-frame requests (PLI) are not seen; "
                                       "the screen share still sends a key frame every %g s",
                                       self.screen_track.keyframe_interval)
                    transceiver.direction = "sendrecv" if transceiver.direction == "sendrecv" else "sendonly"
            self._person_tracks_for(extra_audio)
            await pc.setLocalDescription(await pc.createAnswer())
            # ICE is non-trickle (docs/protocol.md §1): the offer's candidates are all there will be, so ICE
            # fails at once, rather than waiting for more, when none of them works.
            await pc.addIceCandidate(None)
            self.screen_track.encode_vp8 = video_codecs(pc.localDescription.sdp)[:1] == ["vp8"]
            self.network.wire.learn_sdp(pc.localDescription.sdp)
        except Exception as exc:
            await pc.close()
            self.pc = None
            raise ValueError(f"cannot answer the offer: {exc}") from exc
        return pc.localDescription.sdp

    def _person_tracks_for(self, transceivers: list[Any]) -> None:
        """Give the agent's audio transceivers after the first (the mixed track) to the participants of a
        multi-party meeting, in ``hello.room`` order, each sending only that person's speech; the rest (all of
        them one-to-one) are answered ``inactive``. What the agent sends on them is not read. ``self.room`` must be
        set before the offer is answered (``run_meeting`` sets it before it first awaits, ``serve`` when it creates
        the meeting): a room set later gets no per-person tracks."""
        people = [str(p.get("name")) for p in (self.room or {}).get("participants", []) if isinstance(p, dict)]
        for i, transceiver in enumerate(transceivers):
            if i < len(people) and transceiver.mid is not None and people[i] not in self.person_tracks:
                source = EncodedAudioSource()
                track = PreEncodedAudioTrack(source, self.clock)
                transceiver.sender.replaceTrack(track)
                transceiver.direction = "sendonly"
                self.person_tracks[people[i]] = PersonTrack(people[i], transceiver.mid, source, track)
            else:
                transceiver.direction = "inactive"

    def hello_message(self) -> str:
        room = self.room
        if room is not None and self.person_tracks:
            room = room_with_tracks(room, {p.name: p.mid for p in self.person_tracks.values()})
        return hello_message(self.meeting_id, self.options.captions, self.options.screen_fps, self.clock.now(),
                             self.briefing, room)  # fmt: skip

    def _impair(self, pc: RTCPeerConnection, offer: str) -> None:
        """Put the network between the two peers: every datagram of ``pc`` passes ``self.network``."""
        net = self.network
        net.wire.learn_sdp(offer)
        connections = ice_connections(pc)
        hooked = [intercept_datagrams(c, lambda d, comp, deliver: net.handle("to_agent", d, comp, deliver),
                                      lambda d, comp, deliver: net.handle("from_agent", d, comp, deliver))
                  for c in connections]  # fmt: skip
        if not connections or not all(hooked):
            message = "aiortc/aioice internals changed: the network profile cannot be applied"
            if self.options.network is not None and not self.options.network.clean:
                raise RuntimeError(message)
            logger.warning("%s; network statistics are not counted", message)
        net.start(self.tasks.start)
        if pc.sctp is not None:
            self._sctp_retransmissions = count_sctp_retransmissions(pc.sctp)

    async def network_stats(self) -> dict[str, Any]:
        """The network so far (cumulative): the impairment's and the wire's counts, aiortc's ``getStats``,
        the persona's pacing; the fields of a ``network_stats`` record event."""
        report = await self.pc.getStats() if self.pc is not None else {}
        buffer = self._agent_audio_buffer
        return network_sample(self.network, list(report.values()),
                              self._sctp_retransmissions.chunks if self._sctp_retransmissions else None,
                              buffer.skipped if buffer is not None else None,
                              self.audio_track.stats, self.screen_track.stats)  # fmt: skip

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
                self.tasks.start(self.pipes["control"].send(self._channels_open()), "hello")

        if channel.readyState == "open":
            opened()
        else:
            channel.on("open", opened)

    def _on_track(self, track: MediaStreamTrack) -> None:
        # Every remote track is read to the end: unread tracks grow memory without bound.
        mixed = self._mixed_receiver
        if track.kind == "audio" and mixed is not None and mixed.track is not track:
            self.tasks.start(consume_audio(track, self.clock, None, lambda t, pcm: None), "agent-extra-audio")
        elif track.kind == "audio":
            self.tasks.start(consume_audio(track, self.clock, self._arrivals, self.on_agent_audio), "agent-audio")
        else:
            self.tasks.start(consume_video(track, self.clock, None), "agent-video")

    async def _on_state(self) -> None:
        if self.pc is not None and self.pc.connectionState in ("failed", "closed"):
            state = self.pc.connectionState
            if state == "failed" and self._connect_time is None:
                self._join_failed("ICE failed: no candidate pair worked")
            else:
                self._agent_gone(f"peer connection {state}")

    async def join_deadline(self) -> None:
        """End the join if the agent's channels are not open ``ice_timeout`` seconds after the answer."""
        try:
            await wait_for(self.clock, self._settled.wait(), self.ice_timeout)
        except ClockTimeout:
            self._join_failed(f"not connected {self.ice_timeout:g} s after the answer: no ICE candidate pair worked")

    def _join_failed(self, what: str) -> None:
        if self._gone or self._connect_time is not None:
            return
        n = self._offer_candidates
        message = (f"{what} (the offer had {n} candidate{'' if n == 1 else 's'}); the offer must carry the "
                   "agent's candidates, reachable from the harness (non-trickle ICE, docs/protocol.md §1)")  # fmt: skip
        self._close = (CLOSE_ICE_FAILED, "ice_failed", message)
        self._agent_gone(message)

    # ---------------------------------------------------------------- media

    def media_stats(self) -> MediaStats:
        """How well the persona's tracks kept their schedule: frames sent, late frames, worst lateness."""
        out = media_stats(self.audio_track.stats, self.screen_track.changes, self.screen_track.stats)
        if self.person_tracks:
            out["person_audio"] = {p.name: {"audio_frames_sent": p.track.stats.frames,
                                            "audio_frames_late_20ms": p.track.stats.late_frames,
                                            "audio_max_late_ms": round(p.track.stats.max_late * 1000, 3)}
                                   for p in self.person_tracks.values()}  # fmt: skip
        return out

    async def play(self, pcm: bytes, speaker: str | None = None) -> Playback:
        """Queue ``pcm`` on the mixed track (its ``Playback`` is the one returned); in a multi-party meeting also on
        ``speaker``'s own track, from the moment the mixed track starts it (so a line queued behind another on the
        mixed track is not heard early on its speaker's track)."""
        playback = self.audio.play(pcm)
        person = self.person_tracks.get(speaker) if speaker is not None else None
        if person is not None:
            source = person.source

            def start(started: asyncio.Future[float]) -> None:
                if not started.cancelled() and not playback.cut and not playback.ended.done():
                    source.play(pcm)

            playback.started.add_done_callback(start)
        return playback

    def stop_playback(self) -> float:
        now = super().stop_playback()
        for person in self.person_tracks.values():
            person.source.stop(now)
        return now

    def prepare_screen(self, image: Image.Image) -> None:
        self.screen_track.prepare(image)

    def prepare_speech(self, pcm: bytes, encoded: EncodedSpeech | None = None) -> None:
        speech_packets(pcm, encoded)

    async def show(self, image: Image.Image) -> float:
        # Encoding a 1280x720 slide takes 0.1-0.4 s; on the event loop it would make every meeting's audio
        # late, so a picture not prepared before the meeting is encoded in a worker thread.
        await self.screen_track.show_image(image)
        return self.clock.now()

    # ---------------------------------------------------------------- lifecycle

    def _agent_gone(self, reason: str) -> None:
        was_gone = self._gone
        super()._agent_gone(reason)
        if not was_gone:
            self._gone_reason = reason
            self.tasks.start(self._teardown(), "teardown")

    async def wait_connected(self) -> float:
        try:
            return await super().wait_connected()
        except ConnectionError:
            raise ConnectionError(f"agent left before the meeting was connected: {self._gone_reason}") from None

    async def _teardown(self) -> None:
        self.audio_track.stop()
        self.screen_track.stop()
        for person in self.person_tracks.values():
            person.track.stop()
        if self.pc is not None:
            await self.pc.close()
        ws = self._ws
        if ws is not None:
            code, reason, message = self._close
            try:
                if message:
                    await ws.send(error_message(reason, message))
                await ws.close(code, reason)
            except ConnectionClosed:
                pass

    async def close(self, reason: str = "completed") -> None:
        """End the meeting, whatever the network does: each step is bounded on the underlying clock, so the
        session always gets to seal its record (a step that ran out is logged, not charged to anyone)."""
        if self.connected:
            try:
                await wait_for(self.clock.base, self._say_meeting_end(reason), MEETING_END_TIMEOUT)
            except ClockTimeout:
                logger.warning("meeting_end not handed to the control channel within %g s (its send buffer "
                               "did not drain); closing without it", MEETING_END_TIMEOUT)
        self._ended = True
        # The session passes its termination reason, which meeting_end carries; a meeting that ran its
        # planned turns is not the agent leaving, whichever way it ended.
        self._agent_gone(closing_reason(reason))
        try:
            await wait_for(self.clock.base, self._teardown(), TEARDOWN_TIMEOUT)
        except ClockTimeout:
            logger.warning("peer connection teardown did not finish within %g s; abandoned", TEARDOWN_TIMEOUT)
        await self.tasks.aclose()

    async def _say_meeting_end(self, reason: str) -> None:
        await self.send_control(MeetingEnd(reason))
        # Give SCTP a moment to deliver meeting_end before the connection goes.
        await asyncio.sleep(0.05)


class SignalingServer:
    """Websocket signaling on ``ws://host:port/meetings/<meeting_id>``; the token goes in the
    ``Authorization: Bearer`` header or the ``token`` query parameter and is checked before the upgrade."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host, self.port = host, port
        self.meetings: dict[str, WebRTCMeeting] = {}
        self._server: Server | None = None
        # (path, reason) of the latest refusals, for logs and tests: bounded, a flood of bad joins grows nothing.
        self.refused: deque[tuple[str, str]] = deque(maxlen=REFUSALS_KEPT)

    async def start(self) -> SignalingServer:
        self._server = await serve(
            self._handle, self.host, self.port, process_request=self._check, max_size=MAX_SIGNALING_MESSAGE,
            max_queue=4, open_timeout=OFFER_TIMEOUT, create_connection=SignalingConnection,
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
        # The Authorization header, when it carries a Bearer token, is the credential and ?token= is not
        # looked at: one request, one credential, so a wrong header is never rescued by the query.
        auth = request.headers.get("Authorization", "")
        source = "?token= query parameter"
        if auth.startswith("Bearer "):
            token, source = auth[7:], "Authorization header (it takes precedence over ?token=)"
        if meeting is None:
            self.refused.append((request.path[:200], "unknown meeting"))
            return connection.respond(HTTPStatus.NOT_FOUND, "unknown meeting\n")
        if not hmac.compare_digest(token.encode(), meeting.token.encode()):
            self.refused.append((request.path[:200], "bad token"))
            said = f"wrong token in the {source}" if token else "missing token"
            return connection.respond(HTTPStatus.UNAUTHORIZED, f"{said}\n")
        return None

    async def _handle(self, ws: ServerConnection) -> None:
        meeting, _ = self._lookup(ws.request.path if ws.request else "")
        if meeting is None:
            return
        taken = meeting.refusal()
        if taken is not None:
            await self._refuse(ws, *taken)
            return
        # Connect time counts from the agent opening signaling, not from when the meeting was created.
        meeting.join_attempt_started()
        try:
            raw = await wait_for(meeting.clock, ws.recv(), OFFER_TIMEOUT)
        except ClockTimeout:
            await self._refuse(ws, CLOSE_TIMEOUT, "timeout", f"no offer within {OFFER_TIMEOUT:g} s")
            return
        except ConnectionClosed:
            return
        try:
            msg = parse_offer(raw)
        except ValueError as exc:
            await self._refuse(ws, CLOSE_BAD_MESSAGE, "bad_message", str(exc)[:200])
            return
        # Refusals are sent after the offer lock is released: a client slow to finish the close handshake
        # must not hold up the next offer.
        answer = await meeting.answer_join(msg["sdp"], ws)
        if isinstance(answer, Refusal):
            await self._refuse(ws, *answer)
            return
        try:
            await ws.send(dumps({"type": "answer", "sdp": answer}))
        except ConnectionClosed:
            pass
        # The websocket stays open for the whole meeting: its closing is the fastest sign the agent is gone.
        try:
            async for raw in ws:
                try:
                    msg = json.loads(raw)
                except (ValueError, RecursionError):
                    continue
                if isinstance(msg, dict) and msg.get("type") == "bye":
                    meeting.signaling_closed("agent left")
                    break
        except ConnectionClosed:
            pass
        meeting.signaling_closed()

    async def _refuse(self, ws: ServerConnection, code: int, kind: str, message: str) -> None:
        self.refused.append((ws.request.path[:200] if ws.request else "", kind))
        try:
            await ws.send(error_message(kind, message))
            await ws.close(code, kind)
        except ConnectionClosed:
            pass
