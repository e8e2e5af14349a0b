"""What one agent may make the harness record or do over a turn and over a meeting (docs/protocol.md §8).

The limits themselves live in ``_wire`` next to the per-message ones; this is the bookkeeping: per-turn and
per-meeting counters, and the tally that records a repeated fault once per kind and turn with a count.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from modylbench.channels._clock import Clock
from modylbench.channels._wire import (
    CONTROL_BURST,
    CONTROL_RATE,
    MAX_CHAT_MEETING,
    MAX_CHAT_TURN,
    MAX_CONTROL_MEETING,
    MAX_DOC_BYTES_MEETING,
    MAX_DOC_BYTES_TURN,
    MAX_FAULTS_MEETING,
    MAX_FILE_BYTES_MEETING,
    MAX_FILES_MEETING,
    MAX_FILES_TURN,
    MAX_TRANSCRIPT_MEETING,
    MAX_TRANSCRIPT_TURN,
    TRANSCRIPT_BURST,
    TRANSCRIPT_RATE,
    TokenBucket,
)


class BudgetExceeded(Exception):
    """A hard meeting budget is spent: the agent is ended with ``agent_error``."""


@dataclass
class Spend:
    """One budget: what was used this turn and this meeting against its two limits."""

    turn_limit: int | None
    meeting_limit: int
    hard: bool = False
    """Past the meeting limit the agent is ended (else the excess is only refused)."""
    turn: int = 0
    meeting: int = 0

    def take(self, amount: int = 1) -> bool:
        """Use ``amount``; False (nothing used) when it would pass a limit. Raises when a hard one is passed."""
        if self.meeting + amount > self.meeting_limit:
            if self.hard:
                raise BudgetExceeded(f"past the meeting budget of {self.meeting_limit}")
            return False
        if self.turn_limit is not None and self.turn + amount > self.turn_limit:
            return False
        self.turn += amount
        self.meeting += amount
        return True

    def room(self) -> int:
        """How much may still be used now."""
        left = self.meeting_limit - self.meeting
        return left if self.turn_limit is None else min(left, self.turn_limit - self.turn)


@dataclass
class FaultTally:
    """Repeated faults of one kind are recorded once per kind and turn; the rest are counted and reported as
    one event with their number when the turn changes or the meeting ends."""

    seen: dict[str, int] = field(default_factory=dict)
    total: int = 0

    def first(self, kind: str) -> bool:
        """Count one fault of ``kind``; True when it is the first of its kind this turn (record it)."""
        self.total += 1
        n = self.seen.get(kind, 0)
        self.seen[kind] = n + 1
        return n == 0

    def flush(self) -> list[tuple[str, int]]:
        """The kinds with faults not recorded one by one, and how many; the turn's tally starts afresh."""
        out = [(kind, n - 1) for kind, n in self.seen.items() if n > 1]
        self.seen = {}
        return out


class MeetingBudgets:
    """Every budget of one agent in one meeting."""

    def __init__(self, clock: Clock) -> None:
        self.control_rate = TokenBucket(clock, CONTROL_RATE, CONTROL_BURST)
        self.transcript_rate = TokenBucket(clock, TRANSCRIPT_RATE, TRANSCRIPT_BURST)
        self.control = Spend(None, MAX_CONTROL_MEETING)
        self.transcript = Spend(MAX_TRANSCRIPT_TURN, MAX_TRANSCRIPT_MEETING)
        self.chat = Spend(MAX_CHAT_TURN, MAX_CHAT_MEETING)
        self.files = Spend(MAX_FILES_TURN, MAX_FILES_MEETING)
        self.file_bytes = Spend(None, MAX_FILE_BYTES_MEETING, hard=True)
        self.doc = Spend(MAX_DOC_BYTES_TURN, MAX_DOC_BYTES_MEETING, hard=True)
        self.faults = FaultTally()

    def new_turn(self) -> list[tuple[str, int]]:
        """A turn begins: per-turn budgets start afresh; returns the last turn's uncounted faults."""
        for spend in (self.control, self.transcript, self.chat, self.files, self.file_bytes, self.doc):
            spend.turn = 0
        return self.faults.flush()

    def fault(self, kind: str) -> bool:
        """Count a fault; True when it is to be recorded. Raises when the meeting's fault budget is spent."""
        record = self.faults.first(kind)
        if self.faults.total > MAX_FAULTS_MEETING:
            raise BudgetExceeded(f"past the meeting budget of {MAX_FAULTS_MEETING} protocol faults")
        return record
