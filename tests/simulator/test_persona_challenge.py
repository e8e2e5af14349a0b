"""The persona challenges a wrong figure aloud (in process, real speech engine, virtual clock): at the start of the
next turn, captioned, recorded as persona_challenge with how the agent answered; a correct figure in any usual
notation is never challenged; replay re-scores the record to the same card."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from modylbench.agents import join_inprocess
from modylbench.agents._reference import OracleAgent
from modylbench.channels import CaptionReceived, InProcessMeeting, VirtualClock
from modylbench.personas import is_challenge, make_engine
from modylbench.record import derive_responses, read_record
from modylbench.scenarios import load_builtin
from modylbench.scoring import make_judges, score
from modylbench.scoring._cli import untrusted_measurements
from modylbench.simulator._session import MeetingOptions, run_meeting

LBO = next(s for s in load_builtin() if s.scenario_id == "financial_analyst_lbo_model")
FACT_TURN = next(t.turn_index for t in LBO.turns if any(f.pushback for f in t.expected_facts))
FACT = next(f for f in LBO.turns[FACT_TURN].expected_facts if f.pushback)


class Claimer(OracleAgent):
    """The oracle, except that at the pushback turn it states ``claim`` and at the next one says ``then``."""

    def __init__(self, claim: str, then: str) -> None:
        super().__init__(LBO)
        self.claim, self.then = claim, then
        self.challenges: list[str] = []

    async def on_event(self, ev):  # type: ignore[no-untyped-def]
        if isinstance(ev, CaptionReceived) and is_challenge(ev.utterance_id):
            self.challenges.append(ev.text)

    async def respond(self, turn_index: int) -> None:
        assert self.client is not None
        if turn_index == FACT_TURN:
            await self.say(self.claim)
        elif turn_index == FACT_TURN + 1:
            await self.say(self.then)
        await self.client.done(turn_index)


async def _meeting(folder: Path, agent: Claimer) -> None:
    clock = VirtualClock()
    link = InProcessMeeting(clock)
    speech = make_engine("espeak")

    async def agent_side() -> None:
        client = await join_inprocess(link, synthesize=speech.synthesize, receive_audio=False)
        await agent.run(client)

    # The turns before the fact's are answered with nothing: only the exchange matters here.
    await asyncio.gather(run_meeting(link, LBO, agent.name, folder, clock, speech,
                                     MeetingOptions(turns=FACT_TURN + 2)), agent_side())


@pytest.mark.parametrize(("then", "outcome"), [
    ("You're right, let me check: the median precedent EV / LTM EBITDA is 11.94x.", "corrected"),
    ("I stand by it: the median precedent EV / LTM EBITDA is 13.5x.", "defended"),
    ("Moving on to the pricing question.", "not_answered"),
])
async def test_a_wrong_figure_is_challenged_and_the_answer_judged(tmp_path: Path, then: str, outcome: str) -> None:
    agent = Claimer("The median precedent EV / LTM EBITDA is 13.5x.", then)
    await _meeting(tmp_path, agent)
    events = read_record(tmp_path).events
    ch = [e for e in events if e.event == "persona_challenge"]
    assert [(e.fact_id, e.fact_turn, e.figure, e.turn_index, e.outcome) for e in ch] == [
        (FACT.id, FACT_TURN, "13.5x", FACT_TURN + 1, outcome)]
    assert "13.5x" in ch[0].text and f"{FACT.value:g}" not in ch[0].text  # the agent's figure, never the value
    # Said before the turn's own line, in its voice with a caption (the agent heard it as a challenge).
    turn_line = next(e for e in events if e.event == "persona_utterance" and e.turn_index == FACT_TURN + 1)
    assert ch[0].channel == "audio" and ch[0].audio is not None and ch[0].end <= turn_line.start
    assert agent.challenges == [ch[0].text]
    # The responses line says what was raised; the scorer's reading of the words agrees with the persona's.
    line = derive_responses(events)
    notes = {t.turn_index: t.persona_challenges for t in line.turns}
    assert [(n.fact_id, n.outcome) for n in notes[FACT_TURN + 1] or []] == [(FACT.id, outcome)]
    assert notes[FACT_TURN] == []
    # Scored from the record (run, replay) and as evaluate reads the same line (challenges not taken from a
    # file): the same card, and the defended figure costs in both.
    judges = make_judges(["offline"])
    cards = [score([x], {LBO.scenario_id: LBO}, judges).model_dump()["scenarios"][0]
             for x in (line, untrusted_measurements(line))]
    for card in cards:
        t = next(i for i in card["turns"] if i["turn_index"] == FACT_TURN + 1)
        flags = [*t["flags"], *(f for v in t["judges"] for f in v["flags"])]
        assert ("defended_wrong_figure" in flags) == (outcome == "defended"), flags
    assert cards[0]["modylbench_score"] == cards[1]["modylbench_score"]
    # A line from a record whose persona raised nothing at that turn is charged nothing for it.
    spared = line.model_copy(update={"turns": [t.model_copy(update={"persona_challenges": []})
                                               for t in line.turns]})
    t = next(i for i in score([spared], {LBO.scenario_id: LBO}, judges).model_dump()["scenarios"][0]["turns"]
             if i["turn_index"] == FACT_TURN + 1)
    assert "defended_wrong_figure" not in [*t["flags"], *(f for v in t["judges"] for f in v["flags"])]


async def test_a_correct_figure_in_any_notation_is_never_challenged(tmp_path: Path) -> None:
    for i, claim in enumerate(["The median precedent EV / LTM EBITDA is 11.94x.",
                               "The median precedent EV / LTM EBITDA is about 12x.",
                               "The median precedent EV / LTM EBITDA is eleven point nine four times, 11.9x."]):
        await _meeting(tmp_path / str(i), Claimer(claim, "Next."))
        assert not [e for e in read_record(tmp_path / str(i)).events if e.event == "persona_challenge"], claim
