"""Multi-party meetings from one-to-one ones: who says a line, to whom, and the lines people say to each other.

A multi-party scenario is a one-to-one scenario (its data, solver and script unchanged) with a ``MeetingRoom``:
``insert_turns`` adds lines between people at a position, renumbering everything that names a turn (expected
edits, withheld knowledge, participants' joins and leaves), and ``line`` writes one such line. The ground truth
stays the one the one-to-one builder computed; the figures people say come from the same data.
"""

from __future__ import annotations

import logging
from typing import Any

from modylbench.scenarios._knowledge import Knowledge, KnowledgeItem
from modylbench.scenarios._schema import (
    AGENT,
    ROOM,
    Attribution,
    Contradiction,
    ExpectedFact,
    MeetingRoom,
    Participant,
    Scenario,
    Turn,
)

logger = logging.getLogger(__name__)

QUIET_WAIT_S = 8.0
"""How long a line people say to each other leaves the floor open (the agent is expected to stay quiet)."""


def line(
    speaker: str,
    to: str,
    utterance: str,
    *,
    phase: str = "active_work",
    action: str = "",
    facts: list[ExpectedFact] | None = None,
    reference: str = "",
    rtype: str = "",
    wait: float | None = None,
    attributions: list[Attribution] | None = None,
    contradiction: Contradiction | None = None,
) -> Turn:
    """One line of a multi-party meeting (its index is set by ``insert_turns``). A line for another person
    (``to`` a participant's name) expects the agent to stay quiet; one for the agent or the room, a reply."""
    if to not in (AGENT, ROOM) and (facts or reference):
        raise ValueError(f"a line {speaker} says to {to} expects no reply from the agent: no facts, no reference")
    quiet = to != AGENT and not facts and not reference  # as Scenario.expects_quiet reads it
    return Turn(
        turn_index=0,
        human_utterance=utterance,
        expected_agent_action=action or ("Stay quiet: the line is for someone else." if quiet else "Answer."),
        phase=phase,  # type: ignore[arg-type]
        channel="audio",
        expected_response_type=rtype or ("none" if quiet else "verbal"),
        wait_for_agent_sec=wait if wait is not None else (QUIET_WAIT_S if quiet else 45.0),
        expected_facts=list(facts or ()),
        reference_response=reference,
        speaker=speaker,
        addressed_to=to,
        attributions=list(attributions or ()),
        contradiction=contradiction,
    )


def insert_turns(scenario: Scenario, at: int, new: list[Turn]) -> Scenario:
    """``scenario`` with ``new`` played before its turn ``at`` (``len(turns)``: at the end). Every turn index
    from ``at`` on moves by ``len(new)``: the turns', the expected edits', withheld knowledge's, and the room's
    joins and leaves."""
    n = len(new)
    if not 0 <= at <= len(scenario.turns):
        raise ValueError(f"cannot insert at turn {at} of {len(scenario.turns)}")

    def moved(i: int) -> int:
        return i + n if i >= at else i

    turns = [t.model_copy(update={"turn_index": i}) for i, t in enumerate(
        [*scenario.turns[:at], *new, *scenario.turns[at:]])]  # fmt: skip
    mutations = [m.model_copy(update={"turn_index": moved(m.turn_index)}) for m in scenario.expected_mutations]
    knowledge = _moved_knowledge(scenario.knowledge, moved)
    room = scenario.room
    if room is not None:
        room = room.model_copy(update={"participants": [
            p.model_copy(update={
                "joins_at_turn": moved(p.joins_at_turn) if p.joins_at_turn else 0,
                "leaves_after_turn": None if p.leaves_after_turn is None else moved(p.leaves_after_turn),
                "knowledge": _moved_knowledge(p.knowledge, moved),
            }) for p in room.participants]})  # fmt: skip
    data: dict[str, Any] = scenario.model_dump(mode="python")
    data.update(turns=[t.model_dump(mode="python") for t in turns],
                expected_mutations=[m.model_dump(mode="python") for m in mutations],
                knowledge=None if knowledge is None else knowledge.model_dump(mode="python"),
                room=None if room is None else room.model_dump(mode="python"))  # fmt: skip
    return Scenario.model_validate(data)


def _moved_knowledge(k: Knowledge | None, moved: Any) -> Knowledge | None:
    if k is None:
        return None
    return k.model_copy(update={"items": [
        i.model_copy(update={"turn": None if i.turn is None else moved(i.turn)}) for i in k.items]})  # fmt: skip


def person_knowledge(p: Participant, items: list[KnowledgeItem], unknown: str = "") -> Knowledge:
    """What one participant knows: who they are, and ``items`` (what their role holds)."""
    who = KnowledgeItem(id="person.self", kind="person", label="who you are", value=f"{p.name}, {p.role}",
                        aliases=["your name", "your role", "who are you"])  # fmt: skip
    return Knowledge(items=[who, *items], unknown=unknown)


def with_room(scenario: Scenario, room: MeetingRoom, *, scenario_id: str, title: str, context: str) -> Scenario:
    """The one-to-one ``scenario`` as a multi-party meeting of ``room`` (no line moved yet): its host's lines are
    now said to the agent, the brief names the people."""
    turns = [t.model_copy(update={"speaker": room.host.name, "addressed_to": AGENT}) for t in scenario.turns]
    metadata = {**scenario.metadata, "one_to_one": scenario.scenario_id}
    return scenario.model_copy(update={
        "scenario_id": scenario_id, "title": title, "context": context, "room": room, "turns": turns,
        "metadata": metadata,
    })  # fmt: skip


def retell(turn: Turn, *, speaker: str | None = None, to: str | None = None, utterance: str | None = None,
           chat_message: str | None = None) -> Turn:
    """A scripted turn said by someone else, to someone else, or in other words (its facts and reference kept)."""
    update: dict[str, Any] = {}
    if speaker is not None:
        update["speaker"] = speaker
    if to is not None:
        update["addressed_to"] = to
    if utterance is not None:
        update["human_utterance"] = utterance
    if chat_message is not None:
        update["chat_message"] = chat_message
    return turn.model_copy(update=update)


def retell_at(scenario: Scenario, index: int, **change: Any) -> None:
    """Retell turn ``index`` of ``scenario`` in place (``retell``'s arguments); an edge case it plays is said in the
    same new words."""
    turn = retell(scenario.turns[index], **change)
    scenario.turns[index] = turn
    if turn.edge_case and "utterance" in change:
        scenario.edge_cases = [e.model_copy(update={"human_utterance": turn.human_utterance})
                               if e.name == turn.edge_case else e for e in scenario.edge_cases]  # fmt: skip


def participants_at(scenario: Scenario, turn_index: int) -> list[Participant]:
    """The people in the meeting during turn ``turn_index`` (joins and leaves applied)."""
    if scenario.room is None:
        return []
    return [p for p in scenario.room.participants
            if p.joins_at_turn <= turn_index and (p.leaves_after_turn is None or turn_index <= p.leaves_after_turn)]
