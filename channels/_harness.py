"""Transport-independent half of a ``MeetingLink``: the data channels' protocol, file push, VAD and the
bounded agent-event stream. ``WebRTCMeeting`` and ``InProcessMeeting`` add the media and the wiring."""

from __future__ import annotations

import asyncio
import copy
import logging
import secrets
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal

from modylbench.channels._audio import AudioSource, VoiceActivity
from modylbench.channels._clock import Clock, ClockTimeout, wait_for
from modylbench.channels._interface import (
    AgentAudio,
    AgentChat,
    AgentDisconnected,
    AgentDocMessage,
    AgentDoneSignal,
    AgentEvent,
    AgentFile,
    AgentSpeechOffset,
    AgentSpeechOnset,
    AgentTranscript,
    Caption,
    ControlMessage,
    FileOutcome,
    LinkOptions,
    MeetingEnd,
    Playback,
    ProtocolFault,
)
from modylbench.channels._tasks import TaskOwner
from modylbench.channels._wire import (
    FILE_RATE,
    MAX_JSON,
    PROTOCOL_VERSION,
    FileAssembler,
    FileHeader,
    Pipe,
    TokenBucket,
    WireError,
    check_doc_message,
    dumps,
    parse_json,
    sanitize_name,
    send_file,
    sha256_hex,
)

if TYPE_CHECKING:
    from PIL import Image

logger = logging.getLogger(__name__)


def fit_briefing(message: dict[str, Any], limit: int = MAX_JSON) -> dict[str, Any]:
    """``message`` with its ``briefing`` cut down until it fits ``limit`` characters (docs/protocol.md).

    The built-in scenarios' hellos are 7-13 kB, far under the limit; a scenario with a huge brief
    first loses its deliverables' ``content`` (the shared document holds it anyway), then their
    ``template``, then the briefing itself, and says so with ``briefing.truncated``.
    """
    if len(dumps(message)) <= limit or not isinstance(message.get("briefing"), dict):
        return message
    out = copy.deepcopy(message)
    briefing: dict[str, Any] = out["briefing"]
    briefing["truncated"] = True
    for field in ("content", "template"):
        for d in briefing.get("deliverables") or []:
            if isinstance(d, dict):
                d.pop(field, None)
        if len(dumps(out)) <= limit:
            logger.warning("hello briefing over %d characters: deliverables sent without %s", limit, field)
            return out
    logger.warning("hello briefing over %d characters even without templates: left out", limit)
    del out["briefing"]
    return out


class JoinClock:
    """The meeting clock: the link's injected clock with time zero at the agent's join (docs/protocol.md §7).

    The harness is often ready long before the agent joins (``serve`` waits up to ``--wait``), and that wait
    is not meeting time. Before the join the clock stands at 0: what happens then (the session start, the
    deliverables' set-up) is stamped 0, a ``sleep`` (a timeout) still takes its full time on the underlying
    clock, and a ``sleep_until`` a positive time waits for the join (a media track started early holds
    its second frame until then).
    """

    def __init__(self, base: Clock) -> None:
        self.base = base
        self._zero: float | None = None
        self._joined = asyncio.Event()

    def start(self) -> None:
        """The agent joined: now is time zero (later calls change nothing)."""
        if self._zero is None:
            self._zero = self.base.now()
            self._joined.set()

    @property
    def started(self) -> bool:
        return self._zero is not None

    def now(self) -> float:
        return 0.0 if self._zero is None else max(0.0, self.base.now() - self._zero)

    def wall_time(self) -> float:
        return self.base.wall_time()

    async def sleep(self, delay: float) -> None:
        await self.base.sleep(delay)

    async def sleep_until(self, when: float) -> None:
        if self._zero is None:
            if when <= 0:
                await self.base.sleep(0)
                return
            await self._joined.wait()
        assert self._zero is not None
        await self.base.sleep_until(self._zero + when)

    @contextmanager
    def hold(self) -> Iterator[None]:
        """The underlying clock's ``hold`` (a ``VirtualClock`` standing still while a thread works), if any."""
        hold = getattr(self.base, "hold", None)
        if hold is None:
            yield
        else:
            with hold():
                yield


PLANNED_ENDINGS = ("completed", "max_turns")
"""Termination reasons of a meeting that ran its course: closing with one is not the agent leaving."""


def closing_reason(reason: str) -> str:
    """What the link records as the agent's departure when the harness closes with ``reason``."""
    return "meeting ended" if reason in PLANNED_ENDINGS else reason


class LinkBase:
    """Shared behaviour of both harness-side transports (see ``MeetingLink`` for the contract)."""

    transport: Literal["webrtc", "inproc"]
    meeting_id: str = ""

    def prepare_screen(self, image: Image.Image) -> None:
        """Nothing to prepare by default (see ``MeetingLink.prepare_screen``)."""

    def __init__(self, clock: Clock, options: LinkOptions | None = None) -> None:
        self.clock = clock if isinstance(clock, JoinClock) else JoinClock(clock)
        self.options = options or LinkOptions()
        self.audio = AudioSource()
        self.pipes: dict[str, Pipe] = {}
        self.tasks = TaskOwner(type(self).__name__, self._task_failed)
        self._events: asyncio.Queue[AgentEvent] = asyncio.Queue()
        self._files = FileAssembler(self.options.max_file_size)
        self._pushes: dict[str, asyncio.Future[tuple[bool, str]]] = {}
        self._chat_bucket = TokenBucket(clock, self.options.chat_rate, self.options.chat_burst)
        self._chat_dropped = 0
        self._vad = VoiceActivity(self.options.vad_threshold_db, self.options.vad_hangover)
        self._connected = asyncio.Event()
        self._settled = asyncio.Event()  # connected or gone
        self._connect_time: float | None = None
        self._gone = False
        self._closing = False
        self._dropped_events = 0
        self._started_at = 0.0  # see the property: kept on the underlying clock
        self.turn_index: int | None = None
        self.briefing: dict[str, Any] | None = None
        """What the agent is told when it joins, sent as ``hello.briefing``; set before the agent connects."""

    def hello_message(self) -> str:
        """The ``hello`` control message, sent once every channel is open (docs/protocol.md)."""
        obj: dict[str, Any] = {"type": "hello", "protocol": PROTOCOL_VERSION, "meeting_id": self.meeting_id,
                               "captions": self.options.captions, "screen_fps": self.options.screen_fps,
                               "time": self.clock.now()}  # fmt: skip
        if self.briefing is not None:
            obj["briefing"] = self.briefing
        return dumps(fit_briefing(obj))

    # ---------------------------------------------------------------- lifecycle

    @property
    def _started_at(self) -> float:
        """When the agent's connection attempt began, on the underlying clock (connect time counts from it)."""
        return self._attempt_started

    @_started_at.setter
    def _started_at(self, _value: float) -> None:
        # Signaling marks the agent's first contact by assigning the meeting clock's time, which stands at
        # 0 until the join; the underlying clock is what measures how long joining took.
        self._attempt_started = self.clock.base.now()

    def _mark_connected(self) -> None:
        if not self._connected.is_set():
            self._connect_time = self.clock.base.now() - self._started_at
            self.clock.start()
            self._connected.set()
            self._settled.set()
            self.tasks.start(self._watchdog(), "file-watchdog")

    async def wait_connected(self) -> float:
        try:
            await wait_for(self.clock, self._wait_connected_or_gone(), self.options.connect_timeout)
        except ClockTimeout:
            raise TimeoutError(f"agent did not connect within {self.options.connect_timeout} s") from None
        if self._connect_time is None:
            raise ConnectionError("agent left before the meeting was connected")
        return self._connect_time

    async def _wait_connected_or_gone(self) -> None:
        await self._settled.wait()

    @property
    def connected(self) -> bool:
        return self._connected.is_set() and not self._gone

    def _agent_gone(self, reason: str) -> None:
        """The agent is gone: close the event stream with ``AgentDisconnected`` exactly once."""
        if self._gone:
            return
        for _kind, t, onset in self._vad.flush():
            self._emit(AgentSpeechOffset(t, onset))
        self._gone = True
        self._settled.set()
        now = self.clock.now()
        for fut in self._pushes.values():
            if not fut.done():
                fut.set_result((False, f"agent disconnected: {reason}"))
        self.audio.stop(now)
        self._events.put_nowait(AgentDisconnected(now, reason))  # never dropped, always last

    def _task_failed(self, name: str, exc: BaseException) -> None:
        self._fault("internal_error", f"{name}: {exc!r}", "")

    # ---------------------------------------------------------------- events

    def _emit(self, ev: AgentEvent) -> None:
        if self._gone and not isinstance(ev, AgentDisconnected):
            return
        size = self._events.qsize()
        if size >= self.options.event_queue:
            # The consumer is not keeping up: audio (the bulk) goes first; past 4x the bound, everything.
            if isinstance(ev, AgentAudio | AgentSpeechOnset | AgentSpeechOffset | ProtocolFault) or (
                size >= 4 * self.options.event_queue
            ):
                self._dropped_events += 1
                if self._dropped_events in (1, 100, 10_000):
                    logger.warning(
                        "%s: event stream full, %d events dropped", self.transport, self._dropped_events
                    )
                return
        self._events.put_nowait(ev)

    def _fault(self, kind: str, message: str, channel: str) -> None:
        logger.info("agent protocol fault on %s: %s %s", channel, kind, message)
        self._emit(ProtocolFault(self.clock.now(), kind, message[:500], channel))

    async def events(self) -> AsyncIterator[AgentEvent]:
        while True:
            ev = await self._events.get()
            yield ev
            if isinstance(ev, AgentDisconnected):
                return

    def on_agent_audio(self, t: float, pcm: bytes) -> None:
        """A frame of the agent's audio whose first sample was sent at meeting time ``t``."""
        self._emit(AgentAudio(t, pcm))
        for kind, when, onset in self._vad.push(t, pcm):
            self._emit(AgentSpeechOnset(when) if kind == "onset" else AgentSpeechOffset(when, onset))

    # ---------------------------------------------------------------- incoming data channels

    def on_message(self, label: str, data: str | bytes) -> None:
        """One message from the agent on data channel ``label``; never raises."""
        if self._gone:
            return
        try:
            if label == "doc":
                check_doc_message(data, self.options.max_doc_message)
                self._emit(AgentDocMessage(self.clock.now(), bytes(data)))  # type: ignore[arg-type]
            elif label == "files":
                self._on_files(data)
            elif label in ("chat", "control"):
                obj = parse_json(data, label)
                (self._on_chat if label == "chat" else self._on_control)(obj)
            else:
                self._fault("unknown_channel", label[:100], label[:100])
        except WireError as exc:
            self._fault(exc.kind, str(exc), label)
        except Exception as exc:  # a bug here must not end the meeting
            logger.exception("handling a %s message", label)
            self._fault("internal_error", repr(exc), label)

    def _on_chat(self, obj: dict[str, object]) -> None:
        text = obj.get("text")
        if obj["type"] != "chat" or not isinstance(text, str):
            raise WireError("malformed_message", "chat: expected {type: 'chat', text: string}")
        if not self._chat_bucket.take():
            self._chat_dropped += 1
            if self._chat_dropped == 1 or self._chat_dropped % 100 == 0:
                self._fault("chat_flood", f"{self._chat_dropped} chat messages dropped (rate limit)", "chat")
            return
        if len(text) > self.options.max_chat_chars:
            self._fault("oversized_chat", f"{len(text)} characters, truncated", "chat")
            text = text[: self.options.max_chat_chars]
        self._emit(AgentChat(self.clock.now(), text))

    def _on_control(self, obj: dict[str, object]) -> None:
        kind, now = obj["type"], self.clock.now()
        if kind == "done":
            ti = obj.get("turn_index")
            self._emit(AgentDoneSignal(now, ti if isinstance(ti, int) and not isinstance(ti, bool) else None))
        elif kind == "transcript":
            text = obj.get("text")
            if not isinstance(text, str):
                raise WireError("malformed_message", "transcript: text must be a string")
            self._emit(AgentTranscript(now, text[: self.options.max_chat_chars]))
        elif kind == "bye":
            self._agent_gone("agent left")
        elif kind == "ping":
            pass
        else:
            raise WireError("unknown_control", f"unknown control type {str(kind)[:50]!r}")

    def _on_files(self, data: str | bytes) -> None:
        now = self.clock.now()
        if isinstance(data, bytes):
            try:
                self._files.chunk(data, now)
            except WireError as exc:
                if exc.kind == "file_overrun":
                    fid = str(exc).split(":")[0]
                    self._send_nowait("files", dumps({"type": "file_error", "id": fid, "reason": str(exc)}))
                raise
            return
        obj = parse_json(data, "files")
        kind = obj["type"]
        if kind == "file_start":
            try:
                self._files.start(obj, now)
            except WireError as exc:
                raw_id = obj.get("id")
                fid = raw_id if isinstance(raw_id, str) else ""
                self._send_nowait("files", dumps({"type": "file_error", "id": fid, "reason": str(exc)}))
                self._emit(self._failed_file(obj, exc.kind + ": " + str(exc)))
                return
        elif kind == "file_end":
            header, content, reason = self._files.end(obj.get("id"))
            if reason:
                reply = {"type": "file_error", "id": header.file_id, "reason": reason}
            else:
                reply = {"type": "file_ack", "id": header.file_id, "sha256": header.sha256}
            self._send_nowait("files", dumps(reply))
            self._emit(
                AgentFile(
                    now,
                    header.file_id,
                    header.name,
                    header.media_type,
                    header.size,
                    header.sha256,
                    content,
                    not reason,
                    reason,
                )
            )
        elif kind in ("file_ack", "file_error"):
            fut = self._pushes.get(str(obj.get("id")))
            if fut is not None and not fut.done():
                fut.set_result((kind == "file_ack", str(obj.get("reason", ""))[:500]))
        else:
            raise WireError("unknown_file_message", f"unknown files type {str(kind)[:50]!r}")

    def _failed_file(self, obj: dict[str, object], reason: str) -> AgentFile:
        size = obj.get("size")
        return AgentFile(
            self.clock.now(), str(obj.get("id", ""))[:64], sanitize_name(str(obj.get("name", ""))[:1000]),
            str(obj.get("media_type", ""))[:255], size if isinstance(size, int) and size >= 0 else 0,
            str(obj.get("sha256", ""))[:64], b"", False, reason,
        )  # fmt: skip

    async def _watchdog(self) -> None:
        while not self._gone:
            await self.clock.sleep(1.0)
            for header in self._files.expire(self.clock.now(), self.options.file_timeout):
                reason = f"unfinished: no data for {self.options.file_timeout:g} s"
                self._send_nowait(
                    "files", dumps({"type": "file_error", "id": header.file_id, "reason": reason})
                )
                self._emit(
                    AgentFile(self.clock.now(), header.file_id, header.name, header.media_type, header.size,
                              header.sha256, b"", False, reason)
                )  # fmt: skip

    def _send_nowait(self, label: str, data: str | bytes) -> None:
        pipe = self.pipes.get(label)
        if pipe is not None and not self._gone:
            self.tasks.start(self._safe_send(pipe, data), f"send-{label}")

    async def _safe_send(self, pipe: Pipe, data: str | bytes) -> bool:
        try:
            await pipe.send(data)
            return True
        except Exception as exc:
            logger.info("send on %s failed: %r", pipe.label, exc)
            return False

    # ---------------------------------------------------------------- outgoing

    async def play(self, pcm: bytes) -> Playback:
        return self.audio.play(pcm)

    def stop_playback(self) -> float:
        now = self.clock.now()
        self.audio.stop(now)
        return now

    async def send_chat(self, text: str) -> float:
        now = self.clock.now()
        await self._send("chat", dumps({"type": "chat", "sender": "persona", "text": text, "time": now}))
        return now

    async def send_control(self, message: ControlMessage) -> bool:
        if isinstance(message, Caption) and not self.options.captions:
            return False
        obj = message.to_json()
        obj["time"] = self.clock.now()
        if isinstance(obj.get("turn_index"), int):
            self.turn_index = obj["turn_index"]
        raw = dumps(obj)
        if len(raw) > MAX_JSON:
            raise ValueError(f"control message of {len(raw)} characters exceeds {MAX_JSON}")
        ok = await self._send("control", raw)
        if isinstance(message, MeetingEnd):
            self._closing = True
        return ok

    async def send_doc(self, message: bytes) -> None:
        check_doc_message(message, self.options.max_doc_message)
        await self._send("doc", message)

    async def _send(self, label: str, data: str | bytes) -> bool:
        pipe = self.pipes.get(label)
        if pipe is None or self._gone:
            return False
        return await self._safe_send(pipe, data)

    async def push_file(self, name: str, data: bytes, media_type: str) -> FileOutcome:
        started = self.clock.now()
        header = FileHeader(
            secrets.token_hex(8), sanitize_name(name), media_type, len(data), await sha256_hex(data)
        )

        def outcome(ok: bool, reason: str) -> FileOutcome:
            return FileOutcome(header.file_id, header.name, media_type, len(data), header.sha256, ok, reason,
                               started, self.clock.now())  # fmt: skip

        if len(data) > self.options.max_file_size:
            return outcome(False, f"file too large: {len(data)} bytes (limit {self.options.max_file_size})")
        pipe = self.pipes.get("files")
        if pipe is None or self._gone:
            return outcome(False, "not connected")
        fut: asyncio.Future[tuple[bool, str]] = asyncio.get_running_loop().create_future()
        self._pushes[header.file_id] = fut
        try:
            rate = float(self.options.extra.get("file_rate", FILE_RATE))
            try:
                await send_file(pipe, self.clock, header, data, rate)
            except Exception as exc:
                return outcome(False, f"send failed: {exc!r}")
            try:
                ok, reason = await wait_for(self.clock, asyncio.shield(fut), self.options.file_timeout)
            except ClockTimeout:
                return outcome(False, f"no acknowledgement within {self.options.file_timeout:g} s")
            return outcome(ok, reason)
        finally:
            self._pushes.pop(header.file_id, None)
