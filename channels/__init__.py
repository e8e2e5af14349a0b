"""Live transport: the meeting clock, the harness-side channel interface and its transports."""

from modylbench.channels._clock import Clock, ClockTimeout, VirtualClock, WallClock, wait_for
from modylbench.channels._interface import (
    FRAME_BYTES,
    FRAME_SAMPLES,
    FRAME_SECONDS,
    SAMPLE_RATE,
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
    MeetingLink,
    Playback,
    ProtocolFault,
    TurnEndMarker,
    TurnStartMarker,
)

__all__ = [
    "FRAME_BYTES", "FRAME_SAMPLES", "FRAME_SECONDS", "SAMPLE_RATE", "AgentAudio", "AgentChat",
    "AgentDisconnected", "AgentDocMessage", "AgentDoneSignal", "AgentEvent", "AgentFile", "AgentSpeechOffset",
    "AgentSpeechOnset", "AgentTranscript", "Caption", "Clock", "ClockTimeout", "ControlMessage", "FileOutcome",
    "LinkOptions", "MeetingEnd", "MeetingLink", "Playback", "ProtocolFault", "TurnEndMarker", "TurnStartMarker",
    "VirtualClock", "WallClock", "wait_for",
]
