"""Multi-party scenarios: the schema's participants and addressing, and the two built-in meetings built from data."""

from __future__ import annotations

import pytest

from modylbench.scenarios import Scenario
from modylbench.scenarios._room import insert_turns, line
from modylbench.scenarios._schema import AGENT, ROOM
from modylbench.scenarios.builtin import BUILDERS, generate

ROOMS = ("financial_analyst_lbo_room", "optimization_solver_supply_chain_room")
ONE_TO_ONE = tuple(s for s in BUILDERS if s not in ROOMS)


@pytest.fixture(scope="module", params=ROOMS)
def room_scenario(request: pytest.FixtureRequest) -> Scenario:
    return generate(request.param)


def test_people_have_their_own_voices_and_knowledge(room_scenario: Scenario) -> None:
    room = room_scenario.room
    assert room is not None and 2 <= len(room.participants) <= 4
    assert len({p.voice.engine_voice for p in room.participants}) == len(room.participants)
    assert len({p.voice.openai_voice for p in room.participants}) == len(room.participants)
    guests = room.participants[1:]
    assert all(p.knowledge is not None and p.knowledge.items for p in guests)
    assert room.host.name == room_scenario.human_persona.name  # type: ignore[union-attr]


def test_the_curveballs_only_several_people_make(room_scenario: Scenario) -> None:
    sc = room_scenario
    assert sc.room is not None
    turns = sc.turns
    quiet = [t for t in turns if sc.expects_quiet(t)]
    assert len(quiet) >= 4
    # A question for someone else that the agent should not answer.
    assert any(t.addressed_to in {p.name for p in sc.room.participants} and t.human_utterance.rstrip().endswith("?")
               for t in quiet)
    # The agent asked by name in the middle of a discussion: between two lines people say to each other.
    named = [t for t in turns if t.addressed_to == AGENT and sc.room.agent_name in t.human_utterance
             and 0 < t.turn_index < len(turns) - 1 and sc.expects_quiet(turns[t.turn_index - 1])
             and sc.expects_quiet(turns[t.turn_index + 1])]
    assert named, "no line to the agent by name mid-discussion"
    # Contradictory figures from two participants, and who said what.
    c = [t.contradiction for t in turns if t.contradiction is not None]
    assert c and len({cl.said_by for cl in c[0].claims}) == 2
    assert any(t.attributions for t in turns)
    # Someone joins late.
    assert any(p.joins_at_turn > 0 for p in sc.room.participants)
    assert any(p.leaves_after_turn is not None for p in sc.room.participants)


def test_ground_truth_is_the_one_to_one_meetings(room_scenario: Scenario) -> None:
    one = generate(room_scenario.metadata["one_to_one"])
    assert room_scenario.ground_truth == one.ground_truth
    # Every line of the one-to-one meeting is still played, its facts unchanged, its edits renumbered with it.
    facts = {f.id: f.value for t in room_scenario.turns for f in t.expected_facts}
    assert all(facts[f.id] == f.value for t in one.turns for f in t.expected_facts)
    assert len(room_scenario.expected_mutations) == len(one.expected_mutations)
    moved = {m.turn_index for m in room_scenario.expected_mutations}
    assert all(not room_scenario.expects_quiet(room_scenario.turns[i]) for i in moved)


@pytest.mark.parametrize("sid", ROOMS)
def test_fresh_instances_draw_new_figures(sid: str) -> None:
    a, b = generate(sid, 0), generate(sid, 5)
    assert a.room is not None and b.room is not None
    assert [t.human_utterance for t in a.turns] != [t.human_utterance for t in b.turns]
    assert b.seed == 5


@pytest.mark.parametrize("sid", ONE_TO_ONE)
def test_one_to_one_meetings_are_unchanged(sid: str) -> None:
    from modylbench.scenarios.builtin import build, data_text

    sc = build(sid)
    assert sc.room is None and not any(sc.expects_quiet(t) for t in sc.turns)
    text = data_text(sc)
    for key in ('"room"', '"speaker"', '"addressed_to"', '"attributions"', '"contradiction"'):
        assert key not in text


def _base() -> Scenario:
    return generate("financial_analyst_lbo_room").first_turns(6)


def _with(sc: Scenario, **turn_update: object) -> dict:
    data = sc.model_dump(mode="python")
    data["turns"][1].update(turn_update)
    return data


@pytest.mark.parametrize("update, message", [
    ({"speaker": "Nobody Here"}, "is not a participant"),
    ({"addressed_to": "Someone Else"}, "is not 'agent', 'room' or a participant"),
    ({"addressed_to": "Dana Whitfield"}, "talks to themselves"),
    ({"addressed_to": "Marcus Bell"}, "expects no reply from the agent"),
    ({"speaker": "Marcus Bell"}, "is not in the meeting at this turn"),
])
def test_who_speaks_to_whom_is_checked(update: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Scenario.model_validate(_with(_base(), **update))


def test_room_fields_need_a_room() -> None:
    one = generate("financial_analyst_lbo_model").first_turns(3)
    data = one.model_dump(mode="python")
    data["turns"][0]["addressed_to"] = ROOM
    with pytest.raises(ValueError, match="need a `room`"):
        Scenario.model_validate(data)


def test_participants_need_distinct_voices_and_names() -> None:
    data = _base().model_dump(mode="python")
    data["room"]["participants"][1]["voice"] = dict(data["room"]["participants"][2]["voice"])
    with pytest.raises(ValueError, match="voice of their own"):
        Scenario.model_validate(data)
    data = _base().model_dump(mode="python")
    data["room"]["agent_name"] = "Dana"
    with pytest.raises(ValueError, match="shares a first name"):
        Scenario.model_validate(data)
    data = _base().model_dump(mode="python")
    data["room"]["participants"] = data["room"]["participants"][:1]
    with pytest.raises(ValueError, match="at least 2"):
        Scenario.model_validate(data)


def test_insert_turns_moves_everything_that_names_a_turn() -> None:
    sc = generate("financial_analyst_lbo_room")
    withheld = {i.id: i.turn for i in sc.knowledge.items if i.turn is not None}  # type: ignore[union-attr]
    assert withheld
    extra = [line("Dana Whitfield", ROOM, "One moment, everyone."), line("Dana Whitfield", ROOM, "Back to it.")]
    moved = insert_turns(sc, 2, extra)
    assert [t.turn_index for t in moved.turns] == list(range(len(sc.turns) + 2))
    assert moved.turns[2].human_utterance == "One moment, everyone." and moved.expects_quiet(moved.turns[2])
    assert [m.turn_index for m in moved.expected_mutations] == [
        m.turn_index + 2 if m.turn_index >= 2 else m.turn_index for m in sc.expected_mutations]
    assert {i.id: i.turn for i in moved.knowledge.items if i.turn is not None} == {  # type: ignore[union-attr]
        k: v + 2 if v >= 2 else v for k, v in withheld.items()}
    joins = {p.name: p.joins_at_turn for p in moved.room.participants}  # type: ignore[union-attr]
    assert joins == {p.name: p.joins_at_turn + 2 if p.joins_at_turn else 0 for p in sc.room.participants}  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="expects no reply"):
        line("Dana Whitfield", "Marcus Bell", "Marcus?", reference="I'll answer for him.")
