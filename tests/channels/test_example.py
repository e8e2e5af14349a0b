"""The example agent in examples/ really takes part in a meeting over WebRTC."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import pytest

from modylbench.channels import (
    AgentChat,
    AgentDoneSignal,
    AgentFile,
    AgentSpeechOnset,
    AgentTranscript,
    Caption,
    SignalingServer,
    TurnEndMarker,
    TurnStartMarker,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "echo_agent.py"


@pytest.mark.timeout(60)
async def test_echo_agent_answers_a_turn() -> None:
    assert len(EXAMPLE.read_text().splitlines()) < 80  # a complete agent, three ways to start it, still one screen
    spec = importlib.util.spec_from_file_location("echo_agent", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    async with SignalingServer() as server:
        meeting = server.create_meeting()
        agent = asyncio.create_task(module.main(meeting.url, meeting.token))
        await meeting.wait_connected()
        await meeting.send_control(TurnStartMarker(0, "intro"))
        await meeting.send_control(Caption("what did revenue do in Q3?"))
        await meeting.send_control(TurnEndMarker(0))
        seen: list[object] = []
        async for ev in meeting.events():
            seen.append(ev)
            if isinstance(ev, AgentDoneSignal):
                break
        await meeting.close()
        await asyncio.wait_for(agent, 10)
    kinds = {type(e) for e in seen}
    assert {AgentTranscript, AgentChat, AgentFile, AgentSpeechOnset} <= kinds
    chat = next(e for e in seen if isinstance(e, AgentChat))
    assert "what did revenue do in Q3?" in chat.text
    done = next(e for e in seen if isinstance(e, AgentDoneSignal))
    assert done.turn_index == 0
