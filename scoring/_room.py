"""What several people in the room ask of the agent, checked from its words (docs/scoring.md "Several people").

Four checks, each a credit in [0, 1] read deterministically from a turn's responses: staying quiet when a line is
for someone else (``quiet``), answering the person who asked (``asker``), saying who stated a figure
(``attribution``) and surfacing figures two people gave differently (``contradiction``). Their mean takes the
scenario's ceiling from 10 down to the floor, as curveballs do; one-to-one scenarios have none.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from modylbench.record import TurnResponse
from modylbench.scenarios import (
    Contradiction,
    Scenario,
    Turn,
    number_matches,
    quantity_spans,
    spoken_to_digits,
)

logger = logging.getLogger(__name__)

QUIET_WORDS = 3
"""At most this many words (and no figure) in a turn meant for someone else still counts as staying quiet: an
"mm-hm" or "noted" is not taking the floor."""
LATE_CREDIT = 0.85
"""Who-said-what and a contradiction said in the agent's next line, as facts said a turn late."""
UNNAMED_ANSWER_CREDIT = 0.5
"""An answer to a guest's question that names nobody: it answers, but not visibly to the person who asked."""
SPOKE_OUT_OF_TURN = "spoke_out_of_turn"
HELD_BACK = "held_back"
ROOM_FLAGS = {"quiet": SPOKE_OUT_OF_TURN, "asker": "answered_wrong_person", "attribution": "misattributed",
              "contradiction": "contradiction_missed"}  # fmt: skip
ROOM_CAP_FLAG = "room_misread"

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[A-Za-z0-9']+")


@dataclass(frozen=True)
class RoomCheck:
    """One multi-party check of one turn."""

    turn_index: int
    kind: str  # quiet, asker, attribution, contradiction
    credit: float
    detail: str


def said(r: TurnResponse | None) -> str:
    """Everything the agent said in a turn: its speech and its chat."""
    return "" if r is None else "\n".join([r.agent_response, *r.chat_messages])


def kept_quiet(text: str) -> bool:
    """Nothing that takes the floor: at most ``QUIET_WORDS`` words and no figure."""
    return len(_WORD.findall(text)) <= QUIET_WORDS and not quantity_spans(text)


def _names(scenario: Scenario) -> dict[str, str]:
    """First name (lower case) -> full name, for everyone in the room."""
    assert scenario.room is not None
    return {p.first_name.lower(): p.name for p in scenario.room.participants}


def _name_at(text: str, names: dict[str, str]) -> list[tuple[int, str]]:
    """Where each participant is named in ``text`` (by first or full name), in order."""
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b", re.IGNORECASE)
    return [(m.start(), names[m.group(1).lower()]) for m in pattern.finditer(text)]


_OPENER = r"(?:(?:thanks|thank you|okay|ok|sure|right|so|yes|good question|good point)[,!.]?\s+)?"


def addressee(text: str, scenario: Scenario) -> str | None:
    """Whom the agent's answer is addressed to: the participant it names in the vocative, at its start ("Marcus,
    ...", "Thanks Marcus, ...") or at its end ("..., Marcus."); None when it addresses nobody by name."""
    names = _names(scenario)
    alt = "|".join(re.escape(n) for n in names)
    # A name opening a sentence or clause and followed by a comma or colon, or closing one after a comma: the first
    # such is whom the answer is for ("Here is where that lands: Marcus, ..." included).
    vocative = re.compile(
        rf"(?:^|[.!?:;]\s+|\n\s*){_OPENER}({alt})\b(?:\s+[A-Z]\w+)?\s*[,:!]"
        rf"|,\s*({alt})\b(?:\s+[A-Z]\w+)?\s*(?:[.!?]+|$)", re.IGNORECASE)
    m = vocative.search(text.strip())
    return names[(m.group(1) or m.group(2)).lower()] if m else None


def next_agent_turn(scenario: Scenario, turn_index: int) -> int | None:
    """The next turn after ``turn_index`` that is the agent's to answer (lines for others are skipped: a late
    answer waits until a side conversation is over); None after the last."""
    for t in scenario.turns[turn_index + 1:]:
        if not scenario.expects_quiet(t):
            return t.turn_index
    return None


def attributed(text: str, scenario: Scenario, value: float, unit: str, tol: float) -> list[str | None]:
    """For each place ``text`` states ``value``: the participant it is said of, the one named last before it in
    its sentence (or, with none before, the first after it; with none in the sentence, the last one the sentence
    before named: "Marcus said 11 percent. Sorry, I misspoke: 9."); None when neither names anybody."""
    names = _names(scenario)
    out: list[str | None] = []
    carry: str | None = None
    for sentence in _SENTENCE.split(spoken_to_digits(text)):
        people = _name_at(sentence, names)
        for start, _end, q in quantity_spans(sentence):
            if not number_matches(q, value, unit, tol):
                continue
            before = [who for at, who in people if at < start]
            after = [who for at, who in people if at > start]
            out.append(before[-1] if before else after[0] if after else carry)
        carry = people[-1][1] if people else None
    return out


def _states(text: str, value: float, unit: str, tol: float) -> bool:
    return any(number_matches(q, value, unit, tol) for _s, _e, q in quantity_spans(spoken_to_digits(text)))


def turn_checks(scenario: Scenario, turn: Turn, response: TurnResponse | None,
                late: TurnResponse | None = None) -> list[RoomCheck]:
    """The multi-party checks of one turn (none in a one-to-one meeting); ``late``: the agent's next line's
    response, where who-said-what and a contradiction still count at ``LATE_CREDIT`` (as facts do)."""
    if scenario.room is None:
        return []
    text = said(response)
    late_text = said(late)
    ti = turn.turn_index
    out: list[RoomCheck] = []
    if scenario.expects_quiet(turn):
        quiet = kept_quiet(text)
        out.append(RoomCheck(ti, "quiet", 1.0 if quiet else 0.0,
                             "kept quiet" if quiet else f"spoke in a line for {turn.addressed_to or 'the room'}"))
        return out
    speaker = scenario.speaker_of(turn)
    if speaker != scenario.room.host.name:
        named = addressee(text, scenario) if text.strip() else None
        own = _asker_credit(text, scenario, speaker)
        later = LATE_CREDIT * _asker_credit(late_text, scenario, speaker)
        out.append(RoomCheck(ti, "asker", max(own, later), f"asked by {speaker}; answered {named or 'nobody by name'}"
                             + (" (a line late)" if later > own else "")))
    facts = {f.id: f for f in turn.expected_facts}
    for a in turn.attributions:
        f = facts[a.fact_id]
        if isinstance(f.value, str):
            continue
        own = _attribution_credit(text, scenario, a.said_by, float(f.value), f.unit, f.tolerance_pct)
        later = LATE_CREDIT * _attribution_credit(late_text, scenario, a.said_by, float(f.value), f.unit,
                                                  f.tolerance_pct)
        who = attributed(text, scenario, float(f.value), f.unit, f.tolerance_pct)
        out.append(RoomCheck(ti, "attribution", max(own, later), f"{a.fact_id}: {a.said_by} -> {who or 'not stated'}"
                             + (" (a line late)" if later > own else "")))
    c = turn.contradiction
    if c is not None:
        own, detail = _contradiction_credit(text, scenario, c)
        later = LATE_CREDIT * _contradiction_credit(late_text, scenario, c)[0]
        out.append(RoomCheck(ti, "contradiction", max(own, later), detail + (" (a line late)" if later > own else "")))
    return out


def _asker_credit(text: str, scenario: Scenario, speaker: str) -> float:
    if not text.strip():
        return 0.0
    named = addressee(text, scenario)
    return 1.0 if named == speaker else UNNAMED_ANSWER_CREDIT if named is None else 0.0


def _attribution_credit(text: str, scenario: Scenario, said_by: str, value: float, unit: str, tol: float) -> float:
    who = attributed(text, scenario, value, unit, tol)
    right = said_by in who
    wrong = any(w is not None and w != said_by for w in who)
    return 1.0 if right and not wrong else 0.5 if right else 0.0


def _contradiction_credit(text: str, scenario: Scenario, c: Contradiction) -> tuple[float, str]:
    values = sum(_states(text, cl.value, cl.unit, c.tolerance_pct) for cl in c.claims)
    named_people = {who for _at, who in _name_at(text, _names(scenario))}
    people = sum(cl.said_by in named_people for cl in c.claims)
    return (values + people) / (2 * len(c.claims)), f"{c.id}: figures {values}/{len(c.claims)}, people {people}/{len(c.claims)}"


def room_share(checks: list[RoomCheck]) -> float | None:
    """The mean credit of a meeting's multi-party checks (None: a one-to-one meeting)."""
    return sum(c.credit for c in checks) / len(checks) if checks else None
