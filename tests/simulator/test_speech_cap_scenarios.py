"""The declared-transcript cap in every built-in scenario (issue 17 item 2): words an agent declares beyond what
its voiced time allows earn nothing (gaming), and a correct agent that speaks its answers is never cut (fairness).

Both agents answer each turn with the scenario's reference response and nothing else (no chat, no edits), so the
only difference between them is how long they actually spoke.
"""

from __future__ import annotations

from typing import Any

import pytest

from modylbench.agents import MeetingClient, MeetingEnded, TurnEnded, fallback_speech
from modylbench.scenarios import load_builtin
from modylbench.scenarios.builtin import BUILTIN_IDS
from modylbench.simulator.testing import run_meeting_async

TURNS = 6
BLIP = fallback_speech("yes")  # about a third of a second of voice


# The scenario of the meeting being played (agents passed to run_meeting must be module-level functions).
PLAYING: dict[str, Any] = {}


async def _answer(client: MeetingClient, voiced: bool) -> None:
    async for event in client.events():
        if isinstance(event, TurnEnded):
            text = PLAYING["scenario"].turns[event.turn_index].reference_response
            playback = await client.say(text, fallback_speech(text) if voiced else BLIP)
            await playback.ended
            await client.done(event.turn_index)
        elif isinstance(event, MeetingEnded):
            return


async def spoken_agent(client: MeetingClient) -> None:
    await _answer(client, voiced=True)


async def claimed_agent(client: MeetingClient) -> None:
    await _answer(client, voiced=False)


@pytest.mark.parametrize("sid", BUILTIN_IDS)
async def test_declared_words_need_the_voice_to_say_them(sid: str, tmp_path: Any) -> None:
    PLAYING["scenario"] = {s.scenario_id: s for s in load_builtin()}[sid]
    spoken = await run_meeting_async(sid, spoken_agent, turns=TURNS, out=tmp_path / "spoken",
                                     agent_name="spoken", report=False)  # fmt: skip
    claimed = await run_meeting_async(sid, claimed_agent, turns=TURNS, out=tmp_path / "claimed",
                                      agent_name="claimed", report=False)  # fmt: skip
    # Fairness: the same words, actually spoken at a normal rate, are credited in full.
    assert not spoken.where("transcript_unsupported"), spoken.where("transcript_unsupported")
    assert spoken.score >= 7.5, str(spoken)
    # Gaming: declared without the voice to say them, they are flagged and buy nothing.
    # (every turn with words to say: a multi-party meeting's lines for someone else have none)
    said = sum(1 for t in PLAYING["scenario"].turns[:TURNS] if t.reference_response.strip())
    assert said >= TURNS - 2
    assert len(claimed.where("transcript_unsupported")) == said, claimed.where("transcript_unsupported")
    assert claimed.score < 6.0 and claimed.score < spoken.score - 3.0, (claimed.score, spoken.score)
