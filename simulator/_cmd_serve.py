"""The ``serve`` command: start a meeting and wait for an outside agent to join."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import click

from modylbench.simulator._cmd_run import _check_judges, _score_and_print, _write_report, judge_option
from modylbench.simulator._cmd_scenarios import load_all, pick, scenarios_option
from modylbench.simulator._errors import UserError


@click.command("serve")
@click.argument("scenario_id", metavar="SCENARIO")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="Port (0: any free).")
@click.option("--out", "out", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Session folder (default runs/<scenario>__external-<time>).")
@click.option("--turns", type=click.IntRange(min=1), default=None, help="Play only the first N turns.")
@click.option("--wait", "wait_seconds", type=click.FloatRange(min=1), default=600, show_default=True,
              help="Seconds to wait for the agent to join.")
@click.option("--no-captions", is_flag=True, help="Do not send captions: the agent must listen to the audio.")
@click.option("--speech", default="espeak", show_default=True, help="Persona speech engine.")
@judge_option
@scenarios_option
def serve(scenario_id: str, host: str, port: int, out: Path | None, turns: int | None, wait_seconds: float,
          no_captions: bool, speech: str, judges: tuple[str, ...], scenario_paths: tuple[Path, ...]) -> None:
    """Start a meeting and wait for an outside agent to join over WebRTC.

    Prints the join URL and token for a person and, as one JSON line on stdout, for a program. The
    meeting starts when the agent joins; afterwards the session is scored like any run.
    """
    scenarios = load_all(scenario_paths)
    scenario = pick(scenarios, scenario_id)
    panel = list(judges) or ["offline"]
    _check_judges(panel)
    folder = out or Path("runs") / f"{scenario_id}__external-{time.strftime('%Y%m%d-%H%M%S')}"
    if (folder / "record.jsonl").exists():
        raise UserError(f"{folder} already holds a session; choose another --out")
    asyncio.run(_serve(scenario, host, port, folder, turns, wait_seconds, not no_captions, speech, panel))
    card = _score_and_print(folder, scenarios, panel)
    _write_report(card, folder)


async def _serve(scenario: Any, host: str, port: int, folder: Path, turns: int | None, wait_seconds: float,
                 captions: bool, speech: str, panel: list[str]) -> None:
    from modylbench.channels import LinkOptions, SignalingServer, WallClock
    from modylbench.simulator._runner import RunSpec, speech_engines
    from modylbench.simulator._session import MeetingOptions, run_meeting

    spec = RunSpec(scenario, "external", folder, "webrtc", turns, None, tuple(panel), captions, speech)
    persona_speech, _ = speech_engines(spec)
    clock = WallClock()
    options = LinkOptions(captions=captions, connect_timeout=wait_seconds)
    try:
        server = await SignalingServer(host, port).start()
    except OSError as exc:
        raise UserError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    try:
        meeting = server.create_meeting(clock, options)
        click.echo(f"Meeting ready: {scenario.title}", err=True)
        click.echo(f"  join URL: {meeting.url}", err=True)
        click.echo(f"  token:    {meeting.token}", err=True)
        click.echo(f"  waiting up to {wait_seconds:.0f}s for the agent (docs/protocol.md)", err=True)
        click.echo(json.dumps({"event": "meeting_ready", "url": meeting.url, "token": meeting.token,
                               "scenario_id": scenario.scenario_id, "session_folder": str(folder)}), nl=True)
        sys.stdout.flush()
        result = await run_meeting(meeting, scenario, "external", folder, clock, persona_speech,
                                   MeetingOptions(turns=turns, judges=panel,
                                                  extra_manifest={"agent_kind": "external"}))
        click.echo(f"meeting ended: {result.termination_reason} after {result.turns_played} turns → {folder}",
                   err=True)
    finally:
        await server.close()
