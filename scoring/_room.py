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
from modylbench.scenarios import Scenario, Turn, number_matches, quantity_spans, spoken_to_digits

logger = logging.getLogger(__name__)

QUIET_WORDS = 3
"""At most this many words (and no figure) in a turn meant for someone else still counts as staying quiet: an
"mm-hm" or "noted" is not taking the floor."""
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


def first_named(text: str, scenario: Scenario) -> str | None:
    """The participant the agent names first (whom the answer is addressed to), if any."""
    found = _name_at(text, _names(scenario))
    return found[0][1] if found else None


def attributed(text: str, scenario: Scenario, value: float, unit: str, tol: float) -> list[str | None]:
    """For each place ``text`` states ``value``: the participant it is said of, the one named last before it in
    its sentence (or, with none before, the first after it); None when the sentence names nobody."""
    names = _names(scenario)
    out: list[str | None] = []
    for sentence in _SENTENCE.split(spoken_to_digits(text)):
        people = _name_at(sentence, names)
        for start, _end, q in quantity_spans(sentence):
            if not number_matches(q, value, unit, tol):
                continue
            before = [who for at, who in people if at < start]
            after = [who for at, who in people if at > start]
            out.append(before[-1] if before else after[0] if after else None)
    return out


def _states(text: str, value: float, unit: str, tol: float) -> bool:
    return any(number_matches(q, value, unit, tol) for _s, _e, q in quantity_spans(spoken_to_digits(text)))


def turn_checks(scenario: Scenario, turn: Turn, response: TurnResponse | None) -> list[RoomCheck]:
    """The multi-party checks of one turn (none in a one-to-one meeting)."""
    if scenario.room is None:
        return []
    text = said(response)
    ti = turn.turn_index
    out: list[RoomCheck] = []
    if scenario.expects_quiet(turn):
        quiet = kept_quiet(text)
        out.append(RoomCheck(ti, "quiet", 1.0 if quiet else 0.0,
                             "kept quiet" if quiet else f"spoke in a line for {turn.addressed_to or 'the room'}"))
        return out
    speaker = scenario.speaker_of(turn)
    if speaker != scenario.room.host.name:
        named = first_named(text, scenario) if text.strip() else None
        credit = 0.0 if not text.strip() else 1.0 if named == speaker else UNNAMED_ANSWER_CREDIT if named is None else 0.0
        out.append(RoomCheck(ti, "asker", credit, f"asked by {speaker}; answered {named or 'nobody by name'}"))
    facts = {f.id: f for f in turn.expected_facts}
    for a in turn.attributions:
        f = facts[a.fact_id]
        if isinstance(f.value, str):
            continue
        who = attributed(text, scenario, float(f.value), f.unit, f.tolerance_pct)
        right = a.said_by in who
        wrong = any(w is not None and w != a.said_by for w in who)
        credit = 1.0 if right and not wrong else 0.5 if right else 0.0
        out.append(RoomCheck(ti, "attribution", credit, f"{a.fact_id}: {a.said_by} -> {who or 'not stated'}"))
    c = turn.contradiction
    if c is not None:
        values = sum(_states(text, cl.value, cl.unit, c.tolerance_pct) for cl in c.claims)
        named_people = {who for _at, who in _name_at(text, _names(scenario))}
        people = sum(cl.said_by in named_people for cl in c.claims)
        credit = (values + people) / (2 * len(c.claims))
        out.append(RoomCheck(ti, "contradiction", credit, f"{c.id}: figures {values}/{len(c.claims)}, "
                             f"people {people}/{len(c.claims)}"))
    return out


def room_share(checks: list[RoomCheck]) -> float | None:
    """The mean credit of a meeting's multi-party checks (None: a one-to-one meeting)."""
    return sum(c.credit for c in checks) / len(checks) if checks else None
