"""The ``run`` and ``replay`` commands: thin over the batch layer (``_batch``) and the runner."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from pathlib import Path
from typing import Any

import click

from modylbench.personas import DEFAULT_ANSWERER
from modylbench.record import Manifest, SessionFolder
from modylbench.scoring import INCOMPLETE_EXIT
from modylbench.simulator._batch import BatchRun
from modylbench.simulator._cli_common import (
    asr_option,
    check_asr,
    check_judges,
    check_persona_llm,
    judge_option,
    network_option,
    network_seed,
    owning,
    persona_llm_option,
    score_and_print,
    workers_option,
    write_report,
)
from modylbench.simulator._cmd_scenarios import load_all, pick, scenarios_option, seed_option
from modylbench.simulator._errors import UserError
from modylbench.simulator._progress import progress_options, reporter_for
from modylbench.simulator._sessionkey import CLEAN_NETWORK, MANIFEST_KEY, SessionKey

logger = logging.getLogger(__name__)



@click.command("run", short_help="Run live meetings with an agent (built-in, cmd:, py:), record and score them.")
@click.argument("scenario_ids", nargs=-1, required=True, metavar="SCENARIO...")
@click.option("--agent", "agents", multiple=True, default=("oracle",), show_default=True, metavar="AGENT",
              help="The agent under test; repeatable. A built-in: oracle, null, polite, verbose, injector, "
                   "final-dump, llm[/MODEL[@BASE_URL]], realtime[/MODEL[@BASE_URL]] (a speech-to-speech model over "
                   "the Realtime API); 'cmd:COMMAND': your program in any language, run through the shell for "
                   "each meeting with MODYLBENCH_URL and MODYLBENCH_TOKEN set (webrtc only; its "
                   "output goes to agent.stdout.log/agent.stderr.log in the session folder); "
                   "'py:MODULE:FUNCTION': `async def FUNCTION(client)` on the Python SDK, run once per meeting "
                   "(both transports; the current folder is importable): over webrtc in a child process of its "
                   "own, like cmd:, over inproc in this process.")
@click.option("--agent-name", "agent_names", multiple=True, metavar="NAME",
              help="The agent's name in folders and the scorecard (model_id): one per --agent, in order "
                   "(default: the built-in's name, or one made from the command or module).")
@click.option("--agent-env", "agent_env", multiple=True, metavar="NAME",
              help="cmd:/py: agents: pass this variable of your environment to the agent's process; repeatable. "
                   "By default it gets only PATH, HOME, locale and the like (AGENT_ENV), never your keys.")
@click.option("--join-timeout", type=click.FloatRange(min=1), default=60, show_default=True,
              help="cmd: agents: seconds the command has to join before its meeting ends as agent_error.")
@click.option("--transport", type=click.Choice(["webrtc", "inproc"]), default="webrtc", show_default=True,
              help="webrtc: real peers over loopback in real time; inproc: in-memory, time-compressed: dead air is "
                   "skipped, the agent's own work (a model call, a thread, a child process) takes real time.")
@click.option("--turns", type=click.IntRange(min=1), default=None, help="Play only the first N turns.")
@click.option("--out", "out", type=click.Path(path_type=Path, file_okay=False), default=Path("runs"),
              show_default=True, help="Folder that receives one session folder per run.")
@judge_option
@click.option("--speed", type=click.FloatRange(min=0.01), default=None,
              help="inproc only: run the meeting clock X times faster than real time (default: skip dead air, "
                   "as fast as possible).")
@click.option("--trials", type=click.IntRange(min=1), default=1, show_default=True,
              help="Repeat each (scenario, agent) pair; pass^k is reported over the trials.")
@click.option("--concurrency", type=click.IntRange(min=1), default=1, show_default=True,
              help="Sessions run at the same time.")
@workers_option
@click.option("--force", is_flag=True, help="Re-run sessions whose folder already holds a complete run.")
@click.option("--no-captions", is_flag=True, help="Do not send captions: the agent must listen to the audio.")
@click.option("--speech", default="espeak", show_default=True,
              help="Persona speech engine: espeak (embedded) or openai[/MODEL[@BASE_URL]].")
@asr_option
@persona_llm_option
@network_option(names_folder=True)
@scenarios_option
@seed_option
@progress_options
def run(scenario_ids: tuple[str, ...], agents: tuple[str, ...], transport: str, turns: int | None, out: Path,
        judges: tuple[str, ...], speed: float | None, trials: int, concurrency: int, force: bool,
        no_captions: bool, speech: str, scenario_paths: tuple[Path, ...], seed: int, progress: str,
        progress_json: bool, asr: str | None, agent_names: tuple[str, ...], join_timeout: float,
        agent_env: tuple[str, ...] = (), network: Any = None, workers: int | None = None,
        persona_llm: str | None = None) -> None:
    """Run live meetings with an agent (built-in, your command or your Python function), record each, score it
    and print the summary.

    Each session is written to OUT/<scenario>__<agent>__<transport>__<turns>__seed<S>__t<T>/ (record.jsonl,
    attachments/, recording.wav, manifest.json, responses.jsonl, scorecard.json, report.html), the name sweep
    gives it too; a --network other than clean follows the transport: <transport>__net-<profile> (a custom
    profile by its canonical spec: loss=2%,delay=40ms is net-loss_2pct_delay_40ms). OUT/scorecard.json,
    OUT/leaderboard.md and OUT/report.html cover every complete session in OUT, earlier runs' included (a
    second run adds to them, it never drops the first's). A complete session of the same configuration is
    reused (resume; the summary lists it) unless --force; an incomplete one (a crash) is moved aside to
    <folder>.crashed-<time>, never deleted; a folder another process is writing is refused.
    "all" runs every scenario.
    --seed N plays fresh instance N of the built-in scenarios (the manifest records it; replay reads it).
    An agent's failures (its model unreachable, a crash, a command that exits or never joins) are printed,
    recorded as agent_error events and flagged in the scorecard.
    Sessions at once (--concurrency) spread over --workers processes, one event loop each (docs/scale.md).
    A session that cannot be played or scored is printed with its failure kind (infrastructure_error,
    scoring_error, worker_lost), its folder kept; the other sessions go on and are scored and combined.
    Exit codes: 0 done; 1 a session could not be run (or scored: printed with its kind, the others went on);
    2 a usage error; 3 judges left items unscored (run again to resume); 4 every session of an
    agent failed (flag agent_error); 130 interrupted (Ctrl-C: sessions still running end incomplete and are
    moved aside by the next run).
    """
    from modylbench.channels import LinkOptions
    from modylbench.simulator._runner import RunSpec
    from modylbench.simulator._session import MeetingOptions

    scenarios = load_all(scenario_paths, seed, None if scenario_ids == ("all",) else list(scenario_ids))
    ids = list(scenarios) if scenario_ids == ("all",) else list(scenario_ids)
    chosen = [pick(scenarios, sid) for sid in ids]
    if speed is not None and transport != "inproc":
        raise UserError("--speed applies to --transport inproc only (WebRTC runs in real time)")
    if network is not None and transport != "webrtc":
        raise UserError("--network impairs WebRTC packets; use --transport webrtc")
    net_key = CLEAN_NETWORK if network is None else network.key
    panel = list(judges) or ["offline"]
    check_judges(panel)
    check_asr(asr)
    check_persona_llm(persona_llm)
    resolved = _resolve_agents(agents, agent_names, transport)
    specs: list[RunSpec] = []
    for sc in chosen:
        for agent in resolved:
            for trial in range(trials):
                key = SessionKey(sc.scenario_id, agent.spec, agent.name, transport, turns, seed, trial,
                                 network=net_key, answerer=persona_llm or DEFAULT_ANSWERER)
                folder = key.folder(out)
                if any(s.folder == folder for s in specs):
                    continue  # the same agent named twice: one session, one writer
                specs.append(RunSpec(sc, agent.spec, folder, transport, speed=speed, speech=speech,
                                     meeting=MeetingOptions(turns=turns, judges=list(panel), seed=seed, asr=asr,
                                                            answerer=persona_llm or DEFAULT_ANSWERER,
                                                            extra_manifest={MANIFEST_KEY: key.manifest_entry()}),
                                     link=LinkOptions(captions=not no_captions, network=network,
                                                      network_seed=network_seed(seed, trial)),
                                     agent_name=agent.name, join_timeout=join_timeout, agent_env=agent_env))
    BatchRun(specs, panel, out, "run", reporter_for(progress, progress_json, "run"), concurrency=concurrency,
             workers=workers, force=force, scenarios=scenarios, scenario_files=scenario_paths)()


def _resolve_agents(agents: tuple[str, ...], names: tuple[str, ...], transport: str) -> list[Any]:
    """The --agent values resolved (one-line errors: unknown built-in, bad py: target, cmd: over inproc), each
    with its --agent-name."""
    from modylbench.simulator._agentspec import resolve_agent

    if names and len(names) != len(agents):
        raise UserError(f"--agent-name: give one name per --agent, in order ({len(agents)} --agent, "
                        f"{len(names)} --agent-name)")
    resolved = [resolve_agent(a, names[i] if names else None) for i, a in enumerate(agents)]
    for a in resolved:
        if a.kind == "cmd" and transport != "webrtc":
            raise UserError(f"--agent {a.spec!r}: a cmd: agent joins over WebRTC; use --transport webrtc "
                            "(py: agents run on both transports)")
    seen: dict[str, str] = {}
    for a in resolved:
        if seen.setdefault(a.name, a.spec) != a.spec:
            raise UserError(f"--agent {seen[a.name]!r} and --agent {a.spec!r} have the same name {a.name!r}; "
                            "tell them apart with --agent-name")
    return resolved


@click.command("replay", short_help="Verify a recorded session, re-derive its responses and re-score it.")
@click.argument("folder", type=click.Path(path_type=Path, file_okay=False))
@click.option("--output", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Where to write the re-scored scorecard (default FOLDER/replay-scorecard.json).")
@judge_option
@asr_option
@scenarios_option
def replay(folder: Path, output: Path | None, judges: tuple[str, ...], scenario_paths: tuple[Path, ...],
           asr: str | None) -> None:
    """Verify a recorded session's hash chain and seal, re-derive its responses and re-score it.

    With the judges the run used, the scorecard equals the one the run wrote (reported below). The
    record must end at the hash manifest.json sealed when the meeting ended: a record shorter than
    what was sealed, or altered, is refused. An unsealed record (the run crashed) replays up to its
    last complete event, and says it is unsealed. The scenario instance is the one the manifest
    records (its --seed).
    --asr recognises the segments that have no recognised text yet and stores the answers in
    FOLDER/recognition.jsonl (the sealed record is left as it is); scoring then reads both.
    """
    from modylbench.record import RecordIntegrityError, read_record, verify_media
    from modylbench.simulator._runner import check_seal

    # Owned before it is read: a record still being written would look cut short.
    with owning(folder) if folder.is_dir() else contextlib.nullcontext():
        try:
            read = read_record(folder)
        except FileNotFoundError as exc:
            raise UserError(str(exc)) from None
        except RecordIntegrityError as exc:
            raise UserError(f"record refused: {exc}") from None
        sealed, verdict = check_seal(folder, read)
        try:
            verdict += "; " + verify_media(folder, read.events)
        except RecordIntegrityError as exc:
            raise UserError(f"record refused: {exc}") from None
        _replay_verified(folder, read, sealed, verdict, output, judges, scenario_paths, asr)


def _replay_verified(folder: Path, read: Any, sealed: bool, verdict: str, output: Path | None,
                     judges: tuple[str, ...], scenario_paths: tuple[Path, ...], asr: str | None = None) -> None:
    from modylbench.record import SessionStart

    files = SessionFolder(folder)
    if not any(isinstance(e, SessionStart) for e in read.events):
        raise UserError(f"record refused: {files.record} has no session_start event")
    try:
        manifest = files.read_manifest(strict=True) or Manifest()
    except ValueError as exc:
        raise UserError(str(exc)) from None
    seed = manifest.seed
    if seed < 0:
        raise UserError(f"{files.manifest}: seed {seed!r} is not a non-negative integer")
    sid = manifest.scenario_id
    scenarios = load_all(scenario_paths, seed, [sid] if sid is not None and seed else None)
    panel = list(judges) or list(manifest.judges or ["offline"])
    check_judges(panel)
    check_asr(asr)
    click.echo(verdict + (" (its last line was cut: replaying up to the last complete event)"
                          if read.truncated else ""), err=True)
    if asr is not None:
        from modylbench.simulator._asr import make_recogniser, recognise_session

        done = asyncio.run(recognise_session(folder, make_recogniser(asr)))
        click.echo(f"speech recognition ({asr}): {done.asked} of {done.segments} segments asked, {done.recognised} "
                   f"recognised, {done.unrecognised} not, {done.round_trips} requests → {files.recognition}", err=True)
    target = output or files.replay_scorecard
    card = score_and_print(folder, scenarios, panel, output=target)
    original = files.scorecard
    if sealed and original.exists() and sorted(panel) == sorted(manifest.judges):
        same = json.loads(original.read_text()) == json.loads(target.read_text())
        added = " (recognition.jsonl adds speech recognition to the record)" if files.recognition.exists() else ""
        click.echo("matches the scorecard the run wrote" if same else
                   f"DIFFERS from the scorecard the run wrote (scenario or code changed?){added}", err=True)
    write_report(card, target.parent if output else folder, scenarios)
    if card.incomplete:
        sys.exit(INCOMPLETE_EXIT)
