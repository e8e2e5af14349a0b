"""CLI pieces the meeting commands share (run, replay, serve): the judge option, scoring and the report."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from modylbench.record import SessionFolder
from modylbench.simulator._errors import UserError

logger = logging.getLogger(__name__)

judge_option = click.option(
    "--judge", "judges", multiple=True, metavar="SPEC",
    help="Judge for the panel: offline (default), openai/MODEL or openai/MODEL@BASE_URL. Repeatable.",
)

workers_option = click.option(
    "--workers", "workers", type=click.IntRange(min=1), default=None, metavar="N",
    help="Worker processes the sessions at once spread over, one event loop each (1: all in this process). "
         "Default: one per running webrtc session (its media is paced on its loop), else one per core.",
)

asr_option = click.option(
    "--asr", "asr", default=None, metavar="openai/MODEL[@BASE_URL]",
    help="Recognise the agent's speech through an OpenAI-compatible audio/transcriptions endpoint; what it "
         "said is then what was heard (docs/scoring.md). Without it a declared transcript is credited up to "
         "4.5 words per voiced second.",
)

persona_llm_option = click.option(
    "--persona-llm", "persona_llm", default=None, metavar="openai/MODEL[@BASE_URL]",
    help="Let a model word the persona's answers to the agent's questions, given only what the persona knows; "
         "each answer is checked (every figure the persona's, none an expected output) and the deterministic "
         "answer is said instead when it fails (recorded as replaced). Default: the deterministic answerer.",
)


def check_persona_llm(spec: str | None) -> None:
    """A bad --persona-llm is one clear line (exit 2) before anything runs."""
    from modylbench.personas import PersonaLLMError
    from modylbench.personas import check_persona_llm as check

    try:
        check(spec)
    except PersonaLLMError as exc:
        raise UserError(str(exc)) from None


def _read_network(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    if value is None:
        return None
    from modylbench.channels import NetworkProfileError, parse_profile

    try:
        return parse_profile(value)
    except NetworkProfileError as exc:
        raise click.BadParameter(str(exc)) from None


_NETWORK_HELP = (
    "Impair the WebRTC session's packets: clean, home-wifi, mobile, congested, lossy-burst, or "
    "loss=…,burst=…,delay=…,jitter=…,rate=…,reorder=…,duplicate=… (down:…;up:… per direction; "
    "docs/network.md). Deterministic from --seed."
)


def network_option(names_folder: bool = False) -> Callable[[Any], Any]:
    """``--network PROFILE``; ``names_folder``: the command names session folders by their key (run), and its
    help says where the profile goes in the name."""
    extra = (" A profile other than clean is part of the session's folder name, after the transport "
             "(…__webrtc__net-mobile__all__seed0__t0).") if names_folder else ""
    return click.option("--network", "network", default=None, metavar="PROFILE", callback=_read_network,
                        help=_NETWORK_HELP + extra)


def deprecated_spelling(old: str, new: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """``modylbench.scoring.cli.deprecated_spelling`` (the note for an old spelling kept for one release), loaded
    only when an option is parsed: a command's module stays light to import."""

    def note(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        from modylbench.scoring.cli import deprecated_spelling as home

        return home(old, new)(ctx, param, value)

    return note


def network_seed(seed: int, trial: int = 0) -> int:
    """The seed of a session's network fates: its scenario seed, and its trial (trials see different fates)."""
    return seed + 1_000_003 * trial


STOPPED_BY_CTRL_C = "stopped by Ctrl-C: its folder is kept, incomplete (the next run moves it aside and plays it again)"
"""What a session that Ctrl-C stopped is reported as (``session_failed``)."""


def stop_on_ctrl_c(heard: Callable[[], None]) -> Callable[[], None]:
    """Call inside the running loop: the first Ctrl-C calls ``heard`` (say so at once) and cancels the current task,
    so that running sessions stop and are reported; a second Ctrl-C stops at once (KeyboardInterrupt). Returns
    the function that takes the handler away again."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()

    def on_sigint() -> None:
        loop.remove_signal_handler(signal.SIGINT)  # from now on Ctrl-C is Python's KeyboardInterrupt
        heard()
        if task is not None:
            task.cancel()

    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or a loop without signals
        return lambda: None

    def release() -> None:
        loop.remove_signal_handler(signal.SIGINT)  # False, harmlessly, once Ctrl-C took it away

    return release


def check_asr(spec: str | None) -> None:
    """Build the recogniser once before anything runs, so a bad --asr is one clear line (exit 2)."""
    if spec is not None:
        from modylbench.simulator._asr import make_recogniser

        make_recogniser(spec)


def check_judges(panel: list[str]) -> None:
    """Build the panel once before anything runs, so a bad judge spec is one clear line, not a late failure."""
    from modylbench.scoring import JudgeSpecError, make_judges

    try:
        make_judges(panel)
    except (JudgeSpecError, ValueError) as exc:
        raise UserError(str(exc)) from None


def write_report(card: Any, folder: Path, scenarios: dict[str, Any] | None = None,
                 responses: list[Any] | None = None, sessions: list[Any] | None = None) -> None:
    """``report.html`` beside a scorecard; a failure is logged, never fatal (the scorecard is the product).
    ``scenarios`` are the ones the run played (a ``--scenarios`` file's are not found by id alone); ``responses``
    those of a combined scorecard's sessions (``combined_responses``), for what only they hold (latency, words);
    ``sessions``: the session as already read (``scoring.report.load_session``), else the folder's record is read."""
    try:
        from modylbench.scoring import write_report as write_html
    except ImportError:
        return
    files = SessionFolder(folder)
    try:
        if sessions is None:
            sessions = [folder] if files.has_record() else []
        write_html([card], files.report, sessions=sessions, scenarios=scenarios,
                   responses=responses or ())
    except Exception:  # noqa: BLE001 - the scorecard is the product; a report failure is logged
        logger.exception("could not write the report")


def score_and_print(folder: Path, scenarios: dict[str, Any], panel: list[str], output: Path | None = None) -> Any:
    """Score a session folder's record, print the summary and say where the scorecard went."""
    from modylbench.scoring import print_summary, summary_console
    from modylbench.simulator._runner import score_session

    card = score_session(folder, scenarios, panel, output=output)
    print_summary(card, summary_console())
    click.echo(f"scorecard: {output or SessionFolder(folder).scorecard}")
    return card


def owning(folder: Path) -> Any:
    """The session folder's lock, for writing into it; a folder another live process is writing is refused."""
    from modylbench.record import SessionBusyError, SessionLock

    try:
        return SessionLock(folder).acquire()
    except SessionBusyError as exc:
        raise UserError(f"{exc}; try again when that run has ended") from None
    except PermissionError:  # a read-only copy of a session: nobody can be writing it
        return contextlib.nullcontext()
