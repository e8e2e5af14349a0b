"""The agent's half of a meeting, shared by every way of joining: events the agent receives and the
actions it can take (speak, chat, files, doc, done). ``modylbench.agents`` wraps it as the public SDK."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from PIL import Image

from modylbench.channels._audio import AudioSource, fallback_speech
from modylbench.channels._clock import Clock, ClockTimeout, wait_for
from modylbench.channels._interface import Playback
from modylbench.channels._tasks import TaskOwner
from modylbench.channels._wire import (
    FILE_RATE,
    FileAssembler,
    FileHeader,
    Pipe,
    WireError,
    check_doc_message,
    dumps,
    parse_json,
    sanitize_name,
    send_file,
    sha256_hex,
)

logger = logging.getLogger(__name__)

Synthesize = Callable[[str], bytes]
"""Text → PCM (48 kHz mono s16 little-endian)."""


@dataclass(frozen=True, slots=True)
class Deliverable:
    """One product the agent is asked to deliver, as ``hello.briefing.deliverables[]`` describes it."""

    product_id: str
    output_type: str
    title: str
    description: str
    template: dict[str, Any]
    """Its parts: sheets with rows (key, label, unit) and columns, section headings, chart series and
    categories, dashboard widgets, kv keys (docs/products.md). Empty if the hello had to leave it out."""
    content: Any
    """The product as the persona created it in the shared document (labels and headings, no values)."""

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Deliverable:
        template = obj.get("template")
        return cls(str(obj.get("product_id", "")), str(obj.get("output_type", "")), str(obj.get("title", "")),
                   str(obj.get("description", "")), template if isinstance(template, dict) else {},
                   obj.get("content"))  # fmt: skip


@dataclass(frozen=True, slots=True)
class Briefing:
    """What the agent is told when it joins: the brief, the meeting goal and the deliverables."""

    scenario_id: str
    title: str
    context: str
    meeting_goal: str
    deliverables: tuple[Deliverable, ...]
    truncated: bool = False
    """True when the hello was too large and parts of the deliverables were left out."""

    @classmethod
    def from_json(cls, obj: Any) -> Briefing | None:
        """The briefing of a hello message, or None when it has none."""
        if not isinstance(obj, dict):
            return None
        items = obj.get("deliverables")
        return cls(str(obj.get("scenario_id", "")), str(obj.get("title", "")), str(obj.get("context", "")),
                   str(obj.get("meeting_goal", "")),
                   tuple(Deliverable.from_json(d) for d in items if isinstance(d, dict)) if isinstance(items, list) else (),
                   bool(obj.get("truncated", False)))  # fmt: skip


@dataclass(frozen=True, slots=True)
class Hello:
    """First control message: protocol version, the meeting's settings and the briefing."""

    time: float
    meeting_id: str
    captions: bool
    data: dict[str, Any]
    """The whole message as sent."""
    briefing: Briefing | None = None
    """The brief, meeting goal and deliverables with their templates (None if the meeting sent none)."""


@dataclass(frozen=True, slots=True)
class CaptionReceived:
    """What the persona says (sent when captions are on)."""

    time: float
    text: str
    utterance_id: str
    final: bool
    start: float | None = None
    """Meeting time the persona started saying it (harness clock), when known."""
    end: float | None = None
    """Meeting time the persona will have finished saying it, when known."""


@dataclass(frozen=True, slots=True)
class TurnStarted:
    time: float
    turn_index: int
    phase: str


@dataclass(frozen=True, slots=True)
class TurnEnded:
    time: float
    turn_index: int
    reason: str


@dataclass(frozen=True, slots=True)
class TurnClosed:
    """Your window in turn ``turn_index`` closed; ``reason``: ``agent_done`` (your ``done``), ``silence`` (you
    spoke or acted, then stayed quiet 1.2 s), ``budget`` (the turn's time ran out) or ``barge_in`` (the
    persona cut you off). The next ``TurnStarted`` (or ``MeetingEnded``) follows at once."""

    time: float
    turn_index: int
    reason: str


@dataclass(frozen=True, slots=True)
class MeetingEnded:
    time: float
    reason: str


@dataclass(frozen=True, slots=True)
class ChatReceived:
    time: float
    sender: str
    text: str


@dataclass(frozen=True, slots=True)
class FileReceived:
    """A file pushed by the persona, already verified against its sha256."""

    time: float
    file_id: str
    name: str
    media_type: str
    data: bytes


@dataclass(frozen=True, slots=True)
class ScreenFrameReceived:
    """The shared screen changed; ``image`` is RGB."""

    time: float
    image: Image.Image


@dataclass(frozen=True, slots=True)
class DocMessageReceived:
    """A raw Yjs sync-protocol message for the shared document."""

    time: float
    data: bytes


@dataclass(frozen=True, slots=True)
class AudioReceived:
    """20 ms of the persona's audio, 48 kHz mono s16; ``time`` is when it arrived (agent's clock)."""

    time: float
    pcm: bytes


@dataclass(frozen=True, slots=True)
class Disconnected:
    time: float
    reason: str


MeetingEvent = (
    Hello
    | CaptionReceived
    | TurnStarted
    | TurnEnded
    | TurnClosed
    | MeetingEnded
    | ChatReceived
    | FileReceived
    | ScreenFrameReceived
    | DocMessageReceived
    | AudioReceived
    | Disconnected
)


class AgentSession:
    """An agent's connection to a meeting, whatever carries it. Use through ``modylbench.agents``."""

    def __init__(
        self,
        clock: Clock,
        synthesize: Synthesize | None = None,
        receive_audio: bool = True,
        max_file_size: int = 50 * 1024 * 1024,
        queue_limit: int = 2048,
    ) -> None:
        self.clock = clock
        self.synthesize: Synthesize = synthesize or fallback_speech
        self.receive_audio = receive_audio
        self.audio = AudioSource()
        self.pipes: dict[str, Pipe] = {}
        self.tasks = TaskOwner("agent")
        self.turn_index: int | None = None
        self.meeting_id = ""
        self._queue: asyncio.Queue[MeetingEvent] = asyncio.Queue()
        self._queue_limit = queue_limit
        self._files = FileAssembler(max_file_size)
        self._pushes: dict[str, asyncio.Future[tuple[bool, str]]] = {}
        self._closed = False
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

    def on_screen(self, t: float, image: Image.Image) -> None:
        self._emit(ScreenFrameReceived(t, image))

    def on_gone(self, reason: str) -> None:
        if self._closed:
            return
        now = self.clock.now()
        for fut in self._pushes.values():
            if not fut.done():
                fut.set_result((False, reason))
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
            check_doc_message(data, 1 << 20)
            self._emit(DocMessageReceived(now, bytes(data)))  # type: ignore[arg-type]
            return
        if label == "files" and isinstance(data, bytes):
            self._files.chunk(data, now)
            return
        obj = parse_json(data, label)
        kind = obj["type"]
        if label == "chat":
            self._emit(ChatReceived(now, str(obj.get("sender", "persona")), str(obj.get("text", ""))))
        elif label == "control":
            if kind == "hello":
                self.meeting_id = str(obj.get("meeting_id", ""))
                self._emit(Hello(now, self.meeting_id, bool(obj.get("captions", True)), obj,
                                 Briefing.from_json(obj.get("briefing"))))
            elif kind == "caption":
                text, uid = str(obj.get("text", "")), str(obj.get("utterance_id", ""))
                start, end = obj.get("start"), obj.get("end")
                self._emit(CaptionReceived(now, text, uid, bool(obj.get("final", True)),
                                           float(start) if isinstance(start, int | float) else None,
                                           float(end) if isinstance(end, int | float) else None))
            elif kind == "turn_start":
                self.turn_index = int(obj.get("turn_index", 0))
                self._emit(TurnStarted(now, self.turn_index, str(obj.get("phase", ""))))
            elif kind == "turn_end":
                self._emit(TurnEnded(now, int(obj.get("turn_index", 0)), str(obj.get("reason", ""))))
            elif kind == "turn_closed":
                self._emit(TurnClosed(now, int(obj.get("turn_index", 0)), str(obj.get("reason", ""))))
            elif kind == "meeting_end":
                self._emit(MeetingEnded(now, str(obj.get("reason", ""))))
        elif label == "files":
            if kind == "file_start":
                try:
                    self._files.start(obj, now)
                except WireError as exc:
                    self._send_nowait(
                        "files", dumps({"type": "file_error", "id": obj.get("id"), "reason": str(exc)})
                    )
            elif kind == "file_end":
                header, content, reason = self._files.end(obj.get("id"))
                if reason:
                    self._send_nowait(
                        "files", dumps({"type": "file_error", "id": header.file_id, "reason": reason})
                    )
                else:
                    self._send_nowait(
                        "files", dumps({"type": "file_ack", "id": header.file_id, "sha256": header.sha256})
                    )
                    # The agent gets immutable bytes (one copy, on the agent's side of the meeting).
                    self._emit(FileReceived(now, header.file_id, header.name, header.media_type, bytes(content)))
            elif kind in ("file_ack", "file_error"):
                fut = self._pushes.get(str(obj.get("id")))
                if fut is not None and not fut.done():
                    fut.set_result((kind == "file_ack", str(obj.get("reason", ""))))

    def _send_nowait(self, label: str, data: str | bytes) -> None:
        pipe = self.pipes.get(label)
        if pipe is not None and not self._closed:
            self.tasks.start(pipe.send(data), f"send-{label}")

    # ---------------------------------------------------------------- acting

    async def _send(self, label: str, data: str | bytes) -> None:
        if self._closed:
            raise ConnectionError("not connected to the meeting")
        await self.pipes[label].send(data)

    async def say(self, text: str, pcm: bytes | None = None) -> Playback:
        """Speak: ``pcm`` (or ``synthesize(text)``) goes on the audio track and the transcript on control."""
        audio = pcm if pcm is not None else self.synthesize(text)
        playback = self.audio.play(audio)
        await self._send("control", dumps({"type": "transcript", "text": text}))
        return playback

    def stop_speaking(self) -> None:
        self.audio.stop(self.clock.now())

    async def chat(self, text: str) -> None:
        await self._send("chat", dumps({"type": "chat", "text": text}))

    async def done(self, turn_index: int | None = None) -> None:
        """Tell the persona this turn's answer is complete."""
        ti = self.turn_index if turn_index is None else turn_index
        await self._send("control", dumps({"type": "done", "turn_index": ti}))

    async def send_doc(self, message: bytes) -> None:
        check_doc_message(message, 256 * 1024)
        await self._send("doc", message)

    async def send_file(self, name: str, data: bytes, media_type: str = "application/octet-stream",
                        timeout: float = 60.0) -> tuple[bool, str]:  # fmt: skip
        """Send a file; returns (verified by the meeting, reason if not)."""
        header = FileHeader(secrets.token_hex(8), sanitize_name(name), media_type, len(data),
                            await sha256_hex(data))  # fmt: skip
        fut: asyncio.Future[tuple[bool, str]] = asyncio.get_running_loop().create_future()
        self._pushes[header.file_id] = fut
        try:
            if self._closed:
                return False, "not connected"
            await send_file(self.pipes["files"], self.clock, header, data, FILE_RATE)
            try:
                return await wait_for(self.clock, asyncio.shield(fut), timeout)
            except ClockTimeout:
                return False, "no acknowledgement"
        finally:
            self._pushes.pop(header.file_id, None)

    async def leave(self) -> None:
        """Say goodbye on control and stop."""
        if not self._closed:
            try:
                await self._send("control", dumps({"type": "bye"}))
            except Exception:
                pass
        self.on_gone("left")
        await self.tasks.aclose()
