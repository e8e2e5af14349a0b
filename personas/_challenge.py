"""The persona's pushback said aloud (docs/scoring.md "Pushback"): a wrong figure the agent gave for a designated
fact is challenged at the start of the next turn, as a reviewer would, and how the agent answered is judged from
that turn's words.

Which figures are wrong and how a challenge was answered are ``scenarios.pushback_wrong_figures`` and
``scenarios.challenge_answer``, the scorer's own reading; the wording is content (``answers.toml``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from modylbench.personas._answerer import wording
from modylbench.scenarios import (
    ChallengeOutcome,
    ExpectedFact,
    Scenario,
    challenge_answer,
    pushback_wrong_figures,
)

logger = logging.getLogger(__name__)

MAX_CHALLENGES_PER_TURN = 2
"""Wrong figures the persona raises at one turn's start (a reviewer picks the ones that matter most)."""


@dataclass(frozen=True)
class Challenge:
    """One wrong figure the persona raises."""

    challenge_id: str
    """c<turn>.<n>: the turn it is raised in, its place there."""
    fact: ExpectedFact
    fact_turn: int
    figure: str
    """The agent's figure, as it said it."""
    text: str
    """The persona's words."""


CHALLENGE_ID_PREFIX = "c"
"""A challenge's caption id: c<turn>.<n> (scripted lines are u<turn>, answers q<turn>.<n>; docs/protocol.md)."""


def is_challenge(utterance_id: str) -> bool:
    """Whether a caption's ``utterance_id`` is a challenge (said before the turn's own line, not a new turn)."""
    return utterance_id.startswith(CHALLENGE_ID_PREFIX) and utterance_id[1:2].isdigit()


def challenge_text(fact: ExpectedFact, figure: str) -> str:
    """The persona's words challenging ``figure`` for ``fact`` (``answers.toml`` [challenge]); never the value."""
    label = fact.description[:1].lower() + fact.description[1:] if not fact.description[:2].isupper() \
        else fact.description
    return str(wording()["challenge"]["text"]).format(figure=figure, label=label.rstrip("."))


def challenges_for(scenario: Scenario, fact_turn: int, said: str, raised_in: int) -> list[Challenge]:
    """The challenges raised at the start of turn ``raised_in`` about the agent's words ``said`` in
    ``fact_turn`` (at most ``MAX_CHALLENGES_PER_TURN``, in the order of the turn's facts)."""
    found = pushback_wrong_figures(scenario, fact_turn, said)[:MAX_CHALLENGES_PER_TURN]
    return [Challenge(f"{CHALLENGE_ID_PREFIX}{raised_in}.{n}", f, fact_turn, fig, challenge_text(f, fig))
            for n, (f, fig) in enumerate(found, start=1)]


def outcome(scenario: Scenario, challenge: Challenge, said: str) -> ChallengeOutcome:
    """How the agent's words ``said`` in the turn the challenge was raised answered it."""
    return challenge_answer(scenario, challenge.fact_turn, challenge.fact, said)
