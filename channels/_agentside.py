"""The agent's half of a meeting, shared by every way of joining: events the agent receives and the
actions it can take (speak, chat, files, doc, done). ``modylbench.agents`` wraps it as the public SDK."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from PIL import Image

from modylbench.channels._audio import AudioSource, fallback_speech
from modylbench.channels._clock import Clock
from modylbench.channels._interface import Playback
from modylbench.channels._protocol import (
    AGENT_REPORTED_ERROR_KINDS,
    BYE_MESSAGE,
    AudioReceived,
    Disconnected,
    DocMessageReceived,
    FileReceived,
    FileTransfers,
    Hello,
    MeetingEnded,
    MeetingEvent,
    ReceivedFile,
    ScreenFrameReceived,
    TurnStarted,
    agent_chat_message,
    done_message,
    error_message,
    new_file_header,
    parse_meeting_message,
    transcript_message,
)
from modylbench.channels._tasks import TaskOwner
from modylbench.channels._wire import (
    FILE_RATE,
    MAX_DOC_MESSAGE,
    MAX_FILE_SIZE,
    Pipe,
    WireError,
    check_doc_message,
    parse_json,
)

logger = logging.getLogger(__name__)

Synthesize = Callable[[str], bytes]
"""Text → PCM (48 kHz mono s16 little-endian)."""


class AgentSession:
    """An agent's connection to a meeting, whatever carries it. Use through ``modylbench.agents``."""

    def __init__(
        self,
        clock: Clock,
        synthesize: Synthesize | None = None,
        receive_audio: bool = True,
        max_file_size: int = MAX_FILE_SIZE,
        queue_limit: int = 2048,
        participant_audio: bool = False,
    ) -> None:
        self.clock = clock
        self.synthesize: Synthesize = synthesize or fallback_speech
        self.receive_audio = receive_audio
        self.participant_audio = participant_audio
        """Hand on each participant's own track's frames too (``AudioReceived.participant``)."""
        self.track_names: dict[str, str] = {}
        """``mid`` -> participant, from ``hello.room.participants[i].track``."""
        self.audio = AudioSource()
        self.pipes: dict[str, Pipe] = {}
        self.tasks = TaskOwner("agent")
        self.turn_index: int | None = None
        self.meeting_id = ""
        self._queue: asyncio.Queue[MeetingEvent] = asyncio.Queue()
        self._queue_limit = queue_limit
        self._files = FileTransfers(clock, max_file_size, self._reply_on_files, self._file_received)
        self._closed = False
        self._reports: list[asyncio.Future[Any]] = []
        """Error reports still being sent (``report_error`` does not wait); later control messages wait for them."""
        self.dropped = 0

    # ---------------------------------------------------------------- receiving

    def _emit(self, ev: MeetingEvent) -> None:
        if self._closed:
            return
        if self._queue.qsize() >= self._queue_limit and not isinstance(ev, Disconnected | MeetingEnded):
            self.dropped += 1  # an agent that does not read audio must not grow without bound
            return
        self._queue.put_nowait(ev)

    async def events(self) -> AsyncIterator[MeetingEvent]:
        while True:
            ev = await self._queue.get()
            yield ev
            if isinstance(ev, Disconnected):
                return

    def on_audio(self, t: float, pcm: bytes) -> None:
        if self.receive_audio:
            self._emit(AudioReceived(t, pcm))

    def on_participant_audio(self, mid: str, t: float, pcm: bytes) -> None:
        """A frame of the track with ``mid``: one participant's own speech once ``hello`` has said whose."""
        name = self.track_names.get(mid)
        if name is not None:
            self.on_person_audio(name, t, pcm)

    def on_person_audio(self, name: str, t: float, pcm: bytes) -> None:
        """A frame of participant ``name``'s own audio (dropped unless ``participant_audio``)."""
        if self.participant_audio:
            self._emit(AudioReceived(t, pcm, name))

    def on_screen(self, t: float, image: Image.Image) -> None:
        self._emit(ScreenFrameReceived(t, image))

    def on_gone(self, reason: str) -> None:
        if self._closed:
            return
        now = self.clock.now()
        self._files.abort(reason)
        self.audio.stop(now)
        self._queue.put_nowait(Disconnected(now, reason))
        self._closed = True

    def on_message(self, label: str, data: str | bytes) -> None:
        try:
            self._dispatch(label, data)
        except WireError as exc:
            logger.warning("meeting sent a bad %s message: %s", label, exc)
        except Exception:
            logger.exception("handling a %s message", label)

    def _dispatch(self, label: str, data: str | bytes) -> None:
        now = self.clock.now()
        if label == "doc":
            check_doc_message(data, MAX_DOC_MESSAGE)
            self._emit(DocMessageReceived(now, bytes(data)))  # type: ignore[arg-type]
            return
        if label == "files":
            self._files.on_message(data)
            return
        event = parse_meeting_message(label, parse_json(data, label), now)
        if isinstance(event, Hello):
            self.meeting_id = event.meeting_id
            people = event.room.participants if event.room is not None else ()
            self.track_names = {p.track: p.name for p in people if p.track is not None}
        elif isinstance(event, TurnStarted):
            self.turn_index = event.turn_index
        if event is not None:
            self._emit(event)

    def _file_received(self, file: ReceivedFile) -> None:
        if file.ok:
            # The agent gets immutable bytes (one copy, on the agent's side of the meeting).
            self._emit(FileReceived(self.clock.now(), file.file_id, file.name, file.media_type, bytes(file.data)))

    def _reply_on_files(self, message: str) -> None:
        self._send_nowait("files", message)

    def _send_nowait(self, label: str, data: str | bytes) -> None:
        pipe = self.pipes.get(label)
        if pipe is not None and not self._closed:
            self.tasks.start(pipe.send(data), f"send-{label}")

    # ---------------------------------------------------------------- acting

    async def _send(self, label: str, data: str | bytes) -> None:
        if self._closed:
            raise ConnectionError("not connected to the meeting")
        if label == "control" and self._reports:  # error reports go out first, in the order they were made
            reports, self._reports = self._reports, []
            await asyncio.gather(*reports, return_exceptions=True)
        await self.pipes[label].send(data)

    async def say(self, text: str, pcm: bytes | None = None) -> Playback:
        """Speak: ``pcm`` (or ``synthesize(text)``) goes on the audio track and the transcript on control."""
        audio = pcm if pcm is not None else self.synthesize(text)
        playback = self.audio.play(audio)
        await self._send("control", transcript_message(text))
        return playback

    def stop_speaking(self) -> None:
        self.audio.stop(self.clock.now())

    async def chat(self, text: str) -> None:
        await self._send("chat", agent_chat_message(text))

    async def done(self, turn_index: int | None = None) -> None:
        """Tell the persona this turn's answer is complete."""
        ti = self.turn_index if turn_index is None else turn_index
        await self._send("control", done_message(ti))

    async def send_doc(self, message: bytes) -> None:
        check_doc_message(message, MAX_DOC_MESSAGE)
        await self._send("doc", message)

    async def send_file(self, name: str, data: bytes, media_type: str = "application/octet-stream",
                        timeout: float = 60.0) -> tuple[bool, str]:  # fmt: skip
        """Send a file; returns (verified by the meeting, reason if not)."""
        header = await new_file_header(name, data, media_type)
        if self._closed:
            return False, "not connected"
        return await self._files.push(self.pipes["files"], header, data, FILE_RATE, timeout)

    def report_error(self, kind: str, message: str, traceback: str | None = None, fatal: bool = False) -> None:
        """Tell the meeting the agent failed (control ``error``, sent without waiting); ``ValueError`` for a
        ``kind`` not in ``AGENT_REPORTED_ERROR_KINDS``, ``ConnectionError`` once the session is closed."""
        if kind not in AGENT_REPORTED_ERROR_KINDS:
            raise ValueError(f"error kind {kind!r} is not one of {', '.join(AGENT_REPORTED_ERROR_KINDS)}")
        if self._closed or "control" not in self.pipes:
            raise ConnectionError("not connected to the meeting")
        raw = error_message(kind, message, traceback, fatal)
        self._reports = [t for t in self._reports if not t.done()]
        self._reports.append(self.tasks.start(self.pipes["control"].send(raw), "send-error"))

    async def leave(self) -> None:
        """Say goodbye on control and stop."""
        if not self._closed:
            try:
                await self._send("control", BYE_MESSAGE)
            except Exception:
                pass
        self.on_gone("left")
        await self.tasks.aclose()
