"""``modylbench sweep``: a TOML file names scenarios x agents x transports x networks x turns x seeds x trials; every
cell is a session folder under OUT, run here (``run_one``/``SessionWorkers``) or on Ray, resumed, and
combined into OUT's scorecard and leaderboard as cells finish. Layout: docs/scale.md.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import sys
import time
import tomllib
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, TypeAlias

import click
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from modylbench.record import ProgressReporter, SessionFolder
from modylbench.simulator._cli_common import STOPPED_BY_CTRL_C, check_judges, judge_option, stop_on_ctrl_c
from modylbench.simulator._errors import INTERRUPTED_EXIT, UserError
from modylbench.simulator._progress import forwarding, progress_options, reporter_for, session_task
from modylbench.simulator._sessionkey import CLEAN_NETWORK, MANIFEST_KEY, SessionKey, recorded_key

logger = logging.getLogger(__name__)

PLAN_FILE = "sweep.json"
"""OUT/sweep.json: the sweep as last run (its settings and cells); marks OUT as a sweep folder."""
TRANSPORTS = ("inproc", "webrtc")
REALTIME_RESOURCE = "modylbench_realtime"
"""The Ray custom resource a real-time (webrtc) meeting takes one unit of (docs/scale.md)."""
MEETING_CPUS = {"inproc": 1.0, "webrtc": 0.25}
"""Ray CPUs one meeting asks for, by transport, measured with benchmarks/bench_meeting_cost.py (docs/scale.md):
an in-process meeting computes flat out while it runs (a whole core's worth when it gets one); a real-time
WebRTC meeting used 0.15 of a core on average (persona and a scripted agent), with room left for bursts."""
_SLUG_CHARS = 48
MAX_CELLS = 100_000
"""Most cells one sweep may plan (a sweep of more is refused before it is expanded): each cell is a meeting
of minutes and a folder of megabytes, so a larger grid is a typo, and expanding it would take gigabytes."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class RaySettings(_Strict):
    """The ``[ray]`` table: where and how the cells run on a Ray cluster."""

    address: str | None = Field(
        default=None, description="auto, HOST:PORT or ray://HOST:10001; --ray overrides."
    )
    num_cpus: float | None = Field(
        default=None, gt=0, le=64, description="Ray CPUs per meeting (default by transport: MEETING_CPUS)."
    )
    memory_mb: int | None = Field(
        default=None, ge=1, description="Ray memory per meeting (MB); none by default."
    )
    realtime_resource: str = Field(
        default=REALTIME_RESOURCE,
        min_length=1,
        description="Custom resource a webrtc meeting takes one unit of, when the cluster declares it.",
    )
    max_retries: int = Field(
        default=3, ge=0, le=100, description="Retries of a cell whose worker or node died."
    )
    shared_path: str | None = Field(
        default=None,
        description="OUT as every node mounts it: workers write cells there instead of shipping them.",
    )
    max_folder_mb: int = Field(default=2048, ge=1, description="Largest session folder a worker ships back.")


def _listify(v: Any) -> Any:
    return v if isinstance(v, list) else [v]


class SweepConfig(_Strict):
    """A sweep file (TOML). Lists may be given as one value."""

    out: str | None = Field(default=None, description="Folder of the sweep; --out overrides.")
    scenarios: list[str] = Field(default=["all"], min_length=1, description="Scenario ids, or all.")
    tags: list[str] = Field(
        default=[], description="Keep scenarios matching every tag: KEY=VALUE or a metadata tag."
    )
    scenario_files: list[str] = Field(
        default=[], description="Scenario .jsonl/.json files or folders (--scenarios)."
    )
    agents: list[str] = Field(min_length=1, description="Agent specs: built-in names, cmd:..., py:...")
    agent_env: list[str] = Field(
        default=[], description="cmd:/py: agents: environment variables passed beyond the allow-list (run --agent-env)."
    )
    trials: int = Field(
        default=1, ge=1, le=1000, description="Trials of every (scenario, agent, seed, ...) cell."
    )
    seeds: list[int] = Field(
        default=[0], min_length=1, description="Scenario instances (0: the published data)."
    )
    transports: list[Literal["inproc", "webrtc"]] = Field(default=["inproc"], min_length=1)
    networks: list[str] = Field(
        default=["clean"], min_length=1,
        description="Network profiles of the webrtc cells (docs/network.md): names or custom specs; a cell's "
        "folder names one other than clean after its transport (webrtc__net-mobile__…).",
    )
    turns: list[int | Literal["all"]] = Field(
        default=["all"], min_length=1, description="First N turns, or all."
    )
    judges: list[str] = Field(
        default=["offline"], min_length=1, description="The judge panel scoring every cell."
    )
    speed: float | None = Field(
        default=None, gt=0, description="inproc only: meeting clock X times real time."
    )
    speech: str = Field(default="espeak", description="Persona speech engine spec.")
    captions: bool = Field(default=True, description="Send captions (false: the agent must listen).")
    concurrency: int = Field(
        default=1, ge=1, le=256, description="Sessions at once on this machine (not Ray)."
    )
    ray: RaySettings | None = None

    @field_validator(
        "scenarios",
        "tags",
        "scenario_files",
        "agents",
        "seeds",
        "transports",
        "networks",
        "turns",
        "judges",
        mode="before",
    )
    @classmethod
    def _one_or_many(cls, v: Any) -> Any:
        return _listify(v)

    @field_validator("networks")
    @classmethod
    def _networks(cls, v: list[str]) -> list[str]:
        from modylbench.channels import parse_profile

        # Each as the session key names it (a custom spec canonical: loss=0.02 and loss=2% are one cell); a
        # NetworkProfileError is a ValueError: one line naming the field.
        return list(dict.fromkeys(parse_profile(spec).key for spec in v))

    @field_validator("seeds")
    @classmethod
    def _seeds(cls, v: list[int]) -> list[int]:
        if any(s < 0 for s in v):
            raise ValueError("seeds are non-negative integers")
        return list(dict.fromkeys(v))

    @field_validator("turns")
    @classmethod
    def _turns(cls, v: list[int | str]) -> list[int | str]:
        if any(isinstance(t, int) and t < 1 for t in v):
            raise ValueError('turns are positive integers or "all"')
        return list(dict.fromkeys(v))

    @field_validator("agents", "scenarios", "transports", "judges")
    @classmethod
    def _distinct(cls, v: list[str]) -> list[str]:
        if any(not s.strip() for s in v):
            raise ValueError("an entry is empty")
        return list(dict.fromkeys(v))


def config_error(source: str, exc: ValidationError) -> UserError:
    """A validation failure as one line naming each key."""
    problems = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"]) or "(top)"
        if err["type"] == "extra_forbidden":
            problems.append(f"unknown key {key!r}")
        elif err["type"] == "missing":
            problems.append(f"{key}: required")
        else:
            problems.append(f"{key}: {err['msg']} (got {err.get('input')!r:.60})")
    return UserError(f"{source}: " + "; ".join(problems))


def load_config(path: Path, overrides: dict[str, Any]) -> SweepConfig:
    """Read and validate the sweep file; keys given in ``overrides`` (the command line) replace the file's."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{path}: no such sweep file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read it ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: not valid TOML ({exc})") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise UserError(f"{path}: nested too deeply to read (no sweep setting nests more than 2 levels)") from None
    ray_override = overrides.pop("ray", None)
    data.update({k: v for k, v in overrides.items() if v is not None})
    if ray_override is not None:
        table = data.get("ray")
        data["ray"] = {**(table if isinstance(table, dict) else {}), "address": ray_override}
    try:
        config = SweepConfig.model_validate(data)
    except ValidationError as exc:
        raise config_error(str(path), exc) from None
    except RecursionError:
        raise UserError(f"{path}: nested too deeply to read (no sweep setting nests more than 2 levels)") from None
    # Relative scenario files are read from the sweep file's folder, wherever the command runs.
    config.scenario_files = [
        str(path.parent / p) if not Path(p).is_absolute() else p for p in config.scenario_files
    ]
    return config


# ------------------------------------------------------------------ cells


REUSED_SHOWN = 20
"""Reused cells the summary names one by one (a large sweep names the first ones and counts the rest)."""

Cell: TypeAlias = SessionKey
"""One session of the sweep: the key ``run`` names its folders by too (``_sessionkey``)."""


def _transport_networks(config: SweepConfig) -> list[tuple[str, str]]:
    """The (transport, network) pairs of the sweep: every network for webrtc; inproc has no packets to impair,
    so it runs once, clean."""
    pairs: list[tuple[str, str]] = []
    for transport in config.transports:
        if transport == "inproc":
            pairs.append((transport, CLEAN_NETWORK))
        else:
            pairs.extend((transport, network) for network in config.networks)
    if config.networks != [CLEAN_NETWORK] and "webrtc" not in config.transports:
        click.echo('note: networks apply to webrtc cells only (transports = ["webrtc"])', err=True)
    return pairs


def _tag_matches(scenario: Any, tag: str) -> bool:
    meta = scenario.metadata or {}
    if "=" not in tag:
        tags = meta.get("tags")
        return isinstance(tags, list) and tag.lower() in {str(t).lower() for t in tags}
    key, _, want = (s.strip() for s in tag.partition("="))
    known = {"id": scenario.scenario_id, "vertical": scenario.vertical, "tier": scenario.quality_tier}
    have = known.get(key.lower(), meta.get(key))
    return have is not None and str(have).lower() == want.lower()


def select_scenarios(config: SweepConfig, seed: int) -> list[Any]:
    """The scenarios the sweep plays at ``seed``: its ids (or all), kept when they match every tag."""
    from modylbench.simulator._cmd_scenarios import load_all, pick

    paths = tuple(Path(p) for p in config.scenario_files)
    every = "all" in config.scenarios
    scenarios = load_all(paths, seed, None if every else list(config.scenarios))
    chosen = list(scenarios.values()) if every else [pick(scenarios, sid) for sid in config.scenarios]
    kept = [s for s in chosen if all(_tag_matches(s, t) for t in config.tags)]
    if not kept:
        raise UserError(
            f"no scenario matches the tags {config.tags} (tags: KEY=VALUE over id, vertical, tier and "
            "metadata keys such as difficulty or domain; a bare word matches metadata.tags)"
        )
    return kept


@dataclass
class Plan:
    """Every cell of a sweep with the RunSpec that plays it."""

    out: Path
    config: SweepConfig
    cells: list[Cell] = field(default_factory=list)
    specs: dict[str, Any] = field(default_factory=dict)  # cell name -> RunSpec


def plan(config: SweepConfig, out: Path) -> Plan:
    """Expand the sweep into cells, in a stable order (scenario, agent, transport, turns, seed, trial)."""
    from modylbench.channels import LinkOptions, parse_profile
    from modylbench.simulator._cli_common import network_seed
    from modylbench.simulator._runner import RunSpec
    from modylbench.simulator._session import MeetingOptions

    if config.speed is not None and config.transports != ["inproc"]:
        raise UserError("speed applies to transport inproc only (WebRTC runs in real time)")
    from modylbench.simulator._agentspec import resolve_agent

    result = Plan(out, config)
    # Each agent spec is checked before anything runs (a py: target is imported): one line for a mistake.
    names = {agent: resolve_agent(agent).name for agent in config.agents}
    for agent in config.agents:
        if agent.startswith("cmd:") and "inproc" in config.transports:
            click.echo(f"note: {agent!r} joins over WebRTC only: its inproc cells are left out", err=True)
    first = select_scenarios(config, config.seeds[0])
    # Counted before anything is expanded (or any instance built): the product, less cmd: agents' inproc cells;
    # a webrtc cell once per network, an inproc one once (clean).
    pairs = _transport_networks(config)
    combos = sum(1 for a in config.agents for t, _ in pairs if not (a.startswith("cmd:") and t == "inproc"))
    planned = len(first) * combos * len(config.turns) * len(config.seeds) * config.trials
    if planned > MAX_CELLS:
        raise UserError(f"the sweep has {planned:,} cells; at most {MAX_CELLS:,} (split it into several sweeps)")
    by_seed = {config.seeds[0]: first, **{seed: select_scenarios(config, seed) for seed in config.seeds[1:]}}
    for sc0 in by_seed[config.seeds[0]]:
        for agent in config.agents:
            for transport, network in pairs:
                if agent.startswith("cmd:") and transport == "inproc":
                    continue
                for turns in config.turns:
                    n = None if turns == "all" else int(turns)
                    for seed in config.seeds:
                        scenario = next(s for s in by_seed[seed] if s.scenario_id == sc0.scenario_id)
                        for trial in range(config.trials):
                            cell = SessionKey(scenario.scenario_id, agent, names[agent], transport, n, seed, trial,
                                              network=network)
                            meeting = MeetingOptions(
                                turns=n,
                                judges=list(config.judges),
                                seed=seed,
                                extra_manifest={MANIFEST_KEY: cell.manifest_entry(), "sweep_cell": cell.manifest_entry()},
                            )
                            result.cells.append(cell)
                            result.specs[cell.name] = RunSpec(
                                scenario,
                                agent,
                                out / cell.name,
                                transport,
                                speed=config.speed if transport == "inproc" else None,
                                speech=config.speech,
                                meeting=meeting,
                                link=LinkOptions(captions=config.captions, network=parse_profile(network),
                                                 network_seed=network_seed(seed, trial)),
                                agent_env=tuple(config.agent_env),
                            )
    if not result.cells:
        raise UserError('the sweep has no cells (cmd: agents need transports = ["webrtc"])')
    return result


# ------------------------------------------------------------------ one cell, wherever it runs


def cell_status(folder: Path, panel: list[str], spec: Any = None, refused: dict[Path, str] | None = None, *,
                scenario: Any = None) -> Literal["todo", "complete", "rescore", "broken"]:
    """What resume does with a cell's folder: run it, skip it, re-score it (another panel) or move it aside.

    With the cell's ``spec``, a complete folder that recorded another session (``session_difference``) is refused
    with one line: it is never reused for this cell, nor replaced without being asked. A complete folder that
    fails verification (``verify_session``) is broken, with the reason in ``refused``.
    """
    from modylbench.simulator._runner import session_complete, session_difference, verify_session

    if not folder.exists() and not folder.is_symlink():
        return "todo"
    if not session_complete(folder):
        return "broken"
    if spec is not None and (diff := session_difference(spec)) is not None:
        raise UserError(f"{folder} holds a complete session of another configuration ({diff}); move it away or "
                        "sweep into another out folder")
    why = verify_session(folder, scenario if scenario is not None else spec.scenario if spec is not None else None)
    if why is None and not _is_cell(folder):
        why = "its manifest does not name it as this sweep cell"
    if why is not None:
        if refused is not None:
            refused[folder] = why
        return "broken"
    try:
        judges = json.loads(SessionFolder(folder).scorecard.read_text(encoding="utf-8")).get("judges")
    except (OSError, ValueError, AttributeError):
        return "broken"
    return "complete" if judges == panel else "rescore"


def _is_cell(folder: Path) -> bool:
    """The folder's manifest names it as the session it holds (its key, or an older sweep's cell entry)."""
    manifest = SessionFolder(folder).read_manifest()
    return manifest is not None and any(c is not None and c.get("name") == folder.name
                                        for c in (manifest.session, manifest.sweep_cell))


def node_info() -> dict[str, Any]:
    """Where this process runs, for the manifest: host name, process id and, on Ray, the node id."""
    info: dict[str, Any] = {"hostname": socket.gethostname(), "pid": __import__("os").getpid()}
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


def score_cell(spec: Any, panel: list[str]) -> Any:
    """Score a finished cell in its folder (scorecard.json, responses.jsonl, report.html)."""
    from modylbench.simulator._cli_common import owning, write_report
    from modylbench.simulator._runner import score_session

    scenarios = {spec.scenario.scenario_id: spec.scenario}
    with owning(spec.folder):
        card = score_session(spec.folder, scenarios, panel)
        write_report(card, spec.folder)
    return card


@dataclass
class Outcome:
    """How one cell ended, as the sweep reports it."""

    name: str
    termination_reason: str | None = None
    turns_played: int = 0
    seconds: float = 0.0
    node: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    attempts: int = 1


def run_cell_here(spec: Any, panel: list[str], on_event: Callable[[Any], None] | None = None) -> Outcome:
    """Play and score one cell in this process (a Ray task, or a worker process): blocking. ``on_event`` sees
    the session's recorded events (progress; a QueueHook when the caller is another process)."""
    from modylbench.simulator._runner import run_one

    spec = with_node(spec)
    t0 = time.monotonic()
    result = asyncio.run(run_one(spec, on_event=on_event))
    score_cell(spec, panel)
    return Outcome(
        spec.folder.name,
        result.termination_reason,
        result.turns_played,
        time.monotonic() - t0,
        spec.meeting.extra_manifest["node"],
    )


# ------------------------------------------------------------------ results


class Results:
    """The sweep's combined scorecard and leaderboard, rebuilt from the cells' own scorecards as they finish."""

    def __init__(self, out: Path, planned: int, verify: Callable[[Path], str | None] | None = None):
        from modylbench.simulator._results import complete_sessions, load_result

        self.out, self.planned, self.failed = out, planned, 0
        self._loaded: dict[str, Any] = {}
        self.refused: dict[Path, str] = {}
        # Every complete cell in OUT counts, from earlier sweeps with other settings too: results accumulate,
        # once verified (a planted or edited cell is said so and left out).
        for folder in complete_sessions(out):
            why = verify(folder) if verify is not None else None
            if why is not None:
                self.refused[folder] = why
                continue
            self.add(folder, load=load_result)

    def add(self, folder: Path, load: Callable[[Path], Any] | None = None) -> None:
        from modylbench.simulator._results import load_result

        result = (load or load_result)(folder)
        if result is not None and recorded_key(result.manifest) is not None:
            self._loaded[folder.name] = result

    def _labelled(self) -> list[tuple[str, Any]]:
        from modylbench.simulator._results import labelled

        return labelled(self._loaded[k] for k in sorted(self._loaded))

    def responses(self) -> list[Any]:
        """The cells' responses, paired with the combined scorecard's entries (its report shows their latency)."""
        from modylbench.simulator._results import combined_responses

        return combined_responses(self._labelled())

    def write(self) -> Any:
        from modylbench.simulator._results import combine, write_results

        labelled = self._labelled()
        if not labelled:
            return None
        results = [r for _, r in labelled]
        card = combine((label, r.card) for label, r in labelled)
        write_results(
            self.out,
            card,
            {"cells": {"planned": self.planned, "complete": len(results), "failed": self.failed}},
        )
        return card


# ------------------------------------------------------------------ running locally


async def run_local(
    todo: list[Any],
    panel: list[str],
    concurrency: int,
    on_done: Callable[[Any, Outcome], None],
    reporter: ProgressReporter | None = None,
) -> None:
    """Run cells on this machine, ``concurrency`` at once. Side by side, each runs in a worker process of its
    own (SessionWorkers): a real-time meeting keeps its loop to itself, an in-process one gets a core (one loop
    runs one meeting's CPU at a time) and its virtual clock sees only its own meeting's tasks."""
    from modylbench.simulator._runner import SessionWorkers, run_one

    sem = asyncio.Semaphore(concurrency)
    workers = min(concurrency, len(todo))
    pool = SessionWorkers(workers) if workers > 1 else None

    async def one(spec: Any, remote: Any) -> None:
        async with sem:
            t0 = time.monotonic()
            task, fields = session_task(spec)
            if reporter is not None:
                reporter.emit("session_started", task, **fields)
            try:
                if pool is not None:
                    # The worker plays and scores the cell (the report encodes the recording: seconds of CPU).
                    hook = remote(task, fields["turns"]) if remote is not None else None
                    outcome = await pool.call(run_cell_here, spec, panel, hook)
                else:
                    spec = with_node(spec)
                    hook = reporter.session_hook(task, fields["turns"]) if reporter is not None else None
                    result = await run_one(spec, on_event=hook)
                    score_cell(spec, panel)
                    outcome = Outcome(
                        spec.folder.name,
                        result.termination_reason,
                        result.turns_played,
                        time.monotonic() - t0,
                        spec.meeting.extra_manifest["node"],
                    )
            except UserError:
                raise
            except asyncio.CancelledError:
                if reporter is not None:
                    reporter.emit("session_failed", task, error=STOPPED_BY_CTRL_C)
                raise
            except Exception as exc:  # noqa: BLE001 - one failed cell never ends the sweep; resume redoes it
                logger.exception("cell %s failed", spec.folder.name)
                outcome = Outcome(spec.folder.name, seconds=time.monotonic() - t0, error=repr(exc)[:500])
            on_done(spec, outcome)

    def heard() -> None:
        click.echo("Ctrl-C: stopping the running cells (Ctrl-C again to quit at once)", err=True)

    release = stop_on_ctrl_c(heard)
    try:
        with forwarding(reporter) if pool is not None and reporter is not None else nullcontext() as remote:
            await asyncio.gather(*(one(s, remote) for s in todo))
    finally:
        release()
        if pool is not None:
            pool.close()


# ------------------------------------------------------------------ the command


def _verifier(config: SweepConfig, p: Plan, refused: dict[Path, str]) -> Callable[[Path], str | None]:
    """What the results ask of each complete folder in OUT: the verdict resume gave a planned cell, or
    ``verify_session`` with the scenario its manifest names (loaded from the sweep's scenario files)."""
    from modylbench.simulator._cmd_scenarios import load_all
    from modylbench.simulator._runner import verify_session

    planned = {spec.folder: spec for spec in p.specs.values()}
    loaded: dict[tuple[str, int], Any] = {(s.scenario.scenario_id, s.meeting.seed): s.scenario for s in planned.values()}

    def verify(folder: Path) -> str | None:
        if folder in refused:
            return refused[folder]
        if folder in planned and not folder.is_symlink():
            return None  # resume verified it (or it was just run or re-scored)
        manifest = SessionFolder(folder).read_manifest()
        sid, seed = (manifest.scenario_id, manifest.seed) if manifest is not None else (None, 0)
        if sid is None:
            return "its manifest names no scenario"
        if (sid, seed) not in loaded:
            try:
                loaded[(sid, seed)] = load_all(tuple(Path(f) for f in config.scenario_files), seed, [sid]).get(sid)
            except UserError:
                loaded[(sid, seed)] = None
        why = verify_session(folder, loaded[(sid, seed)])
        return why if why is not None or _is_cell(folder) else "its manifest does not name it as a sweep cell"

    return verify


def _turns_option(values: tuple[str, ...]) -> list[int | str] | None:
    if not values:
        return None
    out: list[int | str] = []
    for v in values:
        if v == "all":
            out.append(v)
            continue
        try:
            out.append(int(v))
        except ValueError:
            raise UserError(f'--turns: {v!r} is not a number of turns or "all"') from None
    return out


def _prepare(p: Plan, panel: list[str], dry_run: bool,
             refused: dict[Path, str]) -> tuple[list[Any], list[tuple[Cell, str]]]:
    """Decide each cell's fate; unless a dry run, move broken folders aside and re-score other panels' cells.
    Cells that fail verification are said so, and their reasons kept in ``refused``."""
    from modylbench.simulator._cmd_run import _clear_for_rerun

    todo: list[Any] = []
    rows: list[tuple[Cell, str]] = []
    for cell in p.cells:
        spec = p.specs[cell.name]
        status = cell_status(spec.folder, panel, spec, refused)
        rows.append((cell, status))
        if spec.folder in refused:
            click.echo(f"refused {spec.folder.name}: {refused[spec.folder]}; "
                       + ("it would be moved aside and run again" if dry_run else "moved aside, run again"), err=True)
        if dry_run or status == "complete":
            continue
        if status == "rescore":
            click.echo(f"re-scoring {spec.folder} with the panel {panel}", err=True)
            score_cell(spec, panel)
            continue
        if status == "broken":
            _clear_for_rerun(spec.folder, keep=spec.folder in refused)  # never deleted: renamed to <cell>.crashed-<time>, and said so
        todo.append(spec)
    return todo, rows


@click.command("sweep")
@click.argument("sweep_file", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--out",
    "out",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Folder of the sweep (overrides the file's out).",
)
@click.option("--agent", "agents", multiple=True, help="Agent spec; replaces the file's agents. Repeatable.")
@click.option(
    "--scenario", "scenario_ids", multiple=True, help="Scenario id or all; replaces the file's. Repeatable."
)
@click.option(
    "--tag",
    "tags",
    multiple=True,
    help="KEY=VALUE (id, vertical, tier, metadata) or metadata tag. Repeatable.",
)
@click.option("--trials", type=click.IntRange(min=1), default=None, help="Trials per cell.")
@click.option(
    "--seed", "seeds", type=click.IntRange(min=0), multiple=True, help="Scenario instance. Repeatable."
)
@click.option("--transport", "transports", type=click.Choice(TRANSPORTS), multiple=True, help="Repeatable.")
@click.option("--turns", "turns", multiple=True, metavar="N|all", help="Play the first N turns. Repeatable.")
@judge_option
@click.option(
    "--concurrency", type=click.IntRange(min=1), default=None, help="Sessions at once on this machine."
)
@click.option(
    "--ray",
    "ray_address",
    default=None,
    metavar="ADDRESS|auto",
    help="Run every cell as a Ray task on this cluster (auto: the one `ray start` made here).",
)
@click.option(
    "--dry-run", is_flag=True, help="List the cells and what resume would do with each; run nothing."
)
@progress_options
def sweep(
    sweep_file: Path,
    out: Path | None,
    agents: tuple[str, ...],
    scenario_ids: tuple[str, ...],
    tags: tuple[str, ...],
    trials: int | None,
    seeds: tuple[int, ...],
    transports: tuple[str, ...],
    turns: tuple[str, ...],
    judges: tuple[str, ...],
    concurrency: int | None,
    ray_address: str | None,
    dry_run: bool,
    progress: str,
    progress_json: bool,
) -> None:
    """Run every cell of a sweep file (scenarios x agents x transports x networks x turns x seeds x trials).

    Each cell is a session folder OUT/<scenario>__<agent>__<transport>__<turns>__seed<S>__t<T>/, a webrtc
    cell whose network (the file's networks) is not clean with __net-<network> after the transport
    (webrtc__net-mobile__all__seed0__t0), as run --network names it. A second
    sweep into OUT resumes: complete cells are skipped, cells scored by another judge panel are re-scored,
    broken ones (a crash) are moved aside to <cell>.crashed-<time> and run again. OUT/scorecard.json,
    OUT/leaderboard.json and OUT/leaderboard.md cover every complete cell in OUT and are rewritten
    atomically as each cell finishes. Options replace the file's values. See docs/scale.md.
    """
    overrides = {
        "out": str(out) if out is not None else None,
        "agents": list(agents) or None,
        "scenarios": list(scenario_ids) or None,
        "tags": list(tags) or None,
        "trials": trials,
        "seeds": list(seeds) or None,
        "transports": list(transports) or None,
        "turns": _turns_option(turns),
        "judges": list(judges) or None,
        "concurrency": concurrency,
        "ray": ray_address,
    }
    config = load_config(sweep_file, overrides)
    if config.out is None:
        raise UserError(f'{sweep_file}: no out folder: give --out DIR or out = "DIR" in the file')
    target = Path(config.out)
    panel = list(config.judges)
    check_judges(panel)
    p = plan(config, target)
    refused: dict[Path, str] = {}
    todo, rows = _prepare(p, panel, dry_run, refused)
    if dry_run:
        for cell, status in rows:
            click.echo(f"{status:<8} {cell.name}")
        counts = {s: sum(1 for _, st in rows if st == s) for s in ("todo", "complete", "rescore", "broken")}
        click.echo(
            f"{len(rows)} cells: "
            + ", ".join(f"{n} {s}" for s, n in counts.items() if n)
            + (f"; on Ray at {config.ray.address}" if config.ray and config.ray.address else "")
        )
        return
    if config.ray is not None and config.ray.address:
        from modylbench.simulator._ray import check_address

        check_address(config.ray.address)  # before OUT is touched
    target.mkdir(parents=True, exist_ok=True)
    from modylbench.simulator._results import write_atomic

    write_atomic(
        target / PLAN_FILE,
        json.dumps(
            {
                "config": config.model_dump(mode="json"),
                "cells": [c.manifest_entry() for c in p.cells],
                "written_wall_time": time.time(),
            },
            indent=2,
        )
        + "\n",
    )
    results = Results(target, len(p.cells), verify=_verifier(config, p, refused))
    for folder, why in results.refused.items():
        if folder not in refused:
            click.echo(f"refused {folder.name}: {why}; left out of the results", err=True)
    results.write()
    done = [len(p.cells) - len(todo)]
    click.echo(
        f"{len(p.cells)} cells: {done[0]} already complete, {len(todo)} to run"
        + (f" on Ray ({config.ray.address})" if config.ray and config.ray.address else ""),
        err=True,
    )
    reporter = reporter_for(progress, progress_json, "sweep")
    reporter.emit("run_started", command="sweep", total=len(p.cells))
    for cell, status in rows:
        if status in ("complete", "rescore"):
            reporter.emit("session_skipped", cell.name, reason="already complete")

    def on_done(spec: Any, outcome: Outcome) -> None:
        done[0] += 1
        where = outcome.node.get("hostname", "?") + (
            f"/{outcome.node['ray_node_id'][:8]}" if "ray_node_id" in outcome.node else ""
        )
        task = spec.folder.name
        if outcome.error is None and SessionFolder(spec.folder).scorecard.exists():
            results.add(spec.folder)
            how = f"{outcome.termination_reason}, {outcome.turns_played} turns"
            reporter.emit("session_finished", task, termination_reason=outcome.termination_reason,
                          turns_played=outcome.turns_played, wall_s=round(outcome.seconds, 3),
                          folder=str(spec.folder), agent_errors=[])  # fmt: skip
        else:
            results.failed += 1
            how = f"FAILED ({outcome.error}); the next sweep into {target} redoes it"
            reporter.emit("session_failed", task, error=str(outcome.error or "no scorecard"))
        results.write()
        if reporter.mode == "live":
            return  # the live view shows it
        click.echo(
            f"[{done[0]}/{len(p.cells)}] {spec.folder.name}: {how}, {outcome.seconds:.1f}s on {where}"
            + (f", attempt {outcome.attempts}" if outcome.attempts > 1 else ""),
            err=True,
        )

    interrupted = False
    with reporter:
        if todo and config.ray is not None and config.ray.address:
            from modylbench.simulator._ray import run_on_ray

            for spec in todo:  # Ray schedules them; each is "started" from here on
                task, fields = session_task(spec)
                reporter.emit("session_started", task, **fields)
            run_on_ray(todo, panel, config.ray, target, on_done)
        elif todo:
            try:
                asyncio.run(run_local(todo, panel, config.concurrency, on_done, reporter))
            except asyncio.CancelledError:  # Ctrl-C: the running cells were stopped and are kept incomplete
                interrupted = True
        reporter.emit("run_finished", done=reporter.done, failed=reporter.failed, skipped=reporter.skipped,
                      total=reporter.total, interrupted=interrupted)  # fmt: skip
    card = results.write()
    if card is not None:
        from modylbench.simulator._cli_common import write_report

        write_report(card, target, responses=results.responses())
    reused = [cell.name for cell, status in rows if status in ("complete", "rescore")]
    if reused:
        shown = ", ".join(reused[:REUSED_SHOWN]) + (f" and {len(reused) - REUSED_SHOWN} more (--dry-run lists them)"
                                                     if len(reused) > REUSED_SHOWN else "")
        click.echo(f"reused {len(reused)} complete cell{'s' if len(reused) != 1 else ''} of the same configuration "
                   f"(not run again): {shown}", err=reporter.mode == "json")
    click.echo(f"scorecard:   {SessionFolder(target).scorecard}\nleaderboard: {target / 'leaderboard.md'}",
               err=reporter.mode == "json")  # fmt: skip
    if interrupted:
        click.echo(f"interrupted: the stopped cells are kept incomplete; sweep into {target} again to redo them",
                   err=True)
        sys.exit(INTERRUPTED_EXIT)
    if results.failed:
        raise UserError(
            f"{results.failed} of {len(p.cells)} cells failed; sweep into {target} again to redo them",
            exit_code=1,
        )
