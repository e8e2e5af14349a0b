"""The meeting protocol's messages, defined once for both ends (docs/protocol.md §2-5): the ``hello``, the
control and chat messages each way and the typed events they become, and the files channel's transfers
(push and receive), which follow the same rules in both directions."""

from __future__ import annotations

import asyncio
import copy
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PIL import Image

from modylbench.channels._clock import Clock, ClockTimeout, wait_for
from modylbench.channels._interface import (
    AgentDoneSignal,
    AgentReportedError,
    AgentTranscript,
    ControlMessage,
)
from modylbench.channels._wire import (
    MAX_JSON,
    PROTOCOL_VERSION,
    FileAssembler,
    FileHeader,
    Pipe,
    WireError,
    dumps,
    parse_json,
    sanitize_name,
    send_file,
    sha256_hex,
)
from modylbench.record import valid_text

logger = logging.getLogger(__name__)

# ---------------------------------------------------------------- hello (harness → agent, first message)


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


def hello_message(
    meeting_id: str, captions: bool, screen_fps: float, time: float, briefing: dict[str, Any] | None,
    room: dict[str, Any] | None = None,
) -> str:
    """The ``hello`` control message both transports send once every channel is open (docs/protocol.md §3);
    ``room`` (a multi-party meeting's people, ``room_hello``) goes in as ``hello.room``."""
    obj: dict[str, Any] = {"type": "hello", "protocol": PROTOCOL_VERSION, "meeting_id": meeting_id,
                           "captions": captions, "screen_fps": screen_fps, "time": time}  # fmt: skip
    if room is not None:
        obj["room"] = room
    if briefing is not None:
        obj["briefing"] = briefing
    return dumps(fit_briefing(obj))


def room_hello(agent_name: str, participants: list[tuple[str, str]], present: set[str]) -> dict[str, Any]:
    """``hello.room``: what the people call the agent and everyone of the meeting (name, role, whether they are in
    it at the start). The WebRTC transport adds each person's ``track`` (``room_with_tracks``)."""
    people = [{"name": name, "role": role, "present": name in present} for name, role in participants]
    return {"agent_name": agent_name, "participants": people}


def room_with_tracks(room: dict[str, Any], tracks: dict[str, str]) -> dict[str, Any]:
    """``room`` with ``participants[i].track`` set to the ``mid`` of the agent's audio transceiver that carries that
    person's own speech (``tracks``: name -> mid; docs/protocol.md §4a "Each person's own track")."""
    people = room.get("participants", [])
    return {**room, "participants": [{**p, "track": tracks[p["name"]]} if p.get("name") in tracks else p
                                     for p in people]}  # fmt: skip


@dataclass(frozen=True, slots=True)
class RoomParticipant:
    """One person of a multi-party meeting, as ``hello.room.participants[]`` lists them."""

    name: str
    role: str
    present: bool
    """In the meeting from its start (the others join later: ``ParticipantJoined``)."""
    track: str | None = None
    """The ``mid`` of your audio transceiver that carries only this person's speech (None: you offered no
    transceiver for them, or a one-to-one meeting; the mixed track carries everyone either way)."""


@dataclass(frozen=True, slots=True)
class RoomInfo:
    """``hello.room``: who is in a multi-party meeting and what they call you."""

    agent_name: str
    participants: tuple[RoomParticipant, ...]

    @classmethod
    def from_json(cls, obj: Any) -> RoomInfo | None:
        if not isinstance(obj, dict):
            return None
        people = obj.get("participants")
        out = []
        for p in people if isinstance(people, list) else ():
            if isinstance(p, dict):
                track = p.get("track")
                out.append(RoomParticipant(str(p.get("name", "")), str(p.get("role", "")), bool(p.get("present", True)),
                                           track[:64] if isinstance(track, str) else None))
        return cls(str(obj.get("agent_name", "")), tuple(out))


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


# ---------------------------------------------------------------- what the agent receives


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
    room: RoomInfo | None = None
    """The people of a multi-party meeting and what they call you (None: a one-to-one meeting)."""


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
    reply_to: str | None = None
    """The id of your question this answers (``q<turn>.<n>``); None for the persona's scripted lines."""
    speaker: str = "persona"
    """Who says it: ``persona`` (one-to-one), or the participant's name (multi-party)."""


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
    reply_to: str | None = None
    """The id of your question this answers (``q<turn>.<n>``); None otherwise."""


@dataclass(frozen=True, slots=True)
class ActiveSpeakerChanged:
    """Who is speaking now in a multi-party meeting (``speaker`` None: nobody)."""

    time: float
    speaker: str | None


@dataclass(frozen=True, slots=True)
class ParticipantJoinedReceived:
    """A person joined a multi-party meeting."""

    time: float
    name: str
    role: str


@dataclass(frozen=True, slots=True)
class ParticipantLeftReceived:
    """A person left a multi-party meeting."""

    time: float
    name: str


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
    participant: str | None = None
    """Whose own track it came from in a multi-party meeting (opt-in: ``join(..., participant_audio=True)``);
    None for the mixed track, which carries everyone."""


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
    | ActiveSpeakerChanged
    | ParticipantJoinedReceived
    | ParticipantLeftReceived
    | FileReceived
    | ScreenFrameReceived
    | DocMessageReceived
    | AudioReceived
    | Disconnected
)
"""Everything an agent receives from the meeting, in order; the last is ``Disconnected``."""

MeetingMessageEvent = (
    Hello | CaptionReceived | TurnStarted | TurnEnded | TurnClosed | MeetingEnded | ChatReceived
    | ActiveSpeakerChanged | ParticipantJoinedReceived | ParticipantLeftReceived
)
"""The events the harness's control and chat messages become."""


def _optional_time(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def parse_meeting_message(label: str, obj: dict[str, Any], now: float) -> MeetingMessageEvent | None:
    """A JSON message from the harness on ``chat`` or ``control`` as the agent's event (None: not one).

    Lenient by design: the agent takes what it can from the harness's message rather than refuse it.
    """
    kind = obj["type"]
    if label == "chat":
        reply = obj.get("reply_to")
        return ChatReceived(now, str(obj.get("sender", "persona")), str(obj.get("text", "")),
                            reply if isinstance(reply, str) else None)
    if label != "control":
        return None
    if kind == "hello":
        return Hello(now, str(obj.get("meeting_id", "")), bool(obj.get("captions", True)), obj,
                     Briefing.from_json(obj.get("briefing")), RoomInfo.from_json(obj.get("room")))  # fmt: skip
    if kind == "caption":
        return CaptionReceived(now, str(obj.get("text", "")), str(obj.get("utterance_id", "")),
                               bool(obj.get("final", True)), _optional_time(obj.get("start")),
                               _optional_time(obj.get("end")),
                               obj["reply_to"] if isinstance(obj.get("reply_to"), str) else None,
                               str(obj.get("speaker", "persona")))  # fmt: skip
    if kind == "active_speaker":
        speaker = obj.get("speaker")
        return ActiveSpeakerChanged(now, speaker if isinstance(speaker, str) else None)
    if kind == "participant_joined":
        return ParticipantJoinedReceived(now, str(obj.get("name", "")), str(obj.get("role", "")))
    if kind == "participant_left":
        return ParticipantLeftReceived(now, str(obj.get("name", "")))
    if kind == "turn_start":
        return TurnStarted(now, int(obj.get("turn_index", 0)), str(obj.get("phase", "")))
    if kind == "turn_end":
        return TurnEnded(now, int(obj.get("turn_index", 0)), str(obj.get("reason", "")))
    if kind == "turn_closed":
        return TurnClosed(now, int(obj.get("turn_index", 0)), str(obj.get("reason", "")))
    if kind == "meeting_end":
        return MeetingEnded(now, str(obj.get("reason", "")))
    return None


# ---------------------------------------------------------------- messages each way on control and chat


def control_message(message: ControlMessage, time: float) -> str:
    """A harness control message stamped with the meeting time; ValueError if over the JSON limit."""
    obj = message.to_json()
    obj["time"] = time
    raw = dumps(obj)
    if len(raw) > MAX_JSON:
        raise ValueError(f"control message of {len(raw)} characters exceeds {MAX_JSON}")
    return raw


def persona_chat_message(text: str, time: float, reply_to: str | None = None, sender: str = "persona") -> str:
    """A chat message from the persona (harness → agent); ``reply_to`` names the agent's question it answers,
    ``sender`` the participant who posts it in a multi-party meeting."""
    obj: dict[str, Any] = {"type": "chat", "sender": sender, "text": text, "time": time}
    if reply_to is not None:
        obj["reply_to"] = reply_to
    return dumps(obj)


def agent_chat_message(text: str) -> str:
    """A chat message from the agent (agent → harness)."""
    return dumps({"type": "chat", "text": text})


def done_message(turn_index: int | None) -> str:
    """The agent's "my answer to this turn is complete"."""
    return dumps({"type": "done", "turn_index": turn_index})


def transcript_message(text: str) -> str:
    """What the agent is saying on its audio track."""
    return dumps({"type": "transcript", "text": text})


AGENT_REPORTED_ERROR_KINDS: tuple[str, ...] = ("model_error", "empty_answer", "crash")
"""The ``agent_error`` kinds (of the record's ``AGENT_ERROR_KINDS``) an agent may report itself (control
``error``); ``exited`` and ``no_join`` are what the harness sees of a command, never what a connected agent says."""
MAX_ERROR_MESSAGE = 2_000
"""Characters of a reported error's ``message`` kept (after ``valid_text``); the rest is cut."""
MAX_ERROR_TRACEBACK = 20_000
"""Characters of a reported error's ``traceback`` kept (its last ones, where the exception is)."""


def error_message(kind: str, message: str, traceback: str | None = None, fatal: bool = False) -> str:
    """The agent's "I failed" (agent → harness), recorded as an ``agent_error`` event."""
    obj: dict[str, Any] = {
        "type": "error",
        "kind": kind,
        "message": message[:MAX_ERROR_MESSAGE],
        "fatal": fatal,
    }
    if traceback:
        obj["traceback"] = traceback[-MAX_ERROR_TRACEBACK:]
    return dumps(obj)


BYE_MESSAGE = dumps({"type": "bye"})
"""The agent is leaving."""


@dataclass(frozen=True, slots=True)
class AgentLeaving:
    """The agent said ``bye`` on control."""

    time: float


def parse_agent_chat(obj: dict[str, Any]) -> str:
    """The text of a chat message from the agent, or ``WireError``."""
    text = obj.get("text")
    if obj["type"] != "chat" or not isinstance(text, str):
        raise WireError("malformed_message", "chat: expected {type: 'chat', text: string}")
    return text


def _parse_agent_error(obj: dict[str, Any], now: float) -> AgentReportedError:
    """An ``error`` message: ``kind`` from ``AGENT_REPORTED_ERROR_KINDS``, strings cut to their bounds."""
    kind, message, fatal = obj.get("kind"), obj.get("message", ""), obj.get("fatal", False)
    tb = obj.get("traceback")
    if kind not in AGENT_REPORTED_ERROR_KINDS:
        raise WireError("unknown_error_kind",
                        f"error: kind {str(kind)[:50]!r} is not one of {', '.join(AGENT_REPORTED_ERROR_KINDS)}")  # fmt: skip
    if not isinstance(message, str) or not (tb is None or isinstance(tb, str)) or not isinstance(fatal, bool):
        raise WireError("malformed_message", "error: message and traceback must be strings, fatal a boolean")
    return AgentReportedError(now, str(kind), valid_text(message)[:MAX_ERROR_MESSAGE],
                              valid_text(tb)[-MAX_ERROR_TRACEBACK:] if tb else None, fatal)  # fmt: skip


def parse_agent_control(
    obj: dict[str, Any], now: float, max_chars: int
) -> AgentDoneSignal | AgentTranscript | AgentReportedError | AgentLeaving | None:
    """A control message from the agent (None for ``ping``); ``WireError`` for an unknown or malformed one."""
    kind = obj["type"]
    if kind == "error":
        return _parse_agent_error(obj, now)
    if kind == "done":
        ti = obj.get("turn_index")
        return AgentDoneSignal(now, ti if isinstance(ti, int) and not isinstance(ti, bool) else None)
    if kind == "transcript":
        text = obj.get("text")
        if not isinstance(text, str):
            raise WireError("malformed_message", "transcript: text must be a string")
        return AgentTranscript(now, text[:max_chars])
    if kind == "bye":
        return AgentLeaving(now)
    if kind == "ping":
        return None
    raise WireError("unknown_control", f"unknown control type {str(kind)[:50]!r}")


# ---------------------------------------------------------------- the files channel, either way


@dataclass(frozen=True, slots=True)
class ReceivedFile:
    """How an incoming transfer ended: verified (``ok``), or refused or failed (``data`` is then empty)."""

    file_id: str
    name: str
    media_type: str
    size: int
    sha256: str
    data: bytes | bytearray
    """The file as assembled (not copied on the event loop)."""
    ok: bool
    reason: str = ""

    @classmethod
    def refused(cls, obj: dict[str, Any], reason: str) -> ReceivedFile:
        """A ``file_start`` that was refused, described from what it claimed (sanitised and bounded)."""
        size = obj.get("size")
        return cls(str(obj.get("id", ""))[:64], sanitize_name(str(obj.get("name", ""))[:1000]),
                   str(obj.get("media_type", ""))[:255], size if isinstance(size, int) and size >= 0 else 0,
                   str(obj.get("sha256", ""))[:64], b"", False, reason)  # fmt: skip

    @classmethod
    def failed(cls, header: FileHeader, reason: str) -> ReceivedFile:
        return cls(
            header.file_id, header.name, header.media_type, header.size, header.sha256, b"", False, reason
        )


def file_error_message(file_id: str, reason: str) -> str:
    return dumps({"type": "file_error", "id": file_id, "reason": reason})


async def new_file_header(name: str, data: bytes, media_type: str) -> FileHeader:
    """The ``file_start`` header of a new outgoing transfer (fresh id, sanitised name, sha256)."""
    return FileHeader(
        secrets.token_hex(8), sanitize_name(name), media_type, len(data), await sha256_hex(data)
    )


class FileTransfers:
    """One end's files channel (docs/protocol.md §5): incoming transfers are assembled, verified and answered
    with ``file_ack`` or ``file_error``, and outgoing pushes wait for the other end's answer.

    ``reply`` sends a JSON message back on the files channel without waiting; ``received`` gets every
    incoming transfer that ended, verified or not.
    """

    def __init__(
        self,
        clock: Clock,
        max_size: int,
        reply: Callable[[str], None],
        received: Callable[[ReceivedFile], None],
    ) -> None:
        self.clock = clock
        self._assembler = FileAssembler(max_size)
        self._reply = reply
        self._received = received
        self._pushes: dict[str, asyncio.Future[tuple[bool, str]]] = {}

    # ---------------------------------------------------------------- receiving

    def on_message(self, data: str | bytes) -> None:
        """One message on the files channel; ``WireError`` when it breaks the protocol."""
        now = self.clock.now()
        if isinstance(data, bytes):
            try:
                self._assembler.chunk(data, now)
            except WireError as exc:
                if exc.file_id:  # an overrun ends that transfer at once, and its sender hears why
                    self._reply(file_error_message(exc.file_id, str(exc)))
                raise
            return
        obj = parse_json(data, "files")
        kind = obj["type"]
        if kind == "file_start":
            try:
                self._assembler.start(obj, now)
            except WireError as exc:
                raw_id = obj.get("id")
                self._reply(file_error_message(raw_id if isinstance(raw_id, str) else "", str(exc)))
                self._received(ReceivedFile.refused(obj, exc.kind + ": " + str(exc)))
        elif kind == "file_end":
            header, content, reason = self._assembler.end(obj.get("id"))
            if reason:
                self._reply(file_error_message(header.file_id, reason))
            else:
                self._reply(dumps({"type": "file_ack", "id": header.file_id, "sha256": header.sha256}))
            self._received(ReceivedFile(header.file_id, header.name, header.media_type, header.size,
                                        header.sha256, content, not reason, reason))  # fmt: skip
        elif kind in ("file_ack", "file_error"):
            fut = self._pushes.get(str(obj.get("id")))
            if fut is not None and not fut.done():
                fut.set_result((kind == "file_ack", str(obj.get("reason", ""))[:500]))
        else:
            raise WireError("unknown_file_message", f"unknown files type {str(kind)[:50]!r}")

    def expire(self, timeout: float) -> None:
        """Abandon incoming transfers idle for ``timeout`` seconds (``file_error`` ``unfinished``)."""
        for header in self._assembler.expire(self.clock.now(), timeout):
            reason = f"unfinished: no data for {timeout:g} s"
            self._reply(file_error_message(header.file_id, reason))
            self._received(ReceivedFile.failed(header, reason))

    # ---------------------------------------------------------------- sending

    async def push(
        self, pipe: Pipe, header: FileHeader, data: bytes, rate: float, timeout: float
    ) -> tuple[bool, str]:
        """Send a file on ``pipe`` and wait for the other end's verdict: (verified, reason if not).

        Raises what sending raises; no answer within ``timeout`` seconds is a failure.
        """
        fut: asyncio.Future[tuple[bool, str]] = asyncio.get_running_loop().create_future()
        self._pushes[header.file_id] = fut
        try:
            await send_file(pipe, self.clock, header, data, rate)
            try:
                return await wait_for(self.clock, asyncio.shield(fut), timeout)
            except ClockTimeout:
                return False, f"no acknowledgement within {timeout:g} s"
        finally:
            self._pushes.pop(header.file_id, None)

    def abort(self, reason: str) -> None:
        """The other end is gone: every push still waiting fails with ``reason``."""
        for fut in self._pushes.values():
            if not fut.done():
                fut.set_result((False, reason))
