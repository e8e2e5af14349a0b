"""A LiveKit Agents voice agent in a ModylBench meeting: an ``AgentSession`` with LiveKit's OpenAI plugins (LLM,
speech-to-text, text-to-speech) and its bundled Silero VAD, the meeting's tools as function tools, and the meeting
as the session's audio input, audio output and transcription output. No LiveKit server. Needs
``pip install 'modylbench[livekit]'``.

Run as an outside agent: ``modylbench run SCENARIO --transport webrtc --agent 'cmd:python examples/livekit_agent.py'``
(it reads MODYLBENCH_URL and MODYLBENCH_TOKEN), by hand with a meeting from ``modylbench serve``, or as a function
with ``--agent py:livekit_agent:play`` from this folder (``--transport webrtc`` or ``inproc``).
The models: OPENAI_BASE_URL, OPENAI_API_KEY; MODYLBENCH_AGENT_MODEL (default gpt-4o-mini),
MODYLBENCH_STT_MODEL (gpt-4o-mini-transcribe), MODYLBENCH_TTS_MODEL (gpt-4o-mini-tts).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys

from livekit.agents import Agent, AgentSession, inference
from livekit.plugins import openai
from websockets.exceptions import WebSocketException

from modylbench.agents import MeetingClient
from modylbench.integrations.livekit import Meeting, MeetingTools, meeting_instructions

log = logging.getLogger("livekit_agent")


async def run(
    url: str,
    token: str,
    *,
    model: str | None = None,
    base_url: str | None = None,
    session: AgentSession | None = None,
) -> MeetingTools:
    """Join the meeting at ``url`` and take part until it ends; returns the tools (what the LLM called)."""
    meeting = await Meeting.connect(url, token)
    return await take_part(meeting, model=model, base_url=base_url, session=session)


async def play(client: MeetingClient) -> None:
    """The ``py:`` form: ``--agent py:livekit_agent:play`` (run from examples/) on a client already joined."""
    await take_part(await Meeting.attach(client))


def voice_session(model: str | None = None, base_url: str | None = None) -> AgentSession:
    """An ``AgentSession`` on LiveKit's OpenAI plugins, any OpenAI-compatible server, with the meeting's turns."""
    base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
    api_key = os.environ.get("OPENAI_API_KEY") or "none"
    server = {"base_url": base_url, "api_key": api_key} if base_url else {"api_key": api_key}
    return AgentSession(
        llm=openai.LLM(model=model or os.environ.get("MODYLBENCH_AGENT_MODEL", "gpt-4o-mini"), **server),
        stt=openai.STT(model=os.environ.get("MODYLBENCH_STT_MODEL", "gpt-4o-mini-transcribe"), **server),
        tts=openai.TTS(
            model=os.environ.get("MODYLBENCH_TTS_MODEL", "gpt-4o-mini-tts"), response_format="pcm", **server
        ),
        # Silero, shipped inside livekit-local-inference; a pause of 0.6 s ends a stretch of speech for the STT.
        vad=inference.VAD(min_silence_duration=0.6),
        # The meeting says when the persona has the floor: its turn_end commits the user's turn. The track cannot
        # pause, so a false interruption is not resumed.
        turn_handling={"turn_detection": "manual", "interruption": {"resume_false_interruption": False}},
        max_tool_steps=5,
    )


async def take_part(
    meeting: Meeting,
    *,
    model: str | None = None,
    base_url: str | None = None,
    session: AgentSession | None = None,
) -> MeetingTools:
    """Run an ``AgentSession`` in ``meeting`` until it ends."""
    tools = MeetingTools(meeting)
    agent = Agent(instructions=meeting_instructions(meeting.briefing), tools=tools.tools)
    await meeting.run(session or voice_session(model, base_url), agent)
    return tools


def main() -> int:
    url, token = os.environ.get("MODYLBENCH_URL"), os.environ.get("MODYLBENCH_TOKEN")
    if not url or not token:
        print(
            "livekit_agent: set MODYLBENCH_URL and MODYLBENCH_TOKEN (modylbench sets them for --agent 'cmd:...')",
            file=sys.stderr,
        )
        return 2
    logging.basicConfig(level=logging.INFO)
    try:
        asyncio.run(run(url, token))
    except (OSError, TimeoutError, WebSocketException) as exc:  # ConnectionError is an OSError
        print(f"livekit_agent: meeting connection failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
