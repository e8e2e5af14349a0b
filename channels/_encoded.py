"""Encode once, send many: the persona's speech as cached Opus packets and its slides as cached VP8 frames,
sent by every meeting with its own RTP timing, sequence numbers and SSRC (aiortc's sender adds those to a
finished ``av.Packet``; see ``_compat.encoded_packets_supported``).

The persona's media is known before the meeting (speech synthesised, slides rendered), so a process that
hosts many meetings encodes each utterance and each slide once, not once per meeting and frame.
"""

from __future__ import annotations

import asyncio
import fractions
import hashlib
import logging
import math
import struct
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

import numpy as np
from aiortc import MediaStreamTrack
from aiortc.mediastreams import MediaStreamError
from av import CodecContext, Packet, VideoFrame
from av.video.frame import PictureType
from PIL import Image

from modylbench.channels._audio import SILENCE, AudioSource, _Queued
from modylbench.channels._clock import Clock
from modylbench.channels._compat import take_keyframe_request
from modylbench.channels._interface import (
    FRAME_BYTES,
    FRAME_SAMPLES,
    FRAME_SECONDS,
    SAMPLE_RATE,
    PacingStats,
    Playback,
)
from modylbench.channels._webrtc import OpusFrames, ScreenTrack, picture_frame, vp8_encoder

logger = logging.getLogger(__name__)

AUDIO_TIME_BASE = fractions.Fraction(1, SAMPLE_RATE)
VIDEO_TIME_BASE = fractions.Fraction(1, 90_000)


def content_key(data: bytes | bytearray | memoryview) -> bytes:
    """A 16-byte digest naming media by its content (blake2b: ~1 GB/s, a 4 s utterance in ~0.4 ms)."""
    return hashlib.blake2b(data, digest_size=16).digest()


# ---------------------------------------------------------------- speech


@dataclass(frozen=True, slots=True)
class EncodedSpeech:
    """One utterance as the Opus packets a meeting sends, encoded once.

    ``packets[i]`` is the 20 ms frame ``i`` of the PCM (the last one padded with silence); ``flush`` is the
    packet of the first silent frame after it (it carries the encoder's 2.5 ms look-ahead). They are the
    bytes ``OpusFrames`` produces for the same utterance after silence: a fresh low-delay encoder, warmed up
    on one silent frame (see ``OpusFrames``).
    """

    key: bytes
    """``content_key`` of the PCM these packets encode."""
    packets: tuple[bytes, ...]
    flush: bytes

    def to_bytes(self) -> bytes:
        """The packets as one file: magic, key, count, then each packet length-prefixed (the flush last)."""
        parts = [_SPEECH_MAGIC, self.key, struct.pack("<I", len(self.packets))]
        for p in (*self.packets, self.flush):
            parts += [struct.pack("<H", len(p)), p]
        return b"".join(parts)

    @classmethod
    def from_bytes(cls, data: bytes) -> EncodedSpeech:
        """Read ``to_bytes``'s format; ValueError when it is not that."""
        head = len(_SPEECH_MAGIC)
        if data[:head] != _SPEECH_MAGIC or len(data) < head + 20:
            raise ValueError("not an encoded-speech file")
        key = data[head : head + 16]
        (count,) = struct.unpack_from("<I", data, head + 16)
        pos, out = head + 20, []
        for _ in range(count + 1):
            if pos + 2 > len(data):
                raise ValueError("encoded-speech file is truncated")
            (size,) = struct.unpack_from("<H", data, pos)
            pos += 2
            if pos + size > len(data):
                raise ValueError("encoded-speech file is truncated")
            out.append(data[pos : pos + size])
            pos += size
        if pos != len(data):
            raise ValueError("encoded-speech file has trailing bytes")
        return cls(key, tuple(out[:-1]), out[-1])


_SPEECH_MAGIC = b"MBOPUS1\x00"


def speech_key(pcm: bytes) -> bytes:
    """``content_key`` of an utterance's PCM (whole samples), the key its ``EncodedSpeech`` carries."""
    return content_key(pcm[: len(pcm) // 2 * 2])


def frame_count(pcm: bytes) -> int:
    """Whole 20 ms frames ``pcm`` fills (the last partial one counts)."""
    return -(-(len(pcm) // 2 * 2) // FRAME_BYTES)


def encode_speech(pcm: bytes) -> EncodedSpeech:
    """Encode one utterance (48 kHz mono s16) to Opus packets, as ``OpusFrames`` would after silence
    (~70 µs a frame; thread-safe: each call has its own encoder)."""
    pcm = pcm[: len(pcm) // 2 * 2]
    opus = OpusFrames()
    packets = []
    for i in range(frame_count(pcm)):
        frame = pcm[i * FRAME_BYTES : (i + 1) * FRAME_BYTES]
        if len(frame) < FRAME_BYTES:
            frame += bytes(FRAME_BYTES - len(frame))
        packets.append(bytes(opus.packet(frame, 0)))
    flush = bytes(opus.packet(SILENCE, 0))
    return EncodedSpeech(speech_key(pcm), tuple(packets), flush)


K = TypeVar("K")
V = TypeVar("V")


class _Lru(Generic[K, V]):
    """A bounded, thread-safe least-recently-used map (the process-wide media caches)."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is None:
                self.misses += 1
            else:
                self.hits += 1
                self._items.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.keep:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)


class _ById(Generic[V]):
    """What was found for an object, remembered by identity while the object lives (no hashing of a
    megabyte of pixels or PCM at every ``show``/``play``): the object is held by a weak reference when it
    allows one, else not remembered."""

    def __init__(self) -> None:
        self._items: dict[int, tuple[Callable[[], object | None], V]] = {}
        self._lock = threading.Lock()

    def get(self, obj: object) -> V | None:
        with self._lock:
            hit = self._items.get(id(obj))
        return hit[1] if hit is not None and hit[0]() is obj else None

    def put(self, obj: object, value: V) -> None:
        key = id(obj)

        def forget(_ref: object) -> None:
            self._forget(key)

        try:
            ref: Callable[[], object | None] = weakref.ref(obj, forget)
        except TypeError:  # bytes allow no weak reference: they are looked up by content
            return
        with self._lock:
            self._items[key] = (ref, value)

    def _forget(self, key: int) -> None:
        with self._lock:
            self._items.pop(key, None)


SPEECH_PACKETS: _Lru[bytes, EncodedSpeech] = _Lru(keep=4096)
"""Every utterance this process has encoded, by ``content_key`` of its PCM (~8 kB per 4 s utterance)."""


def speech_packets(pcm: bytes, encoded: EncodedSpeech | None = None) -> EncodedSpeech:
    """The Opus packets of ``pcm``: ``encoded`` when given (e.g. from the speech cache on disk) and it
    matches, else from this process's cache, else encoded now (and kept)."""
    key = speech_key(pcm)
    if encoded is not None and encoded.key == key and len(encoded.packets) == frame_count(pcm):
        SPEECH_PACKETS.put(key, encoded)
        return encoded
    hit = SPEECH_PACKETS.get(key)
    if hit is None:
        hit = encode_speech(pcm)
        SPEECH_PACKETS.put(key, hit)
    return hit


def cached_speech_packets(pcm: bytes) -> EncodedSpeech | None:
    """The packets of ``pcm`` if this process has them (never encodes)."""
    return SPEECH_PACKETS.get(speech_key(pcm))


@dataclass(eq=False)
class _QueuedSpeech(_Queued):
    encoded: EncodedSpeech | None = None


class EncodedAudioSource(AudioSource):
    """An ``AudioSource`` that hands its pacer Opus packets: cached ones for speech encoded ahead
    (``speech_packets``), and ``OpusFrames`` for anything else (speech made during the meeting).

    Each utterance starts on a frame boundary (the frame holding the end of one utterance is padded with
    silence, not filled from the next in the queue): cached packets are frame-aligned. An utterance queued
    right behind another therefore starts up to 20 ms later than with ``AudioSource``; one after silence
    (the usual case) starts at the same slot, and its ``Playback`` times are the same.
    """

    def __init__(self) -> None:
        super().__init__()
        self.opus = OpusFrames()
        self._flush: bytes | None = None
        self.cached_frames = 0
        """Frames sent from cached packets (not encoded in this meeting)."""

    def play(self, pcm: bytes) -> Playback:
        pb = super().play(pcm)
        q = self._queue.pop()
        self._queue.append(_QueuedSpeech(q.pcm, 0, pb, cached_speech_packets(q.pcm)))
        return pb

    def stop(self, t: float) -> None:
        super().stop(t)
        self._flush = None

    def next_frame(self, t: float) -> bytes:
        raise TypeError("EncodedAudioSource hands out packets (next_packet), not PCM")

    def next_packet(self, t: float) -> bytes:
        """The Opus payload of the frame that goes out at meeting time ``t``."""
        if not self._queue:
            if self._flush is not None:
                flush, self._flush = self._flush, None
                return flush
            return bytes(self.opus.packet(SILENCE, 0))
        q = self._queue[0]
        if q.pos == 0 and not q.playback.started.done():
            q.playback.started.set_result(t)
        take = min(FRAME_BYTES, len(q.pcm) - q.pos)
        encoded = q.encoded if isinstance(q, _QueuedSpeech) else None
        if encoded is not None:
            data = encoded.packets[q.pos // FRAME_BYTES]
            self.opus.reset()  # the decoder now follows the cached packets, not this encoder
            self.cached_frames += 1
        else:
            frame = q.pcm[q.pos : q.pos + take]
            data = bytes(self.opus.packet(frame + bytes(FRAME_BYTES - take) if take < FRAME_BYTES else frame, 0))
        q.pos += take
        if q.pos >= len(q.pcm):
            self._queue.popleft()
            if not q.playback.ended.done():
                q.playback.ended.set_result(t + take / 2 / SAMPLE_RATE)
            self._flush = encoded.flush if encoded is not None else None
        return data


class PreEncodedAudioTrack(MediaStreamTrack):
    """The persona's audio: one Opus packet per 20 ms slot from an ``EncodedAudioSource``, released at its
    slot on the clock. Silence is one constant packet; cached speech is a list lookup."""

    kind = "audio"

    def __init__(self, source: EncodedAudioSource, clock: Clock) -> None:
        super().__init__()
        self.source, self.clock = source, clock
        self.stats = PacingStats()
        self._t: float | None = None
        self._pts = 0

    async def recv(self) -> Packet:  # type: ignore[override]
        if self.readyState != "live":
            raise MediaStreamError
        if self._t is None:
            self._t = self.clock.now()
        else:
            self._t += FRAME_SECONDS
            await self.clock.sleep_until(self._t)
        self.stats.record(self.clock.now() - self._t)
        packet = Packet(self.source.next_packet(self._t))
        packet.pts = self._pts
        packet.time_base = AUDIO_TIME_BASE
        self._pts += FRAME_SAMPLES
        return packet


# ---------------------------------------------------------------- slides


@dataclass(frozen=True, slots=True)
class EncodedSlide:
    """One picture as the VP8 frames a static screen needs, encoded once: a key frame, then the inter frames
    that refine it until the picture stops getting better (a constant-bit-rate encoder fed the same picture
    keeps sending ~3 kB frames that add nothing; repeating one of them would make the picture drift), then
    one more (see ``encode_slide``). After ``frames`` the screen sends nothing until the picture changes, the
    receiver asks for a key frame, or the periodic key frame is due; each of those sends ``frames`` again
    from the key frame."""

    frames: tuple[bytes, ...]
    size: tuple[int, int]
    fps: float
    bit_rate: int
    psnr: float
    """Of the last frame as decoded, against the picture (dB, luma)."""

    @property
    def nbytes(self) -> int:
        return sum(len(f) for f in self.frames)


SLIDE_MAX_FRAMES = 12
"""At most this many frames per slide (key frame included), and one more to complete the last."""
SLIDE_CONVERGED_DB = 0.1
"""The refinement stops when two successive frames improve the decoded picture by less than this (dB)."""


def _luma_psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = float(np.mean((a.astype(np.float32) - b.astype(np.float32)) ** 2))
    return math.inf if mse == 0 else 10 * math.log10(255.0**2 / mse)


def encode_slide(image: Image.Image, size: tuple[int, int] = (1280, 720), fps: float = 2.0,
                 bit_rate: int = ScreenTrack.bit_rate) -> EncodedSlide:  # fmt: skip
    """Encode ``image`` once for a screen share at ``fps`` (runs in a worker thread: libvpx releases the GIL;
    a 720p slide takes ~0.1-0.4 s here, its frames ~25-45 kB)."""
    period = 1.0 / fps
    frame = picture_frame(image, size)
    target = frame.to_ndarray()[: size[1]]  # the luma plane of the yuv420p frame
    encoder = vp8_encoder(size, fps, bit_rate)
    decoder = CodecContext.create("vp8", "r")
    frames: list[bytes] = []
    scores: list[float] = []
    for i in range(SLIDE_MAX_FRAMES):
        frame.pts = int(i * period * 90_000)
        frame.time_base = VIDEO_TIME_BASE
        frame.pict_type = PictureType.I if i == 0 else PictureType.NONE
        data = b"".join(bytes(p) for p in encoder.encode(frame))
        if not data:
            continue
        frames.append(data)
        for out in decoder.decode(Packet(data)):
            scores.append(_luma_psnr(out.reformat(format="yuv420p").to_ndarray()[: size[1]], target))
        if scores and (scores[-1] == math.inf or len(scores) >= 3 and scores[-1] - scores[-3] < SLIDE_CONVERGED_DB):
            break
    if not frames:
        raise RuntimeError("the VP8 encoder produced no frame")
    # One more frame, the encoder's next for the same picture: a receiver that completes a frame only when
    # the next one starts (aiortc's jitter buffer) would otherwise never show the last refinement, and a
    # one-frame slide not at all. This one waits there until the next key frame or slide, harmlessly.
    for j in range(len(frames), len(frames) + 4):
        frame.pts = int(j * period * 90_000)
        frame.pict_type = PictureType.NONE
        data = b"".join(bytes(p) for p in encoder.encode(frame))
        if data:
            frames.append(data)
            break
    frame.pict_type = PictureType.NONE
    return EncodedSlide(tuple(frames), size, fps, bit_rate, scores[-1] if scores else math.nan)


def slide_key(image: Image.Image, size: tuple[int, int], fps: float, bit_rate: int) -> bytes:
    return content_key(b"%d:%d:%r:%d:%s:" % (size[0], size[1], fps, bit_rate, image.mode.encode())
                       + image.tobytes())  # fmt: skip


SLIDE_PACKETS: _Lru[bytes, EncodedSlide] = _Lru(keep=512)
"""Every slide this process has encoded, by content and encoding settings (~30-50 kB each at 720p)."""
_SLIDES_BY_IMAGE: _ById[EncodedSlide] = _ById()
_ENCODING = [threading.Lock() for _ in range(16)]


def slide_packets(image: Image.Image, size: tuple[int, int], fps: float,
                  bit_rate: int = ScreenTrack.bit_rate) -> EncodedSlide:  # fmt: skip
    """The frames of ``image``: from this process's cache, else encoded now (and kept). Blocking: call it
    from a worker thread or before the meeting."""
    hit = prepared_slide(image, size, fps, bit_rate)
    if hit is not None:
        return hit
    key = slide_key(image, size, fps, bit_rate)
    with _ENCODING[key[0] % len(_ENCODING)]:  # meetings asking for the same slide at once wait for one encode
        hit = SLIDE_PACKETS.get(key)
        if hit is None:
            hit = encode_slide(image, size, fps, bit_rate)
            SLIDE_PACKETS.put(key, hit)
    _SLIDES_BY_IMAGE.put(image, hit)
    return hit


def prepared_slide(image: Image.Image, size: tuple[int, int], fps: float,
                   bit_rate: int = ScreenTrack.bit_rate) -> EncodedSlide | None:  # fmt: skip
    """The frames of ``image`` if this very object was encoded in this process with these settings (no
    hashing)."""
    hit = _SLIDES_BY_IMAGE.get(image)
    return hit if hit is not None and (hit.size, hit.fps, hit.bit_rate) == (size, fps, bit_rate) else None


class PreEncodedScreenTrack(MediaStreamTrack):
    """The screen share from cached VP8 frames (``EncodedSlide``): each picture's frames go out one per slot at
    ``fps`` after it is shown, after a key-frame request (RTCP PLI/FIR, read from ``sender``) and every
    ``keyframe_interval`` seconds; in between a static screen sends nothing. No encoder per meeting.

    When the agent's offer has no VP8 (``encode_vp8`` False), pictures are handed to aiortc to encode, as
    ``ScreenTrack`` does.
    """

    kind = "video"
    encode_vp8 = True
    bit_rate = ScreenTrack.bit_rate
    keyframe_interval = ScreenTrack.keyframe_interval

    def __init__(self, clock: Clock, fps: float = 2.0, size: tuple[int, int] = (1280, 720)) -> None:
        super().__init__()
        self.clock, self.size = clock, size
        self.fps = min(30.0, max(0.2, fps))
        self.period = 1.0 / self.fps
        self.stats = PacingStats(late_threshold=self.period / 2)
        """Slots at which a frame went out (idle slots of a static screen are not counted)."""
        self.changes = 0
        self.keyframes = 0
        self.sender: Any = None
        self._image: Image.Image = black_screen(size)
        self._slide: EncodedSlide | None = None
        self._next = 0
        """Index in ``self._slide.frames`` of the next frame to send."""
        self._t: float | None = None
        self._last_key = -math.inf
        self._raw: VideoFrame | None = None

    def prepare(self, image: Image.Image) -> None:
        """Encode ``image`` now (before the meeting); shared by every meeting of the process."""
        slide_packets(image, self.size, self.fps, self.bit_rate)

    async def show_image(self, image: Image.Image) -> None:
        """Send ``image`` from the next slot on (encoded in a worker thread when not prepared)."""
        slide = prepared_slide(image, self.size, self.fps, self.bit_rate) if self.encode_vp8 else None
        if slide is None and self.encode_vp8:
            slide = await asyncio.to_thread(slide_packets, image, self.size, self.fps, self.bit_rate)
        if not self.encode_vp8:
            self._raw = await asyncio.to_thread(picture_frame, image, self.size)
        self._image, self._slide, self._next = image, slide, 0
        self.changes += 1

    def stop(self) -> None:
        super().stop()
        self._slide, self._raw = None, None

    async def recv(self) -> Packet:  # type: ignore[override]
        while True:
            if self.readyState != "live":
                raise MediaStreamError
            if self._t is None:
                self._t = self.clock.now()
            else:
                self._t += self.period
                await self.clock.sleep_until(self._t)
            pts = int(self._t * 90_000)
            if not self.encode_vp8:
                self.stats.record(self.clock.now() - self._t)
                if self._raw is None:
                    self._raw = await asyncio.to_thread(picture_frame, self._image, self.size)
                frame = cast(VideoFrame, self._raw)  # set just above
                frame.pts, frame.time_base = pts, VIDEO_TIME_BASE
                return frame  # type: ignore[return-value]
            if self._slide is None:  # the black screen of the start, encoded once per process
                image = self._image
                slide = await asyncio.to_thread(slide_packets, image, self.size, self.fps, self.bit_rate)
                if self._slide is None and self._image is image:  # not replaced by ``show_image`` meanwhile
                    self._slide, self._next = slide, 0
                continue  # the slot has passed while encoding
            if take_keyframe_request(self.sender) or self._t - self._last_key >= self.keyframe_interval:
                self._next = 0
            if self._next >= len(self._slide.frames):
                continue  # a static screen: nothing to send at this slot
            if self._next == 0:
                self._last_key = self._t
                self.keyframes += 1
            self.stats.record(self.clock.now() - self._t)
            packet = Packet(self._slide.frames[self._next])
            self._next += 1
            packet.pts, packet.time_base = pts, VIDEO_TIME_BASE
            return packet


_BLACK: dict[tuple[int, int], Image.Image] = {}


def black_screen(size: tuple[int, int]) -> Image.Image:
    """The picture a screen share starts with: one shared black image per size."""
    image = _BLACK.get(size)
    if image is None:
        image = _BLACK.setdefault(size, Image.new("RGB", size, "black"))
    return image
