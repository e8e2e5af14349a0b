"""The harness-side channel interface (``MeetingLink``) and the events the agent produces on it.

Both transports implement it: ``WebRTCMeeting`` (aiortc, real media) and ``InProcessMeeting`` (in-memory
queues, usually on a ``VirtualClock``). The simulator drives only this interface, so a run over either
produces records of the same shape. All times are seconds on the link's injected clock (the meeting clock).

Harness → agent: ``play`` PCM (48 kHz mono s16) on the audio track, ``stop_playback`` (barge-in), ``show`` a
PIL image on the screen share, ``send_chat``, ``send_control`` (turn markers, captions, meeting end),
``push_file`` (returns the verified outcome), ``send_doc`` (a raw Yjs sync message).
Agent → harness: ``events()`` yields ``AgentEvent`` values: chat, files (verified), ``done``, transcripts,
doc messages, speech onset/offset (voice-activity detection, corrected for receive buffering), the received
audio itself, its own reports of failure, protocol faults, and finally ``AgentDisconnected``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NotRequired, Protocol, TypedDict, runtime_checkable

from modylbench.channels._network import NetworkProfile
from modylbench.channels._wire import FILE_RATE, MAX_FILE_SIZE

if TYPE_CHECKING:
    from PIL import Image

    from modylbench.channels._clock import Clock
    from modylbench.channels._encoded import EncodedSpeech

logger = logging.getLogger(__name__)

SAMPLE_RATE = 48_000
"""Audio sample rate on both tracks (Hz); mono, signed 16-bit little-endian."""
FRAME_SAMPLES = 960
"""Samples per 20 ms audio frame."""
FRAME_SECONDS = FRAME_SAMPLES / SAMPLE_RATE
FRAME_BYTES = FRAME_SAMPLES * 2

# ---------------------------------------------------------------- harness → agent control messages


@dataclass(frozen=True, slots=True)
class TurnStartMarker:
    """The persona opens turn ``turn_index``."""

    turn_index: int
    phase: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"type": "turn_start", "turn_index": self.turn_index, "phase": self.phase}


@dataclass(frozen=True, slots=True)
class TurnEndMarker:
    """The persona has finished speaking, showing and sending in turn ``turn_index``: the floor is the agent's.

    ``reason`` is always empty in protocol 1 (kept for compatibility); ``TurnClosedMarker`` says when and
    why the agent's window closed."""

    turn_index: int
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"type": "turn_end", "turn_index": self.turn_index, "reason": self.reason}


TURN_CLOSED_REASONS = ("agent_done", "silence", "budget", "barge_in")
"""Why the agent's window in a turn closed (``turn_closed.reason``, docs/protocol.md §3)."""


@dataclass(frozen=True, slots=True)
class TurnClosedMarker:
    """The agent's window in turn ``turn_index`` closed, and why (one of ``TURN_CLOSED_REASONS``)."""

    turn_index: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "turn_closed", "turn_index": self.turn_index, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Caption:
    """Text of what the persona says (or said), for text-only agents. ``final`` is False for a partial."""

    text: str
    utterance_id: str = ""
    start: float | None = None
    end: float | None = None
    final: bool = True
    reply_to: str | None = None
    """The agent's question this utterance answers (docs/protocol.md "Asking the persona"); None: scripted."""
    speaker: str = "persona"
    """Who says it: ``persona`` in a one-to-one meeting, the participant's name in a multi-party one."""

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {
            "type": "caption",
            "speaker": self.speaker,
            "text": self.text,
            "utterance_id": self.utterance_id,
            "start": self.start,
            "end": self.end,
            "final": self.final,
        }
        if self.reply_to is not None:
            obj["reply_to"] = self.reply_to
        return obj


@dataclass(frozen=True, slots=True)
class MeetingEnd:
    """The meeting is over; the link closes after sending this."""

    reason: str = "completed"

    def to_json(self) -> dict[str, Any]:
        return {"type": "meeting_end", "reason": self.reason}


@dataclass(frozen=True, slots=True)
class ActiveSpeaker:
    """Who is speaking now in a multi-party meeting (``speaker`` None: nobody), as an SFU's active-speaker event."""

    speaker: str | None

    def to_json(self) -> dict[str, Any]:
        return {"type": "active_speaker", "speaker": self.speaker}


@dataclass(frozen=True, slots=True)
class ParticipantJoined:
    """A person joined the meeting (multi-party meetings; the ones there from the start are in ``hello``)."""

    name: str
    role: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "participant_joined", "name": self.name, "role": self.role}


@dataclass(frozen=True, slots=True)
class ParticipantLeft:
    """A person left the meeting (multi-party meetings)."""

    name: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "participant_left", "name": self.name}


ControlMessage = (
    TurnStartMarker | TurnEndMarker | TurnClosedMarker | Caption | MeetingEnd | ActiveSpeaker | ParticipantJoined
    | ParticipantLeft
)

# ---------------------------------------------------------------- playback and file outcomes


@dataclass(eq=False)
class Playback:
    """One ``play`` call: when its first and last samples went out on the audio track (meeting clock).

    ``started`` resolves with the time of the frame carrying the first sample; ``ended`` with the time the
    last sample finished (or when it was cut). ``cut`` is True when ``stop_playback`` interrupted it.
    """

    duration: float
    started: asyncio.Future[float]
    ended: asyncio.Future[float]
    cut: bool = False


@dataclass(frozen=True, slots=True)
class FileOutcome:
    """How a ``push_file`` ended: ``ok`` only once the agent acknowledged the sha256."""

    file_id: str
    name: str
    media_type: str
    size: int
    sha256: str
    ok: bool
    reason: str = ""
    started: float = 0.0
    finished: float = 0.0


# ---------------------------------------------------------------- media pacing


@dataclass
class PacingStats:
    """How well a paced media stream kept its schedule (seconds)."""

    frames: int = 0
    late_frames: int = 0
    max_late: float = 0.0
    late_threshold: float = 0.020

    def record(self, late: float) -> None:
        """One frame went out ``late`` seconds after its slot."""
        self.frames += 1
        self.max_late = max(self.max_late, late)
        if late > self.late_threshold:
            self.late_frames += 1


class MediaStats(TypedDict):
    """How well the persona's media kept its schedule in one meeting (the manifest's ``media``)."""

    audio_frames_sent: int
    audio_frames_late_20ms: int
    """Persona audio frames sent more than 20 ms after their slot."""
    audio_max_late_ms: float
    screen_changes: int
    """Pictures put on the screen share."""
    screen_frames_sent: NotRequired[int]
    """Video frames sent (WebRTC only: in process a picture is handed over when it changes)."""
    person_audio: NotRequired[dict[str, dict[str, float]]]
    """Each participant's own audio track (WebRTC, multi-party, when the agent took them), by name: its
    ``audio_frames_sent``, ``audio_frames_late_20ms`` and ``audio_max_late_ms``."""


def media_stats(audio: PacingStats, screen_changes: int, screen: PacingStats | None = None) -> MediaStats:
    """The ``MediaStats`` of a link from its audio pacing, its screen changes and (if paced) its screen frames."""
    out = MediaStats(audio_frames_sent=audio.frames, audio_frames_late_20ms=audio.late_frames,
                     audio_max_late_ms=round(audio.max_late * 1000, 3), screen_changes=screen_changes)  # fmt: skip
    if screen is not None:
        out["screen_frames_sent"] = screen.frames
    return out


# ---------------------------------------------------------------- agent → harness events


@dataclass(frozen=True, slots=True)
class AgentChat:
    """The agent posted a chat message."""

    time: float
    text: str


@dataclass(frozen=True, slots=True)
class AgentFile:
    """A file from the agent. ``ok`` False: refused or failed verification (``data`` is then empty)."""

    time: float
    file_id: str
    name: str
    media_type: str
    size: int
    sha256: str
    data: bytes | bytearray
    """The received file as assembled (not copied on the event loop)."""
    ok: bool
    reason: str = ""


@dataclass(frozen=True, slots=True)
class AgentDoneSignal:
    """The agent said it is done with the current turn."""

    time: float
    turn_index: int | None = None


@dataclass(frozen=True, slots=True)
class AgentTranscript:
    """Text the agent says it spoke (sent with ``say``); pairs with the speech found on its audio."""

    time: float
    text: str


@dataclass(frozen=True, slots=True)
class AgentDocMessage:
    """A raw Yjs sync-protocol message from the agent (y-protocols framing, see docs/protocol.md)."""

    time: float
    data: bytes


@dataclass(frozen=True, slots=True)
class AgentSpeechOnset:
    """Voice activity began on the agent's audio at ``time`` (when it was sent, receive buffering removed)."""

    time: float


@dataclass(frozen=True, slots=True)
class AgentSpeechOffset:
    """Voice activity ended at ``time`` (end of the last voiced frame); ``onset`` repeats the matching onset."""

    time: float
    onset: float


@dataclass(frozen=True, slots=True)
class AgentAudio:
    """A chunk of the agent's received audio: 48 kHz mono s16, first sample at ``time`` (corrected)."""

    time: float
    pcm: bytes


@dataclass(frozen=True, slots=True)
class ProtocolFault:
    """The agent sent something invalid (oversized, malformed, flood); it was dropped and the meeting goes on."""

    time: float
    kind: str
    message: str
    channel: str = ""
    count: int = 1
    """How many faults of this kind it stands for (repeats are recorded once per kind and turn)."""


@dataclass(frozen=True, slots=True)
class AgentReportedError:
    """The agent said it failed (control ``error``, docs/protocol.md §3): its model was unreachable, answered
    nothing, or its own code failed. ``fatal``: it stops taking part, and the link treats it as gone."""

    time: float
    kind: str
    """One of ``AGENT_REPORTED_ERROR_KINDS``."""
    message: str
    traceback: str | None = None
    fatal: bool = False


@dataclass(frozen=True, slots=True)
class AgentDisconnected:
    """The agent is gone (closed, vanished, or the meeting ended). Always the last event."""

    time: float
    reason: str


AgentEvent = (
    AgentChat
    | AgentFile
    | AgentDoneSignal
    | AgentTranscript
    | AgentDocMessage
    | AgentSpeechOnset
    | AgentSpeechOffset
    | AgentAudio
    | ProtocolFault
    | AgentReportedError
    | AgentDisconnected
)


@dataclass(frozen=True, slots=True)
class LinkOptions:
    """Knobs shared by both transports."""

    captions: bool = True
    """Send captions on the control channel; off forces agents to listen to the audio."""
    screen_fps: float = 2.0
    """Screen-share frame rate (1–5 fps)."""
    screen_size: tuple[int, int] = (1280, 720)
    max_file_size: int = MAX_FILE_SIZE
    """Largest file accepted or pushed, in bytes."""
    max_chat_chars: int = 8_000
    chat_rate: float = 5.0
    """Chat messages per second the agent may sustain (token bucket); the excess is dropped and reported."""
    chat_burst: int = 20
    error_rate: float = 1.0
    """``error`` control messages per second the agent may sustain (token bucket, bursts of ``error_burst``);
    the excess is dropped and reported as ``error_flood``, so an agent cannot flood the record."""
    error_burst: int = 10
    event_queue: int = 4096
    """Bound on undelivered agent events; audio chunks are dropped first when it is full."""
    connect_timeout: float = 10.0
    file_timeout: float = 60.0
    """A file whose chunks stop arriving for this long is abandoned."""
    vad_threshold_db: float = -45.0
    """Frame RMS (dBFS) above which a frame counts as voiced."""
    vad_hangover: float = 0.3
    """Silence (s) that ends a speech segment."""
    file_rate: float = FILE_RATE
    """Pacing of each file the persona pushes (bytes/s); WebRTC meetings of one process also share a budget."""
    network: NetworkProfile | None = None
    """What the network does to the meeting's packets (WebRTC only; docs/network.md); None: nothing."""
    network_seed: int = 0
    """Seed of the network's random decisions (the session's seed): the same seed, the same fates."""


@runtime_checkable
class MeetingLink(Protocol):
    """What the simulator drives: one connected agent, seen from the persona's side."""

    transport: Literal["webrtc", "inproc"]
    options: LinkOptions
    briefing: dict[str, Any] | None
    """Sent to the agent as ``hello.briefing`` when it joins (docs/protocol.md); set it before then."""
    room: dict[str, Any] | None
    """Sent as ``hello.room`` in a multi-party meeting (docs/protocol.md "Several people"); None one-to-one."""

    @property
    def clock(self) -> Clock:
        """The meeting clock (time zero at the agent's join); read-only for the simulator."""
        ...

    async def wait_connected(self) -> float:
        """Wait until the agent has joined and every channel is open; returns the connect time (s)."""
        ...

    async def play(self, pcm: bytes, speaker: str | None = None) -> Playback:
        """Queue PCM (48 kHz mono s16) behind anything already playing; returns at once with its Playback.
        ``speaker``: who says it in a multi-party meeting (over WebRTC it also goes on that person's own track,
        when the agent took one); the mixed track's Playback is returned either way."""
        ...

    def stop_playback(self) -> float:
        """Cut current and queued speech (barge-in); returns the meeting time of the cut."""
        ...

    def prepare_screen(self, image: Image.Image) -> None:
        """Do the expensive part of showing ``image`` now, before the meeting (optional; the same object
        must be passed to ``show`` later)."""
        ...

    def prepare_speech(self, pcm: bytes, encoded: EncodedSpeech | None = None) -> None:
        """Encode ``pcm`` now, before the meeting, for a transport that sends encoded audio (optional: speech
        played unprepared is encoded as it goes); ``encoded`` is its packets from a cache, if any."""
        ...

    async def show(self, image: Image.Image) -> float:
        """Put ``image`` on the screen share from the next frame on; returns the meeting time it was taken."""
        ...

    async def send_chat(self, text: str, reply_to: str | None = None, sender: str | None = None) -> float:
        """Post a chat message as the persona (``reply_to``: the agent's question it answers; ``sender``: the
        participant's name in a multi-party meeting, else ``persona``); returns the meeting time sent."""
        ...

    async def send_control(self, message: ControlMessage) -> bool:
        """Send a control message; False if it was not sent (a caption with captions off, or link closed)."""
        ...

    async def push_file(self, name: str, data: bytes, media_type: str) -> FileOutcome:
        """Send a file and wait for the agent's verification (or failure / timeout)."""
        ...

    async def send_doc(self, message: bytes) -> None:
        """Send one raw Yjs sync-protocol message on the doc channel."""
        ...

    def events(self) -> AsyncIterator[AgentEvent]:
        """What the agent does, in order; ends after ``AgentDisconnected``. Iterate from one consumer only."""
        ...

    def media_stats(self) -> MediaStats:
        """How well the persona's audio and screen share kept their schedule so far."""
        ...

    async def close(self, reason: str = "completed") -> None:
        """End the meeting (sends ``MeetingEnd`` if still connected) and release everything."""
        ...
