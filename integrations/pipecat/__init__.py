"""A Pipecat pipeline as a ModylBench agent: ``MeetingTransport`` (input and output processors joining a meeting
through the protocol), ``MeetingTools`` (the shared document and the chat as function calls), ``EspeakTTSService``
(an offline voice) and ``meeting_turn_strategies`` (the meeting's turns as the user's). Needs ``pip install
'modylbench[pipecat]'``; written against pipecat-ai 1.14. See docs/integrations.md."""

try:
    import pipecat  # noqa: F401
except ImportError as exc:  # pragma: no cover - the extra is installed for the tests
    raise ImportError(
        "modylbench.integrations.pipecat needs pipecat-ai: pip install 'modylbench[pipecat]'"
    ) from exc

from modylbench.integrations.pipecat._tools import MeetingTools, meeting_instructions
from modylbench.integrations.pipecat._transport import (
    PERSONA,
    MeetingChatFrame,
    MeetingInputTransport,
    MeetingOutputTransport,
    MeetingParams,
    MeetingTransport,
    meeting_turn_strategies,
)
from modylbench.integrations.pipecat._tts import EspeakTTSService

__all__ = [
    "PERSONA",
    "EspeakTTSService",
    "MeetingChatFrame",
    "MeetingInputTransport",
    "MeetingOutputTransport",
    "MeetingParams",
    "MeetingTools",
    "MeetingTransport",
    "meeting_instructions",
    "meeting_turn_strategies",
]
