"""The persona's side of a multi-party meeting: each participant's own voice, who says a line, joins and leaves.

``ScriptedPersona`` asks a ``RoomPlayer`` which engine speaks a turn (the participant's voice), whom to name as
the caption's and chat's speaker, and which ``participant_joined`` / ``participant_left`` messages go out around
a turn; one-to-one scenarios have none and play exactly as before.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from modylbench.channels import ParticipantJoined, ParticipantLeft, room_hello
from modylbench.personas._answerer import OfflineAnswerer
from modylbench.personas._speech import CachedEngine, EspeakEngine, OpenAISpeechEngine, SpeechEngine
from modylbench.scenarios import Participant, PersonaVoice, Scenario, Turn

logger = logging.getLogger(__name__)


def voice_engine(engine: SpeechEngine, voice: PersonaVoice) -> SpeechEngine:
    """``engine`` speaking in ``voice`` (its eSpeak or OpenAI voice and rate), cached where ``engine`` was."""
    if isinstance(engine, CachedEngine):
        return CachedEngine(voice_engine(engine.engine, voice), engine.cache_dir)
    if isinstance(engine, EspeakEngine):
        return EspeakEngine(voice.engine_voice, voice.words_per_minute)
    if isinstance(engine, OpenAISpeechEngine):
        return OpenAISpeechEngine(model=engine.model, voice=voice.openai_voice, base_url=engine.base_url,
                                  api_key=engine.api_key)
    logger.info("speech engine %s has no voices to choose from: every participant speaks with it", engine.name)
    return engine


def room_hello_of(scenario: Scenario) -> dict[str, Any] | None:
    """``hello.room`` for ``scenario``: the agent's name and the people, those there from the start marked present
    (None: a one-to-one meeting, whose hello has no ``room``)."""
    room = scenario.room
    if room is None:
        return None
    people = [(p.name, p.role) for p in room.participants]
    present = {p.name for p in room.participants if p.joins_at_turn == 0}
    return room_hello(room.agent_name, people, present)


class RoomPlayer:
    """Who says what in a multi-party meeting, for the persona that plays it."""

    def __init__(self, scenario: Scenario, engine: SpeechEngine):
        if scenario.room is None:
            raise ValueError(f"{scenario.scenario_id} is a one-to-one meeting")
        self.scenario = scenario
        self.room = scenario.room
        host = self.room.host.name
        # The host speaks with the engine the run chose (its --voice); each guest with their own voice.
        self._engines = {p.name: engine if p.name == host else voice_engine(engine, p.voice)
                         for p in self.room.participants}  # fmt: skip
        self._answerers = {p.name: OfflineAnswerer(scenario, p.knowledge) for p in self.room.participants[1:]
                           if p.knowledge is not None}  # fmt: skip
        self.answered_by: dict[str, str] = {}
        """Question id -> the participant who answers it (the host's answers are not listed)."""
        firsts = "|".join(re.escape(p.first_name) for p in self.room.participants[1:]) or "(?!)"
        self._vocative = re.compile(rf"^\s*({firsts})\b\s*[,:]\s*|,\s*({firsts})\s*\?*\s*$", re.IGNORECASE)

    def present(self, turn_index: int) -> list[Participant]:
        """The people in the meeting during turn ``turn_index``."""
        return [p for p in self.room.participants if p.joins_at_turn <= turn_index
                and (p.leaves_after_turn is None or turn_index <= p.leaves_after_turn)]

    def answerer_for(self, question: str, turn: Turn) -> tuple[OfflineAnswerer | None, str, str | None]:
        """Who answers ``question``: a guest in the meeting it names in the vocative ("Priya, what is capex?",
        "…, Priya?") answers from their own knowledge; anyone else, the host. Returns (the guest's answerer or None
        for the host's, the question without the name, the guest's name or None)."""
        m = self._vocative.search(question)
        if m is None:
            return None, question, None
        first = (m.group(1) or m.group(2)).lower()
        guest = next((p for p in self.present(turn.turn_index) if p.first_name.lower() == first), None)
        if guest is None or guest.name not in self._answerers:
            return None, question, None
        return self._answerers[guest.name], (question[: m.start()] + " " + question[m.end():]).strip(), guest.name

    def engine_named(self, name: str) -> SpeechEngine:
        """The voice of participant ``name``."""
        return self._engines[name]

    def engine_for(self, turn: Turn) -> SpeechEngine:
        """The voice that says ``turn``'s line."""
        return self._engines[self.scenario.speaker_of(turn)]

    def speaker(self, turn: Turn) -> str:
        """The name the caption and chat of ``turn`` carry."""
        return self.scenario.speaker_of(turn)

    def hello(self) -> dict[str, Any]:
        """``hello.room`` (``room_hello_of``)."""
        return room_hello_of(self.scenario) or {}

    def joining(self, turn: Turn) -> list[ParticipantJoined]:
        """Who joins as ``turn`` starts."""
        i = turn.turn_index
        return [ParticipantJoined(p.name, p.role) for p in self.room.participants if p.joins_at_turn == i and i > 0]

    def leaving(self, turn: Turn) -> list[ParticipantLeft]:
        """Who leaves once ``turn`` is over."""
        return [ParticipantLeft(p.name) for p in self.room.participants if p.leaves_after_turn == turn.turn_index]
