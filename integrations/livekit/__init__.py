"""A LiveKit ``AgentSession`` as a ModylBench agent, with no LiveKit server: ``Meeting`` (the meeting as the session's
own audio input, audio output and transcription output, its turns driving the session's manual turn handling,
``done`` once the answer is complete) and ``MeetingTools`` (the shared document, the chat and the persona's files as
function tools). Needs ``pip install 'modylbench[livekit]'``; written against livekit-agents 1.8. See
docs/integrations.md."""

try:
    import livekit.agents  # noqa: F401
except ImportError as exc:  # pragma: no cover - the extra is installed for the tests
    raise ImportError(
        "modylbench.integrations.livekit needs livekit-agents: pip install 'modylbench[livekit]'"
    ) from exc

from modylbench.integrations._toolbox import meeting_instructions
from modylbench.integrations.livekit._io import MeetingAudioInput, MeetingAudioOutput, MeetingTextOutput
from modylbench.integrations.livekit._meeting import Meeting, MeetingOptions
from modylbench.integrations.livekit._tools import MeetingTools

__all__ = [
    "Meeting",
    "MeetingAudioInput",
    "MeetingAudioOutput",
    "MeetingOptions",
    "MeetingTextOutput",
    "MeetingTools",
    "meeting_instructions",
]
