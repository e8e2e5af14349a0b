"""The batch layer under ``run`` and ``sweep``: resume, crash-aside, sessions at once over worker processes (one
event loop each), one failure policy, each session scored once, and the combined results in OUT.

Failure policy (docs/scale.md "Failures"): a session that cannot be played or scored is recorded as failed with
its kind (``FAILURE_KINDS``) and first line; the batch goes on; its folder is kept (incomplete: the next run
moves it aside and plays it again). A user's mistake found in a session (``UserError``) stops the batch, and
Ctrl-C stops the running sessions. ``exit_status`` gives the exit code: 130 interrupted, 1 some session failed,
4 every session of an agent recorded an agent failure, 3 judges left items unscored, else 0.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import socket
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import click

from modylbench.record import ProgressReporter, SessionFolder
from modylbench.scoring import AGENT_ERROR_FLAG, INCOMPLETE_EXIT
from modylbench.simulator._cli_common import STOPPED_BY_CTRL_C, owning, stop_on_ctrl_c, write_report
from modylbench.simulator._errors import INTERRUPTED_EXIT, UserError
from modylbench.simulator._progress import session_task
from modylbench.simulator._sessionkey import recorded_key

logger = logging.getLogger(__name__)

FAILURE_KINDS = ("infrastructure_error", "scoring_error", "worker_lost")
"""Why a session of a batch failed: it could not be played (the harness raised), it was played and could not be
scored, or the process or node playing it died. An agent's own failures are not among them: they are recorded
in the session (agent_error) and flagged in its scorecard."""

FAILED_EXIT = 1
"""Exit code of a batch in which some session failed (the others were played, scored and combined)."""
AGENT_ERROR_EXIT = 4
"""Exit code when every session of some agent recorded an agent failure (flag agent_error)."""

Status = Literal["todo", "complete", "rescore", "broken"]


@dataclass
class Outcome:
    """How one session of a batch ended. ``card`` is its scorecard (None when it failed)."""

    name: str
    termination_reason: str | None = None
    turns_played: int = 0
    seconds: float = 0.0
    node: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    attempts: int = 1
    failure_kind: str | None = None
    agent_errors: list[str] = field(default_factory=list)
    card: Any = None


# ------------------------------------------------------------------ one session, wherever it runs


def node_info() -> dict[str, Any]:
    """Where this process runs, for the manifest: host name, process id and, on Ray, the node id."""
    info: dict[str, Any] = {"hostname": socket.gethostname(), "pid": os.getpid()}
    if "ray" in sys.modules:
        try:
            import ray

            if ray.is_initialized():
                ctx = ray.get_runtime_context()
                info["ray_node_id"] = ctx.get_node_id()
                info["ray_node_ip"] = ray.util.get_node_ip_address()
        except Exception:  # noqa: BLE001 - the node is a label; a failure to read it must not fail the meeting
            logger.debug("no Ray node id", exc_info=True)
    return info


def with_node(spec: Any) -> Any:
    """The spec with this process's node recorded in its manifest."""
    meeting = replace(spec.meeting, extra_manifest={**spec.meeting.extra_manifest, "node": node_info()})
    return replace(spec, meeting=meeting)


def score_played(spec: Any, panel: list[str]) -> Any:
    """Score a played session in its folder, once: its record is read once (verified), scored once
    (responses.jsonl, scorecard.json) and the same read draws its report.html."""
    from modylbench.record import read_record
    from modylbench.scoring.report import load_session
    from modylbench.simulator._runner import score_session

    scenarios = {spec.scenario.scenario_id: spec.scenario}
    with owning(spec.folder):
        read = read_record(spec.folder)
        card = score_session(spec.folder, scenarios, panel, read=read)
        try:
            view: Any = load_session(spec.folder, read)
        except (OSError, ValueError) as exc:  # the report shows the scorecard without the recording
            logger.warning("%s: the report leaves the session out (%s)", spec.folder, exc)
            view = None
        write_report(card, spec.folder, scenarios, sessions=[view] if view is not None else [])
    return card


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return (text.splitlines()[0] if text else type(exc).__name__)[:500]


async def play_and_score(spec: Any, panel: list[str], on_event: Callable[[Any], None] | None = None) -> Outcome:
    """Play one session and score it; a failure of either is the outcome's (``failure_kind``), never raised. A
    ``UserError`` (the user can fix it) and cancellation are raised."""
    from modylbench.simulator._runner import run_one

    spec = with_node(spec)
    t0 = time.monotonic()
    node = spec.meeting.extra_manifest["node"]
    try:
        result = await run_one(spec, on_event=on_event)
    except (UserError, asyncio.CancelledError):
        raise
    except Exception as exc:  # noqa: BLE001 - one failed session never ends the batch; resume redoes it
        logger.exception("session %s could not be played", spec.folder.name)
        return Outcome(spec.folder.name, seconds=time.monotonic() - t0, node=node, error=first_line(exc),
                       failure_kind="infrastructure_error")
    try:
        # In a thread: scoring and the report (it encodes the recording) take seconds of CPU that must not
        # stall the other meetings on this loop.
        card = await asyncio.to_thread(score_played, spec, panel)
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001 - recorded as the session's failure; its folder is kept
        logger.exception("session %s could not be scored", spec.folder.name)
        return Outcome(spec.folder.name, result.termination_reason, result.turns_played, time.monotonic() - t0,
                       node, error=first_line(exc), failure_kind="scoring_error")
    return Outcome(spec.folder.name, result.termination_reason, result.turns_played, time.monotonic() - t0, node,
                   agent_errors=list(result.agent_errors), card=card)


def run_cell_here(spec: Any, panel: list[str], on_event: Callable[[Any], None] | None = None) -> Outcome:
    """``play_and_score`` blocking, in a process of its own (a Ray task)."""
    return asyncio.run(play_and_score(spec, panel, on_event))


# ------------------------------------------------------------------ resume


def cell_status(folder: Path, panel: list[str], spec: Any = None, refused: dict[Path, str] | None = None, *,
                scenario: Any = None) -> Status:
    """What resume does with a session's folder: play it, reuse it, re-score it (another panel) or move it aside.

    With the session's ``spec``, a complete folder that recorded another session (``session_difference``) is
    refused with one line: it is never reused, nor replaced without being asked. A complete folder that fails
    verification (``verify_session``) is broken, with the reason in ``refused``.
    """
    from modylbench.simulator._runner import session_complete, session_difference, verify_session

    if not folder.exists() and not folder.is_symlink():
        return "todo"
    if not session_complete(folder):
        return "broken"
    if spec is not None and (diff := session_difference(spec)) is not None:
        raise UserError(f"{folder} holds a complete session of another configuration ({diff}); --force replaces "
                        "it (run), or give another --out")
    why = verify_session(folder, scenario if scenario is not None else spec.scenario if spec is not None else None)
    if why is None and not is_cell(folder):
        why = "its manifest does not name it as this session"
    if why is not None:
        if refused is not None:
            refused[folder] = why
        return "broken"
    try:
        judges = json.loads(SessionFolder(folder).scorecard.read_text(encoding="utf-8")).get("judges")
    except (OSError, ValueError, AttributeError):
        return "broken"
    return "complete" if judges == panel else "rescore"


def is_cell(folder: Path) -> bool:
    """The folder's manifest names it as the session it holds (its key, or an older sweep's cell entry)."""
    manifest = SessionFolder(folder).read_manifest()
    return manifest is not None and any(c is not None and c.get("name") == folder.name
                                        for c in (manifest.session, manifest.sweep_cell))


def clear_for_rerun(folder: Path, keep: bool = False) -> None:
    """Make way for a new run of ``folder``: a complete session (--force) is replaced; an incomplete one (a
    crash), or any one with ``keep`` (a refused resume, a link), is never deleted but moved aside, and the
    move is reported. A folder another live process is writing is left alone: a one-line error."""
    from modylbench.record import SessionBusyError, SessionLock
    from modylbench.simulator._runner import session_complete

    try:
        lock = SessionLock(folder).acquire()
    except SessionBusyError as exc:
        raise UserError(f"{exc}; not touching it (wait for that run to end, or stop it)") from None
    try:
        if session_complete(folder) and not keep and not folder.is_symlink():
            click.echo(f"replacing the complete session in {folder} (--force)", err=True)
            shutil.rmtree(folder)
            return
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        aside = folder.with_name(f"{folder.name}.crashed-{stamp}")
        n = 1
        while aside.exists():
            n += 1
            aside = folder.with_name(f"{folder.name}.crashed-{stamp}-{n}")
        folder.rename(aside)
        why = "a session resume refused" if keep else "an incomplete session (a crashed or interrupted run)"
        click.echo(f"{folder} held {why}: moved it aside to {aside}", err=True)
    finally:
        lock.release()


@dataclass
class Prepared:
    """What resume decided: the specs to play, each spec's status, and the reused sessions' scorecards."""

    todo: list[Any] = field(default_factory=list)
    rows: list[tuple[Any, Status]] = field(default_factory=list)
    reused: list[Path] = field(default_factory=list)
    refused: dict[Path, str] = field(default_factory=dict)


def prepare(specs: Iterable[Any], panel: list[str], *, force: bool = False, dry_run: bool = False) -> Prepared:
    """Decide each session's fate; unless a dry run, move broken folders aside (and, with ``force``, complete
    ones) and re-score sessions another panel scored. Sessions that fail verification are said so."""
    p = Prepared()
    for spec in specs:
        if force and not dry_run:  # whatever the folder holds is replaced (complete) or moved aside (not)
            if spec.folder.exists() or spec.folder.is_symlink():
                clear_for_rerun(spec.folder)
            p.rows.append((spec, "todo"))
            p.todo.append(spec)
            continue
        status = cell_status(spec.folder, panel, spec, p.refused)
        p.rows.append((spec, status))
        if spec.folder in p.refused:
            click.echo(f"refused {spec.folder.name}: {p.refused[spec.folder]}; "
                       + ("it would be moved aside and run again" if dry_run else "moved aside, run again"), err=True)
        if dry_run:
            continue
        if status in ("complete", "rescore"):
            if status == "rescore":
                click.echo(f"re-scoring {spec.folder} with the panel {panel}", err=True)
                score_played(spec, panel)  # another panel's cell, scored again from its record
            p.reused.append(spec.folder)
            continue
        if status != "todo":
            clear_for_rerun(spec.folder, keep=spec.folder in p.refused)  # broken: moved aside, never deleted
        p.todo.append(spec)
    return p


# ------------------------------------------------------------------ results in OUT


class Results:
    """OUT's combined scorecard and leaderboard, rebuilt from the sessions' own scorecards as they finish."""

    def __init__(self, out: Path, planned: int, verify: Callable[[Path], str | None] | None = None):
        from modylbench.simulator._results import complete_sessions

        self.out, self.planned, self.failed = out, planned, 0
        self._loaded: dict[str, Any] = {}
        self.refused: dict[Path, str] = {}
        # Every complete session in OUT counts, earlier batches' with other settings too: results accumulate,
        # once verified (a planted or edited folder is said so and left out).
        for folder in complete_sessions(out):
            why = verify(folder) if verify is not None else None
            if why is not None:
                self.refused[folder] = why
                continue
            self.add(folder)

    def add(self, folder: Path, card: Any = None) -> None:
        """Count a complete session; ``card``: its scorecard as just scored (else read from its folder)."""
        from modylbench.simulator._results import SessionResult, load_result

        if card is not None:
            manifest = SessionFolder(folder).read_manifest()
            result = SessionResult(folder, manifest, card) if manifest is not None else None
        else:
            result = load_result(folder)
        if result is not None and recorded_key(result.manifest) is not None:
            self._loaded[folder.name] = result

    def _labelled(self, only: set[str] | None = None) -> list[tuple[str, Any]]:
        from modylbench.simulator._results import labelled

        return [(label, r) for label, r in labelled(self._loaded[k] for k in sorted(self._loaded))
                if only is None or r.folder.name in only]

    def responses(self) -> list[Any]:
        """The sessions' responses, paired with the combined scorecard's entries (its report shows their latency)."""
        from modylbench.simulator._results import combined_responses

        return combined_responses(self._labelled())

    def card(self, only: Iterable[Path] | None = None) -> Any:
        """The combined scorecard of every counted session (``only``: of these folders); None if there is none."""
        from modylbench.simulator._results import combine

        chosen = self._labelled(None if only is None else {f.name for f in only})
        return combine((label, r.card) for label, r in chosen) if chosen else None

    def __len__(self) -> int:
        return len(self._loaded)

    def write(self) -> Any:
        from modylbench.simulator._results import write_results

        card = self.card()
        if card is not None:
            write_results(self.out, card, {"cells": {"planned": self.planned, "complete": len(self._loaded),
                                                     "failed": self.failed}})
        return card


# ------------------------------------------------------------------ worker processes


def default_workers(concurrency: int, transports: Iterable[str]) -> int:
    """Worker processes for ``concurrency`` sessions at once: one per running real-time (webrtc) session, whose
    media is paced on its loop (docs/scale.md); else one per core, in-process meetings sharing a worker's loop."""
    if any(t == "webrtc" for t in transports):
        return concurrency
    return max(1, min(concurrency, os.cpu_count() or 1))


# ------------------------------------------------------------------ the batch


@dataclass
class Batch:
    """Sessions played ``concurrency`` at once over ``workers`` processes (1: this process's loop), each played
    and scored once; ``on_outcome`` hears each as it ends."""

    panel: list[str]
    concurrency: int = 1
    workers: int = 1
    reporter: ProgressReporter | None = None
    on_outcome: Callable[[Any, Outcome], None] = lambda spec, outcome: None

    def run(self, todo: list[Any]) -> bool:
        """Play ``todo``; True when Ctrl-C stopped it (the running sessions are kept incomplete)."""
        if not todo:
            return False
        try:
            asyncio.run(self._run(todo))
        except asyncio.CancelledError:  # Ctrl-C, heard and said; its sessions are stopped
            return True
        return False

    def _started(self, spec: Any) -> tuple[str, dict[str, Any]]:
        task, fields = session_task(spec)
        if self.reporter is not None:
            self.reporter.emit("session_started", task, **fields)
        return task, fields

    def _ended(self, spec: Any, outcome: Outcome) -> None:
        if self.reporter is not None:
            task = spec.folder.name
            if outcome.error is None:
                self.reporter.emit("session_finished", task, termination_reason=outcome.termination_reason,
                                   turns_played=outcome.turns_played, wall_s=round(outcome.seconds, 3),
                                   folder=str(spec.folder), agent_errors=outcome.agent_errors)
            else:
                self.reporter.emit("session_failed", task, error=f"{outcome.failure_kind}: {outcome.error}")
        label = session_task(spec)[1]["label"]
        for line in outcome.agent_errors:  # an agent's failure is never silent, whatever the display
            click.echo(f"{label}: {line}", err=True)
        self.on_outcome(spec, outcome)

    async def _run(self, todo: list[Any]) -> None:
        def heard() -> None:
            n = len(self.reporter.running) if self.reporter is not None else 0
            click.echo(f"Ctrl-C: stopping {n} running session{'s' if n != 1 else ''} (Ctrl-C again to quit at once)",
                       err=True)

        release = stop_on_ctrl_c(heard)
        workers = min(self.workers, self.concurrency, len(todo))
        lanes = None
        try:
            if workers > 1:
                from modylbench.simulator._lanes import Lanes

                lanes = Lanes(workers, -(-self.concurrency // workers))
                await lanes.run(todo, self.panel, self.concurrency, self.reporter, self._ended)
            else:
                await self._here(todo)
        except asyncio.CancelledError:
            if self.reporter is not None:
                for task in list(self.reporter.running):
                    self.reporter.emit("session_failed", task, error=STOPPED_BY_CTRL_C)
            raise
        finally:
            release()
            if lanes is not None:
                lanes.close()

    async def _here(self, todo: list[Any]) -> None:
        sem = asyncio.Semaphore(self.concurrency)

        async def one(spec: Any) -> None:
            async with sem:
                task, fields = self._started(spec)
                hook = self.reporter.session_hook(task, fields["turns"]) if self.reporter is not None else None
                self._ended(spec, await play_and_score(spec, self.panel, hook))

        async with asyncio.TaskGroup() as tg:
            for spec in todo:
                tg.create_task(one(spec))


def failed_agents(card: Any) -> list[str]:
    """Agents every one of whose sessions carries the agent_error flag."""
    by_model: dict[str, list[bool]] = {}
    for entry in card.scenarios:
        by_model.setdefault(entry.model_id, []).append(AGENT_ERROR_FLAG in entry.flags)
    return sorted(m for m, flagged in by_model.items() if flagged and all(flagged))


def exit_status(card: Any, failed: int, interrupted: bool) -> int:
    """The batch's exit code (the module's failure policy)."""
    if interrupted:
        return INTERRUPTED_EXIT
    if failed:
        return FAILED_EXIT
    if card is not None and failed_agents(card):
        return AGENT_ERROR_EXIT
    if card is not None and card.incomplete:
        return INCOMPLETE_EXIT
    return 0


# ------------------------------------------------------------------ the command's batch, end to end


REUSED_SHOWN = 20
"""Reused sessions the summary names one by one (a large batch names the first ones and counts the rest)."""


def verifier(specs: Iterable[Any], refused: dict[Path, str], scenario_files: Iterable[Path] = ()
             ) -> Callable[[Path], str | None]:
    """What the results ask of each complete folder in OUT: the verdict resume gave a planned session, or
    ``verify_session`` with the scenario its manifest names (loaded from ``scenario_files`` or the built-ins)."""
    from modylbench.simulator._cmd_scenarios import load_all
    from modylbench.simulator._runner import verify_session

    planned = {spec.folder: spec for spec in specs}
    files = tuple(Path(f) for f in scenario_files)
    loaded: dict[tuple[str, int], Any] = {(s.scenario.scenario_id, s.meeting.seed): s.scenario for s in planned.values()}

    def verify(folder: Path) -> str | None:
        if folder in refused:
            return refused[folder]
        if folder in planned and not folder.is_symlink():
            return None  # resume verified it (or it is about to be played again)
        manifest = SessionFolder(folder).read_manifest()
        sid, seed = (manifest.scenario_id, manifest.seed) if manifest is not None else (None, 0)
        if sid is None:
            return "its manifest names no scenario"
        if (sid, seed) not in loaded:
            try:
                loaded[(sid, seed)] = load_all(files, seed, [sid]).get(sid)
            except UserError:
                loaded[(sid, seed)] = None
        why = verify_session(folder, loaded[(sid, seed)])
        return why if why is not None or is_cell(folder) else "its manifest does not name it as a session of its own"

    return verify


@dataclass
class BatchRun:
    """One command's batch (``run`` or ``sweep``) from resume to exit code: what the CLI modules hand over."""

    specs: list[Any]
    panel: list[str]
    out: Path
    command: str
    reporter: ProgressReporter
    concurrency: int = 1
    workers: int | None = None
    """Worker processes (None: ``default_workers``); 1 plays every session on this process's loop."""
    force: bool = False
    scenarios: dict[str, Any] | None = None
    scenario_files: tuple[Path, ...] = ()
    ray: Any = None
    """A sweep's ``RaySettings`` with an address: the sessions run as Ray tasks instead."""
    prepared: Prepared | None = None
    _done: int = 0

    def __call__(self) -> None:
        """Play, combine, print; exits with ``exit_status`` unless it is 0."""
        p = self.prepared if self.prepared is not None else prepare(self.specs, self.panel, force=self.force)
        results = Results(self.out, len(self.specs), verify=verifier(self.specs, p.refused, self.scenario_files))
        for folder, why in results.refused.items():
            if folder not in p.refused:
                click.echo(f"refused {folder.name}: {why}; left out of the results", err=True)
        if self.command == "run":
            for folder in p.reused:
                click.echo(f"skip {folder} (already complete, same configuration; --force to run again)", err=True)
        else:
            click.echo(f"{len(self.specs)} cells: {len(p.reused)} already complete, {len(p.todo)} to run"
                       + (f" on Ray ({self.ray.address})" if self.ray is not None else ""), err=True)
        results.write()
        self.reporter.emit("run_started", command=self.command, total=len(self.specs))
        for folder in p.reused:
            self.reporter.emit("session_skipped", folder.name, reason="already complete")
        self._done = len(p.reused)
        interrupted = False

        def on_outcome(spec: Any, outcome: Outcome) -> None:
            self._done += 1
            if outcome.error is None and outcome.card is not None:
                results.add(spec.folder, outcome.card)
            elif outcome.error is None and SessionFolder(spec.folder).is_scored():  # a Ray cell, shipped
                results.add(spec.folder)
            else:
                results.failed += 1
                click.echo(f"{spec.folder.name}: FAILED ({outcome.failure_kind or 'infrastructure_error'}: "
                           f"{outcome.error or 'no scorecard'}); the next {self.command} into {self.out} plays it "
                           "again", err=True)
            results.write()
            if self.command == "sweep" and self.reporter.mode != "live":
                where = outcome.node.get("hostname", "?") + (
                    f"/{outcome.node['ray_node_id'][:8]}" if "ray_node_id" in outcome.node else "")
                how = f"{outcome.termination_reason}, {outcome.turns_played} turns" if outcome.error is None else "FAILED"
                click.echo(f"[{self._done}/{len(self.specs)}] {spec.folder.name}: {how}, {outcome.seconds:.1f}s on "
                           f"{where}" + (f", attempt {outcome.attempts}" if outcome.attempts > 1 else ""), err=True)

        batch = Batch(self.panel, self.concurrency,
                      self.workers or default_workers(self.concurrency, (s.transport for s in p.todo)),
                      self.reporter, on_outcome)
        with self.reporter:
            if p.todo and self.ray is not None:
                from modylbench.simulator._ray import run_on_ray

                for spec in p.todo:  # Ray schedules them; each is "started" from here on
                    batch._started(spec)
                run_on_ray(p.todo, self.panel, self.ray, self.out, batch._ended)
            else:
                interrupted = batch.run(p.todo)
            self.reporter.emit("run_finished", done=self.reporter.done, failed=self.reporter.failed,
                               skipped=self.reporter.skipped, total=self.reporter.total, interrupted=interrupted)
        code = self._summarise(results, p, interrupted)
        if code:
            sys.exit(code)

    @property
    def _noun(self) -> str:
        return "cell" if self.command == "sweep" else "session"

    def _summarise(self, results: Results, p: Prepared, interrupted: bool) -> int:
        from modylbench.scoring import print_summary, summary_console

        to_stderr = self.reporter.mode == "json"  # with --json, stdout carries only the event stream
        everything = results.write()
        mine = results.card([s.folder for s in self.specs])
        if everything is not None:
            write_report(everything, self.out, self.scenarios, responses=results.responses())
        if mine is not None:
            print_summary(mine, summary_console(stderr=to_stderr))
            if len(results) > len(mine.scenarios):
                click.echo(f"{SessionFolder(self.out).scorecard} and {self.out / 'leaderboard.md'} cover all "
                           f"{len(results)} complete sessions in {self.out}, earlier runs' included", err=to_stderr)
            if p.reused:
                names = [f.name for f in p.reused]
                shown = ", ".join(names[:REUSED_SHOWN]) + (f" and {len(names) - REUSED_SHOWN} more"
                                                           if len(names) > REUSED_SHOWN else "")
                again = "; --force runs them again" if self.command == "run" else ""
                click.echo(f"reused {len(names)} complete {self._noun}{'s' if len(names) != 1 else ''} of the same "
                           f"configuration (not run again{again}): {shown}", err=to_stderr)
            click.echo(f"scorecard:   {SessionFolder(self.out).scorecard}\nleaderboard: {self.out / 'leaderboard.md'}",
                       err=to_stderr)
            if SessionFolder(self.out).report.exists():
                click.echo(f"report:      {SessionFolder(self.out).report}", err=to_stderr)
            for model_id in failed_agents(mine):
                click.echo(f"error: every session of agent {model_id!r} recorded an agent failure (flag "
                           f"{AGENT_ERROR_FLAG}); see the agent_error lines above and record.jsonl", err=True)
        finished = self.reporter.done
        if interrupted:
            click.echo(f"interrupted: {finished} {self._noun}{'s' if finished != 1 else ''} finished, the others were "
                       f"stopped and kept incomplete; {self.command} into {self.out} again to play them", err=True)
        elif results.failed:
            click.echo(f"error: {results.failed} of {len(self.specs)} {self._noun}s failed (recorded above with their "
                       f"kind); {self.command} into {self.out} again to play them", err=True)
        return exit_status(mine, results.failed, interrupted)
