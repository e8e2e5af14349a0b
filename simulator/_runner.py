"""Building and running sessions: resolve names, wire transport + agent + persona, record, score.

Layers (tau2-style): ``run_meeting`` (in ``_session``) runs one built session and knows nothing of
names or files; this module builds sessions from names and scores their records; the batch layer
(``_batch``, under ``run`` and ``sweep``) adds concurrency, resume and the failure policy on top.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
import time
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from modylbench.agents import BuiltinAgent, MeetingClient, join, join_inprocess, make_agent
from modylbench.channels import (
    Clock,
    InProcessMeeting,
    LinkOptions,
    SignalingServer,
    TaskOwner,
    VirtualClock,
    WallClock,
)
from modylbench.personas import SpeechEngine, SpeechError, default_cache_dir, make_engine
from modylbench.record import (
    AGENT_ERROR_KINDS,
    ModelSpecError,
    SessionFolder,
    SessionLock,
    SessionStart,
    derive_responses,
    read_recognition,
    read_record,
    verify_media,
)
from modylbench.scenarios import Scenario
from modylbench.simulator._agentspec import AgentSpec, load_py_agent, resolve_agent, unknown_agent
from modylbench.simulator._errors import UserError
from modylbench.simulator._external import (
    AgentProcess,
    CommandWatch,
    command_env,
    py_agent_argv,
    py_agent_env,
)
from modylbench.simulator._faults import AgentFaults
from modylbench.simulator._session import MeetingOptions, MeetingResult, run_meeting, scenario_hash
from modylbench.simulator._sessionkey import MANIFEST_KEY, recorded_difference

logger = logging.getLogger(__name__)

AGENT_VOICE = "en-us+m3"


class ScaledClock:
    """Wall time running ``speed`` times faster: ``--speed X`` over the in-process transport."""

    def __init__(self, speed: float):
        if speed <= 0:
            raise ValueError("speed must be positive")
        self.speed = speed
        self._t0 = time.monotonic()
        self._wall0 = time.time()

    def now(self) -> float:
        return (time.monotonic() - self._t0) * self.speed

    def wall_time(self) -> float:
        return self._wall0 + self.now()

    async def sleep(self, delay: float) -> None:
        await asyncio.sleep(max(0.0, delay) / self.speed)

    async def sleep_until(self, when: float) -> None:
        while (remaining := when - self.now()) > 0:
            await asyncio.sleep(remaining / self.speed)


@dataclass
class RunSpec:
    """One session to run: scenario, agent and folder, the run's own settings, and each layer's options."""

    scenario: Scenario
    agent: str
    """Any ``--agent`` form: a built-in name, ``cmd:COMMAND`` or ``py:MODULE:FUNCTION`` (``resolve_agent``)."""
    folder: Path
    transport: str = "inproc"
    speed: float | None = None
    """inproc only: the meeting clock runs X times faster than real time; None: as fast as possible."""
    speech: str = "espeak"
    """The persona's speech engine spec (``espeak`` or ``openai[/MODEL[@BASE_URL]]``)."""
    meeting: MeetingOptions = field(default_factory=MeetingOptions)
    """The meeting's options: turns, judges, seed (the built-in instance), persona turn-taking."""
    link: LinkOptions = field(default_factory=LinkOptions)
    """The transport's options: captions, screen frame rate, limits."""
    agent_name: str | None = None
    """The agent's name in the record and the scorecard (``model_id``); None: derived from ``agent``."""
    join_timeout: float = 60.0
    """cmd: agents: seconds the command has to join the meeting before it ends as agent_error (no_join)."""
    agent_env: tuple[str, ...] = ()
    """cmd:/py: processes: names of the harness's environment variables passed beyond ``AGENT_ENV``."""


def speech_engines(scenario: Scenario, speech: str = "espeak") -> tuple[SpeechEngine, SpeechEngine]:
    """(persona engine, agent engine), both cached on disk."""
    persona_cfg = scenario.human_persona
    voice = getattr(getattr(persona_cfg, "voice", None), "engine_voice", None) if speech == "espeak" else None
    wpm = getattr(getattr(persona_cfg, "voice", None), "words_per_minute", 175)
    cache = default_cache_dir()
    try:
        persona = make_engine(speech, voice, wpm, cache_dir=cache)
        agent = agent_speech_engine()
    except SpeechError as exc:  # a bad --speech spec, or no engine installed: the user can fix either
        raise UserError(f"--speech: {exc}") from None
    return persona, agent


def agent_speech_engine() -> SpeechEngine:
    """The voice an in-process or ``py:`` agent speaks with (``client.say``), cached on disk."""
    return make_engine("espeak", AGENT_VOICE, 185, cache_dir=default_cache_dir())


def _agent(spec: RunSpec) -> BuiltinAgent:
    try:
        return make_agent(spec.agent, spec.scenario)
    except ModelSpecError as exc:
        raise UserError(f"--agent {exc}") from None
    except KeyError:
        raise UserError(unknown_agent(spec.agent)) from None


AgentBody = Callable[[MeetingClient], Awaitable[None]]


def _in_process_agent(spec: RunSpec, agent: AgentSpec) -> tuple[AgentBody, bool]:
    """What plays the agent in this process, and whether it wants the persona's audio frames as events."""
    if agent.kind == "py":
        return load_py_agent(agent.target), True
    builtin = _agent(spec)
    if spec.meeting.turns:
        builtin.last_turn = min(spec.meeting.turns, len(spec.scenario.turns)) - 1
    return builtin.run, builtin.listens


def wants_person_audio(body: Any) -> bool:
    """A ``py:`` agent function asks for each person's own audio in a multi-party meeting with the attribute
    ``participant_audio = True`` (docs/protocol.md §4a); else it gets the mixed audio only."""
    return getattr(body, "participant_audio", False) is True


async def _play(body: AgentBody, client: MeetingClient, faults: AgentFaults) -> None:
    """Run an in-process agent on its client: its reported failures and a crash are recorded; it leaves the
    meeting however it ends (a crashed agent's departure is what ends its meeting, as ``agent_error``)."""
    client.on_error = lambda kind, message, tb: faults.report(kind if kind in AGENT_ERROR_KINDS else "crash",
                                                              message, tb)
    try:
        await body(client)
    except Exception as exc:  # noqa: BLE001 - the agent's failure is recorded, never the harness's
        faults.report("crash", f"the agent raised {type(exc).__name__}: {exc}", traceback.format_exc(), fatal=True)
    finally:
        await client.leave()


async def run_one(spec: RunSpec, on_link: Callable[[Any], None] | None = None,
                  on_event: Callable[[Any], None] | None = None) -> MeetingResult:
    """Run one session with the agent ``spec.agent`` names (built-in, ``cmd:`` or ``py:``) over the chosen
    transport; records into ``spec.folder``."""
    # The folder is this process's until the session is written (record, recording, manifest).
    with SessionLock(spec.folder):
        return await _run_one_locked(spec, on_link, on_event)


async def _run_one_locked(spec: RunSpec, on_link: Callable[[Any], None] | None,
                          on_event: Callable[[Any], None] | None) -> MeetingResult:
    agent = resolve_agent(spec.agent, spec.agent_name, check=False)
    if agent.kind == "cmd" and spec.transport != "webrtc":
        raise UserError(f"--agent {spec.agent!r}: a cmd: agent joins over WebRTC; use --transport webrtc "
                        "(py: agents run on both transports)")
    if spec.transport not in ("inproc", "webrtc"):
        raise UserError(f"unknown transport {spec.transport!r} (webrtc or inproc)")
    if spec.link.network is not None and not spec.link.network.clean and spec.transport != "webrtc":
        raise UserError("a network profile impairs WebRTC packets; use --transport webrtc")
    persona_speech, agent_speech = speech_engines(spec.scenario, spec.speech)
    faults = AgentFaults()
    options = spec.link
    mopts = replace(spec.meeting, on_event=on_event or spec.meeting.on_event, faults=faults,
                    extra_manifest={**spec.meeting.extra_manifest, "agent_kind": agent.kind, "agent_spec": agent.spec,
                                    "speed": spec.speed})
    if agent.kind == "cmd" or (agent.kind == "py" and spec.transport == "webrtc"):
        # Over WebRTC a py: agent gets a process of its own, as a cmd: agent does: its CPU (a model, a
        # pipeline) must not stall the persona's media on this loop (measured in one loop: 40 late frames).
        if agent.kind == "py":
            load_py_agent(agent.target)  # its mistakes are one line, here, before any meeting starts
        return await _run_command(spec, agent, mopts, persona_speech, on_link)
    body, listens = _in_process_agent(spec, agent)
    if spec.transport == "inproc":
        clock: Clock = ScaledClock(spec.speed) if spec.speed else VirtualClock()
        link = InProcessMeeting(clock, options)
        if on_link:
            on_link(link)

        async def agent_side() -> None:
            client = await join_inprocess(link, synthesize=agent_speech.synthesize, receive_audio=listens,
                                          participant_audio=wants_person_audio(body))
            await _play(body, client, faults)

        return await _together(run_meeting(link, spec.scenario, agent.name, spec.folder, clock, persona_speech, mopts),
                               agent_side())
    wall = WallClock()
    async with SignalingServer() as server:
        meeting = server.create_meeting(wall, options)
        if on_link:
            on_link(meeting)

        async def agent_side_rtc() -> None:
            client = await join(meeting.url, meeting.token, synthesize=agent_speech.synthesize, receive_audio=listens,
                                participant_audio=wants_person_audio(body))
            await _play(body, client, faults)

        return await _together(
            run_meeting(meeting, spec.scenario, agent.name, spec.folder, wall, persona_speech, mopts),
            agent_side_rtc())


async def _run_command(spec: RunSpec, agent: AgentSpec, mopts: MeetingOptions, persona_speech: SpeechEngine,
                       on_link: Callable[[Any], None] | None) -> MeetingResult:
    """A ``cmd:`` agent's meeting (or a ``py:`` agent's over WebRTC, in ``simulator.agent_runner``): start the
    process with the meeting's URL and token, watch it join (or not) and fail (or not), end it after the meeting,
    and keep what it did in the manifest."""
    assert mopts.faults is not None
    faults = mopts.faults
    wall = WallClock()
    # The harness's own join timeout is a backstop: the watch ends a meeting whose command did not join.
    options = replace(spec.link, connect_timeout=spec.join_timeout + 30.0)
    async with SignalingServer() as server:
        meeting = server.create_meeting(wall, options)
        if on_link:
            on_link(meeting)
        if agent.kind == "py":
            def on_report(entry: dict[str, Any]) -> None:  # what the agent's process reported (report_error, crash)
                kind = entry.get("kind")
                faults.report(kind if kind in AGENT_ERROR_KINDS else "crash", str(entry.get("message", "")),
                              entry.get("traceback") if isinstance(entry.get("traceback"), str) else None,
                              fatal=bool(entry.get("fatal")))

            child = AgentProcess(agent.spec, spec.folder,
                                 py_agent_env(meeting.url, meeting.token, agent.target, spec.agent_env),
                                 argv=py_agent_argv(agent.target), on_report=on_report)
        else:
            child = AgentProcess(agent.target, spec.folder, command_env(meeting.url, meeting.token, spec.agent_env))
        try:
            await child.start()
        except OSError as exc:
            raise UserError(f"--agent {agent.spec!r}: cannot start the command: {exc}") from None
        watch = CommandWatch(child, meeting, mopts.faults, wall, spec.join_timeout)
        watcher = TaskOwner("command", quiet=True).start(watch.run(), "watch")
        try:
            return await run_meeting(meeting, spec.scenario, agent.name, spec.folder, wall, persona_speech, mopts)
        finally:
            watch.meeting_over = True
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)
            await child.stop(wall)
            _note_process(spec.folder, child)


def _note_process(folder: Path, child: AgentProcess) -> None:
    """Add the command's life (exit code, how it ended, output kept) to a written manifest."""
    files = SessionFolder(folder)
    manifest = files.read_manifest()
    if manifest is not None:
        manifest.agent_process = child.manifest_entry()
        files.write_manifest(manifest)


def die_with_parent(parent: int) -> None:
    """End this worker when the process that started it ends, however that ends (kill -9 included).

    An orphaned worker would go on writing its session folder (manifest, recording) under a re-run.
    """
    import threading

    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before the request took effect
            os._exit(1)
        return

    def watch() -> None:
        # Elsewhere, poll: a reparented worker sees a different parent pid.
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


def _warm_worker(barrier: Any, parent: int) -> None:
    """Pool initializer: tie the worker's life to its parent's, import the media stack, then wait until
    every worker has, so that no meeting starts while another worker is still spending CPU on imports."""
    import threading

    die_with_parent(parent)

    import aiortc  # noqa: F401
    import av  # noqa: F401

    import modylbench.agents  # noqa: F401
    import modylbench.personas  # noqa: F401

    try:
        barrier.wait(timeout=300)
    except threading.BrokenBarrierError:
        logger.warning("a session worker started late; meetings may see CPU contention at the start")


def _run_one_here(spec: RunSpec, on_event: Callable[[Any], None] | None = None) -> MeetingResult:
    return asyncio.run(run_one(spec, on_event=on_event))


class SessionWorkers:
    """Real-time sessions run side by side, one process each.

    Each WebRTC session is paced in real time on an event loop; sessions sharing one loop also share
    every stall (speech synthesis, recording, another session's start and end). Measured with
    ``run --transport webrtc --concurrency 8`` in one process: 15–38 late audio frames per session, up to
    227 ms. A process per running session keeps each meeting's loop to itself.
    """

    def __init__(self, workers: int) -> None:
        import concurrent.futures
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        self._pool = concurrent.futures.ProcessPoolExecutor(
            workers, mp_context=ctx, initializer=_warm_worker, initargs=(ctx.Barrier(workers), os.getpid()))

    async def run(self, spec: RunSpec, on_event: Callable[[Any], None] | None = None) -> MeetingResult:
        """Run ``spec`` in a worker; ``on_event`` must pickle (``simulator._progress.QueueHook``)."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, _run_one_here, spec, on_event)

    async def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run a picklable function in a worker process (a sweep cell: its meeting, then its scoring)."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


AGENT_GRACE_S = 10.0
"""Seconds an agent has to finish up after its meeting ended (it may still be sending its last words)."""


async def _together(meeting: Awaitable[MeetingResult], agent: Awaitable[None]) -> MeetingResult:
    """Run the meeting and the agent; an agent crash is recorded by the meeting as a disconnect.

    After a meeting that ended, the agent gets ``AGENT_GRACE_S`` to finish; after one that was stopped (Ctrl-C,
    a cancelled run) or raised, none: it is cancelled at once, so that stopping a run is quick.
    """
    agent_task = TaskOwner("agent", quiet=True).start(agent, "agent")  # its failure is logged below
    ended = False
    try:
        result = await meeting
        ended = True
    finally:
        if not agent_task.done() and not ended:
            agent_task.cancel()
        elif not agent_task.done():
            try:
                await asyncio.wait_for(asyncio.shield(agent_task), timeout=AGENT_GRACE_S)
            except TimeoutError:
                agent_task.cancel()
        results = await asyncio.gather(agent_task, return_exceptions=True)
        for r in results:
            if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError):
                logger.warning("agent task ended with %r", r)
    return result


def responses_for(folder: Path, scenarios: dict[str, Scenario], read: Any = None) -> tuple[Any, Scenario]:
    """Verify the record and derive its responses, with the scenario as played (a slice if --turns); ``read``:
    the record as the caller already read (and verified) it."""
    if read is None:
        read = read_record(folder)
    try:
        # Recognition added after the meeting (replay --asr) sits beside the sealed record.
        responses = derive_responses([*read.events, *read_recognition(folder)])
    except (ValueError, TypeError, KeyError, IndexError, RecursionError) as exc:
        # Each event is valid on its own; together they cannot be (a forged record with a recomputed chain).
        why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UserError(f"record refused: {folder}: its events do not make a meeting ({why})") from None
    scenario = scenarios.get(responses.scenario_id)
    if scenario is None:
        raise UserError(f"{folder}: scenario {responses.scenario_id!r} is not known; pass --scenarios")
    if responses.termination_reason is None:
        responses.termination_reason = "interrupted"  # the record was cut before the meeting ended
    start = next(e for e in read.events if isinstance(e, SessionStart))
    return responses, scenario.first_turns(start.turns_planned)


def score_session(folder: Path, scenarios: dict[str, Scenario], judges: list[str], *, write: bool = True,
                  output: Path | None = None, read: Any = None) -> Any:
    """Verify the record, derive the responses and score them; writes responses.jsonl and scorecard.json.
    ``read``: the record as the caller already read it (``responses_for``)."""
    from modylbench.scoring import make_judges, score, write_scorecard

    responses, scenario = responses_for(folder, scenarios, read)
    # Scored against the whole scenario: the responses' turns_scheduled slices it, and the scorecard then says
    # the line was a slice (its turns_scheduled), which is what keeps a slice apart from the whole meeting.
    whole = scenarios[scenario.scenario_id]
    scorecard = score([responses], {whole.scenario_id: whole}, make_judges(judges))
    if write:
        files = SessionFolder(folder)
        files.responses.write_text(responses.model_dump_json() + "\n", encoding="utf-8")
        write_scorecard(scorecard, output or files.scorecard)
    return scorecard


def check_seal(folder: Path, read: Any) -> tuple[bool, str]:
    """``SessionFolder.check_seal`` for a verified record, its refusals as one line (``UserError``)."""
    from modylbench.record import RecordIntegrityError

    last = getattr(read.events[-1], "event", None) if read.events else None
    try:
        return SessionFolder(folder).check_seal(len(read.events), read.last_hash, last, read.truncated)
    except RecordIntegrityError as exc:
        raise UserError(str(exc)) from None


def session_difference(spec: RunSpec) -> str | None:
    """How the session recorded in ``spec.folder`` differs from the one ``spec`` would play (its key, the scenario
    version); None when they are the same. A spec that carries no key (built in code) is never compared."""
    wanted = spec.meeting.extra_manifest.get(MANIFEST_KEY)
    if not isinstance(wanted, dict):
        return None
    return recorded_difference(SessionFolder(spec.folder).read_manifest(), wanted, scenario_hash(spec.scenario))


DETERMINISTIC_JUDGES = frozenset({"offline"})
"""Judges whose verdicts follow from the record alone: a cell scored by them only is re-scored to verify it."""


def verify_session(folder: Path, scenario: Scenario | None, panel: list[str] | None = None) -> str | None:
    """Why a finished session cannot be counted as it stands (None: it can), before resume or results count it.

    A counted session is a plain folder (not a link elsewhere) whose record verifies and is sealed, whose
    attachments and recording match their hashes, whose responses.jsonl is what the record derives, and,
    when its panel is deterministic (the offline judge), whose scorecard.json is what scoring gives again.
    An LLM panel's verdicts are not asked again (that would be a new judging): the responses are checked.
    """
    from modylbench.record import RecordIntegrityError

    files = SessionFolder(folder)
    if folder.is_symlink():
        return f"{folder.name} is a symbolic link to {os.readlink(folder)} (a cell is a folder of its own)"
    for name in (files.record, files.manifest, files.scorecard, files.responses):
        if name.is_symlink():
            return f"{name.name} is a symbolic link (a session's files are its own)"
    try:
        read = read_record(folder)
        sealed, verdict = check_seal(folder, read)
        if not sealed:
            return verdict
        verify_media(folder, read.events)
    except (FileNotFoundError, RecordIntegrityError, UserError) as exc:
        return str(exc).removeprefix("record refused: ")
    if scenario is None:
        return "its scenario is not among the ones this command loaded, so its scorecard cannot be checked"
    scenarios = {scenario.scenario_id: scenario}
    try:
        responses, _ = responses_for(folder, scenarios)
        on_disk = files.responses.read_text(encoding="utf-8")
    except (UserError, OSError, ValueError) as exc:
        return f"its responses cannot be re-derived ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
    if on_disk != responses.model_dump_json() + "\n":  # as score_session writes it
        return f"{files.RESPONSES_FILE} is not what its record derives (it was changed)"
    try:
        stored = json.loads(files.scorecard.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"{files.SCORECARD_FILE} is unreadable"
    judges = stored.get("judges") if isinstance(stored, dict) else None
    if not isinstance(judges, list) or (panel is not None and judges != panel):
        return None if isinstance(judges, list) else f"{files.SCORECARD_FILE} names no judges"
    if set(judges) <= DETERMINISTIC_JUDGES:
        again = score_session(folder, scenarios, [str(j) for j in judges], write=False)
        if json.loads(again.model_dump_json()) != stored:
            return f"{files.SCORECARD_FILE} is not what its record scores (it was changed)"
    return None


def session_complete(folder: Path) -> bool:
    """A finished, scored session (what a resumed sweep skips)."""
    return SessionFolder(folder).is_scored()
