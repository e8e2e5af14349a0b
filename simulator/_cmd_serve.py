"""The ``serve`` command: start a meeting and wait for an outside agent to join."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import click

from modylbench.channels import TaskOwner
from modylbench.personas import DEFAULT_ANSWERER, room_hello_of
from modylbench.record import SessionFolder
from modylbench.simulator._cli_common import (
    asr_option,
    check_asr,
    check_judges,
    check_persona_llm,
    deprecated_spelling,
    judge_option,
    network_option,
    network_seed,
    persona_llm_option,
    score_and_print,
    write_report,
)
from modylbench.simulator._cmd_scenarios import load_all, pick, scenarios_option, seed_option
from modylbench.simulator._errors import UserError


@click.command("serve", short_help="Start a meeting and wait for an outside agent to join.")
@click.argument("scenario_id", metavar="SCENARIO")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="Port (0: any free).")
@click.option("--session-folder", "session_folder", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="The session folder (default runs/<scenario>__external-<time>).")
@click.option("--out", "out", type=click.Path(path_type=Path, file_okay=False), default=None, hidden=True,
              callback=deprecated_spelling("serve --out DIR (the session folder)", "--session-folder DIR; in the "
                                           "next release --out will name the folder that receives it, as in run"))
@click.option("--turns", type=click.IntRange(min=1), default=None, help="Play only the first N turns.")
@click.option("--wait", "wait_seconds", type=click.FloatRange(min=1), default=600, show_default=True,
              help="Seconds to wait for the agent to join.")
@click.option("--no-captions", is_flag=True, help="Do not send captions: the agent must listen to the audio.")
@click.option("--speech", default="espeak", show_default=True, help="Persona speech engine.")
@click.option("--web", is_flag=True, help="Also serve a page where a person joins as the agent, and an observer page.")
@click.option("--bot-api", "bot_api", is_flag=True,
              help="Also serve the meeting as a meeting-bot API in Attendee's shape (docs/integrations.md).")
@click.option("--bot-api-port", type=click.IntRange(0, 65535), default=8766, show_default=True,
              help="With --bot-api: its port (0: any free).")
@click.option("--linger", type=click.FloatRange(min=0), default=60, show_default=True,
              help="With --web: seconds the page stays served after the scorecard, for the report link.")
@judge_option
@asr_option
@persona_llm_option
@network_option()
@scenarios_option
@seed_option
def serve(scenario_id: str, host: str, port: int, session_folder: Path | None, out: Path | None,
          turns: int | None, wait_seconds: float,
          no_captions: bool, speech: str, web: bool, linger: float, judges: tuple[str, ...],
          scenario_paths: tuple[Path, ...], seed: int, asr: str | None, network: Any = None,
          bot_api: bool = False, bot_api_port: int = 8766, persona_llm: str | None = None) -> None:
    """Start a meeting and wait for an outside agent to join over WebRTC.

    Prints the join URL and token and a ready-to-paste command that joins with the example agent (stderr) and,
    as one JSON line on stdout, the same for a program (fields: docs/protocol.md, "Joining a meeting that
    serve started"). The meeting starts when the agent joins; afterwards the session is scored like any run. With --web the
    same port serves a page (URL printed, token in its fragment) where a person joins from a browser,
    an observer page, and the shared document over y-websocket (docs/web.md). --seed N plays fresh
    instance N of a built-in scenario. --bot-api also serves the meeting as a meeting-bot API (Attendee's
    REST shape, ``Authorization: Token <token>``): a bot created there joins as the agent.
    """
    scenarios = load_all(scenario_paths, seed, [scenario_id])
    scenario = pick(scenarios, scenario_id)
    panel = list(judges) or ["offline"]
    check_judges(panel)
    check_asr(asr)
    check_persona_llm(persona_llm)
    folder = session_folder or out or Path("runs") / f"{scenario_id}__external-{time.strftime('%Y%m%d-%H%M%S')}"
    if SessionFolder(folder).has_record():
        raise UserError(f"{folder} already holds a session; choose another --session-folder")
    from modylbench.record import SessionBusyError, SessionLock

    # One writer per session folder for the whole meeting: record, manifest, recording and scorecard.
    try:
        lock = SessionLock(folder).acquire()
    except SessionBusyError as exc:
        raise UserError(f"{exc}; choose another --session-folder") from None
    try:
        asyncio.run(_serve(scenario, scenarios, host, port, folder, turns, wait_seconds, not no_captions, speech,
                           panel, web, linger, seed, asr, network, bot_api_port if bot_api else None, persona_llm))
    finally:
        lock.release()


EXAMPLE_AGENT = "modylbench.examples.echo_agent"
"""The SDK's example agent (``examples/echo_agent.py``), installed with the package: the command ``serve`` prints
works from an install as from a checkout."""


def example_command(url: str, token: str) -> str:
    """A ready-to-paste shell command that joins this meeting with the example agent."""
    return " ".join(shlex.quote(x) for x in (sys.executable, "-m", EXAMPLE_AGENT, url, token))


def _score(folder: Path, scenarios: dict[str, Any], panel: list[str]) -> Any:
    card = score_and_print(folder, scenarios, panel)
    write_report(card, folder, scenarios)
    return card


def _summary(card: Any) -> dict[str, Any]:
    """What the page shows when the meeting is over: the run's scores, rounded for display."""
    def r(x: float | None) -> float | None:
        return None if x is None else round(x, 2)

    runs = [{"scenario_id": s.scenario_id, "score": r(s.modylbench_score), "tier": s.tier, "journey": r(s.journey),
             "destination": r(s.destination), "passed": s.passed, "quality_tier": s.quality_tier,
             "termination_reason": s.termination_reason, "flags": list(s.flags),
             "turns": [r(t.score) for t in s.turns],
             "products": [{"product_id": p.product_id, "output_type": p.output_type, "score": r(p.score),
                           "flags": list(p.flags)} for p in s.products]} for s in card.scenarios]  # fmt: skip
    return {"judges": list(card.judges), "runs": runs}


def _page_info(scenario: Any) -> dict[str, Any]:
    """What the page tells the person about the meeting: its goal and the deliverables (the agent's briefing)."""
    from modylbench.scenarios import deliverables, persona_text

    return {"title": scenario.title, "scenario_id": scenario.scenario_id, "meeting_goal": scenario.meeting_goal,
            "persona": persona_text(scenario.human_persona),
            "products": [{"product_id": d["product_id"], "output_type": d["output_type"], "title": d["title"],
                          "description": d["description"], "template": d["template"]}
                         for d in deliverables(scenario)]}  # fmt: skip


async def _serve(scenario: Any, scenarios: dict[str, Any], host: str, port: int, folder: Path, turns: int | None,
                 wait_seconds: float, captions: bool, speech: str, panel: list[str], web: bool,
                 linger: float, seed: int = 0, asr: str | None = None, network: Any = None,
                 bot_api_port: int | None = None, persona_llm: str | None = None) -> None:
    from modylbench.channels import LinkOptions, SignalingServer, WallClock, WebServer
    from modylbench.simulator._runner import speech_engines
    from modylbench.simulator._session import MeetingOptions, run_meeting

    persona_speech, _ = speech_engines(scenario, speech)
    clock = WallClock()
    options = LinkOptions(captions=captions, connect_timeout=wait_seconds, network=network,
                          network_seed=network_seed(seed))
    try:
        server = await (WebServer(host, port) if web else SignalingServer(host, port)).start()
    except OSError as exc:
        raise UserError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    try:
        meeting = server.create_meeting(clock, options)
        # Before the URL is out: an agent joining at once gets each person's own track (docs/protocol.md §4a).
        meeting.room = room_hello_of(scenario)
        click.echo(f"Meeting ready: {scenario.title}", err=True)
        click.echo(f"  join URL: {meeting.url}", err=True)
        click.echo(f"  token:    {meeting.token}", err=True)
        ready: dict[str, Any] = {"event": "meeting_ready", "url": meeting.url, "token": meeting.token,
                                 "scenario_id": scenario.scenario_id, "seed": seed, "session_folder": str(folder)}
        mopts = MeetingOptions(turns=turns, judges=panel, seed=seed, asr=asr, extra_manifest={"agent_kind": "external"},
                               answerer=persona_llm or DEFAULT_ANSWERER)
        page = None
        if isinstance(server, WebServer):
            page = server.add_web(meeting, folder, _page_info(scenario))
            mopts.on_doc, mopts.on_event = page.hub.attach, page.feed.on_event
            forward: asyncio.Queue[bytes] = asyncio.Queue(4096)
            page.hub.to_agent = lambda msg: forward.put_nowait(msg) if not forward.full() else None
            forwarder = TaskOwner("serve", quiet=True).start(_forward_doc(meeting, forward), "doc-forward")
            click.echo(f"  page:     {page.page_url}", err=True)
            click.echo(f"  observer: {page.observer_url}", err=True)
            click.echo(f"  document: ws://{host}:{server.port}/doc/{meeting.meeting_id}?token=<token> (y-websocket)",
                       err=True)
            ready.update(page_url=page.page_url, observer_url=page.observer_url,
                         observer_token=page.observer_token)
        api = None
        if bot_api_port is not None:
            from modylbench.simulator._botapi import BotApiThread, persona_name

            try:
                api = await BotApiThread(meeting.url, meeting.token, persona_name(scenario), host, bot_api_port).start()
            except OSError as exc:
                raise UserError(f"cannot listen on {host}:{bot_api_port} for the bot API: {exc.strerror or exc}") from None
            click.echo(f"  bot API:  {api.base_url}/api/v1/bots (Authorization: Token <token>; meeting_url: the join URL)",
                       err=True)
            ready.update(bot_api_url=api.base_url, webhook_secret=api.webhook_secret)
        click.echo(f"  waiting up to {wait_seconds:.0f}s for the agent (docs/protocol.md)", err=True)
        click.echo(f"  try it:   {example_command(meeting.url, meeting.token)}", err=True)
        click.echo(json.dumps(ready), nl=True)
        sys.stdout.flush()
        try:
            result = await run_meeting(meeting, scenario, "external", folder, clock, persona_speech, mopts)
        finally:
            if page is not None:
                forwarder.cancel()
                await asyncio.gather(forwarder, return_exceptions=True)
            if api is not None:
                await api.bot_done()  # the bot's last webhooks (bot.state_change to ended) are out
                await api.close()
        click.echo(f"meeting ended: {result.termination_reason} after {result.turns_played} turns → {folder}",
                   err=True)
        if page is None:
            _score(folder, scenarios, panel)
            return
        page.hub.detach()
        page.feed.publish({"type": "meeting_over", "termination_reason": result.termination_reason,
                           "turns_played": result.turns_played})
        # Scoring runs beside the event loop so the page stays served and learns the result.
        card = await asyncio.to_thread(_score, folder, scenarios, panel)
        files = SessionFolder(folder)
        if files.report.is_file():
            page.results[files.REPORT_FILE] = (files.report.read_bytes(), "text/html; charset=utf-8")
        page.results[files.SCORECARD_FILE] = (files.scorecard.read_bytes(), "application/json")
        page.feed.publish({"type": "scorecard", "summary": _summary(card), "report": files.REPORT_FILE in page.results,
                           "session_folder": str(folder)})
        if linger > 0:
            click.echo(f"page stays up {linger:.0f}s for the scorecard and report (Ctrl-C to stop)", err=True)
            await clock.sleep(linger)
    finally:
        await server.close()


async def _forward_doc(meeting: Any, queue: asyncio.Queue[bytes]) -> None:
    """Send websocket editors' edits to the WebRTC agent, in order."""
    while True:
        msg = await queue.get()
        await meeting.send_doc(msg)
