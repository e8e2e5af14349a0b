"""aiortc plumbing shared by both ends: ICE without STUN plus a loopback candidate, clock-paced audio and
screen tracks, data-channel pipes with flow control, and a receive path that survives lost audio packets
and knows when each frame actually arrived."""

from __future__ import annotations

import asyncio
import fractions
import logging
import math
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from aiortc import MediaStreamTrack, RTCConfiguration, RTCDataChannel, RTCRtpReceiver
from aiortc.jitterbuffer import JitterFrame
from aiortc.mediastreams import MediaStreamError
from av import AudioFrame, CodecContext, Packet, VideoFrame
from av.audio.codeccontext import AudioCodecContext
from av.video.codeccontext import VideoCodecContext
from av.video.frame import PictureType
from PIL import Image

from modylbench.channels._audio import SILENCE, AudioSource
from modylbench.channels._clock import Clock
from modylbench.channels._compat import (
    AUDIO_PREFETCH,
    RecoveringJitterBuffer,
    enable_loopback_candidates,
    observe_rtp_packets,
    receiver_codec_names,
    replace_jitter_buffer,
    take_keyframe_request,
    tolerate_late_consent_answers,
)
from modylbench.channels._interface import FRAME_SAMPLES, FRAME_SECONDS, SAMPLE_RATE, PacingStats
from modylbench.channels._wire import (
    MAX_MESSAGE,
    SEND_BUFFER_HIGH,
    SEND_BUFFER_LOW,
    SharedRate,
    loop_file_budget,
)

logger = logging.getLogger(__name__)


def rtc_configuration() -> RTCConfiguration:
    # RTCConfiguration() with no servers adds a public STUN server; unanswered, it costs 5 s per offer/answer.
    enable_loopback_candidates()
    tolerate_late_consent_answers()
    return RTCConfiguration(iceServers=[])


class OpusFrames:
    """Encodes 20 ms mono s16 frames to Opus packets on the calling thread, so audio never waits for a
    worker thread (aiortc encodes ``AudioFrame``s in its default executor, where they queued behind video
    encodes and screen-share conversions and made frames late when several meetings shared a process).

    Digital silence, most of a meeting, is one constant packet (libopus spends ~150 µs on each silent
    frame). Speech goes through a CELT ("lowdelay") encoder opened fresh at each onset, so its first packet
    assumes the silent history the receiver really decoded, and kept for one silent frame after the speech
    to flush its 2.5 ms look-ahead. Each packet costs ~70 µs while speaking. A fresh libopus encoder ramps
    its first frames up from -60 dB (measured: 3 frames, a 40 ms error in every onset time), so each one
    first encodes one silent frame that is thrown away.
    """

    bit_rate = 64_000

    def __init__(self) -> None:
        self._encoder: AudioCodecContext | None = None
        self._silence = self._encode(self._new_encoder(), SILENCE) or b"\xf8\xff\xfe"
        self.encoded = 0

    def _new_encoder(self) -> AudioCodecContext:
        c = cast(AudioCodecContext, CodecContext.create("libopus", "w"))
        c.bit_rate = self.bit_rate
        c.format = "s16"
        c.layout = "mono"
        c.sample_rate = SAMPLE_RATE
        c.time_base = fractions.Fraction(1, SAMPLE_RATE)
        c.options = {"application": "lowdelay"}
        return c

    @staticmethod
    def _encode(encoder: AudioCodecContext, pcm: bytes) -> bytes | None:
        frame = AudioFrame(format="s16", layout="mono", samples=FRAME_SAMPLES)
        frame.planes[0].update(pcm)
        frame.sample_rate = SAMPLE_RATE
        packets = encoder.encode(frame)
        return bytes(packets[-1]) if packets else None

    def reset(self) -> None:
        """Forget the speech encoder: the next voiced frame opens a fresh one (the receiver's decoder has
        followed other packets meanwhile, e.g. cached ones)."""
        self._encoder = None

    def packet(self, pcm: bytes, pts: int) -> Packet:
        silent = pcm == SILENCE
        data: bytes | None = None
        if not silent and self._encoder is None:
            self._encoder = self._new_encoder()
            self._encode(self._encoder, SILENCE)  # warm-up, see the class docstring
        if self._encoder is not None:
            data = self._encode(self._encoder, pcm)
            self.encoded += 1
            if silent:
                self._encoder = None
        out = Packet(data or self._silence)
        out.pts = pts
        out.time_base = fractions.Fraction(1, SAMPLE_RATE)
        return out


def vp8_encoder(size: tuple[int, int], fps: float | None = None, bit_rate: int = 500_000) -> VideoCodecContext:
    """A VP8 encoder with the screen share's settings: constant ``bit_rate``, real time, one thread, key frames
    only when asked (``PictureType.I``); ``fps`` sets its frame rate when given."""
    c = cast(VideoCodecContext, CodecContext.create("libvpx", "w"))
    c.width, c.height = size
    c.bit_rate = bit_rate
    c.pix_fmt = "yuv420p"
    c.time_base = fractions.Fraction(1, 90_000)
    if fps is not None:
        c.framerate = fractions.Fraction(fps).limit_denominator(1000)
    c.gop_size = 100_000  # key frames only when the track asks for them
    c.qmin, c.qmax = 2, 56
    rate = str(bit_rate)
    c.options = {"bufsize": rate, "minrate": rate, "maxrate": rate, "cpu-used": "-6", "deadline": "realtime",
                 "lag-in-frames": "0", "noise-sensitivity": "4", "overshoot-pct": "15", "partitions": "0",
                 "static-thresh": "1", "undershoot-pct": "100"}  # fmt: skip
    c.thread_count = 1
    return c


def picture_frame(image: Image.Image, size: tuple[int, int]) -> VideoFrame:
    """``image`` as the encoder's frame (RGB, resized to ``size``, yuv420p)."""
    img = image.convert("RGB")
    if img.size != size:
        img = img.resize(size)
    return VideoFrame.from_image(img).reformat(format="yuv420p")


class PacedAudioTrack(MediaStreamTrack):
    """48 kHz mono audio in 20 ms frames from an ``AudioSource``, each released at its slot on the clock
    as an Opus packet (see ``OpusFrames``)."""

    kind = "audio"

    def __init__(self, source: AudioSource, clock: Clock) -> None:
        super().__init__()
        self.source, self.clock = source, clock
        self.stats = PacingStats()
        self._t: float | None = None
        self._pts = 0
        self.opus = OpusFrames()

    async def recv(self) -> Packet:  # type: ignore[override]
        if self.readyState != "live":
            raise MediaStreamError
        if self._t is None:
            self._t = self.clock.now()
        else:
            self._t += FRAME_SECONDS
            await self.clock.sleep_until(self._t)
        self.stats.record(self.clock.now() - self._t)
        packet = self.opus.packet(self.source.next_frame(self._t), self._pts)
        self._pts += FRAME_SAMPLES
        return packet


class ScreenTrack(MediaStreamTrack):
    """The screen share: the current picture at ``fps``, VP8-encoded by the track itself.

    aiortc would encode the frames it is given, but it recreates its VP8 encoder whenever the receiver's
    bandwidth estimate (REMB) moves by 10 %; creating one takes 25–60 ms with the GIL held, which stalled
    the event loop and made the audio of every meeting in the process late at once (measured: all eight
    meetings, ~4 s into each run). So this track opens one encoder when it is built (before the meeting),
    at a fixed bit rate, and hands aiortc finished packets. Encoding runs in a worker thread (libvpx
    releases the GIL). Key frames: the first frame, every ``keyframe_interval`` seconds, and whenever the
    receiver asks (RTCP PLI/FIR, read from the sender aiortc attaches as ``sender``).

    A picture is converted to a video frame only when it changes (or ahead of time, see ``prepare``); an
    unchanged picture is encoded again as a tiny inter frame, as far as "send only what changed" goes with
    a standard codec.
    """

    kind = "video"
    encode_vp8 = True
    """False when the agent's offer had no VP8: frames are then handed to aiortc to encode."""
    bit_rate = 500_000
    keyframe_interval = 10.0

    def __init__(self, clock: Clock, fps: float = 2.0, size: tuple[int, int] = (1280, 720)) -> None:
        super().__init__()
        self.clock, self.size = clock, size
        self.period = 1.0 / min(30.0, max(0.2, fps))
        self._frame: VideoFrame = VideoFrame.from_image(Image.new("RGB", size, "black")).reformat(
            format="yuv420p"
        )
        self._t: float | None = None
        self.stats = PacingStats(late_threshold=self.period / 2)
        self.changes = 0
        self.keyframes = 0
        self.sender: Any = None
        self._prepared: OrderedDict[int, tuple[Image.Image, VideoFrame]] = OrderedDict()
        self._encoder: VideoCodecContext | None = self._new_encoder()
        self._encode(self._frame, 0, True)  # opens the codec now, not while audio is being paced
        self._last_key = -math.inf

    def _new_encoder(self) -> VideoCodecContext:
        return vp8_encoder(self.size, bit_rate=self.bit_rate)

    def stop(self) -> None:
        super().stop()
        # Free the encoder's and the prepared pictures' memory (~70 MB for 1280x720) now: the meeting's
        # objects form reference cycles that only a full garbage collection would reclaim, and a process
        # hosting meeting after meeting grew by that much per meeting until one ran.
        self._encoder = None
        self._prepared.clear()

    def _encode(self, frame: VideoFrame, pts: int, keyframe: bool) -> bytes:
        encoder = self._encoder
        if encoder is None:
            raise MediaStreamError
        frame.pts = pts
        frame.time_base = fractions.Fraction(1, 90_000)
        frame.pict_type = PictureType.I if keyframe else PictureType.NONE
        try:
            return b"".join(bytes(p) for p in encoder.encode(frame))
        finally:
            frame.pict_type = PictureType.NONE

    def convert(self, image: Image.Image) -> VideoFrame:
        """The picture as the encoder's frame (~6 ms for 1280x720; thread-safe)."""
        return picture_frame(image, self.size)

    def prepare(self, image: Image.Image, keep: int = 256) -> None:
        """Convert ``image`` now (before the meeting) so that showing it later costs nothing; the newest
        ``keep`` pictures are held, matched by identity."""
        self._prepared[id(image)] = (image, self.convert(image))
        while len(self._prepared) > keep:
            self._prepared.popitem(last=False)

    def prepared(self, image: Image.Image) -> VideoFrame | None:
        hit = self._prepared.get(id(image))
        return hit[1] if hit is not None and hit[0] is image else None

    def show(self, frame: VideoFrame) -> None:
        """Send ``frame`` (from ``prepared`` or ``convert``) from the next slot on."""
        self._frame = frame
        self.changes += 1

    async def recv(self) -> Packet:  # type: ignore[override]
        while True:
            if self.readyState != "live":
                raise MediaStreamError
            if self._t is None:
                self._t = self.clock.now()
            else:
                self._t += self.period
                await self.clock.sleep_until(self._t)
            self.stats.record(self.clock.now() - self._t)
            pts = int(self._t * 90_000)
            if not self.encode_vp8:
                frame = self._frame
                frame.pts = pts
                frame.time_base = fractions.Fraction(1, 90_000)
                return frame  # type: ignore[return-value]
            key = take_keyframe_request(self.sender) or self._t - self._last_key >= self.keyframe_interval
            data = await asyncio.to_thread(self._encode, self._frame, pts, key)
            if not data:
                continue
            if key:
                self._last_key = self._t
                self.keyframes += 1
            packet = Packet(data)
            packet.pts = pts
            packet.time_base = fractions.Fraction(1, 90_000)
            return packet


class ArrivalTimes:
    """When each audio RTP packet reached the socket, on the meeting clock, keyed like decoded frames' pts."""

    def __init__(self, clock: Clock, keep: int = 512) -> None:
        self.clock = clock
        self._origin: int | None = None
        self._times: OrderedDict[int, float] = OrderedDict()
        self._keep = keep

    def record(self, rtp_timestamp: int) -> None:
        if self._origin is None:
            self._origin = rtp_timestamp
        key = (rtp_timestamp - self._origin) & 0xFFFFFFFF
        if key not in self._times:
            self._times[key] = self.clock.now()
            if len(self._times) > self._keep:
                self._times.popitem(last=False)

    def lookup(self, pts: int | None) -> float | None:
        return None if pts is None else self._times.get(pts & 0xFFFFFFFF)

    def at_rtp(self, rtp_timestamp: int) -> float | None:
        """Arrival time of the packet with this (raw) RTP timestamp, if it is still remembered."""
        return None if self._origin is None else self._times.get((rtp_timestamp - self._origin) & 0xFFFFFFFF)


class LoopOpus:
    """One remote Opus stream decoded on the event loop to 48 kHz mono s16, frame by frame.

    aiortc decodes each received frame in a thread and hands it back to the loop, a cross-thread wake-up per
    20 ms frame: on the harness side of a live meeting that was about half of its CPU
    (``benchmarks/bench_transport.py``). Here the jitter buffer's frames are decoded where they come out.

    Digital silence, most of what a listener receives, is not decoded: a payload that decoded to all-zero
    samples while the stream was already silent is remembered (at most ``KEEP`` payloads, each at most
    ``SMALL`` bytes; a silence packet is 1-8 bytes), and while the stream stays silent it is answered with as
    many zero samples. When the stream leaves silence, the last skipped packet is decoded first, so the
    decoder's state is the one it had after silence. Speech decodes to the same samples as aiortc's decoder
    (which decodes to stereo; the two channels of a mono stream are equal).
    """

    KEEP = 8
    SMALL = 16

    def __init__(self) -> None:
        self._codec: AudioCodecContext | None = None
        self._silent_payloads: dict[bytes, int] = {}
        self._silent = True  # a fresh decoder's history is silence
        self._skipped: bytes | None = None
        self.decoded = 0
        """Frames decoded (the rest were known silence)."""
        self.failed = 0
        """Frames the decoder refused (nothing is handed on for them)."""

    def _decoder(self) -> AudioCodecContext:
        if self._codec is None:
            c = cast(AudioCodecContext, CodecContext.create("libopus", "r"))
            c.format = "s16"
            c.layout = "mono"
            c.sample_rate = SAMPLE_RATE
            self._codec = c
        return self._codec

    def _decode(self, data: bytes) -> bytes:
        try:
            frames = self._decoder().decode(Packet(data))
        except Exception as exc:  # av.FFmpegError: a corrupt packet; aiortc logs and goes on too
            self.failed += 1
            logger.debug("opus frame not decoded: %s", exc)
            return b""
        self.decoded += 1
        return b"".join(bytes(f.planes[0])[: f.samples * 2 * len(f.layout.channels)] for f in frames)

    def pcm(self, data: bytes) -> bytes:
        """The samples of one Opus payload (empty if it cannot be decoded)."""
        if self._silent:
            size = self._silent_payloads.get(data)
            if size is not None:
                self._skipped = data
                return bytes(size)
        if self._skipped is not None:
            self._decode(self._skipped)
            self._skipped = None
        pcm = self._decode(data)
        zero = bool(pcm) and pcm.count(0) == len(pcm)
        if zero and self._silent and len(data) <= self.SMALL and len(self._silent_payloads) < self.KEEP:
            self._silent_payloads[data] = len(pcm)
        self._silent = zero
        return pcm


AudioSink = Callable[[float, bytes], None]
"""Receives each frame of a remote audio track: the meeting time its packet arrived, and mono s16 PCM."""


def instrument_audio_receiver(receiver: RTCRtpReceiver, clock: Clock, sink: AudioSink | None = None) -> ArrivalTimes:
    """Swap in the recovering jitter buffer and note each packet's arrival time.

    With ``sink``, Opus frames are decoded on the loop (``LoopOpus``) and handed to ``sink`` as the jitter buffer
    releases them, instead of through aiortc's decoder thread and the track (``consume_audio`` then gets only
    what aiortc still decodes itself: another codec, or everything when aiortc's internals moved)."""
    arrivals = ArrivalTimes(clock)
    buffer = RecoveringJitterBuffer(capacity=16, prefetch=AUDIO_PREFETCH)
    if not replace_jitter_buffer(receiver, buffer):
        logger.warning("aiortc internals changed: audio jitter-buffer recovery not installed")
    elif sink is not None:
        opus = LoopOpus()
        names: dict[int, str] = {}

        def tap(payload_type: int, frame: JitterFrame) -> bool:
            if payload_type not in names:
                names.update(receiver_codec_names(receiver) or {})
            if names.get(payload_type) != "opus":
                return False
            pcm = opus.pcm(frame.data)
            if pcm:
                t = arrivals.at_rtp(frame.timestamp)
                try:
                    sink(clock.now() if t is None else t, pcm)
                except Exception:  # called from aiortc's packet handler: an error here must not stop the stream
                    logger.exception("handling a received audio frame")
            return True

        buffer.tap = tap
    observe_rtp_packets(receiver, lambda packet: arrivals.record(packet.timestamp))
    return arrivals


def discard_audio(receiver: RTCRtpReceiver) -> bool:
    """Nobody listens to ``receiver``'s track: its frames are dropped undecoded (aiortc would decode each in a
    thread). False (aiortc decodes as usual) when its internals moved."""
    buffer = RecoveringJitterBuffer(capacity=16, prefetch=AUDIO_PREFETCH)
    buffer.tap = lambda payload_type, frame: True
    return replace_jitter_buffer(receiver, buffer)


def to_mono_s16(frame: AudioFrame) -> bytes:
    """A decoded frame as mono s16 bytes; aiortc's Opus decoder gives packed s16 stereo (the fast path)."""
    channels = len(frame.layout.channels)
    if frame.format.name == "s16" and not frame.format.is_planar:
        a = np.frombuffer(memoryview(frame.planes[0]), dtype="<i2", count=frame.samples * channels)
        if channels == 1:
            return a.tobytes()
        if channels == 2:
            return ((a[0::2].astype(np.int32) + a[1::2]) >> 1).astype("<i2").tobytes()
    a = frame.to_ndarray()
    full_scale = 32767 if a.dtype.kind == "f" else 1  # float samples are in [-1, 1]; integers are as is
    if frame.format.is_planar:
        a = a.reshape(channels, -1).mean(axis=0) if channels > 1 else a.reshape(-1)
    else:
        a = a.reshape(-1, channels).mean(axis=1) if channels > 1 else a.reshape(-1)
    return np.clip(a * full_scale, -32768, 32767).astype("<i2").tobytes()


async def consume_audio(
    track: MediaStreamTrack, clock: Clock, arrivals: ArrivalTimes | None, sink: Callable[[float, bytes], None]
) -> None:
    """Read every frame of a remote audio track (unread tracks grow without bound) and pass it on with the
    meeting time its packet arrived; when unknown, the decode time less the jitter buffer's hold-back."""
    while True:
        try:
            frame = await track.recv()
        except MediaStreamError:
            return
        if not isinstance(frame, AudioFrame):
            continue
        t = arrivals.lookup(frame.pts) if arrivals is not None else None
        if t is None:
            t = clock.now() - AUDIO_PREFETCH * FRAME_SECONDS
        pcm = to_mono_s16(frame)
        if frame.sample_rate != SAMPLE_RATE:
            logger.debug("unexpected sample rate %s", frame.sample_rate)
        sink(t, pcm)


async def consume_video(
    track: MediaStreamTrack, clock: Clock, sink: Callable[[float, Image.Image], None] | None
) -> None:
    """Read every frame of a remote video track; hand on a PIL image only when the picture changed."""
    last: np.ndarray | None = None
    while True:
        try:
            frame = await track.recv()
        except MediaStreamError:
            return
        if sink is None or not isinstance(frame, VideoFrame):
            continue
        sig = frame.reformat(width=64, height=36, format="gray").to_ndarray().astype(np.int16)
        if last is None or float(np.abs(sig - last).mean()) > 2.0:
            last = sig
            sink(clock.now(), frame.to_image())


class DataChannelPipe:
    """A data channel as a ``Pipe``: refuses oversized messages, waits when the send buffer is full."""

    @property
    def file_budget(self) -> SharedRate:
        """File chunks on any data channel of this event loop share one budget (see ``SharedRate``)."""
        return loop_file_budget()

    def __init__(
        self, channel: RTCDataChannel, high: int = SEND_BUFFER_HIGH, low: int = SEND_BUFFER_LOW
    ) -> None:
        self.channel = channel
        self.label = channel.label
        self.high = high
        channel.bufferedAmountLowThreshold = low
        self._low = asyncio.Event()
        channel.on("bufferedamountlow", self._low.set)
        # A closing channel never drains: without this, a send waiting for "bufferedamountlow" waited
        # forever once the peer went away (an agent stuck 360 s after the meeting ended).
        channel.on("close", self._low.set)

    async def send(self, data: str | bytes) -> None:
        size = len(data.encode() if isinstance(data, str) else data)
        if size > MAX_MESSAGE:
            raise ValueError(f"Message size exceeds max-message-size ({size} > {MAX_MESSAGE})")
        while self.channel.bufferedAmount > self.high and self.channel.readyState == "open":
            self._low.clear()
            await self._low.wait()
        if self.channel.readyState != "open":
            raise ConnectionError(f"{self.label} channel is {self.channel.readyState}")
        self.channel.send(data)


def video_codecs(sdp: str) -> list[str]:
    """Codec names (lower case, in order of preference) of the first video section of an SDP."""
    names: list[str] = []
    in_video = False
    for line in sdp.splitlines():
        if line.startswith("m="):
            if in_video:
                break
            in_video = line.startswith("m=video")
        elif in_video and line.startswith("a=rtpmap:"):
            names.append(line.split(" ", 1)[1].split("/", 1)[0].lower() if " " in line else "")
    return names


def sdp_summary(sdp: str) -> dict[str, Any]:
    """Which media sections an SDP has; raises ValueError when it is not an SDP at all."""
    if not isinstance(sdp, str) or not sdp.startswith("v=0"):
        raise ValueError("not an SDP (must start with v=0)")
    kinds = [line[2:].split(" ", 1)[0] for line in sdp.splitlines() if line.startswith("m=")]
    return {"media": kinds}
