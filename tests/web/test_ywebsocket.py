"""The shared document over y-websocket: a JavaScript Yjs client under Node edits as the agent, an
observer is refused, and edits flow between websocket clients and the WebRTC agent's doc channel."""

from __future__ import annotations

import asyncio
import base64
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from pycrdt import Doc, Map
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from modylbench.channels import SYNC_UPDATE, SharedDocument, WebServer, sync_message
from modylbench.record import DocUpdate
from modylbench.record._derive import derive_trajectory

HERE = Path(__file__).resolve().parent
NODE = shutil.which("node")


class Recorder:
    """Records applied updates as the session recorder does, with the current turn."""

    def __init__(self) -> None:
        self.turn = 0
        self.events: list[DocUpdate] = []

    def __call__(self, origin: str, update: bytes) -> None:
        self.events.append(DocUpdate(wall_time=0.0, meeting_time=len(self.events) * 0.5, turn_index=self.turn,
                                     origin=origin, update=base64.b64encode(update).decode(),  # type: ignore[arg-type]
                                     size=len(update)))


class NodeClient:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    async def start(cls, url: str, role: str) -> NodeClient:
        proc = await asyncio.create_subprocess_exec(
            str(NODE), "--experimental-websocket", "--no-warnings", str(HERE / "ywebsocket_client.mjs"), url, role,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)  # fmt: skip
        return cls(proc)

    async def until(self, key: str) -> Any:
        """The next milestone line holding ``key`` (other lines are skipped)."""
        assert self.proc.stdout is not None
        while True:
            line = await asyncio.wait_for(self.proc.stdout.readline(), 20)
            if not line:
                err = await self.proc.stderr.read() if self.proc.stderr else b""
                raise AssertionError(f"node client ended before {key!r}: {err.decode()[-2000:]}")
            msg = json.loads(line)
            if key in msg:
                return msg[key]

    async def close(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
        await self.proc.wait()


@pytest.mark.skipif(NODE is None, reason="node is not installed")
async def test_ywebsocket_editor_observer_and_webrtc_agent(tmp_path: Path) -> None:
    rec = Recorder()
    shared = SharedDocument(on_update=rec)
    refused: list[tuple[str, int, str]] = []
    shared.on_refused = lambda origin, size, reason: refused.append((origin, size, reason))
    shared.create_product("persona", "model", "spreadsheet", "LBO", {"income_statement": {}})
    async with WebServer() as server:
        meeting = server.create_meeting()
        wm = server.add_web(meeting, tmp_path)
        to_agent: list[bytes] = []
        wm.hub.to_agent = to_agent.append
        wm.hub.attach(shared)
        base = f"ws://127.0.0.1:{server.port}/doc/{meeting.meeting_id}"
        agent_edit = asyncio.Event()
        shared.listeners.append(lambda origin, _u: agent_edit.set() if origin == "agent" else None)

        for bad in ("", "?token=wrong"):
            with pytest.raises(InvalidStatus) as info:
                async with connect(base + bad):
                    pass
            assert info.value.response.status_code == 401

        editor = await NodeClient.start(f"{base}?token={meeting.token}", "editor")
        observer: NodeClient | None = None
        try:
            rec.turn = 3
            edited = await editor.until("edited")
            assert edited["model"]["content"]["income_statement"]["year1"] == {"revenue": 57.5}
            await asyncio.wait_for(agent_edit.wait(), 20)
            assert shared.products()["model"]["content"]["income_statement"]["year1"] == {"revenue": 57.5}
            # The websocket editor's edit is passed on for the WebRTC agent (the meeting does not echo "agent").
            assert len(to_agent) == 1 and to_agent[0][:2] == bytes([0, SYNC_UPDATE])

            observer = await NodeClient.start(f"{base}?token={wm.observer_token}", "observer")
            saw = await observer.until("saw")
            assert saw["model"]["content"]["income_statement"]["year1"] == {"revenue": 57.5}
            assert "observers may not edit" in await observer.until("denied")
            assert ("observer", "observers may not edit the document") in wm.hub.rejected
            # The refusal reaches the document's recorder hook (the session writes doc_update_rejected).
            assert any(o == "observer" and r == "observers may not edit the document" for o, _, r in refused)
            assert "hacked" not in shared.products()["model"]["content"]

            # The WebRTC agent edits through its doc channel (as the meeting's event pump does): the
            # websocket clients receive it.
            agent_doc: Doc = Doc()
            agent_doc.apply_update(shared.full_state())
            updates: list[bytes] = []
            sub = agent_doc.observe(lambda ev: updates.append(ev.update))
            row = agent_doc.get("products", type=Map)["model"]["content"]["income_statement"]["year1"]
            row["ebitda"] = 17.25
            agent_doc.unobserve(sub)
            shared.handle_message("agent", sync_message(SYNC_UPDATE, updates[0]))
            final = await editor.until("saw")
            assert final["model"]["content"]["income_statement"]["year1"] == {"revenue": 57.5, "ebitda": 17.25}
            assert len(to_agent) == 1  # the agent's own edit is not sent back to it
        finally:
            await editor.close()
            if observer is not None:
                await observer.close()
    assert [e.origin for e in rec.events] == ["persona", "agent", "agent"]
    mutations, _ = derive_trajectory(rec.events)
    assert [(m.turn_index, m.mutation_type, m.path) for m in mutations] == [
        (3, "add_row", "/income_statement/year1"),
        (3, "update_cell", "/income_statement/year1/ebitda"),
    ]
