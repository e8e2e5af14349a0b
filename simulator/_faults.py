"""The harness's account of the agent's failures (``agent_error`` events): reported by whoever runs the agent
(its model call, its coroutine, its process) and written into the meeting's record as they happen."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from modylbench.record import AGENT_ERROR_KINDS

logger = logging.getLogger(__name__)

MAX_MESSAGE = 2_000
"""Characters of a failure's message kept in the record (a command's stderr line can be anything)."""
MAX_TRACEBACK = 20_000


class AgentFaults:
    """Failures of the agent under test for one meeting. ``report`` may be called before the record exists
    (kept until ``bind``) and after it is sealed (then only logged)."""

    def __init__(self) -> None:
        self._emit: Callable[[dict[str, Any]], None] | None = None
        self._pending: list[dict[str, Any]] = []
        self._closed = False
        self.reports: list[dict[str, Any]] = []
        """Every failure reported, in order (kind, message, traceback, fatal)."""
        self.settle: Callable[[], Awaitable[None]] | None = None
        """Set by the runner of an agent whose failures can lag behind its leaving (a process not yet reaped):
        the meeting awaits it before naming its termination reason."""

    @property
    def fatal(self) -> dict[str, Any] | None:
        """The first failure that ended the agent's part in the meeting, if any."""
        return next((r for r in self.reports if r["fatal"]), None)

    def report(self, kind: str, message: str, traceback: str | None = None, fatal: bool = False) -> None:
        """One failure of the agent: recorded as an ``agent_error`` event (``kind`` from AGENT_ERROR_KINDS)."""
        if kind not in AGENT_ERROR_KINDS:
            raise ValueError(f"agent error kind {kind!r} is not one of {', '.join(AGENT_ERROR_KINDS)}")
        one_line = " ".join(str(message).split())[:MAX_MESSAGE] or kind
        entry = {"kind": kind, "message": one_line,
                 "traceback": traceback[-MAX_TRACEBACK:] if traceback else None, "fatal": fatal}
        self.reports.append(entry)
        logger.warning("agent error (%s%s): %s", kind, ", fatal" if fatal else "", one_line)
        if self._closed:
            return
        if self._emit is None:
            self._pending.append(entry)
        else:
            self._emit(entry)

    def bind(self, emit: Callable[[dict[str, Any]], None]) -> None:
        """The meeting's record is open: write what was reported so far, and everything from now on."""
        self._emit = emit
        pending, self._pending = self._pending, []
        for entry in pending:
            emit(entry)

    def close(self) -> None:
        """The record is sealed: later reports are only logged (and kept in ``reports``)."""
        self._closed = True
        self._emit = None

    def summary(self, limit: int = 5) -> list[str]:
        """One line per failure, for the run's output; the first ``limit`` and a count of the rest."""
        lines = [f"agent_error ({r['kind']}{', fatal' if r['fatal'] else ''}): {r['message'][:300]}"
                 for r in self.reports[:limit]]
        if len(self.reports) > limit:
            lines.append(f"... and {len(self.reports) - limit} more agent errors (record.jsonl)")
        return lines
