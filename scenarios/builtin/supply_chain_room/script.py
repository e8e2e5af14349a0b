"""The Q4 distribution meeting with three people: the planner runs it, ops and finance join.

Every line of the one-to-one meeting stays (the planner to the agent); the lines added here are the ones only
several people make: the Dallas handling rate given two ways (ops reads the file's old rate, finance has the new
contract: a contradiction the agent surfaces), the Columbus cut told to the planner in a side conversation (the
agent picks it up), finance asking the agent by name in the middle of a question to the planner, and, at the
hand-off, who gave which figure. Every figure comes from the supply-chain data and solver.
"""

from __future__ import annotations

from modylbench.scenarios._kit import number
from modylbench.scenarios._knowledge import KnowledgeItem
from modylbench.scenarios._room import insert_turns, line, person_knowledge, retell_at, with_room
from modylbench.scenarios._schema import (
    AGENT,
    Attribution,
    Claim,
    Contradiction,
    HumanPersona,
    MeetingRoom,
    Participant,
    PersonaVoice,
    Scenario,
)
from modylbench.scenarios.builtin.supply_chain.script import Meeting
from modylbench.scenarios.builtin.supply_chain.script import build as build_one_to_one
from modylbench.scenarios.builtin.supply_chain.wording import figure, rate, say_rate, usd

SCENARIO_ID = "optimization_solver_supply_chain_room"
AGENT_NAME = "Sam"
OPS = "Kenji Watanabe"
FIN = "Renata Silva"

# Where the lines go, as positions in the one-to-one meeting (before its turn of that index).
AT_DALLAS = 9  # the Dallas rate correction
AT_COLUMBUS = 19  # the Columbus cut
AT_ASIDE = 24  # after the plan of record is set
AT_WHO_SAID = 44  # before the assumptions list


def build(seed: int = 0) -> Scenario:
    """The multi-party distribution meeting of instance ``seed`` (0: the published one)."""
    one = build_one_to_one(seed)
    m = Meeting.of(seed)
    file_rate = m.net.dc("DAL").handling_cost
    new_rate = m.inputs.dallas_contract_handling
    cut = m.inputs.cut_capacity
    host = one.human_persona
    assert isinstance(host, HumanPersona)
    ops = Participant(name=OPS, role="Operations manager, Columbus DC, Harrow and Finch",
                      agenda=["Get the Columbus cutover into the plan", "Keep the DCs staffed for what they get"],
                      voice=PersonaVoice(engine_voice="en+m3", openai_voice="onyx", words_per_minute=180))
    fin = Participant(name=FIN, role="FP&A analyst, Harrow and Finch",
                      agenda=["Book the right Dallas rate and the shortfall penalty", "Know the plan's total cost"],
                      voice=PersonaVoice(engine_voice="en-GB-x-rp", openai_voice="shimmer", words_per_minute=175))
    ops = ops.model_copy(update={"knowledge": person_knowledge(ops, [
        KnowledgeItem(id="input.columbus_capacity", kind="constraint", label="Columbus Q4 throughput after the cutover",
                      value=cut, unit="cases", aliases=["Columbus capacity", "Columbus"], source="Columbus operations"),
    ], unknown="Finance would know that one, I run the building.")})  # fmt: skip
    fin = fin.model_copy(update={"knowledge": person_knowledge(fin, [
        KnowledgeItem(id="input.dallas_contract", kind="input", label="Dallas 3PL handling rate under the new contract",
                      value=new_rate, unit="$/case", aliases=["Dallas rate", "Dallas handling"], source="the contract"),
    ])})  # fmt: skip
    host_p = Participant(name=host.name, role=host.role, agenda=list(host.goals), voice=host.voice)
    room = MeetingRoom(agent_name=AGENT_NAME, participants=[host_p, ops, fin])
    sc = with_room(
        one, room, scenario_id=SCENARIO_ID,
        title="Q4 distribution plan, with ops and finance",
        context=one.context + f" On the call with Marisol: {OPS} (Columbus DC operations) and {FIN} (FP&A). They "
        f"call you {AGENT_NAME}. Not everything said is for you: people talk to each other too.",
    )
    first_ops, first_fin = OPS.split()[0], FIN.split()[0]
    who_said = [
        line(host.name, AGENT, f"{AGENT_NAME}, for the assumptions page: who gave us the Dallas rate and the "
             "Columbus number?", phase="deliverable_handoff",
             action="Attribute each input to the person who gave it.",
             facts=[number("room_dal_rate", f"Dallas contract rate {first_fin} gave", new_rate, "$/case", 0.5),
                    number("room_cmh_cut", f"Columbus capacity {first_ops} gave", cut, "cases", 0.5)],
             attributions=[Attribution(fact_id="room_dal_rate", said_by=FIN),
                           Attribution(fact_id="room_cmh_cut", said_by=OPS)],
             reference=f"Marisol, {first_fin} gave us the Dallas contract rate of {rate(new_rate)} a case. "
             f"{first_ops} gave us Columbus at {figure(cut)} cases for the quarter."),
    ]
    sc = insert_turns(sc, AT_WHO_SAID, who_said)
    aside = [
        line(FIN, host.name, "Marisol, do you want the shortfall penalty booked against logistics or against sales?"),
        line(FIN, AGENT, f"Oh, and {AGENT_NAME}, while she thinks: what's the plan of record's total landed cost now?",
             facts=[number("room_por_cost", "Plan-of-record landed cost", m.cut.cost, "$", 0.1)],
             reference=f"{first_fin}, the plan of record costs {usd(m.cut.cost)} in total landed cost for Q4."),
        line(host.name, FIN, "Sales, Renata. It's their forecast, it's their penalty."),
    ]
    sc = insert_turns(sc, AT_ASIDE, aside)
    retell_at(sc, AT_COLUMBUS, utterance=f"{AGENT_NAME}, you heard Kenji: Columbus can only do {figure(cut)} cases "
              f"in Q4, not {figure(m.net.dc('CMH').capacity)}. Re-run it.")
    columbus_side = [
        line(OPS, host.name, f"Marisol, heads-up from ops: the Columbus WMS cutover slipped to mid-October. We're on two "
             f"shifts through Thanksgiving, {figure(cut)} cases for the quarter at most."),
        line(host.name, OPS, "Through Thanksgiving? Great. Okay, thanks Kenji."),
    ]
    sc = insert_turns(sc, AT_COLUMBUS, columbus_side)
    dallas_turn = sc.turns[AT_DALLAS]
    sc.turns[AT_DALLAS] = dallas_turn.model_copy(update={
        "speaker": FIN,
        "human_utterance": f"Wait, before you go further. {first_ops}, that's the old 3PL rate. The new contract kicked in "
        f"October first, it's {say_rate(new_rate)}. {AGENT_NAME}, re-run it with that.",
        "contradiction": Contradiction(id="dallas_handling", description="Dallas handling rate", claims=[
            Claim(said_by=OPS, value=file_rate, unit="$/case"), Claim(said_by=FIN, value=new_rate, unit="$/case")]),
        "reference_response": f"{first_fin}, noted: {first_ops}'s {rate(file_rate)} is the file's old rate and the "
        f"contract is {rate(new_rate)}. " + dallas_turn.reference_response,
    })  # fmt: skip
    dallas_side = [
        line(FIN, OPS, "Kenji, Renata from finance. What is Dallas paying the 3PL per case for handling these days?"),
        line(OPS, FIN, f"{say_rate(file_rate).capitalize()}, Renata, same as in the DC file."),
    ]
    sc = insert_turns(sc, AT_DALLAS, dallas_side)
    return _joins_and_leaves(sc)


def _joins_and_leaves(sc: Scenario) -> Scenario:
    """Each guest joins at their first line; ops leaves once the Columbus number is in."""
    assert sc.room is not None
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for t in sc.turns:
        who = sc.speaker_of(t)
        first.setdefault(who, t.turn_index)
        last[who] = t.turn_index
    people = [sc.room.host]
    for p in sc.room.participants[1:]:
        leaves = last[p.name] + 2 if p.name == OPS else None  # stays for the re-run of the cut, then drops
        people.append(p.model_copy(update={"joins_at_turn": first[p.name], "leaves_after_turn": leaves}))
    return Scenario.model_validate({**sc.model_dump(mode="python"),
                                    "room": sc.room.model_copy(update={"participants": people}).model_dump(mode="python")})
