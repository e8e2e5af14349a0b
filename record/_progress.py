"""Progress of long runs (meetings, sweeps, judging, reports) as typed events, shown three ways: a live view on
a terminal, one line per event when piped, or JSON lines for machines (docs/progress.md lists the fields)."""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

logger = logging.getLogger(__name__)

PROGRESS_MODES: tuple[str, ...] = ("auto", "live", "lines", "json", "off")
"""``auto``: live on a terminal, lines otherwise; ``live``, ``lines``, ``json``, ``off``."""

# event -> the fields it carries besides the common ones (event, time, elapsed, and task when about one task).
PROGRESS_EVENTS: dict[str, tuple[str, ...]] = {
    "run_started": ("command", "total"),
    "session_started": ("label", "scenario_id", "agent", "transport", "seed", "turns"),
    "turn_started": ("turn", "turns", "phase", "channel"),
    "turn_ended": ("turn", "turns", "reason"),
    "session_finished": ("termination_reason", "turns_played", "wall_s", "folder"),
    "session_failed": ("error",),
    "session_skipped": ("reason",),
    "judge_progress": ("judge", "done", "total"),
    "report_progress": ("done", "total", "what"),
    "run_finished": ("done", "failed", "skipped", "total", "interrupted"),
}
"""The closed set of progress events and their fields (docs/progress.md)."""

FAILED_ENDINGS: frozenset[str] = frozenset({"agent_error", "persona_error", "infrastructure_error"})
"""Termination reasons of a session that ran to its end but failed: counted failed, not done."""

JSON_VERSION = 1
"""``v`` of every JSON progress line; raised when a field changes meaning."""


def record_progress(ev: Any, turns: int) -> tuple[str, dict[str, Any]] | None:
    """The progress event (name, fields) a recorded session event stands for, if any.

    ``turns`` is the number of turns the session plays. Pure and picklable-friendly: a session worker in
    another process calls it and ships only the small result back.
    """
    kind = getattr(ev, "event", None)
    if kind == "turn_start":
        return "turn_started", {
            "turn": ev.turn_index,
            "turns": turns,
            "phase": ev.phase,
            "channel": ev.channel,
        }
    if kind == "turn_end":
        return "turn_ended", {"turn": ev.turn_index, "turns": turns, "reason": ev.reason}
    return None


@dataclass
class _Task:
    """What the live view shows of one running task (a session)."""

    label: str
    turns: int = 0
    turn: int | None = None
    turns_done: int = 0
    phase: str = ""
    channel: str = ""
    started: float = 0.0


def _clock_text(seconds: float) -> str:
    seconds = max(0, int(seconds))
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


class ProgressReporter:
    """Receives progress events from any thread and shows them in one of ``PROGRESS_MODES``.

    Use as a context manager (the live view runs between enter and exit). ``emit`` is the whole event API;
    ``session_hook`` adapts a session's recorded events; ``judge_hook`` a judge's ``on_progress``.
    """

    def __init__(
        self,
        mode: str = "auto",
        *,
        command: str = "",
        stream: TextIO | None = None,
        json_stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ):
        if mode not in PROGRESS_MODES:
            raise ValueError(f"progress mode {mode!r}: one of {', '.join(PROGRESS_MODES)}")
        self.stream = stream if stream is not None else sys.stderr
        if mode == "auto":
            mode = "live" if _isatty(self.stream) else "lines"
        self.mode = mode
        self.command = command
        self.json_stream = json_stream if json_stream is not None else sys.stdout
        self._clock, self._wall = clock, wall
        self.t0 = clock()
        self._lock = threading.RLock()
        self.total = 0
        self.done = self.failed = self.skipped = 0
        self.running: dict[str, _Task] = {}
        self.judges: dict[str, tuple[int, int]] = {}
        self.report: tuple[int, int] | None = None
        self._printed_pct: dict[str, int] = {}
        self.seen = 0
        """Events received so far (a run with none shows nothing, not even a closing line)."""
        self._live: Any = None

    # -- the event API ----------------------------------------------------------------------------------------
    def emit(self, event: str, task: str | None = None, **fields: Any) -> None:
        """Record one progress event and show it; never raises (a display must not break a run)."""
        if event not in PROGRESS_EVENTS:
            raise ValueError(f"unknown progress event {event!r}")
        try:
            with self._lock:
                self.seen += 1
                label = self.running[task].label if task in self.running else task
                self._apply(event, task, fields)
                self._show(event, task, fields, label)
                live = self._live
            if live is not None and event in ("session_finished", "session_failed"):
                # Above the live view, a lasting line per finished session. Printed outside our lock: rich's
                # refresh thread holds its own lock while it asks ``render`` for ours.
                live.console.print(self._line(event, task, fields, label), markup=False, highlight=False)
        except Exception:  # noqa: BLE001 - progress is a view; the run goes on without it
            logger.exception("progress display failed")

    def session_hook(self, task: str, turns: int) -> Callable[[Any], None]:
        """An ``on_event`` for a session: its turn starts and ends become progress events of ``task``."""

        def hook(ev: Any) -> None:
            found = record_progress(ev, turns)
            if found is not None:
                self.emit(found[0], task, **found[1])

        return hook

    def judge_hook(self, judge: str, done: int, total: int) -> None:
        """A judge's ``on_progress(name, done, total)``."""
        self.emit("judge_progress", judge=judge, done=done, total=total)

    # -- state ------------------------------------------------------------------------------------------------
    def _apply(self, event: str, task: str | None, f: dict[str, Any]) -> None:
        if event == "run_started":
            self.total = int(f.get("total") or 0)
            if f.get("command"):
                self.command = str(f["command"])
        elif event == "session_started" and task is not None:
            self.running[task] = _Task(
                str(f.get("label") or task), int(f.get("turns") or 0), started=self._clock()
            )
        elif event == "turn_started" and task in self.running:
            t = self.running[task]
            t.turn, t.phase, t.channel = f.get("turn"), str(f.get("phase") or ""), str(f.get("channel") or "")
            t.turns = int(f.get("turns") or t.turns)
        elif event == "turn_ended" and task in self.running:
            t = self.running[task]
            t.turns_done = max(t.turns_done, int(f.get("turn") or 0) + 1)
        elif event == "session_finished":
            self.running.pop(task or "", None)
            if f.get("termination_reason") in FAILED_ENDINGS:
                self.failed += 1
            else:
                self.done += 1
        elif event == "session_failed":
            self.running.pop(task or "", None)
            self.failed += 1
        elif event == "session_skipped":
            self.skipped += 1
        elif event == "judge_progress":
            self.judges[str(f.get("judge"))] = (int(f.get("done") or 0), int(f.get("total") or 0))
        elif event == "report_progress":
            self.report = (int(f.get("done") or 0), int(f.get("total") or 0))

    def fraction(self) -> float | None:
        """Share of the run's work done (sessions weighted by turns played; judge calls; report parts)."""
        parts: list[tuple[float, float]] = []
        work = self.total - self.skipped
        if work > 0:
            partial = sum(t.turns_done / t.turns for t in self.running.values() if t.turns)
            parts.append((self.done + self.failed + partial, work))
        if self.judges:
            parts.append((sum(d for d, _ in self.judges.values()), sum(t for _, t in self.judges.values())))
        if self.report is not None:
            parts.append(self.report)
        if not parts:
            return None
        # The first kind of work present is the run's main one (sessions before judging before the report).
        done, total = parts[0]
        return min(1.0, done / total) if total else None

    def time_left(self) -> float | None:
        """Seconds left at the pace so far; None until something is done."""
        frac = self.fraction()
        if not frac:
            return None
        elapsed = self._clock() - self.t0
        return elapsed * (1 - frac) / frac

    # -- display ----------------------------------------------------------------------------------------------
    def _show(self, event: str, task: str | None, f: dict[str, Any], label: str | None) -> None:
        if self.mode == "json":
            line = {
                "v": JSON_VERSION,
                "event": event,
                "time": round(self._wall(), 3),
                "elapsed": round(self._clock() - self.t0, 3),
            }
            if task is not None:
                line["task"] = task
            line.update(f)
            self.json_stream.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
            self.json_stream.flush()
        elif self.mode == "lines":
            text = self._line(event, task, f, label)
            if text is not None:
                self.stream.write(f"[{_clock_text(self._clock() - self.t0):>7}] {text}\n")
                self.stream.flush()
        # live: rich's thread redraws from ``render`` four times a second.

    def _line(self, event: str, task: str | None, f: dict[str, Any], label: str | None = None) -> str | None:
        label = label or task or ""
        if event == "run_started":
            return f"{f.get('command') or self.command}: {f.get('total', 0)} to do"
        if event == "session_started":
            return f"{f.get('label') or label}: started ({f.get('turns')} turns, {f.get('transport')})"
        if event == "turn_started":
            where = " · ".join(str(x) for x in (f.get("phase"), f.get("channel")) if x)
            return f"{label}: turn {int(f.get('turn') or 0) + 1}/{f.get('turns')} {where}".rstrip()
        if event == "turn_ended":
            return f"{label}: turn {int(f.get('turn') or 0) + 1}/{f.get('turns')} ended ({f.get('reason')})"
        if event in ("session_finished", "session_failed", "session_skipped"):
            what = {
                "session_finished": f"{f.get('termination_reason')}, {f.get('turns_played')} turns, "
                f"{float(f.get('wall_s') or 0):.1f}s",
                "session_failed": f"FAILED: {f.get('error')}",
                "session_skipped": f"skipped ({f.get('reason')})",
            }[event]
            return f"{label}: {what}  [{self._counts()}]"
        if event in ("judge_progress", "report_progress"):
            name = (
                f"judge {f.get('judge')}"
                if event == "judge_progress"
                else f"report {f.get('what') or ''}".rstrip()
            )
            done, total = int(f.get("done") or 0), int(f.get("total") or 0)
            # Piped, a judge's hundreds of calls print as tenths, not one line each.
            pct = 100 * done // total if total else 100
            key = name
            if done < total and pct // 10 == self._printed_pct.get(key, -1) // 10:
                return None
            self._printed_pct[key] = pct
            return f"{name}: {done}/{total}" + self._left_text()
        if event == "run_finished":
            return (
                f"{self.command or 'run'} {'interrupted' if f.get('interrupted') else 'finished'}: "
                f"{self._counts(left=False)}  "
                f"elapsed {_clock_text(self._clock() - self.t0)}"
            )
        return None

    def _counts(self, left: bool = True) -> str:
        if not (self.total or self.running or self.done or self.failed):
            return self._left_text().lstrip(", ") if left else ""  # no sessions in this run (evaluate, report)
        waiting = max(0, self.total - self.done - self.failed - self.skipped - len(self.running))
        return (
            f"{self.done} done, {self.failed} failed, {self.skipped} skipped, {len(self.running)} running, "
            f"{waiting} waiting" + (self._left_text() if left else "")
        )

    def _left_text(self) -> str:
        left = self.time_left()
        return f", ~{_clock_text(left)} left" if left is not None else ""

    def render(self) -> Any:
        """The live view: counts and time, one row per running session (turn, phase, channel), judges."""
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        with self._lock:
            elapsed = self._clock() - self.t0
            head = Text.assemble(
                (f"{self.command or 'run'}  ", "bold"), self._counts(), f"  elapsed {_clock_text(elapsed)}"
            )
            parts: list[Any] = [head]
            if self.running:
                table = Table(box=None, show_header=False, padding=(0, 1), pad_edge=False)
                for col in ("session", "turn", "phase", "channel", "time"):
                    table.add_column(col, no_wrap=True)
                now = self._clock()
                for t in list(self.running.values())[:20]:
                    turn = f"{(t.turn or 0) + 1}/{t.turns}" if t.turn is not None else f"–/{t.turns}"
                    table.add_row(
                        Text(t.label, "cyan"), turn, t.phase, t.channel, _clock_text(now - t.started)
                    )
                parts.append(table)
                if len(self.running) > 20:
                    parts.append(Text(f"… {len(self.running) - 20} more running", "dim"))
            for name, (d, tot) in self.judges.items():
                parts.append(Text(f"judge {name}: {d}/{tot} calls"))
            if self.report is not None:
                parts.append(Text(f"report: {self.report[0]}/{self.report[1]}"))
            return Group(*parts)

    def __enter__(self) -> ProgressReporter:
        if self.mode == "live":
            from rich.console import Console
            from rich.live import Live

            # Refreshed by rich's own thread 4 times a second, so elapsed and time left move between events.
            self._live = Live(
                get_renderable=self.render,
                console=Console(file=self.stream),
                refresh_per_second=4,
                transient=True,
            )
            self._live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        live, self._live = self._live, None
        if live is not None:
            live.__exit__(*exc)
            # The live view is transient: leave one line saying how the run ended.
            text = self._line("run_finished", None, {}) if self.seen else None
            if text:
                self.stream.write(text + "\n")
                self.stream.flush()


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
