"""Turn-taking, measured from a session record as tau-voice measures it (docs/scoring.md, "Turn-taking"):
responding, yielding, interrupting, talking through a backchannel and ignoring speech meant for someone else.

A pure function of the record's timed events, so ``run``, ``replay`` and ``evaluate`` of a derived line agree.
These are measurements shown beside the score, not credits in it.
"""

from __future__ import annotations

import bisect
import logging
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from modylbench.record._events import (
    AgentSpeech,
    ChatMessage,
    DocUpdate,
    FileTransfer,
    Interruption,
    PersonaAnswer,
    PersonaAside,
    PersonaBackchannel,
    PersonaChallenge,
    PersonaUtterance,
)
from modylbench.scenarios import AGENT, ROOM

logger = logging.getLogger(__name__)

YIELD_WINDOW_S = 2.0
"""The agent yields to a person who starts talking over it if it stops within this long (tau-voice's 2.0 s)."""
BACKCHANNEL_YIELD_WINDOW_S = 1.0
"""Stopping within this long after a backchannel is taking it for a turn: an error (tau-voice's 1.0 s)."""
NON_DIRECTED_YIELD_WINDOW_S = 1.0
"""Stopping within this long after speech meant for someone else began: an error."""
NON_DIRECTED_RESPONSE_WINDOW_S = 2.0
"""Answering (speaking, posting) during speech meant for someone else or this long after it: an error."""
FEW_EVENTS = 10
"""A rate backed by fewer events than this is shown as such (tau-voice hides them on its leaderboard)."""

_FOR_THE_AGENT = (None, AGENT, ROOM)
"""``persona_utterance.addressed_to`` values the agent may answer; a participant's name is speech for someone else."""
_TOUCH_S = 1e-3  # segments this close are one stretch of talk (a cut at a turn's end and its remainder)

Outcome = Literal["correct", "error"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Rate(_Model):
    """A share of events, with the events behind it."""

    events: int = Field(ge=0, description="Events the rate is over.")
    hits: int = Field(ge=0, description="Of those, the ones that went right (responded, yielded, correct).")
    rate: float | None = Field(description="hits / events; null with no events.")


class Latency(_Model):
    """Seconds, over the events that had one."""

    n: int = Field(ge=0, description="Events measured.")
    mean_s: float | None = Field(description="Mean seconds; null with none.")
    p50_s: float | None = Field(description="Median seconds; null with none.")
    p90_s: float | None = Field(description="90th percentile (nearest rank); null with none.")


class TurnTakingTurn(_Model):
    """One turn's turn-taking events."""

    turn_index: int = Field(description="Scenario turn.")
    responded: bool | None = Field(description="The agent responded after the persona's utterance, before the "
                                   "persona spoke again; null when the agent was still talking as it ended.")
    response_latency_s: float | None = Field(description="Seconds from the utterance's end to the agent's first act.")
    talked_over: int = Field(ge=0, description="Times the persona started speaking while the agent spoke.")
    yielded: int = Field(ge=0, description="Of those, times the agent stopped within the yield window.")
    agent_interruptions: int = Field(ge=0, description="Agent speech that began while the persona was speaking.")
    backchannel: Outcome | None = Field(description="The agent talked through the persona's backchannel (correct) "
                                        "or stopped (error); null: none this turn, or the agent was not talking.")
    non_directed: Outcome | None = Field(description="The agent stayed quiet through speech meant for someone "
                                         "else (correct) or answered it (error); null: none this turn.")


class TurnTaking(_Model):
    """A meeting's turn-taking panel (tau-voice's definitions; docs/scoring.md, "Turn-taking")."""

    response: Rate = Field(description="R_R: persona utterances the agent responded to before the persona spoke again.")
    response_latency: Latency = Field(description="L_R: utterance end to the agent's first act (speech, chat, edit, file).")
    yielding: Rate = Field(description="R_Y: times the persona talked over the agent and it stopped within 2.0 s.")
    yield_latency: Latency = Field(description="L_Y: seconds the agent took to stop, over the times it yielded.")
    agent_interruptions: int = Field(ge=0, description="Agent speech that began while the persona was speaking.")
    agent_interruption_rate: float | None = Field(description="I_A: agent_interruptions per persona utterance.")
    backchannel: Rate = Field(description="S_BC: backchannels the agent talked through.")
    non_directed: Rate = Field(description="S_ND: speech meant for someone else the agent left alone.")
    windows_s: dict[str, float] = Field(description="The detection windows used, in seconds.")
    turns: list[TurnTakingTurn] = Field(description="Per turn, in order.")


@dataclass(frozen=True, slots=True)
class _Span:
    start: float
    end: float
    turn: int | None


def _rate(hits: int, events: int) -> Rate:
    return Rate(events=events, hits=hits, rate=hits / events if events else None)


def _latency(values: list[float]) -> Latency:
    if not values:
        return Latency(n=0, mean_s=None, p50_s=None, p90_s=None)
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, max(0, -(-9 * len(ordered) // 10) - 1))]
    return Latency(n=len(values), mean_s=statistics.fmean(values), p50_s=statistics.median(values), p90_s=p90)


class _Agent:
    """The agent's speech segments and acts, for lookups by time."""

    def __init__(self, segments: list[_Span], acts: list[float]) -> None:
        # The harness cuts a segment still open when a turn closes and records the rest in the next turn:
        # for turn-taking it is one stretch of talk, so touching segments are joined.
        joined: list[_Span] = []
        for s in sorted(segments, key=lambda s: s.start):
            if joined and s.start <= joined[-1].end + _TOUCH_S:
                last = joined[-1]
                joined[-1] = _Span(last.start, max(last.end, s.end), last.turn)
            else:
                joined.append(s)
        self.segments = joined
        self.acts = sorted(acts)

    def speaking_at(self, t: float) -> _Span | None:
        """The segment in progress at ``t`` (begun before it, not yet over)."""
        for s in self.segments:
            if s.start < t < s.end:
                return s
            if s.start >= t:
                break
        return None

    def first_act_in(self, lo: float, hi: float, *, include_lo: bool = True) -> float | None:
        i = bisect.bisect_left(self.acts, lo) if include_lo else bisect.bisect_right(self.acts, lo)
        return self.acts[i] if i < len(self.acts) and self.acts[i] < hi else None


def turn_taking(events: Iterable[Any]) -> TurnTaking:
    """The turn-taking panel of a recorded meeting (every meeting, one person or several)."""
    utterances: list[_Span] = []  # the persona's scripted lines: the turns the agent responds to
    directed: list[_Span] = []  # everything the persona said to the agent aloud (lines and spoken answers)
    backchannels: list[_Span] = []
    asides: list[_Span] = []  # speech for someone else: asides, and lines one participant says to another
    segments: list[_Span] = []
    acts: list[float] = []
    barge_ins: list[_Span] = []  # the persona cutting the agent off: it takes the floor at that moment
    for e in events:
        if isinstance(e, PersonaUtterance):
            span = _Span(e.start, e.end, e.turn_index)
            if e.addressed_to not in _FOR_THE_AGENT:
                asides.append(span)  # people talking to each other: not for the agent, like an aside
                continue
            utterances.append(span)
            directed.append(span)
        elif isinstance(e, PersonaAnswer | PersonaChallenge) and e.channel == "audio":
            directed.append(_Span(e.start, e.end, e.turn_index))  # spoken to the agent, not a line of the script
        elif isinstance(e, Interruption) and e.by == "persona":
            barge_ins.append(_Span(e.meeting_time, e.meeting_time, e.turn_index))
        elif isinstance(e, PersonaBackchannel):
            backchannels.append(_Span(e.start, e.end, e.turn_index))
        elif isinstance(e, PersonaAside):
            asides.append(_Span(e.start, e.end, e.turn_index))
        elif isinstance(e, AgentSpeech):
            acts.append(e.onset)
            if e.offset > e.onset:  # a transcript with no voice is an act, not a stretch of talk
                segments.append(_Span(e.onset, e.offset, e.turn_index))
        elif isinstance(e, ChatMessage) and e.sender == "agent":
            acts.append(e.meeting_time)
        elif isinstance(e, DocUpdate) and e.origin == "agent":
            acts.append(e.meeting_time)
        elif isinstance(e, FileTransfer) and e.direction == "from_agent":
            acts.append(e.meeting_time)
    agent = _Agent(segments, acts)
    utterances.sort(key=lambda s: s.start)
    per_turn: dict[int, dict[str, Any]] = {}

    def turn_of(span: _Span) -> dict[str, Any] | None:
        if span.turn is None:
            return None
        return per_turn.setdefault(span.turn, {"turn_index": span.turn, "responded": None, "response_latency_s": None,
                                               "talked_over": 0, "yielded": 0, "agent_interruptions": 0,
                                               "backchannel": None, "non_directed": None})

    # Responses (R_R, L_R): after each line the persona finished with the agent silent, the agent's first act
    # before the persona's next line. A line the agent was still talking through at its end is left out.
    responded, latencies, response_events = 0, [], 0
    for i, u in enumerate(utterances):
        row = turn_of(u)
        if agent.speaking_at(u.end) is not None:
            continue
        response_events += 1
        nxt = utterances[i + 1].start if i + 1 < len(utterances) else float("inf")
        t = agent.first_act_in(u.end, nxt)
        if row is not None:
            row["responded"] = t is not None
        if t is not None:
            responded += 1
            latencies.append(t - u.end)
            if row is not None:
                row["response_latency_s"] = t - u.end
    # Yielding (R_Y, L_Y): the persona took the floor (cut in, or began speaking to the agent) while it talked;
    # one event per stretch of the agent's talk, from the first moment the floor was taken.
    yielded, yield_latencies, talked_over = 0, [], 0
    takeovers = sorted(barge_ins + directed, key=lambda p: p.start)
    for s in agent.segments:
        p = next((p for p in takeovers if s.start < p.start < s.end), None)
        if p is None:
            continue
        talked_over += 1
        row = turn_of(p)
        if row is not None:
            row["talked_over"] += 1
        if s.end - p.start <= YIELD_WINDOW_S:
            yielded += 1
            yield_latencies.append(s.end - p.start)
            if row is not None:
                row["yielded"] += 1
    # Agent interruptions (I_A): its speech began while the persona was speaking to it.
    interruptions = 0
    for s in agent.segments:
        p = next((p for p in directed if p.start < s.start < p.end), None)
        if p is not None:
            interruptions += 1
            row = turn_of(p)
            if row is not None:
                row["agent_interruptions"] += 1
    # Backchannels (S_BC): the agent should talk through them.
    bc_correct = bc_events = 0
    for b in backchannels:
        during = agent.speaking_at(b.start)
        if during is None:
            continue  # it had already stopped: nothing to talk through
        bc_events += 1
        ok = during.end > b.start + BACKCHANNEL_YIELD_WINDOW_S
        bc_correct += ok
        row = turn_of(b)
        if row is not None:
            row["backchannel"] = "correct" if ok else "error"
    # Speech meant for someone else (S_ND): the agent should neither stop for it nor answer it.
    nd_correct = 0
    for a in asides:
        during = agent.speaking_at(a.start)
        if during is not None:
            ok = during.end > a.start + NON_DIRECTED_YIELD_WINDOW_S
        else:
            ok = agent.first_act_in(a.start, a.end + NON_DIRECTED_RESPONSE_WINDOW_S, include_lo=False) is None
        nd_correct += ok
        row = turn_of(a)
        if row is not None:
            row["non_directed"] = "correct" if ok else "error"
    return TurnTaking(
        response=_rate(responded, response_events),
        response_latency=_latency(latencies),
        yielding=_rate(yielded, talked_over),
        yield_latency=_latency(yield_latencies),
        agent_interruptions=interruptions,
        agent_interruption_rate=interruptions / len(utterances) if utterances else None,
        backchannel=_rate(bc_correct, bc_events),
        non_directed=_rate(nd_correct, len(asides)),
        windows_s={"yield": YIELD_WINDOW_S, "backchannel_yield": BACKCHANNEL_YIELD_WINDOW_S,
                   "non_directed_yield": NON_DIRECTED_YIELD_WINDOW_S,
                   "non_directed_response": NON_DIRECTED_RESPONSE_WINDOW_S},
        turns=[TurnTakingTurn(**per_turn[i]) for i in sorted(per_turn)],
    )
