"""Typed events of a session record (docs/architecture.md): one pydantic model per event, discriminated by ``event``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

Participant = Literal["persona", "agent", "harness", "observer"]
ErrorSource = Literal["agent", "persona", "infrastructure", "judge"]

TerminationReason = Literal[
    "completed",
    "max_turns",
    "timeout",
    "agent_disconnected",
    "agent_error",
    "persona_error",
    "infrastructure_error",
    "interrupted",
]
TERMINATION_REASONS: tuple[str, ...] = TerminationReason.__args__  # type: ignore[attr-defined]

TurnEndReason = Literal["agent_done", "silence", "budget", "barge_in", "meeting_end"]


def valid_text(text: str) -> str:
    """``text`` as valid Unicode: lone UTF-16 surrogates (from a JSON ``\\ud800`` escape, say) become U+FFFD.

    Such strings cannot be encoded as UTF-8, so they would break a hash, a record line or a report;
    surrogate pairs split across code points are joined back into the character they encode.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


class _RecordModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Every event is built through here, so this is where text from outside (an agent's transcript,
    # chat, a file name, a close reason) is made valid before it can reach the record, a hash or a report.
    @model_validator(mode="before")
    @classmethod
    def _valid_text(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {k: valid_text(v) if isinstance(v, str) else v for k, v in data.items()}
        return data


class Attachment(_RecordModel):
    """Large media kept beside the record, addressed by content hash (``attachments/<sha256>``)."""

    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="Hex SHA-256 of the bytes; also the file name.")
    size: int = Field(ge=0, description="Size in bytes.")
    media_type: str = Field(description="IANA media type of the bytes.")


class _Event(_RecordModel):

    wall_time: float = Field(description="Unix time (seconds) when the event was recorded.")
    meeting_time: float = Field(description="Seconds since the meeting started, on the meeting clock.")
    turn_index: int | None = Field(default=None, description="Turn in progress, if any.")


class SessionStart(_Event):
    """The meeting began."""

    event: Literal["session_start"] = "session_start"
    scenario_id: str = Field(description="Scenario played.")
    scenario_hash: str = Field(description="SHA-256 of the scenario's canonical JSON.")
    agent: str = Field(description="Agent under test (name or model id).")
    transport: Literal["webrtc", "inproc"] = Field(description="How the agent was connected.")
    turns_planned: int = Field(ge=0, description="Number of turns the persona will play.")
    scenario_seed: int = Field(
        default=0, ge=0, description="Instance of a built-in scenario played (--seed; 0 the published data)."
    )
    persona_challenges: bool = Field(
        default=False,
        description="The persona challenges wrong figures in this meeting (persona_challenge events; absent in "
        "records made before it could).",
    )


class TurnStart(_Event):
    """The persona starts a turn."""

    event: Literal["turn_start"] = "turn_start"
    phase: str = Field(description="Phase of the turn.")
    channel: str = Field(description="Main channel of the turn.")


class PersonaUtterance(_Event):
    """The persona spoke (audio track and caption)."""

    event: Literal["persona_utterance"] = "persona_utterance"
    text: str = Field(description="What was said.")
    start: float = Field(description="Meeting time the speech started.")
    end: float = Field(description="Meeting time the speech ended (or was cut).")
    audio: Attachment | None = Field(default=None, description="The synthesised audio (WAV).")
    captioned: bool = Field(default=True, description="Whether a caption was sent on the control channel.")
    speaker: str | None = Field(
        default=None, description="Participant who said it (multi-party meetings); None: the persona of a one-to-one."
    )
    addressed_to: str | None = Field(
        default=None, description="Who the line was for, as the script says (multi-party meetings: 'agent', 'room' "
        "or a participant's name); None: the agent (one-to-one). Never sent to the agent."
    )


class PersonaBackchannel(_Event):
    """The persona murmured a backchannel ("mm-hm") while the agent spoke: audio only, not a turn."""

    event: Literal["persona_backchannel"] = "persona_backchannel"
    text: str = Field(description="What was murmured.")
    start: float = Field(description="Meeting time it started.")
    end: float = Field(description="Meeting time it ended.")
    audio: Attachment | None = Field(default=None, description="The synthesised audio (WAV).")


class PersonaAside(_Event):
    """The persona said something to someone else (non-directed speech): audio only, no caption."""

    event: Literal["persona_aside"] = "persona_aside"
    text: str = Field(description="What was said.")
    to: str = Field(description="Who it was said to.")
    start: float = Field(description="Meeting time it started.")
    end: float = Field(description="Meeting time it ended.")
    audio: Attachment | None = Field(default=None, description="The synthesised audio (WAV).")


class AgentSpeech(_Event):
    """A segment of the agent's speech, found by voice-activity detection on its audio track."""

    event: Literal["agent_speech"] = "agent_speech"
    onset: float = Field(description="Meeting time speech began (corrected for receive buffering).")
    offset: float = Field(description="Meeting time speech ended.")
    transcript: str | None = Field(default=None, description="Transcript the agent sent with its speech, if any.")
    audio: Attachment | None = Field(default=None, description="The received audio of the segment (WAV).")


class AgentSpeechRecognised(_Event):
    """What speech recognition heard in one agent speech segment (``--asr``; docs/scoring.md)."""

    event: Literal["agent_speech_recognised"] = "agent_speech_recognised"
    segment: int = Field(ge=0, description="The segment: 0 for the record's first agent_speech event, 1 for the next...")
    audio_sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="SHA-256 of the segment's audio that was recognised.")
    text: str = Field(description="The recognised text.")
    model: str = Field(description="The recogniser, as given to --asr (openai/MODEL[@BASE_URL]).")


class AgentSpeechUnrecognised(_Event):
    """A segment speech recognition could not hear (server down, slow, 429, garbage): the reason, never a guess."""

    event: Literal["agent_speech_unrecognised"] = "agent_speech_unrecognised"
    segment: int = Field(ge=0, description="The segment: 0 for the record's first agent_speech event, 1 for the next...")
    audio_sha256: str | None = Field(default=None, description="SHA-256 of the segment's audio, when it had any.")
    model: str = Field(description="The recogniser, as given to --asr.")
    reason: str = Field(description="Why nothing was recognised (after the judge's retries).")


class ChatMessage(_Event):
    """A chat message on the chat data channel."""

    event: Literal["chat_message"] = "chat_message"
    sender: Participant = Field(description="Who posted it.")
    text: str = Field(description="Message text.")
    speaker: str | None = Field(
        default=None, description="Participant who posted it (multi-party meetings, sender persona); None otherwise."
    )


QuestionOutcome = Literal["answered", "unknown", "deliverable", "offer", "not_addressed", "over_limit"]


class QuestionAsked(_Event):
    """The agent asked the persona something (a question in its speech or chat, docs/protocol.md)."""

    event: Literal["question_asked"] = "question_asked"
    question_id: str = Field(description="q<turn>.<n>: the answer's reply_to names it.")
    text: str = Field(description="The question as the agent said or posted it.")
    channel: Literal["audio", "chat"] = Field(description="audio: in its speech (transcript); chat: posted.")
    asked_at: float = Field(
        description="Meeting time the persona heard it: its transcript arrived (audio) or it was posted (chat)."
    )
    outcome: QuestionOutcome = Field(
        description="answered (from knowledge), unknown, deliverable (the agent's own work), offer (a go-ahead "
        "question the persona lets pass), not_addressed (for someone else), over_limit (the turn's answers used up)."
    )


class PersonaAnswer(_Event):
    """The persona answered the agent's question: in its voice with a caption, or in chat."""

    event: Literal["persona_answer"] = "persona_answer"
    question_id: str = Field(description="The question answered.")
    text: str = Field(description="What the persona said or posted.")
    channel: Literal["audio", "chat"] = Field(description="How the answer went out.")
    start: float = Field(description="Meeting time the answer started (spoken) or was posted.")
    end: float = Field(description="Meeting time it ended (spoken) or was posted.")
    audio: Attachment | None = Field(default=None, description="The synthesised answer (WAV), on audio.")
    knowledge: list[str] = Field(default_factory=list, description="Ids of the knowledge items the answer gives.")
    outcome: Literal["answered", "unknown", "deliverable"] = Field(description="What kind of answer it is.")
    answerer: str = Field(default="offline", description="Who composed it: offline (deterministic) or the LLM's id.")
    replaced: str = Field(
        default="",
        description="With --persona-llm: why the model's answer was not said and the offline answer was instead "
        "(a figure the persona does not know, an expected output, a withheld fact not asked for, the call "
        "failed); '' when nothing was replaced.",
    )
    rejected: str = Field(default="", description="The model's answer that was not said (when replaced after a check).")


class PersonaChallenge(_Event):
    """The persona challenged a wrong figure the agent gave for a designated fact (docs/scoring.md "Pushback"),
    at the start of the next turn, in its voice with a caption or in chat; recorded when that turn closes, with
    how the agent answered it there. ``turn_index`` is the turn it was raised in."""

    event: Literal["persona_challenge"] = "persona_challenge"
    challenge_id: str = Field(description="c<turn>.<n>: the caption's or chat message's id.")
    fact_id: str = Field(description="The expected fact challenged (``pushback: true``).")
    fact_turn: int = Field(ge=0, description="The turn the fact and the wrong figure belong to.")
    figure: str = Field(description="The agent's figure, as it said it.")
    text: str = Field(description="What the persona said or posted.")
    channel: Literal["audio", "chat"] = Field(description="How the challenge went out.")
    start: float = Field(description="Meeting time the challenge started (spoken) or was posted.")
    end: float = Field(description="Meeting time it ended (spoken) or was posted.")
    audio: Attachment | None = Field(default=None, description="The synthesised challenge (WAV), on audio.")
    outcome: Literal["corrected", "defended", "not_answered"] = Field(
        description="How the agent answered it in this turn (its words up to the turn's close): corrected (it "
        "stated the value), defended (a wrong figure for it again) or not_answered."
    )


class FileTransfer(_Event):
    """A file that crossed the files data channel, verified against its sha256."""

    event: Literal["file_transfer"] = "file_transfer"
    direction: Literal["to_agent", "from_agent"] = Field(description="Who sent it.")
    file_id: str = Field(description="Transfer id from the header.")
    name: str = Field(description="Sanitised file name.")
    media_type: str = Field(description="Declared media type.")
    size: int = Field(ge=0, description="Size in bytes.")
    sha256: str = Field(description="Hex SHA-256 of the content.")
    ok: bool = Field(default=True, description="False when the transfer was refused or failed verification.")
    reason: str = Field(default="", description="Why it failed, when it did.")
    attachment: Attachment | None = Field(default=None, description="Stored content, when ok.")


class ScreenFrame(_Event):
    """The screen share switched to a new picture."""

    event: Literal["screen_frame"] = "screen_frame"
    slide_id: str = Field(description="Slide shown.")
    title: str = Field(default="", description="Slide title.")
    image: Attachment | None = Field(default=None, description="The rendered frame (PNG).")


class DocUpdate(_Event):
    """A Yjs update applied to the shared document."""

    event: Literal["doc_update"] = "doc_update"
    origin: Participant = Field(description="Participant the update came from.")
    update: str = Field(description="The Yjs v1 update bytes, base64.")
    size: int = Field(ge=0, description="Size of the update in bytes.")


class DocUpdateRejected(_Event):
    """An update that failed validation or application; the document was left as it was."""

    event: Literal["doc_update_rejected"] = "doc_update_rejected"
    origin: Participant = Field(description="Participant the update came from.")
    size: int = Field(ge=0, description="Size of the update in bytes.")
    reason: str = Field(description="Why it was rejected.")


class DocSnapshot(_Event):
    """A full state of the shared document, stored periodically so replay need not merge everything."""

    event: Literal["doc_snapshot"] = "doc_snapshot"
    state: str = Field(description="Yjs v1 state as an update (base64), equivalent to all updates so far.")
    updates_so_far: int = Field(ge=0, description="Number of doc_update events this state includes.")


class AgentDone(_Event):
    """The agent signalled it is done with the turn."""

    event: Literal["agent_done"] = "agent_done"


class Interruption(_Event):
    """Someone spoke over someone else."""

    event: Literal["interruption"] = "interruption"
    by: Participant = Field(description="Who interrupted.")
    kind: Literal["barge_in", "overlap"] = Field(description="barge_in: persona cut the agent; overlap: agent over persona.")


class TurnEnd(_Event):
    """The persona closed a turn."""

    event: Literal["turn_end"] = "turn_end"
    reason: TurnEndReason = Field(description="Why the turn ended.")


class ErrorEvent(_Event):
    """Something went wrong; attributed to whoever caused it."""

    event: Literal["error"] = "error"
    source: ErrorSource = Field(description="Whose fault it was.")
    kind: str = Field(description="Machine-readable kind, e.g. oversized_message, bad_sdp.")
    message: str = Field(description="One-line description.")
    traceback: str | None = Field(default=None, description="Traceback, when there was one.")
    count: int = Field(default=1, ge=1, description="How many faults of this kind the event stands for: repeated "
                       "faults of one kind are recorded once per turn, the rest as one event with their number.")


AgentErrorKind = Literal["model_error", "empty_answer", "crash", "exited", "no_join", "budget_exceeded"]
AGENT_ERROR_KINDS: tuple[str, ...] = AgentErrorKind.__args__  # type: ignore[attr-defined]


class AgentError(_Event):
    """The agent under test failed: it could not reach its model, answered nothing, crashed, exited or never
    joined. Recorded by the harness as it learns of it; the scorecard flags the session ``agent_error``."""

    event: Literal["agent_error"] = "agent_error"
    kind: AgentErrorKind = Field(
        description="model_error: a call to its model failed; empty_answer: its model answered nothing; crash: "
        "its code raised, or its command exited with an error; exited: its command ended before joining; "
        "no_join: its command did not join in time; budget_exceeded: it passed a hard meeting budget "
        "(docs/protocol.md §8)."
    )
    message: str = Field(description="What happened, in one line (a command's last stderr line included).")
    traceback: str | None = Field(default=None, description="Traceback, when there was one.")
    fatal: bool = Field(
        default=False,
        description="The agent stopped taking part: the meeting ended with termination_reason agent_error.",
    )


class Disconnect(_Event):
    """A participant left."""

    event: Literal["disconnect"] = "disconnect"
    participant: Participant = Field(description="Who left.")
    reason: str = Field(description="Why, as far as known.")


class SessionEnd(_Event):
    """The meeting ended."""

    event: Literal["session_end"] = "session_end"
    termination_reason: TerminationReason = Field(description="Closed set of reasons.")
    detail: str = Field(default="", description="Free-text detail.")
    recording_sha256: str | None = Field(
        default=None, pattern=r"^[0-9a-f]{64}$",
        description="Hex SHA-256 of recording.wav, written just before this event (None: not written, or an "
                    "older record); replay checks the file against it.")


class NetworkPath(_RecordModel):
    """One direction of the meeting's network so far (cumulative): the datagrams as their sender sent them and
    what the network did to them (docs/network.md)."""

    datagrams: int = Field(ge=0, description="Datagrams sent (DTLS, SRTP, SRTCP), before the network.")
    bytes: int = Field(ge=0, description="Their bytes.")
    delivered: int = Field(ge=0, description="Datagrams the network delivered (a duplicate counts twice).")
    dropped_loss: int = Field(ge=0, description="Lost on the path (random or Gilbert–Elliott loss).")
    dropped_queue: int = Field(ge=0, description="Dropped by the rate cap's full queue.")
    duplicated: int = Field(ge=0, description="Delivered twice.")
    reordered: int = Field(ge=0, description="Sent out of order.")
    delay_mean_ms: float = Field(ge=0, description="Mean one-way delay the network added (ms), as delivered.")
    delay_max_ms: float = Field(ge=0, description="Largest such delay (ms).")
    rtp_packets: int = Field(ge=0, description="RTP packets among the datagrams.")
    rtcp_packets: int = Field(ge=0, description="RTCP packets among them.")
    sctp_packets: int = Field(ge=0, description="DTLS application data (SCTP: the data channels).")
    nacks: int = Field(ge=0, description="RTCP generic NACKs (retransmission requests) sent this way.")
    plis: int = Field(ge=0, description="RTCP picture-loss indications (key-frame requests) sent this way.")
    firs: int = Field(ge=0, description="RTCP full intra requests sent this way.")
    sctp_retransmissions: int | None = Field(
        default=None, description="Data-channel chunks the harness sent again (to_agent only; null: not seen)."
    )


class NetworkStream(_RecordModel):
    """One RTP stream so far: counted on the wire, and as its receiver reports it (aiortc's getStats)."""

    direction: Literal["to_agent", "from_agent"] = Field(description="Who sends it: the persona, or the agent.")
    ssrc: int = Field(ge=0, description="Its RTP SSRC.")
    kind: str = Field(description="audio or video (empty when the SDP did not say).")
    packets_sent: int = Field(ge=0, description="RTP packets sent (retransmissions not included).")
    packets_delivered: int = Field(ge=0, description="Of those, delivered by the network.")
    retransmitted: int = Field(ge=0, description="RTX packets sent for it (answers to NACKs).")
    bytes_sent: int = Field(ge=0, description="Bytes of its RTP packets.")
    packets_lost: int | None = Field(default=None, description="Lost as its receiver reports (RTCP), when known.")
    jitter_ms: float | None = Field(default=None, description="Interarrival jitter its receiver reports (ms).")
    round_trip_ms: float | None = Field(default=None, description="Round-trip time from RTCP reports (ms).")
    fraction_lost: float | None = Field(default=None, description="Share lost in the last report interval.")
    concealed_frames: int | None = Field(
        default=None, description="Agent audio: 20 ms frames the harness skipped as lost (played as a gap)."
    )


class NetworkStats(_Event):
    """A sample of the meeting's network (cumulative since the join), taken through the meeting and at each
    turn's end; WebRTC meetings only."""

    event: Literal["network_stats"] = "network_stats"
    profile: str = Field(description="The network profile (--network) in effect.")
    to_agent: NetworkPath = Field(description="The persona's direction (the agent's downlink).")
    from_agent: NetworkPath = Field(description="The agent's direction (its uplink).")
    streams: list[NetworkStream] = Field(default=[], description="Each RTP stream, both directions.")
    persona_audio_frames: int = Field(ge=0, description="Persona audio frames sent so far.")
    persona_audio_late_frames: int = Field(ge=0, description="Of those, sent more than 20 ms after their slot.")
    persona_screen_frames: int = Field(ge=0, description="Screen-share frames sent so far.")
    persona_screen_late_frames: int = Field(ge=0, description="Of those, sent over half a frame period late.")


Event = Annotated[
    SessionStart
    | TurnStart
    | PersonaUtterance
    | PersonaBackchannel
    | PersonaAside
    | AgentSpeech
    | AgentSpeechRecognised
    | AgentSpeechUnrecognised
    | ChatMessage
    | QuestionAsked
    | PersonaAnswer
    | PersonaChallenge
    | FileTransfer
    | ScreenFrame
    | DocUpdate
    | DocUpdateRejected
    | DocSnapshot
    | AgentDone
    | Interruption
    | TurnEnd
    | ErrorEvent
    | AgentError
    | Disconnect
    | NetworkStats
    | SessionEnd,
    Field(discriminator="event"),
]

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def parse_event(data: Any) -> Event:
    """Validate a decoded JSON object as one event."""
    return EVENT_ADAPTER.validate_python(data)
