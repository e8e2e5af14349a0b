"""``modylbench sweep``: a TOML file names scenarios x agents x transports x networks x turns x seeds x trials; every
cell is a session folder under OUT. This module reads the file and plans the cells; the batch layer (``_batch``)
plays them here or on Ray, resumes, and combines OUT's scorecard and leaderboard as cells finish. Layout:
docs/scale.md.
"""

from __future__ import annotations

import json
import logging
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeAlias

import click
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from modylbench.simulator._batch import BatchRun, prepare
from modylbench.simulator._cli_common import check_judges, judge_option, workers_option
from modylbench.simulator._errors import UserError
from modylbench.simulator._progress import progress_options, reporter_for
from modylbench.simulator._sessionkey import CLEAN_NETWORK, MANIFEST_KEY, SessionKey

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
    workers: int | None = Field(
        default=None, ge=1, le=256,
        description="Worker processes the sessions at once spread over, one event loop each (default: one per "
        "running webrtc session, else one per core; 1: all in this process).",
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


# ------------------------------------------------------------------ the command


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


@click.command("sweep", short_help="Run a sweep file's cells (here or on Ray), resumable, with a leaderboard.")
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
@workers_option
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
    workers: int | None,
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
    atomically as each cell finishes. Options replace the file's values. Cells at once (concurrency) spread over
    --workers processes. A cell that cannot be played or scored is printed with its failure kind and the others
    go on. Exit codes as run's: 0 done; 1 some cell failed; 2 a usage error; 3 judges left items unscored; 4
    every cell of an agent recorded an agent failure; 130 interrupted. See docs/scale.md.
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
        "workers": workers,
        "ray": ray_address,
    }
    config = load_config(sweep_file, overrides)
    if config.out is None:
        raise UserError(f'{sweep_file}: no out folder: give --out DIR or out = "DIR" in the file')
    target = Path(config.out)
    panel = list(config.judges)
    check_judges(panel)
    p = plan(config, target)
    specs = [p.specs[cell.name] for cell in p.cells]
    prepared = prepare(specs, panel, dry_run=dry_run)
    if dry_run:
        for spec, status in prepared.rows:
            click.echo(f"{status:<8} {spec.folder.name}")
        counts = {s: sum(1 for _, st in prepared.rows if st == s) for s in ("todo", "complete", "rescore", "broken")}
        click.echo(
            f"{len(prepared.rows)} cells: "
            + ", ".join(f"{n} {s}" for s, n in counts.items() if n)
            + (f"; on Ray at {config.ray.address}" if config.ray and config.ray.address else "")
        )
        return
    ray = config.ray if config.ray is not None and config.ray.address else None
    if ray is not None:
        from modylbench.simulator._ray import check_address

        check_address(str(ray.address))  # before OUT is touched
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
    BatchRun(specs, panel, target, "sweep", reporter_for(progress, progress_json, "sweep"),
             concurrency=config.concurrency, workers=config.workers, scenario_files=tuple(map(Path, config.scenario_files)),
             ray=ray, prepared=prepared)()
