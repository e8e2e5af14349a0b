"""``modylbench evaluate``: score a responses.jsonl file and write scorecard.json."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from modylbench.record import PROGRESS_MODES, ProgressReporter

logger = logging.getLogger(__name__)


def deprecated_spelling(old: str, new: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """An option callback for an old spelling kept for one release: when it is given, one line names the new one.
    The one home of the note for every command (the simulator's import it from ``modylbench.scoring.cli``)."""

    def note(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if value is not None and value != () and value != param.get_default(ctx):
            click.echo(f"note: {old} is deprecated and will be removed in the next release; use {new}", err=True)
        return value

    return note


def _fail(message: str, code: int = 2) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


@click.command("evaluate", short_help="Score pre-recorded responses (responses.jsonl).")
@click.option(
    "--responses",
    "responses_path",
    required=True,
    type=click.Path(path_type=Path),
    help="responses.jsonl: one scenario run per line (public format).",
)
@click.option(
    "--output",
    "output",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="Where to write scorecard.json.",
)
@click.option(
    "--judge",
    "judge_specs",
    multiple=True,
    metavar="SPEC",
    help="offline, openai/MODEL or openai/MODEL@BASE_URL; repeatable (default: offline).",
)
@click.option(
    "--scenarios",
    "scenario_paths",
    multiple=True,
    type=click.Path(path_type=Path),
    metavar="PATH",
    help="A .jsonl/.json scenario file or folder; adds or replaces scenarios by id. Repeatable.",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=None,
    help="Score against fresh instance N of the built-in scenarios (default 0: the published data). Lines "
    "that carry scenario_seed are scored against their own instance; a line claiming another instance "
    "than --seed is an error.",
)
@click.option(
    "--turns",
    type=click.IntRange(min=1),
    default=None,
    help="Score lines that do not say turns_scheduled against the scenario's first N turns (default: the "
    "whole scenario). A line's own turns_scheduled wins; one that disagrees with --turns is an error.",
)
@click.option("--k", "k", type=click.IntRange(min=1), default=None, help="Report pass^k up to this k.")
@click.option(
    "--cache-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Cache of LLM judge answers (default: .modylbench-cache/judge next to --output).",
)
@click.option(
    "--judge-concurrency",
    "judge_concurrency",
    type=click.IntRange(min=1),
    default=8,
    show_default=True,
    help="Concurrent requests per LLM judge.",
)
@click.option(
    "--concurrency",
    "concurrency",
    type=click.IntRange(min=1),
    default=None,
    hidden=True,
    callback=deprecated_spelling("evaluate --concurrency", "--judge-concurrency (--concurrency means sessions at "
                                 "once in run and sweep)"),
)
@click.option("--quiet", is_flag=True, help="Do not print the summary table.")
@click.option(
    "--progress",
    type=click.Choice(PROGRESS_MODES),
    default="auto",
    show_default=True,
    help="Judge calls done/left and time left: auto (live on a terminal, lines when piped), live, lines, json, off.",
)
@click.option("--json", "progress_json", is_flag=True,
              help="Progress as JSON lines on stdout (docs/progress.md); the summary goes to stderr.")
def evaluate(
    responses_path: Path,
    output: Path,
    judge_specs: tuple[str, ...],
    scenario_paths: tuple[Path, ...],
    seed: int | None,
    turns: int | None,
    k: int | None,
    cache_dir: Path | None,
    judge_concurrency: int,
    concurrency: int | None,
    quiet: bool,
    progress: str,
    progress_json: bool,
) -> None:
    """Score pre-recorded responses and write scorecard.json (and a report beside it).

    \b
    Exit codes:
      0  every line was scored by every judge
      1  some lines were skipped (each reported as file:line: reason)
      2  unusable input (no such file, no line scorable, bad --judge, bad scenario file)
      3  incomplete, resumable: a judge could not score some items (server down, bad
         answers); the scorecard gives no tier or pass for those runs. Run the same
         command again: cached answers are reused and only the missing ones are asked.
    """
    from modylbench.scenarios import ScenarioLoadError, resolve_scenarios
    from modylbench.scoring._judges import JudgeSpecError, ProgressJudge, make_judges
    from modylbench.scoring._llm import JudgeConfigError
    from modylbench.scoring._responses_io import ResponsesFileError, read_responses_located, write_scorecard
    from modylbench.scoring._scorecard import line_problem, score
    from modylbench.scoring._summary import INCOMPLETE_EXIT, incomplete_note, print_summary, summary_console

    try:
        located, problems = read_responses_located(responses_path)
    except ResponsesFileError as exc:
        _fail(str(exc))
        return
    # A line that says which instance it answered (scenario_seed, written by run) is scored against that one.
    line_seeds = {r.scenario_seed for _, r in located if r.scenario_seed is not None}
    if len(line_seeds) > 1:
        _fail(f"{responses_path.name}: lines answer different instances (scenario_seed {sorted(line_seeds)}); "
              "evaluate each seed in its own file")
        return
    if line_seeds:
        (line_seed,) = line_seeds
        if seed is not None and seed != line_seed:
            _fail(f"{responses_path.name}: lines answer instance {line_seed} (scenario_seed), not --seed {seed}")
            return
        seed = line_seed
    seed = 0 if seed is None else seed
    if turns is not None:
        clash = sorted({r.turns_scheduled for _, r in located if r.turns_scheduled not in (None, turns)})
        if clash:
            _fail(f"{responses_path.name}: lines were scheduled for {clash[0]} turns (turns_scheduled), not --turns {turns}")
            return
        located = [(n, r if r.turns_scheduled is not None else r.model_copy(update={"turns_scheduled": turns}))
                   for n, r in located]
    try:
        # Only the built-ins the file answers are built (a fresh instance takes a moment each).
        scenarios = resolve_scenarios(scenario_paths, seed=seed, only={r.scenario_id for _, r in located})
    except ScenarioLoadError as exc:
        _fail(exc.problems[0] if exc.problems else "cannot load scenarios")
        return
    except (ValueError, RuntimeError) as exc:
        _fail(f"cannot build seed {seed}: {exc}")
        return
    good = []
    for lineno, resp in located:
        reason = line_problem(resp, scenarios)
        if reason is not None:
            problems.append(f"{responses_path.name}:{lineno}: {reason}")
            continue
        good.append(untrusted_measurements(resp))
    for p in problems:
        click.echo(p, err=True)
    if not good:
        _fail(f"{responses_path.name}: no line could be scored")
        return
    cache = cache_dir if cache_dir is not None else output.parent / ".modylbench-cache" / "judge"
    try:
        judges = make_judges(list(judge_specs), concurrency=concurrency or judge_concurrency, cache_dir=cache)
    except (JudgeSpecError, JudgeConfigError) as exc:
        _fail(str(exc))
        return
    reporter = ProgressReporter("json" if progress_json else progress, command="evaluate")
    for j in judges:
        if isinstance(j, ProgressJudge):
            j.on_progress = reporter.judge_hook
    try:
        with reporter:
            card = score(good, scenarios, judges, k=k)
    finally:
        for j in judges:
            j.close()
    for sk in card.skipped:
        click.echo(f"{responses_path.name}: {sk['scenario_id']}/{sk['model_id']}: {sk['reason']}", err=True)
    write_scorecard(card, output)
    _write_report(card, output, good, scenarios)
    if not quiet:
        # With --json, stdout carries only the event stream.
        print_summary(card, summary_console(stderr=reporter.mode == "json"))
    click.echo(f"wrote {output}", err=True)
    note = incomplete_note(card)
    if note is not None:
        click.echo(f"{responses_path.name}: {note} (cache: {cache})", err=True)
        sys.exit(INCOMPLETE_EXIT)
    if problems or card.skipped:
        sys.exit(1)


RECORD_ONLY_MEASUREMENTS = ("network", "turn_taking")
"""Measurements that only a session record can give: a responses file's own are dropped before scoring."""


def untrusted_measurements(resp: Any) -> Any:
    """The line without what only a session record can say: the network figures it claims (what the network
    destroyed excuses turns only when derived from a record: run, replay), the turn-taking panel (measured, not
    claimed) and the challenges it says the persona raised (a file cannot spare itself a defended figure by
    saying none was raised; docs/scoring.md "Pushback")."""
    m = resp.measurements
    if isinstance(m, dict) and any(k in m for k in RECORD_ONLY_MEASUREMENTS):
        resp = resp.model_copy(update={"measurements": {k: v for k, v in m.items()
                                                        if k not in RECORD_ONLY_MEASUREMENTS}})
    if any(t.persona_challenges is not None for t in resp.turns):
        resp = resp.model_copy(update={"turns": [t.model_copy(update={"persona_challenges": None})
                                                 for t in resp.turns]})
    return resp


def _write_report(card: Any, output: Path, responses: list[Any], scenarios: dict[str, Any]) -> None:
    """report.html beside the scorecard (``<stem>.html`` when the scorecard has another name)."""
    from modylbench.record import SessionFolder
    from modylbench.scoring.report import write_report

    report, scorecard = SessionFolder.REPORT_FILE, SessionFolder.SCORECARD_FILE
    target = output.with_name(report if output.name == scorecard else output.stem + ".html")
    try:
        write_report([card], target, responses=responses, scenarios=scenarios)
    except Exception:  # noqa: BLE001 - the scorecard is the product; a report failure is logged
        logger.exception("could not write the report")
        return
    click.echo(f"wrote {target}", err=True)
