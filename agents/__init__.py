"""Agent-side client SDK: join a ModylBench meeting (WebRTC by URL + token, or in-process), receive what
the persona says, shows and sends as async events, and speak, chat, send files, edit the doc, say done."""

from modylbench.agents._client import MeetingClient, join, join_inprocess
from modylbench.agents._doc import AgentDoc
from modylbench.agents._reference import AGENTS, BuiltinAgent, make_agent
from modylbench.channels import (
    AudioReceived,
    Briefing,
    CaptionReceived,
    ChatReceived,
    Deliverable,
    Disconnected,
    DocMessageReceived,
    FileReceived,
    Hello,
    MeetingEnded,
    MeetingEvent,
    ScreenFrameReceived,
    Synthesize,
    TurnClosed,
    TurnEnded,
    TurnStarted,
    fallback_speech,
)

__all__ = [
    "AGENTS",
    "AgentDoc",
    "BuiltinAgent",
    "make_agent",
    "AudioReceived",
    "Briefing",
    "CaptionReceived",
    "ChatReceived",
    "Deliverable",
    "Disconnected",
    "DocMessageReceived",
    "FileReceived",
    "Hello",
    "MeetingClient",
    "MeetingEnded",
    "MeetingEvent",
    "ScreenFrameReceived",
    "Synthesize",
    "TurnClosed",
    "TurnEnded",
    "TurnStarted",
    "fallback_speech",
    "join",
    "join_inprocess",
]
