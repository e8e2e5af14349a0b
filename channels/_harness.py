"""Transport-independent half of a ``MeetingLink``: the data channels' protocol, file push, VAD and the
bounded agent-event stream. ``WebRTCMeeting`` and ``InProcessMeeting`` add the media and the wiring."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal

from modylbench.channels._audio import AudioSource, VoiceActivity
from modylbench.channels._budgets import BudgetExceeded, MeetingBudgets
from modylbench.channels._clock import Clock, ClockTimeout, ClockTimer, wait_for
from modylbench.channels._interface import (
    AgentAudio,
    AgentChat,
    AgentDisconnected,
    AgentDocMessage,
    AgentEvent,
    AgentFile,
    AgentReportedError,
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
    TurnClosedMarker,
    TurnEndMarker,
    TurnStartMarker,
)
from modylbench.channels._protocol import (
    AgentLeaving,
    FileTransfers,
    ReceivedFile,
    control_message,
    file_error_message,
    hello_message,
    new_file_header,
    parse_agent_chat,
    parse_agent_control,
    persona_chat_message,
)
from modylbench.channels._tasks import TaskOwner
from modylbench.channels._wire import (
    MAX_DOC_MESSAGE,
    Pipe,
    TokenBucket,
    WireError,
    check_doc_message,
    parse_json,
)

if TYPE_CHECKING:
    from PIL import Image

    from modylbench.channels._encoded import EncodedSpeech

logger = logging.getLogger(__name__)


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

    def call_at(self, when: float, callback: Callable[[], object]) -> ClockTimer | None:
        """The underlying ``VirtualClock``'s ``call_at`` for meeting time ``when`` (the deadline a
        ``sleep_until(when)`` would sleep to); None when the clock has no such callbacks or the agent has not
        joined yet (then sleep instead)."""
        call_at = getattr(self.base, "call_at", None)
        if call_at is None or self._zero is None:
            return None
        timer: ClockTimer = call_at(self._zero + when, callback)
        return timer

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

    def prepare_speech(self, pcm: bytes, encoded: EncodedSpeech | None = None) -> None:
        """Nothing to prepare by default (see ``MeetingLink.prepare_speech``)."""

    def __init__(self, clock: Clock, options: LinkOptions | None = None) -> None:
        self.clock = clock if isinstance(clock, JoinClock) else JoinClock(clock)
        self.options = options or LinkOptions()
        self.audio = AudioSource()
        self.pipes: dict[str, Pipe] = {}
        self.tasks = TaskOwner(type(self).__name__, self._task_failed)
        self._events: asyncio.Queue[AgentEvent] = asyncio.Queue()
        self._files = FileTransfers(
            self.clock, self.options.max_file_size, self._reply_on_files, self._file_received
        )
        self._chat_bucket = TokenBucket(clock, self.options.chat_rate, self.options.chat_burst)
        self._chat_dropped = 0
        self._error_bucket = TokenBucket(clock, self.options.error_rate, self.options.error_burst)
        self._errors_dropped = 0
        self.budgets = MeetingBudgets(clock)
        """What the agent may make the harness record or do over a turn and the meeting (docs/protocol.md §8)."""
        self._vad = VoiceActivity(self.options.vad_threshold_db, self.options.vad_hangover)
        self._connected = asyncio.Event()
        self._settled = asyncio.Event()  # connected or gone
        self._connect_time: float | None = None
        self._gone = False
        self._closing = False
        self._dropped_events = 0
        self._attempt_started = self.clock.base.now()
        self.turn_index: int | None = None
        self.briefing: dict[str, Any] | None = None
        """What the agent is told when it joins, sent as ``hello.briefing``; set before the agent connects."""
        self.room: dict[str, Any] | None = None
        """Who is in a multi-party meeting, sent as ``hello.room`` (``room_hello``); None: one-to-one."""

    def hello_message(self) -> str:
        """The ``hello`` control message, sent once every channel is open (docs/protocol.md)."""
        return hello_message(self.meeting_id, self.options.captions, self.options.screen_fps, self.clock.now(),
                             self.briefing, self.room)  # fmt: skip

    def _channels_open(self) -> str:
        """Every data channel is open: the meeting clock starts now. Returns the hello, to be sent first."""
        hello = self.hello_message()
        self._mark_connected()
        return hello

    # ---------------------------------------------------------------- lifecycle

    def join_attempt_started(self) -> None:
        """The agent's connection attempt begins now (it opened signaling): connect time counts from here,
        on the underlying clock, since the meeting clock stands at 0 until the join."""
        self._attempt_started = self.clock.base.now()

    def _mark_connected(self) -> None:
        if not self._connected.is_set():
            self._connect_time = self.clock.base.now() - self._attempt_started
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

    @property
    def gone(self) -> bool:
        """The agent has left (or never will join): the event stream has ended with ``AgentDisconnected``."""
        return self._gone

    def _agent_gone(self, reason: str) -> None:
        """The agent is gone: close the event stream with ``AgentDisconnected`` exactly once."""
        if self._gone:
            return
        for _kind, t, onset in self._vad.flush():
            self._emit(AgentSpeechOffset(t, onset))
        self._gone = True
        self._settled.set()
        now = self.clock.now()
        self._files.abort(f"agent disconnected: {reason}")
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
        """Record a fault: the first of its kind in a turn as itself, the rest as one counted event later."""
        if self.budgets.fault(kind):
            logger.info("agent protocol fault on %s: %s %s", channel, kind, message)
            self._emit(ProtocolFault(self.clock.now(), kind, message[:500], channel))

    def _flush_faults(self) -> None:
        """The faults of the turn not recorded one by one, as one event per kind with their number."""
        for kind, n in self.budgets.new_turn():
            self._emit(ProtocolFault(self.clock.now(), kind, f"{n} more {kind} faults this turn (counted, not "
                                     "recorded one by one)", "", n))

    def _budget_spent(self, what: str, detail: str) -> None:
        """A hard meeting budget is spent: the agent is ended as if it had reported a fatal error."""
        message = f"{what}: {detail} (docs/protocol.md §8)"
        logger.warning("agent passed a meeting budget: %s", message)
        self._emit(AgentReportedError(self.clock.now(), "budget_exceeded", message, None, True))
        self._agent_gone(f"agent passed a meeting budget ({what})")

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
            try:
                self._on_message(label, data)
            except WireError as exc:
                self._fault(exc.kind, str(exc), label)
        except BudgetExceeded as exc:
            self._budget_spent({"files": "file bytes", "doc": "doc bytes"}.get(label, "protocol faults"), str(exc))
        except Exception as exc:  # a bug here must not end the meeting
            logger.exception("handling a %s message", label)
            self._fault("internal_error", repr(exc), label)

    def _on_message(self, label: str, data: str | bytes) -> None:
        budgets = self.budgets
        if label == "doc":
            check_doc_message(data, MAX_DOC_MESSAGE)
            if not budgets.doc.take(len(data)):
                raise WireError("doc_budget", f"doc bytes over the turn's budget of {budgets.doc.turn_limit}")
            self._emit(AgentDocMessage(self.clock.now(), bytes(data)))  # type: ignore[arg-type]
        elif label == "files":
            if isinstance(data, str) and '"file_start"' in data:
                obj = parse_json(data, label)
                if obj["type"] == "file_start":
                    self._check_file_budget(obj)
            self._files.on_message(data)
        elif label in ("chat", "control"):
            if label == "control":
                # Every control message counts (pings, unknown and malformed ones too): per second and per meeting.
                if not budgets.control.take():
                    raise WireError("control_budget", f"more than {budgets.control.meeting_limit} control messages "
                                    "in the meeting, dropped")
                if not budgets.control_rate.take():
                    raise WireError("control_flood", "control messages over the rate limit, dropped")
            obj = parse_json(data, label)
            (self._on_chat if label == "chat" else self._on_control)(obj)
        else:
            raise WireError("unknown_channel", label[:100])

    def _check_file_budget(self, obj: dict[str, Any]) -> None:
        """Refuse a transfer past the turn's or the meeting's file budget before any byte of it is taken."""
        size = obj.get("size")
        budgets = self.budgets
        if isinstance(size, int) and not isinstance(size, bool) and 0 <= size <= self.options.max_file_size:
            budgets.file_bytes.take(size)
        if not budgets.files.take():
            raw_id = obj.get("id")
            self._reply_on_files(file_error_message(raw_id if isinstance(raw_id, str) else "", "file_budget: "
                                 f"more than {budgets.files.turn_limit} files this turn or "
                                 f"{budgets.files.meeting_limit} in the meeting"))
            raise WireError("file_budget", "a file past the turn's or the meeting's budget, refused")

    def _on_chat(self, obj: dict[str, Any]) -> None:
        text = parse_agent_chat(obj)
        if not self._chat_bucket.take():
            self._chat_dropped += 1
            if self._chat_dropped == 1 or self._chat_dropped % 100 == 0:
                self._fault("chat_flood", f"{self._chat_dropped} chat messages dropped (rate limit)", "chat")
            return
        if not self.budgets.chat.take():
            raise WireError("chat_budget", f"chat past the turn's budget of {self.budgets.chat.turn_limit} messages "
                            f"or the meeting's {self.budgets.chat.meeting_limit}, dropped")
        if len(text) > self.options.max_chat_chars:
            self._fault("oversized_chat", f"{len(text)} characters, truncated", "chat")
            text = text[: self.options.max_chat_chars]
        self._emit(AgentChat(self.clock.now(), text))

    def _on_control(self, obj: dict[str, Any]) -> None:
        message = parse_agent_control(obj, self.clock.now(), self.options.max_chat_chars)
        if isinstance(message, AgentLeaving):
            self._agent_gone("agent left")
        elif isinstance(message, AgentReportedError):
            if not self._error_bucket.take():
                self._errors_dropped += 1
                if self._errors_dropped == 1 or self._errors_dropped % 100 == 0:
                    self._fault(
                        "error_flood", f"{self._errors_dropped} error reports dropped (rate limit)", "control"
                    )
                return
            self._emit(message)
            if message.fatal:  # it stops taking part: the meeting goes on as if it had left
                self._agent_gone(f"agent reported a fatal {message.kind}")
        elif isinstance(message, AgentTranscript):
            budgets = self.budgets
            if not budgets.transcript_rate.take():
                raise WireError("transcript_flood", "transcript messages over the rate limit, dropped")
            room = budgets.transcript.room()
            if room <= 0:
                raise WireError("transcript_budget", f"transcript past the turn's {budgets.transcript.turn_limit} "
                                f"characters or the meeting's {budgets.transcript.meeting_limit}, dropped")
            text = message.text[:room]
            budgets.transcript.take(len(text))
            self._emit(AgentTranscript(message.time, text) if len(text) < len(message.text) else message)
        elif message is not None:
            self._emit(message)

    def _file_received(self, file: ReceivedFile) -> None:
        self._emit(AgentFile(self.clock.now(), file.file_id, file.name, file.media_type, file.size, file.sha256,
                             file.data, file.ok, file.reason))  # fmt: skip

    def _reply_on_files(self, message: str) -> None:
        self._send_nowait("files", message)

    async def _watchdog(self) -> None:
        while not self._gone:
            await self.clock.sleep(1.0)
            self._files.expire(self.options.file_timeout)

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

    async def play(self, pcm: bytes, speaker: str | None = None) -> Playback:
        return self.audio.play(pcm)

    def stop_playback(self) -> float:
        now = self.clock.now()
        self.audio.stop(now)
        return now

    async def send_chat(self, text: str, reply_to: str | None = None, sender: str | None = None) -> float:
        now = self.clock.now()
        await self._send("chat", persona_chat_message(text, now, reply_to, sender or "persona"))
        return now

    async def send_control(self, message: ControlMessage) -> bool:
        if isinstance(message, Caption) and not self.options.captions:
            return False
        if isinstance(message, TurnStartMarker | TurnEndMarker | TurnClosedMarker):
            self.turn_index = message.turn_index
        if isinstance(message, TurnStartMarker | MeetingEnd):
            self._flush_faults()
        raw = control_message(message, self.clock.now())
        ok = await self._send("control", raw)
        if isinstance(message, MeetingEnd):
            self._closing = True
        return ok

    async def send_doc(self, message: bytes) -> None:
        check_doc_message(message, MAX_DOC_MESSAGE)
        await self._send("doc", message)

    async def _send(self, label: str, data: str | bytes) -> bool:
        pipe = self.pipes.get(label)
        if pipe is None or self._gone:
            return False
        return await self._safe_send(pipe, data)

    async def push_file(self, name: str, data: bytes, media_type: str) -> FileOutcome:
        started = self.clock.now()
        header = await new_file_header(name, data, media_type)

        def outcome(ok: bool, reason: str) -> FileOutcome:
            return FileOutcome(header.file_id, header.name, media_type, len(data), header.sha256, ok, reason,
                               started, self.clock.now())  # fmt: skip

        if len(data) > self.options.max_file_size:
            return outcome(False, f"file too large: {len(data)} bytes (limit {self.options.max_file_size})")
        pipe = self.pipes.get("files")
        if pipe is None or self._gone:
            return outcome(False, "not connected")
        try:
            ok, reason = await self._files.push(
                pipe, header, data, self.options.file_rate, self.options.file_timeout
            )
        except Exception as exc:
            return outcome(False, f"send failed: {exc!r}")
        return outcome(ok, reason)
