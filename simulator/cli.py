"""The ``modylbench`` command: a click group whose subcommands are imported only when used."""

from __future__ import annotations

import importlib
import logging
import sys
from typing import Any

import click

from modylbench.simulator._errors import INTERRUPTED_EXIT, UserError

# name -> ("module:attribute", one-line help). Modules load lazily so --help stays fast; each help line is a copy
# of the command's own ``short_help`` (tests/test_cli_basics.py checks that they agree).
COMMANDS: dict[str, tuple[str, str]] = {
    "list-scenarios": ("modylbench.simulator._cmd_scenarios:list_scenarios", "List the available scenarios."),
    "export-dataset": ("modylbench.simulator._cmd_scenarios:export_dataset", "Write the scenarios in the public dataset format."),
    "play-script": ("modylbench.simulator._cmd_scenarios:play_script_command", "Print a scenario as a play script (Markdown, turn by turn) for review."),
    "schema": ("modylbench.simulator._cmd_scenarios:schema", "Print the JSON Schema of scenario, record, manifest, responses or scorecard."),
    "view": ("modylbench.simulator._view:view", "Write (and --serve) an index with leaderboards over every session in a folder."),
}


def register(name: str, target: str, help_text: str) -> None:
    """Add a lazily-imported subcommand (used by other parts of the package)."""
    COMMANDS[name] = (target, help_text)


_OPTIONAL = {
    "evaluate": ("modylbench.scoring.cli:evaluate", "Score pre-recorded responses (responses.jsonl)."),
    "run": ("modylbench.simulator._cmd_run:run", "Run live meetings with an agent (built-in, cmd:, py:), record and score them."),
    "sweep": ("modylbench.simulator._sweep:sweep", "Run a sweep file's cells (here or on Ray), resumable, with a leaderboard."),
    "serve": ("modylbench.simulator._cmd_serve:serve", "Start a meeting and wait for an outside agent to join."),
    "replay": ("modylbench.simulator._cmd_run:replay", "Verify a recorded session, re-derive its responses and re-score it."),
    "report": ("modylbench.scoring.cli:report", "Write a self-contained HTML report of scorecards or sessions."),
}


def _module_exists(target: str) -> bool:
    import importlib.util

    # What an install may lack is the sub-package; finding a module inside it would import the package
    # (all of scoring, say), and listing the commands must stay light.
    package = target.split(":", 1)[0].rsplit(".", 1)[0]
    try:
        return importlib.util.find_spec(package) is not None
    except ModuleNotFoundError:
        return False


class LazyGroup(click.Group):
    """Lists every command with its help line; imports a command's module only when it runs."""

    def _table(self) -> dict[str, tuple[str, str]]:
        table = dict(COMMANDS)
        for name, entry in _OPTIONAL.items():
            if name not in table and _module_exists(entry[0]):
                table[name] = entry
        return table

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self._table())

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Help lines come from the table so that listing commands imports none of them.
        rows = [(name, help_text) for name, (_, help_text) in sorted(self._table().items())]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = self._table().get(cmd_name)
        if entry is None:
            return None
        mod_name, attr = entry[0].split(":", 1)
        cmd: click.Command = getattr(importlib.import_module(mod_name), attr)
        return cmd


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="modylbench", prog_name="modylbench")
@click.option("-v", "--verbose", count=True, help="More log output (-v info, -vv debug) on stderr.")
def cli(verbose: int) -> None:
    """ModylBench: evaluate AI agents as participants in live professional meetings.

    A scripted persona runs a real meeting (speech over WebRTC, chat, screen share, files and a
    shared document); the agent's work is recorded edit by edit and scored on 11 dimensions.
    """
    if verbose:
        logging.basicConfig(level=logging.DEBUG if verbose > 1 else logging.INFO, stream=sys.stderr,
                            format="%(asctime)s %(name)s %(levelname)s %(message)s")


def main(argv: list[str] | None = None) -> Any:
    """Entry point: user-fixable problems print one line to stderr and exit with their code."""
    from modylbench.scenarios import ScenarioLoadError

    try:
        return cli.main(args=argv, prog_name="modylbench", standalone_mode=False)
    except ScenarioLoadError as exc:
        for line in exc.problems:
            click.echo(f"error: {line}", err=True)
        sys.exit(2)
    except UserError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(INTERRUPTED_EXIT)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(INTERRUPTED_EXIT)
    except BrokenPipeError:
        sys.exit(0)


if __name__ == "__main__":
    main()


def exit_code(argv: list[str]) -> int:
    """Run the CLI on ``argv`` in this process and return its exit code instead of exiting (tests, embedding)."""
    try:
        main(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return 0
