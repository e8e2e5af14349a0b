"""The in-process transport: the same ``MeetingLink`` over in-memory channels, usually on a ``VirtualClock``,
for time-compressed headless runs and tests. Messages pass through the same wire protocol as over WebRTC."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Literal

from PIL import Image

from modylbench.channels._agentside import AgentSession, Synthesize
from modylbench.channels._audio import AudioSource
from modylbench.channels._clock import Clock, ClockTimer
from modylbench.channels._harness import JoinClock, LinkBase, closing_reason
from modylbench.channels._interface import (
    FRAME_SECONDS,
    LinkOptions,
    MediaStats,
    MeetingEnd,
    PacingStats,
    Playback,
    media_stats,
)
from modylbench.channels._wire import CHANNEL_LABELS, MAX_MESSAGE, SharedRate

logger = logging.getLogger(__name__)


class InProcPipe:
    """One direction of an in-memory data channel: ordered, reliable, same size limit as aiortc's."""

    file_budget: SharedRate | None = None
    """In memory there is no SCTP to spend CPU on: files are paced per transfer only."""

    def __init__(
        self, label: str, deliver: Callable[[str, str | bytes], None], is_open: Callable[[], bool]
    ) -> None:
        self.label = label
        self._deliver = deliver
        self._is_open = is_open

    async def send(self, data: str | bytes) -> None:
        size = len(data.encode() if isinstance(data, str) else data)
        if size > MAX_MESSAGE:
            raise ValueError(f"Message size exceeds max-message-size ({size} > {MAX_MESSAGE})")
        if not self._is_open():
            raise ConnectionError(f"{self.label} channel is closed")
        # call_soon keeps messages in order and delivers them on a later loop pass, like a network would.
        asyncio.get_running_loop().call_soon(self._deliver, self.label, data)
        await asyncio.sleep(0)


class _Slots:
    """The frame slots of one audio stream as ``call_at`` callbacks on the meeting's virtual clock: slot ``t``
    runs at the deadline ``sleep_until(t)`` would wake at, does what one pass of the stream's loop does, and
    arms the next; ``stopped`` is set when the meeting closes."""

    __slots__ = ("_clock", "_link", "_pacing", "_sink", "_source", "_stopped", "_t", "_timer")

    def __init__(self, link: InProcessMeeting, t: float, source: AudioSource, sink: Callable[[float, bytes], None],
                 pacing: PacingStats | None, stopped: asyncio.Future[None]) -> None:  # fmt: skip
        assert isinstance(link.clock, JoinClock)
        self._link, self._clock, self._t = link, link.clock, t
        self._source, self._sink, self._pacing, self._stopped = source, sink, pacing, stopped
        self._timer: ClockTimer | None = None

    def arm(self) -> bool:
        """Wait for the next slot on the clock; False when the clock has no callbacks (the loop sleeps instead)."""
        self._timer = self._clock.call_at(self._t, self._slot)
        return self._timer is not None

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def _slot(self) -> None:
        link, t = self._link, self._t
        if not link._open:
            self._stop()
            return
        try:
            if self._pacing is not None:
                self._pacing.record(self._clock.now() - t)
            self._sink(t, self._source.next_frame(t))
        except Exception as exc:  # the stream's task fails with it, as when the loop ran in the task
            if not self._stopped.done():
                self._stopped.set_exception(exc)
            return
        self._t = t + FRAME_SECONDS
        if not link._open or not self.arm():
            self._stop()

    def _stop(self) -> None:
        if not self._stopped.done():
            self._stopped.set_result(None)


class InProcessMeeting(LinkBase):
    """A ``MeetingLink`` whose agent lives in the same process; join it with ``join()``.

    Audio flows both ways as 20 ms frames paced on the injected clock, screen images are handed over as
    they change (at most ``screen_fps`` per second), and every data-channel message goes through the wire
    protocol, so the harness sees the same events as over WebRTC.
    """

    transport: Literal["webrtc", "inproc"] = "inproc"

    def __init__(self, clock: Clock, options: LinkOptions | None = None, meeting_id: str = "inproc") -> None:
        super().__init__(clock, options)
        self.meeting_id = meeting_id
        self.agent: AgentSession | None = None
        self._screen: Image.Image | None = None
        self._screen_version = 0
        self._open = False
        self._audio_pacing = PacingStats()
        self.person_audio: dict[str, AudioSource] = {}
        """Each participant's own audio in a multi-party meeting, by name, when the agent asked for it."""

    def _is_open(self) -> bool:
        return self._open

    async def join(self, synthesize: Synthesize | None = None, receive_audio: bool = True,
                   participant_audio: bool = False) -> AgentSession:  # fmt: skip
        """Connect an in-process agent; returns its session (wrap it with ``modylbench.agents``).

        ``participant_audio``: in a multi-party meeting also hand the agent each person's own audio, a frame per
        person at each slot, as ``AudioReceived`` with ``participant`` set (the counterpart of WebRTC's
        per-person tracks; there are no tracks, so ``hello.room`` names no ``track``)."""
        if self.agent is not None:
            raise RuntimeError("an agent already joined this meeting")
        agent = AgentSession(self.clock, synthesize, receive_audio, self.options.max_file_size,
                             participant_audio=participant_audio)  # fmt: skip
        if participant_audio:
            people = [p.get("name") for p in (self.room or {}).get("participants", []) if isinstance(p, dict)]
            self.person_audio = {str(n): AudioSource() for n in people}
        self.agent = agent
        self._open = True
        for label in CHANNEL_LABELS:
            self.pipes[label] = InProcPipe(label, self._to_agent, self._is_open)
            agent.pipes[label] = InProcPipe(label, self._to_harness, self._is_open)
        await self.pipes["control"].send(self._channels_open())
        self.tasks.start(self._stream_audio(self.audio, self._mixed_sink(agent), self._audio_pacing), "persona-audio")
        self.tasks.start(self._stream_audio(agent.audio, self.on_agent_audio), "agent-audio")
        self.tasks.start(self._screen_loop(agent), "screen")
        return agent

    def _to_agent(self, label: str, data: str | bytes) -> None:
        if self._open and self.agent is not None:
            self.agent.on_message(label, data)

    def _to_harness(self, label: str, data: str | bytes) -> None:
        if self._open:
            self.on_message(label, data)
            if self._gone:  # the agent said bye
                self._shutdown("agent left")

    async def _stream_audio(
        self, source: AudioSource, sink: Callable[[float, bytes], None], pacing: PacingStats | None = None
    ) -> None:
        """Hand ``sink`` one 20 ms frame of ``source`` at each frame slot on the clock (noting lateness in
        ``pacing``), as an audio track would.

        Once the meeting clock has started on a ``VirtualClock``, each slot is a ``call_at`` callback instead of
        this task's wake-up: the same frame at the same meeting time, in the same order among the clock's
        sleepers (docs/scale.md, "In-process meetings")."""
        t = self.clock.now()
        while self._open:
            await self.clock.sleep_until(t)
            if not self._open:
                return
            if pacing is not None:
                pacing.record(self.clock.now() - t)
            sink(t, source.next_frame(t))
            t += FRAME_SECONDS
            if self._open and isinstance(self.clock, JoinClock):
                stopped = asyncio.get_running_loop().create_future()
                slots = _Slots(self, t, source, sink, pacing, stopped)
                if slots.arm():
                    try:
                        await stopped
                    finally:
                        slots.cancel()
                    return

    def _mixed_sink(self, agent: AgentSession) -> Callable[[float, bytes], None]:
        """The mixed audio to ``agent``; each person's own, in the same slot, when it asked for them."""
        if not self.person_audio:
            return agent.on_audio

        def sink(t: float, pcm: bytes) -> None:
            agent.on_audio(t, pcm)
            for name, source in self.person_audio.items():
                agent.on_person_audio(name, t, source.next_frame(t))

        return sink

    async def play(self, pcm: bytes, speaker: str | None = None) -> Playback:
        """As over WebRTC: the mixed audio's ``Playback``; ``speaker``'s own audio from the slot the mixed one starts."""
        playback = self.audio.play(pcm)
        person = self.person_audio.get(speaker) if speaker is not None else None
        if person is not None:
            source = person

            def start(started: asyncio.Future[float]) -> None:
                if not started.cancelled() and not playback.cut and not playback.ended.done():
                    source.play(pcm)

            playback.started.add_done_callback(start)
        return playback

    def stop_playback(self) -> float:
        now = super().stop_playback()
        for source in self.person_audio.values():
            source.stop(now)
        return now

    def media_stats(self) -> MediaStats:
        """Persona audio frames handed over, how many were late by more than 20 ms, the worst lateness."""
        return media_stats(self._audio_pacing, self._screen_version)

    async def show(self, image: Image.Image) -> float:
        self._screen = (
            image.convert("RGB").resize(self.options.screen_size)
            if image.size != self.options.screen_size
            else image.convert("RGB")
        )
        self._screen_version += 1
        return self.clock.now()

    async def _screen_loop(self, agent: AgentSession) -> None:
        period = 1.0 / max(0.1, self.options.screen_fps)
        sent = 0
        t = self.clock.now()
        while self._open:
            if self._screen is not None and self._screen_version != sent:
                sent = self._screen_version
                agent.on_screen(t, self._screen.copy())
            t += period
            await self.clock.sleep_until(t)

    def sever(self, reason: str = "connection lost") -> None:
        """Drop the connection without goodbyes, as when the agent's process dies."""
        self._shutdown(reason)

    def _shutdown(self, reason: str) -> None:
        if not self._open and self._gone:
            return
        self._open = False
        self._agent_gone(reason)
        if self.agent is not None:
            self.agent.on_gone(reason)

    async def close(self, reason: str = "completed") -> None:
        if self._open and not self._gone:
            await self.send_control(MeetingEnd(reason))
            await asyncio.sleep(0)  # let the agent take delivery before the line drops
            await asyncio.sleep(0)
        self._shutdown(closing_reason(reason))
        await self.tasks.aclose()
        if self.agent is not None:
            await self.agent.tasks.aclose()
