"""The meeting as a LiveKit ``AgentSession``'s own input and output interfaces (``livekit.agents.voice.io``):
the persona's audio as ``AudioInput``, the meeting's audio track as ``AudioOutput``, the agent's declared words
(the ``transcript`` control message) as the transcription ``TextOutput``. Written against livekit-agents 1.8."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

from livekit import rtc
from livekit.agents.voice import io

from modylbench.agents import MeetingClient
from modylbench.channels import SAMPLE_RATE, Playback

logger = logging.getLogger(__name__)

LABEL = "ModylBench"
"""The label of the meeting's interfaces in LiveKit's chains (``session.output.audio.label``)."""
MAX_PENDING_FRAMES = 500
"""Persona audio frames (20 ms each: 10 s) waiting for the session to read them; the oldest go beyond that."""
AUDIO_TAIL_FRAMES = 5
"""Persona frames (100 ms) the input waits for after the turn's end before it is detached: the end of the persona's
speech is still in the receiver's jitter buffer (~80 ms) when the control message saying so arrives."""
AUDIO_AHEAD_SECONDS = 0.12
"""Audio queued on the meeting's track ahead of what is playing: ``capture_frame`` waits beyond that, so the
agent's speech is paced by the track itself (real time) and an interruption cuts it at most ~120 ms late."""

Spawn = Callable[[Coroutine[Any, Any, None], str], "asyncio.Future[None]"]
"""Starts a task owned by the meeting (cancelled when it is left)."""


class MeetingAudioInput(io.AudioInput):
    """The persona's audio track (48 kHz mono, 20 ms frames) as the session's ``input.audio``.

    The meeting pushes frames as they arrive (``push``); iteration ends when the meeting does (``end``). A
    session that stops reading loses the oldest frames beyond ``MAX_PENDING_FRAMES``, never the newest.
    """

    def __init__(self, label: str = LABEL) -> None:
        super().__init__(label=label)
        self._frames: deque[rtc.AudioFrame] = deque(maxlen=MAX_PENDING_FRAMES)
        self._ready = asyncio.Event()
        self._drained = asyncio.Event()
        self._ended = False
        self.frames_in = 0
        """Frames pushed so far (persona audio heard by the meeting)."""

    def push(self, pcm: bytes) -> None:
        """One frame of the persona's audio: 48 kHz mono s16."""
        if self._ended or len(pcm) < 2:
            return
        self._frames.append(rtc.AudioFrame(pcm, SAMPLE_RATE, 1, len(pcm) // 2))
        self.frames_in += 1
        self._ready.set()

    async def tail(self, frames: int = AUDIO_TAIL_FRAMES) -> None:
        """Return once ``frames`` more frames have arrived and the session has read every frame pushed."""
        target = self.frames_in + frames
        self._drained.clear()
        while not self._ended and (self.frames_in < target or self._frames):
            await self._drained.wait()
            self._drained.clear()

    def end(self) -> None:
        """The meeting is over: iteration stops once the frames already pushed are read."""
        self._ended = True
        self._ready.set()
        self._drained.set()

    async def __anext__(self) -> rtc.AudioFrame:
        while not self._frames:
            if self._ended:
                raise StopAsyncIteration
            self._ready.clear()
            await self._ready.wait()
        frame = self._frames.popleft()
        self._drained.set()
        return frame


class MeetingAudioOutput(io.AudioOutput):
    """The meeting's audio track as the session's ``output.audio``: frames are played on the track at its 48 kHz
    (resampled when the TTS speaks at another rate), paced by the track, and each segment's playback is reported
    back to LiveKit (``playback_started``, ``playback_finished`` with the position reached, interrupted or not)."""

    def __init__(self, client: MeetingClient, spawn: Spawn, label: str = LABEL) -> None:
        super().__init__(
            label=label, capabilities=io.AudioOutputCapabilities(pause=False), sample_rate=SAMPLE_RATE
        )
        self._client = client
        self._spawn = spawn
        self._segment: list[Playback] = []
        self._ahead: deque[Playback] = deque()
        self._interrupted = False
        self._resampler: rtc.AudioResampler | None = None
        self._resampling_from = 0
        self._finishing: asyncio.Future[None] | None = None
        self.seconds_out = 0.0
        """Audio handed to the track so far, seconds."""

    @property
    def playing(self) -> bool:
        """Audio handed to the track has not all played yet (or a segment's end is not reported yet)."""
        return any(not pb.ended.done() for pb in self._ahead) or bool(self._segment) or (
            self._finishing is not None and not self._finishing.done()
        )

    async def capture_frame(self, frame: rtc.AudioFrame) -> None:
        await super().capture_frame(frame)
        if self._interrupted or self._client.over:
            return  # cleared: the rest of this segment is not played
        if frame.num_channels != 1:
            raise ValueError("the meeting's audio track is mono: the TTS must speak in one channel")
        pcms = [bytes(frame.data)]
        if frame.sample_rate != SAMPLE_RATE:
            if self._resampler is None or self._resampling_from != frame.sample_rate:
                self._resampler = rtc.AudioResampler(frame.sample_rate, SAMPLE_RATE, num_channels=1)
                self._resampling_from = frame.sample_rate
            pcms = [bytes(f.data) for f in self._resampler.push(frame)]
        for pcm in pcms:
            if not pcm:
                continue
            playback = self._client.session.audio.play(pcm)
            if not self._segment:
                self.on_playback_started(created_at=time.time())
            self._segment.append(playback)
            self._ahead.append(playback)
            self.seconds_out += playback.duration
        while self._ahead and self._ahead[0].ended.done():
            self._ahead.popleft()
        while self._ahead and sum(pb.duration for pb in self._ahead) > AUDIO_AHEAD_SECONDS + self._ahead[0].duration:
            await self._ahead.popleft().ended

    def flush(self) -> None:
        super().flush()
        if self._resampler is not None and not self._interrupted and not self._client.over:
            for f in self._resampler.flush():
                if len(f.data):
                    playback = self._client.session.audio.play(bytes(f.data))
                    self._segment.append(playback)
                    self._ahead.append(playback)
                    self.seconds_out += playback.duration
        self._resampler = None
        segment, self._segment = self._segment, []
        if not segment and not self._interrupted:
            return  # nothing was captured: no segment to report
        self._finishing = self._spawn(self._finish(segment), "livekit-playout")

    async def _finish(self, segment: list[Playback]) -> None:
        """Report the segment once its last sample played (or the track was stopped)."""
        if segment:
            await asyncio.gather(*(pb.ended for pb in segment))
        played = sum(
            min(pb.duration, max(0.0, pb.ended.result() - pb.started.result())) if pb.cut else pb.duration
            for pb in segment
        )
        interrupted = self._interrupted or any(pb.cut for pb in segment)
        self._interrupted = False
        self.on_playback_finished(playback_position=played, interrupted=interrupted)

    def clear_buffer(self) -> None:
        """Stop the meeting's track at once; the segment is reported interrupted when it is flushed."""
        if not self._segment and not any(not pb.ended.done() for pb in self._ahead):
            return
        self._interrupted = True
        self._client.stop_speaking()
        self._ahead.clear()


class MeetingTextOutput(io.TextOutput):
    """The session's transcription output as the meeting's ``transcript`` messages: the words of each piece of
    speech are declared once its text is complete (LiveKit flushes it), as one message, so the meeting pairs
    them with the voice its audio makes (docs/protocol.md §7)."""

    def __init__(self, client: MeetingClient, spawn: Spawn, label: str = LABEL) -> None:
        super().__init__(label=label, next_in_chain=None)
        self._client = client
        self._spawn = spawn
        self._text: list[str] = []
        self.declared: list[str] = []
        """Every transcript sent, in order."""

    async def capture_text(self, text: str) -> None:
        self._text.append(text)

    def flush(self) -> None:
        words = "".join(self._text).strip()
        self._text = []
        if words and not self._client.over:
            self.declared.append(words)
            self._spawn(self._declare(words), "livekit-transcript")

    async def _declare(self, words: str) -> None:
        await self._client.say(words, b"")  # words only: the voice went out through the audio output
