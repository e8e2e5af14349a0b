"""The CloudSync LBO meeting with three people: the VP runs it, the target's CFO and operations lead join.

Every line of the one-to-one meeting stays (the VP to the agent); the lines added here are the ones only several
people make: the CFO's capex figure and the operations lead's different one (a contradiction the agent surfaces),
the VP and the operations lead talking between themselves (the agent keeps out), the operations lead asking the
agent by name in the middle of it, the lender cut told to the VP in a side conversation (the agent picks it up),
and, at the hand-off, who said what. Every figure comes from the LBO's data and solver.
"""

from __future__ import annotations

from modylbench.scenarios._kit import number
from modylbench.scenarios._knowledge import KnowledgeItem
from modylbench.scenarios._room import insert_turns, line, person_knowledge, retell_at, with_room
from modylbench.scenarios._schema import (
    AGENT,
    ROOM,
    Attribution,
    Claim,
    Contradiction,
    HumanPersona,
    MeetingRoom,
    Participant,
    PersonaVoice,
    Scenario,
)
from modylbench.scenarios.builtin import lbo
from modylbench.scenarios.builtin.lbo.wording import mult, usd_m

SCENARIO_ID = "financial_analyst_lbo_room"
AGENT_NAME = "Alex"
CFO = "Priya Raman"
OPS = "Marcus Bell"
CAPEX_DRIFT_PP = 2.0
"""How far above the operating case the operations lead remembers capex (percentage points)."""

# Where the lines go, as positions in the one-to-one meeting (before its turn of that index).
AT_CFO_INTRO = 4  # after the files arrive
AT_OPS_JOINS = 13  # after the cash flow and debt schedule
AT_LENDER_CUT = 21  # the lenders' cap, which the CFO now brings
AT_WHO_SAID = 50  # before the open items


def build(seed: int = 0) -> Scenario:
    """The multi-party LBO meeting of deal ``seed`` (0: the published deal)."""
    one = lbo.build(seed=seed)
    data = lbo.generate_data(lbo.draw_inputs(seed))
    sol = lbo.solve(data)
    deal, truth = data.inputs, sol.values
    capex = round(float(data.operating.capex_pct), 1)
    capex_ops = round(capex + CAPEX_DRIFT_PP, 1)
    senior_x, cut_x = mult(deal.senior_multiple), mult(deal.senior_multiple_after_lender_call)
    host = one.human_persona
    assert isinstance(host, HumanPersona)
    cfo = Participant(name=CFO, role="Chief Financial Officer, CloudSync (the target; on the call for diligence)",
                      agenda=["The adjusted EBITDA and the plan's capex taken as management presents them",
                              "Know what the lenders' terms do to the deal"],
                      voice=PersonaVoice(engine_voice="en-GB-x-rp", openai_voice="shimmer", words_per_minute=175))
    ops = Participant(name=OPS, role="VP Operations, CloudSync",
                      agenda=["Make sure the hosting and hardware spend is understood"],
                      voice=PersonaVoice(engine_voice="en+m3", openai_voice="onyx", words_per_minute=180))
    cfo = cfo.model_copy(update={"knowledge": person_knowledge(cfo, [
        KnowledgeItem(id="input.capex_pct", kind="input", label="capex as a share of revenue", value=capex, unit="%",
                      aliases=["capex", "capital expenditure"], source="the operating case"),
        KnowledgeItem(id="input.senior_cap", kind="constraint", label="senior leverage the lenders will do",
                      value=float(deal.senior_multiple_after_lender_call), unit="x",
                      aliases=["senior cap", "lender cap"], source="the lead arranger"),
    ])})  # fmt: skip
    ops = ops.model_copy(update={"knowledge": person_knowledge(ops, [
        KnowledgeItem(id="input.capex_run_rate", kind="input", label="capex run rate this year", value=capex_ops,
                      unit="%", aliases=["capex", "hardware spend"], source="operations"),
    ], unknown="That's one for Priya, I only see the operations side.")})  # fmt: skip
    host_p = Participant(name=host.name, role=host.role, agenda=list(host.goals), voice=host.voice)
    room = MeetingRoom(agent_name=AGENT_NAME, participants=[host_p, cfo, ops])
    sc = with_room(
        one, room, scenario_id=SCENARIO_ID,
        title="CloudSync LBO Model, with the CFO and operations lead",
        context=one.context + f" On the call with Dana: {CFO} (CloudSync's CFO) from the files on, and {OPS} "
        "(CloudSync's VP Operations), who joins late. They call you " + AGENT_NAME + ". Not everything said is for "
        "you: people talk to each other too.",
    )
    first_cfo, first_ops = CFO.split()[0], OPS.split()[0]
    capex_fact = number("room_capex_pct", "Capex as a share of revenue in the operating case", capex, "%", 1.0)
    who_said = [
        line(host.name, AGENT, f"{AGENT_NAME}, for the diligence notes: who told us what today on capex, and on "
             "the senior cap?", phase="deliverable_handoff",
             action="Attribute each figure to the person who gave it.",
             facts=[number("room_capex_cfo", f"Capex figure {first_cfo} gave", capex, "%", 1.0),
                    number("room_capex_ops", f"Capex figure {first_ops} gave", capex_ops, "%", 1.0),
                    number("room_senior_cap", f"Senior cap {first_cfo} brought from the lenders",
                           float(deal.senior_multiple_after_lender_call), "x", 1.0)],
             attributions=[Attribution(fact_id="room_capex_cfo", said_by=CFO),
                           Attribution(fact_id="room_capex_ops", said_by=OPS),
                           Attribution(fact_id="room_senior_cap", said_by=CFO)],
             reference=f"Dana, {first_cfo} gave us capex at {capex} percent of revenue, which is the operating "
             f"case, and she brought the lenders' cap of {cut_x} senior. {first_ops} said capex is running closer "
             f"to {capex_ops} percent, so diligence should reconcile the two."),
    ]
    lender_side = [
        line(CFO, host.name, f"Dana, sorry to cut in: the lead arranger just emailed me. They will only do "
             f"{cut_x} of senior, not {senior_x}. Pricing and amortisation unchanged."),
        line(host.name, CFO, f"{cut_x}. Wonderful. Thanks, Priya, I'll take it from here."),
    ]
    sc = insert_turns(sc, AT_WHO_SAID, who_said)
    retell_at(sc, AT_LENDER_CUT, utterance=f"{AGENT_NAME}, you heard Priya: senior is capped at {cut_x} now. The "
              "lenders' note is in chat. Rerun everything.")
    sc = insert_turns(sc, AT_LENDER_CUT, lender_side)
    ops_joins = [
        line(OPS, ROOM, f"Marcus Bell, operations, sorry I'm late. For what it's worth, capex is running closer to "
             f"{capex_ops} percent of revenue this year; we've been buying hardware for the new data centre.",
             action=f"Surface that this disagrees with {first_cfo}'s {capex} percent (the operating case) and say "
             "which the model uses.",
             facts=[capex_fact], attributions=[Attribution(fact_id="room_capex_pct", said_by=CFO)],
             contradiction=Contradiction(id="capex_pct", description="capex as a share of revenue", claims=[
                 Claim(said_by=CFO, value=capex, unit="%"), Claim(said_by=OPS, value=capex_ops, unit="%")]),
             reference=f"{first_ops}, that differs from {first_cfo}'s figure: {first_cfo} said {capex} percent of "
             f"revenue, which is what the operating case has, and you say {capex_ops} percent. I'll keep {capex} "
             "percent in the base case and flag the difference for diligence."),
        line(host.name, OPS, "Marcus, while I have you: how is churn looking in the mid-market book this quarter?"),
        line(OPS, AGENT, f"{AGENT_NAME}, quick one while Dana reads: on the plan as it stands, what's year-one free "
             "cash flow?",
             facts=[number("room_fcf_y1", "Year-1 free cash flow (before the lender call)",
                           truth["initial_fcf_year1"], "$M", 1.0)],
             reference=f"{first_ops}, year-one free cash flow is {usd_m(sol.initial.fcf[0])} on the current structure."),
        line(OPS, host.name, "Steady, Dana. Renewals are on track, nothing unusual in the pipeline."),
    ]
    sc = insert_turns(sc, AT_OPS_JOINS, ops_joins)
    cfo_intro = [
        line(CFO, ROOM, f"Priya Raman, CloudSync's CFO, joining for diligence. One number for your model: capex "
             f"including capitalised software runs {capex} percent of revenue, every year of the plan.",
             phase="context_setting"),
    ]
    sc = insert_turns(sc, AT_CFO_INTRO, cfo_intro)
    return _joins_and_leaves(sc)


def _joins_and_leaves(sc: Scenario) -> Scenario:
    """Each guest joins at their first line; the CFO leaves after the lender side conversation."""
    assert sc.room is not None
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for t in sc.turns:
        who = sc.speaker_of(t)
        first.setdefault(who, t.turn_index)
        last[who] = t.turn_index
    people = [sc.room.host]
    for p in sc.room.participants[1:]:
        leaves = last[p.name] + 1 if p.name == CFO else None  # the VP's reply to her last line, then she drops
        people.append(p.model_copy(update={"joins_at_turn": first[p.name], "leaves_after_turn": leaves}))
    return Scenario.model_validate({**sc.model_dump(mode="python"),
                                    "room": sc.room.model_copy(update={"participants": people}).model_dump(mode="python")})
