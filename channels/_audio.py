"""Audio on the meeting clock: a paced 20 ms frame source with playback timing, voice-activity detection,
and the fallback speech synthesiser the SDK uses when no engine is injected."""

from __future__ import annotations

import asyncio
import logging
import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from modylbench.channels._interface import FRAME_BYTES, FRAME_SAMPLES, FRAME_SECONDS, SAMPLE_RATE, Playback

logger = logging.getLogger(__name__)

SILENCE = bytes(FRAME_BYTES)
"""One 20 ms frame of digital silence, shared: idle sources hand out this very object, and a frame equal to it
is known silent by a memcmp instead of a numpy pass (a headless meeting is mostly silence both ways)."""


@dataclass(eq=False)
class _Queued:
    pcm: bytes
    pos: int
    playback: Playback


class AudioSource:
    """Turns queued PCM buffers into a continuous stream of 20 ms frames (silence when idle).

    ``next_frame(t)`` is called once per frame by whatever paces the track, with ``t`` the meeting time at
    which that frame goes out; it resolves each ``Playback``'s start and end against those times.
    """

    def __init__(self) -> None:
        self._queue: deque[_Queued] = deque()

    def play(self, pcm: bytes) -> Playback:
        loop = asyncio.get_running_loop()
        if len(pcm) % 2:
            pcm = pcm[:-1]  # a dangling half sample is not audio
        pb = Playback(
            duration=len(pcm) / 2 / SAMPLE_RATE, started=loop.create_future(), ended=loop.create_future()
        )
        self._queue.append(_Queued(pcm, 0, pb))
        return pb

    @property
    def playing(self) -> bool:
        return bool(self._queue)

    def stop(self, t: float) -> None:
        for q in self._queue:
            q.playback.cut = True
            if not q.playback.started.done():
                q.playback.started.set_result(t)
            if not q.playback.ended.done():
                q.playback.ended.set_result(t)
        self._queue.clear()

    def next_frame(self, t: float) -> bytes:
        if not self._queue:
            return SILENCE
        q = self._queue[0]
        if q.pos and len(q.pcm) - q.pos > FRAME_BYTES:
            # Inside a buffer that goes on past this frame (most speech frames): a slice, nothing to resolve.
            pos = q.pos
            q.pos = pos + FRAME_BYTES
            return bytes(q.pcm[pos : pos + FRAME_BYTES])
        out = bytearray()
        while len(out) < FRAME_BYTES and self._queue:
            q = self._queue[0]
            if q.pos == 0 and not q.playback.started.done():
                q.playback.started.set_result(t + len(out) / 2 / SAMPLE_RATE)
            take = min(FRAME_BYTES - len(out), len(q.pcm) - q.pos)
            out += q.pcm[q.pos : q.pos + take]
            q.pos += take
            if q.pos >= len(q.pcm):
                self._queue.popleft()
                if not q.playback.ended.done():
                    q.playback.ended.set_result(t + len(out) / 2 / SAMPLE_RATE)
        if len(out) < FRAME_BYTES:
            out += bytes(FRAME_BYTES - len(out))
        return bytes(out)


def is_digital_silence(pcm: bytes) -> bool:
    """True when every sample is zero, without numpy: a compare with ``SILENCE`` for a whole frame."""
    return pcm == SILENCE if len(pcm) == FRAME_BYTES else pcm.count(0) == len(pcm)


def frame_dbfs(pcm: bytes) -> float:
    """RMS level of s16 PCM in dBFS (-inf for digital silence)."""
    if is_digital_silence(pcm):
        return -math.inf
    a = np.frombuffer(pcm, dtype="<i2").astype(np.float32)
    if a.size == 0:
        return -math.inf
    # a dot product, not np.mean(a * a): ~8x less per frame (numpy's mean is Python-level overhead), and this
    # runs for every voiced frame of an in-process meeting
    rms = math.sqrt(float(np.dot(a, a)) / a.size)
    return 20 * math.log10(rms / 32768.0) if rms > 0 else -math.inf


class VoiceActivity:
    """Energy VAD with hysteresis: two voiced frames open a segment, ``hangover`` seconds of quiet close it.

    Times passed to ``push`` are the meeting times of each frame's first sample (already corrected for
    receive buffering by the caller); it returns ``("onset", t)`` / ``("offset", t, onset)`` transitions.
    """

    def __init__(
        self, threshold_db: float = -45.0, hangover: float = 0.3, min_voiced_frames: int = 2
    ) -> None:
        self.threshold_db = threshold_db
        self.hangover = hangover
        self.min_voiced = min_voiced_frames
        self._run_start: float | None = None
        self._run = 0
        self._onset: float | None = None
        self._last_voiced_end = 0.0

    @property
    def speaking(self) -> bool:
        return self._onset is not None

    def push(self, t: float, pcm: bytes) -> list[tuple[str, float, float]]:
        out: list[tuple[str, float, float]] = []
        duration = len(pcm) / 2 / SAMPLE_RATE
        voiced = frame_dbfs(pcm) > self.threshold_db
        if voiced:
            if self._run == 0:
                self._run_start = t
            self._run += 1
            self._last_voiced_end = t + duration
            if self._onset is None and self._run >= self.min_voiced and self._run_start is not None:
                self._onset = self._run_start
                out.append(("onset", self._onset, self._onset))
        else:
            self._run = 0
            if self._onset is not None and t + duration - self._last_voiced_end >= self.hangover:
                out.append(("offset", self._last_voiced_end, self._onset))
                self._onset = None
        return out

    def flush(self) -> list[tuple[str, float, float]]:
        """Close an open segment (the stream ended)."""
        if self._onset is None:
            return []
        onset, self._onset = self._onset, None
        return [("offset", self._last_voiced_end, onset)]


def fallback_speech(text: str, words_per_minute: float = 160.0) -> bytes:
    """Speech-shaped audio standing in for a real voice: one voiced syllable-like burst per word.

    Each word becomes a 120–150 Hz harmonic tone with a formant-like envelope lasting in proportion to its
    length, separated by short gaps, so VAD, latency and duration measurements behave as with speech. It
    carries no intelligible words: agents that need a voice inject ``synthesize`` (e.g. from personas).
    """
    words = text.split() or ["…"]
    sec_per_word = 60.0 / words_per_minute
    chunks: list[np.ndarray] = []
    rng = np.random.default_rng(len(text))
    for i, w in enumerate(words):
        dur = max(0.12, min(0.6, sec_per_word * (0.5 + len(w) / 8)))
        n = int(dur * SAMPLE_RATE)
        t = np.arange(n) / SAMPLE_RATE
        f0 = 120.0 + 30.0 * math.sin(i * 0.9)
        wave = sum(np.sin(2 * np.pi * f0 * k * t) / k for k in range(1, 6))
        env = np.sin(np.pi * np.arange(n) / n) ** 0.5
        voice = 0.25 * wave * env + 0.01 * rng.standard_normal(n)
        chunks.append(voice)
        chunks.append(np.zeros(int(0.08 * SAMPLE_RATE)))
    sig = np.concatenate(chunks)
    return (np.clip(sig, -1, 1) * 32767 * 0.5).astype("<i2").tobytes()


def frames_of(pcm: bytes) -> list[bytes]:
    """Split PCM into whole 20 ms frames, padding the last with silence."""
    out = [pcm[i : i + FRAME_BYTES] for i in range(0, len(pcm), FRAME_BYTES)]
    if out and len(out[-1]) < FRAME_BYTES:
        out[-1] = out[-1] + bytes(FRAME_BYTES - len(out[-1]))
    return out


__all__ = [
    "FRAME_SAMPLES",
    "FRAME_SECONDS",
    "SILENCE",
    "AudioSource",
    "VoiceActivity",
    "fallback_speech",
    "frame_dbfs",
    "is_digital_silence",
]
