"""``modylbench report``: one self-contained HTML file from scorecards or recorded sessions."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import click

from modylbench.record import PROGRESS_MODES, ProgressReporter
from modylbench.scoring._cli import deprecated_spelling

logger = logging.getLogger(__name__)


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


@click.command("report", short_help="Write a self-contained HTML report of scorecards or sessions.")
@click.argument("inputs", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="SCORECARD_OR_SESSION...")
@click.option("--output", type=click.Path(path_type=Path, dir_okay=False), default=Path("report.html"),
              show_default=True, help="Where to write the HTML file.")
@click.option("-o", "output_o", type=click.Path(path_type=Path, dir_okay=False), default=None, hidden=True,
              callback=deprecated_spelling("report -o FILE", "--output FILE"))
@click.option("--responses", "responses_paths", multiple=True, type=click.Path(path_type=Path, dir_okay=False),
              metavar="PATH", help="responses.jsonl to show the agent's words and products (repeatable).")
@click.option("--scenarios", "scenario_paths", multiple=True, type=click.Path(path_type=Path), metavar="PATH",
              help="A .jsonl/.json scenario file or folder; adds or replaces scenarios by id. Repeatable.")
@click.option("--no-audio", is_flag=True, help="Do not embed the session recording (smaller file).")
@click.option("--progress", type=click.Choice(PROGRESS_MODES), default="auto", show_default=True,
              help="Sessions read and runs drawn: auto (live on a terminal, lines when piped), live, lines, json, off.")
@click.option("--json", "progress_json", is_flag=True, help="Progress as JSON lines on stdout (docs/progress.md).")
def report(inputs: tuple[Path, ...], output: Path, output_o: Path | None, responses_paths: tuple[Path, ...],
           scenario_paths: tuple[Path, ...], no_audio: bool, progress: str, progress_json: bool) -> None:
    """Write a self-contained HTML report; several inputs give a comparison view.

    Each input is a scorecard.json, a session folder (record.jsonl + scorecard.json: the report
    embeds its recording, slides and files) or the folder a run wrote (OUT/scorecard.json, linking
    each session's own report). A responses.jsonl beside a scorecard is picked up.
    """
    output = output_o or output
    from modylbench.record import SessionFolder
    from modylbench.scenarios import ScenarioLoadError, resolve_scenarios
    from modylbench.scoring._responses_io import ResponsesFileError, read_responses, read_scorecard
    from modylbench.scoring.report import write_report

    try:
        scenarios = resolve_scenarios(scenario_paths)
    except ScenarioLoadError as exc:
        _fail(exc.problems[0] if exc.problems else "cannot load scenarios")
        return
    cards, sessions, names, resp_files = [], [], [], list(responses_paths)
    for item in inputs:
        if item.is_dir():
            card_path = SessionFolder(item).scorecard
            if SessionFolder(item).record.is_file():
                sessions.append(item)
        else:
            card_path = item
        if not card_path.is_file():
            hint = " (score the session first: modylbench replay FOLDER)" if item.is_dir() else ""
            _fail(f"{card_path}: no scorecard here{hint}")
            return
        try:
            cards.append(read_scorecard(card_path))
        except (OSError, ValueError) as exc:
            _fail(f"{card_path}: not a scorecard ({str(exc).splitlines()[0]})")
            return
        card_stem = Path(SessionFolder.SCORECARD_FILE).stem
        names.append(item.name if item.is_dir() else item.stem if item.stem != card_stem else item.parent.name)
        beside = SessionFolder(card_path.parent).responses
        if beside.is_file() and not (item.is_dir() and item in sessions) and beside not in resp_files:
            resp_files.append(beside)
    responses = []
    for rp in resp_files:
        try:
            good, problems = read_responses(rp)
        except ResponsesFileError as exc:
            _fail(str(exc))
            return
        for p in problems:
            click.echo(f"warning: {p}", err=True)
        responses.extend(good)
    reporter = ProgressReporter("json" if progress_json else progress, command="report")

    def tell(done: int, total: int, what: str) -> None:
        reporter.emit("report_progress", done=done, total=total, what=what)

    try:
        with reporter:
            path = write_report(cards, output, sessions, responses=responses, scenarios=scenarios, names=names,
                                audio=not no_audio, on_progress=tell)
    except Exception as exc:  # noqa: BLE001 - one clear line for the user; the traceback goes to the log
        logger.debug("report failed", exc_info=True)
        _fail(f"could not write the report: {exc}")
        return
    click.echo(f"wrote {path}", err=True)
