"""Progress of meeting runs: the CLI's ``--progress``/``--json`` options and the session events a runner emits,
in this process or from session workers in other processes (the reporter itself is ``record.ProgressReporter``)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from modylbench.record import PROGRESS_MODES, ProgressReporter, record_progress

logger = logging.getLogger(__name__)

__all__ = ["ProgressReporter", "QueueHook", "forwarding", "progress_options", "reporter_for", "session_task"]


def progress_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--progress MODE`` and ``--json`` (shorthand for ``--progress json``) on a command."""
    f = click.option(
        "--json",
        "progress_json",
        is_flag=True,
        help="Progress as JSON lines on stdout (docs/progress.md); the summary goes to stderr.",
    )(f)
    return click.option(
        "--progress",
        "progress",
        type=click.Choice(PROGRESS_MODES),
        default="auto",
        show_default=True,
        help="auto: a live view on a terminal, one line per event when piped; live, lines, "
        "json (JSON lines on stdout) or off.",
    )(f)


def reporter_for(progress: str, progress_json: bool, command: str) -> ProgressReporter:
    """The reporter the options ask for (``--json`` wins over ``--progress``)."""
    return ProgressReporter("json" if progress_json else progress, command=command)


def session_task(spec: Any) -> tuple[str, dict[str, Any]]:
    """A RunSpec's task id (its folder's name, unique within a run) and its ``session_started`` fields."""
    sc = spec.scenario
    turns = min(spec.meeting.turns or len(sc.turns), len(sc.turns))
    return spec.folder.name, {
        "label": f"{sc.scenario_id} × {spec.agent_name or spec.agent}",
        "scenario_id": sc.scenario_id,
        "agent": spec.agent,
        "transport": spec.transport,
        "seed": spec.meeting.seed,
        "turns": turns,
    }


class QueueHook:
    """A session's ``on_event`` that works across processes: it ships the progress event a recorded event
    stands for (small tuples, not the event) to a queue the parent drains. Picklable with a Manager queue."""

    def __init__(self, queue: Any, task: str, turns: int):
        self.queue, self.task, self.turns = queue, task, turns

    def __call__(self, ev: Any) -> None:
        found = record_progress(ev, self.turns)
        if found is not None:
            try:
                self.queue.put((self.task, found[0], found[1]))
            except Exception:  # noqa: BLE001 - the parent has gone away; the meeting is what matters
                logger.debug("progress queue closed", exc_info=True)


@contextmanager
def forwarding(reporter: ProgressReporter) -> Iterator[Callable[[str, int], QueueHook]]:
    """Yields ``hook(task, turns)`` making QueueHooks whose events reach ``reporter`` from worker processes.

    A Manager queue (a proxy, so it pickles into ``ProcessPoolExecutor`` calls) and one thread draining it;
    both end when the block does.
    """
    import multiprocessing
    import os
    from multiprocessing.managers import SyncManager

    from modylbench.simulator._runner import die_with_parent

    # The Manager's server is a process of its own: like the meeting workers, it must not outlive a killed run.
    manager = SyncManager(ctx=multiprocessing.get_context("spawn"))
    manager.start(die_with_parent, (os.getpid(),))
    queue = manager.Queue()

    def drain() -> None:
        while True:
            try:
                item = queue.get()
            except (EOFError, OSError):
                return
            if item == "stop":
                return
            task, event, fields = item
            reporter.emit(event, task, **fields)

    thread = threading.Thread(target=drain, name="progress-forward", daemon=True)
    thread.start()
    try:
        yield lambda task, turns: QueueHook(queue, task, turns)
    finally:
        try:
            queue.put("stop")
            thread.join(timeout=5)
        finally:
            manager.shutdown()
