"""Edits that reach the document after the meeting (the --linger period, y-websocket editors) are refused,
not applied or recorded: the record is sealed when the meeting ends (docs/web.md)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from pycrdt import Doc, Map

from modylbench.agents import join_inprocess, make_agent
from modylbench.channels import InProcessMeeting, LinkOptions, VirtualClock, WebServer
from modylbench.personas import make_engine
from modylbench.record import read_record
from modylbench.scenarios import load_path
from modylbench.simulator import MeetingOptions
from modylbench.simulator._session import run_meeting
from tests.web._yclient import YClient

ROOT = Path(__file__).resolve().parents[2]
MINI = load_path(ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl")[0]


async def test_edits_after_the_meeting_are_refused_once_the_record_is_sealed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "session"
    async with WebServer() as server:
        wm = server.add_web(server.create_meeting(), folder)
        clock = VirtualClock()
        link = InProcessMeeting(clock, LinkOptions(connect_timeout=60))
        speech = make_engine("espeak")
        agent = make_agent("oracle", MINI)
        opts = MeetingOptions(on_doc=wm.hub.attach)

        async def join() -> None:
            await agent.run(await join_inprocess(link, synthesize=speech.synthesize, receive_audio=False))

        result, _ = await asyncio.gather(run_meeting(link, MINI, "oracle", folder, clock, speech, opts), join())
        assert result.termination_reason == "completed"
        lines_at_end = (folder / "record.jsonl").read_bytes()
        assert wm.hub.doc is not None
        final = wm.hub.doc.products()

        base = f"ws://127.0.0.1:{server.port}/doc/{wm.meeting.meeting_id}?token="
        editor = await YClient.open(base + wm.meeting.token)
        observer = await YClient.open(base + wm.observer_token)
        try:
            await asyncio.wait_for(editor.synced.wait(), 10)
            await asyncio.wait_for(observer.synced.wait(), 10)
            assert editor.products() == final == observer.products()  # still readable during the linger
            pid = next(iter(final))
            updates: list[bytes] = []
            sub = editor.doc.observe(lambda ev: updates.append(ev.update))
            editor.doc.get("products", type=Map)[pid]["title"] = "edited after the meeting"
            editor.doc.unobserve(sub)
            await editor.update(updates[0])
            observer.doc.get("products", type=Map)[pid]["title"] = "observer after the meeting"
            await observer.update(observer.doc.get_update(Doc().get_state()))
            for client in (editor, observer):
                await asyncio.wait_for(client.got_denied.wait(), 10)
                assert "record is sealed" in client.denied[0]
            assert editor.close_code is None  # refused, not cut off with an internal error
        finally:
            await editor.close()
            await observer.close()
        assert wm.hub.doc.products() == final
        assert (folder / "record.jsonl").read_bytes() == lines_at_end
        events = read_record(folder).events
        assert events[-1].event == "session_end"
        # Refused without trying to write to the closed record.
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert wm.hub.recorded_refusals == 0 and wm.hub.refusals == 2

