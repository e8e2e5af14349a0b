"""The persona answers the agent's questions in the meeting (in process, real speech engine, virtual clock):
recorded as question_asked / persona_answer, delivered with reply_to, the same every time; an agent that
never asks meets the persona it always met."""

from __future__ import annotations

import asyncio
from pathlib import Path

from modylbench.agents import join_inprocess
from modylbench.agents._reference import NullAgent, OracleAgent
from modylbench.channels import CaptionReceived, ChatReceived, InProcessMeeting, VirtualClock
from modylbench.personas import make_engine
from modylbench.record import read_record
from modylbench.scenarios import load_builtin
from modylbench.simulator import MeetingOptions
from modylbench.simulator._session import run_meeting

LBO = next(s for s in load_builtin() if s.scenario_id == "financial_analyst_lbo_model")


class Asker(OracleAgent):
    """Turn 0: asks by voice and by chat, waits for the answers, then says done."""

    replies: list[tuple[str, str | None]]

    async def respond(self, turn_index: int) -> None:
        assert self.client is not None
        if turn_index == 0:
            await self.say("Before I start: what's the fund's IRR hurdle?")
            await self.client.chat("And what's the IRR of the deal?")
            await self.clock.sleep(8.0)
        await self.client.done(turn_index)


async def _meeting(folder: Path, agent: OracleAgent | NullAgent) -> list[tuple[str, str | None]]:
    clock = VirtualClock()
    link = InProcessMeeting(clock)
    speech = make_engine("espeak")
    got: list[tuple[str, str | None]] = []

    async def agent_side() -> None:
        client = await join_inprocess(link, synthesize=speech.synthesize, receive_audio=False)
        events = client.events

        async def spy():  # type: ignore[no-untyped-def]
            async for ev in events():
                if isinstance(ev, CaptionReceived | ChatReceived) and ev.reply_to is not None:
                    got.append((ev.text, ev.reply_to))
                yield ev

        client.events = spy  # type: ignore[method-assign]
        await agent.run(client)

    await asyncio.gather(run_meeting(link, LBO, agent.name, folder, clock, speech, MeetingOptions(turns=2)),
                         agent_side())
    return got


async def test_questions_are_answered_from_knowledge_and_recorded(tmp_path: Path) -> None:
    got = await _meeting(tmp_path / "a", Asker(LBO))
    events = read_record(tmp_path / "a").events
    asked = [e for e in events if e.event == "question_asked"]
    answers = [e for e in events if e.event == "persona_answer"]
    assert [(e.channel, e.outcome) for e in asked] == [("audio", "answered"), ("chat", "deliverable")]
    assert [a.knowledge for a in answers] == [["hurdle_irr"], []]
    assert "25%" in answers[0].text and answers[1].text == "That's what I need from you."
    channel = LBO.turns[0].channel
    assert all(a.channel == ("chat" if channel == "chat" else "audio") for a in answers)
    assert all(a.question_id == q.question_id for a, q in zip(answers, asked, strict=True))
    # The agent got them, each naming its question; the answer came after the question, within the turn.
    assert [r for _, r in got] == [q.question_id for q in asked]
    assert all(a.start >= q.asked_at for a, q in zip(answers, asked, strict=True))
    assert all(a.turn_index == 0 for a in answers)
    # The same agent and seed give the same exchange. (Timing within a VAD frame: the agent's synthesis is
    # wall-clock work. eSpeak's samples differ call to call; runs use the disk cache, which fixes them.)
    await _meeting(tmp_path / "b", Asker(LBO))
    again = [e for e in read_record(tmp_path / "b").events if e.event == "persona_answer"]
    assert [(a.text, a.knowledge, a.outcome) for a in again] == [(a.text, a.knowledge, a.outcome) for a in answers]
    assert all(abs(a.start - b.start) < 0.1 for a, b in zip(again, answers, strict=True))


async def test_an_agent_that_never_asks_hears_no_answers(tmp_path: Path) -> None:
    got = await _meeting(tmp_path, NullAgent(LBO))
    events = read_record(tmp_path).events
    assert got == [] and not [e for e in events if e.event in ("question_asked", "persona_answer")]
