"""Nesting in the shared document is bounded on the way in (a deeper update is refused and recorded), and
every walk over document content is iterative or bounded, also for records made without that bound."""

from __future__ import annotations

import asyncio
import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pycrdt import Array, Doc, Map

from modylbench.agents import join_inprocess, make_agent
from modylbench.channels import (
    SYNC_STEP1,
    SYNC_UPDATE,
    DocMessageError,
    InProcessMeeting,
    LinkOptions,
    SharedDocument,
    VirtualClock,
    WebServer,
    sync_message,
)
from modylbench.personas import make_engine
from modylbench.record import MAX_NESTING, DocUpdate, derive_responses, products_json, read_record
from modylbench.record._derive import derive_trajectory
from modylbench.record._doc import TOO_DEEP
from modylbench.scenarios import load_path
from modylbench.simulator._session import run_meeting
from tests.web._yclient import YClient

ROOT = Path(__file__).resolve().parents[2]
MINI = load_path(ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl")[0]


def _event(origin: str, update: bytes, t: float) -> DocUpdate:
    return DocUpdate(wall_time=0.0, meeting_time=t, turn_index=0, origin=origin,  # type: ignore[arg-type]
                     update=base64.b64encode(update).decode(), size=len(update))


def _edit(doc: Doc, change: Any) -> bytes:
    """Run ``change(products root)`` in one transaction of ``doc``; the update it made."""
    updates: list[bytes] = []
    sub = doc.observe(lambda ev: updates.append(ev.update))
    with doc.transaction():
        change(doc.get("products", type=Map))
    doc.unobserve(sub)
    return updates[0]


def _nest(levels: int, kind: type[Map] | type[Array] = Map) -> Any:
    """A change nesting ``levels`` containers under the kv product's content, one inside the other."""
    def change(root: Map) -> None:
        cur: Any = root["model"]["content"]
        for _ in range(levels):
            child = kind()
            if isinstance(cur, Map):
                cur["x"] = child
                cur = cur["x"]
            else:
                cur.append(child)
                cur = cur[len(cur) - 1]
        if isinstance(cur, Map):
            cur["leaf"] = 1
    return change


def _shared(events: list[DocUpdate], refused: list[str]) -> SharedDocument:
    shared = SharedDocument(on_update=lambda o, u: events.append(_event(o, u, float(len(events)))))
    shared.on_refused = lambda origin, size, reason: refused.append(reason)
    shared.create_product("persona", "model", "kv", "Model", {"a": None})
    return shared


async def test_an_editor_nesting_a_map_1500_deep_is_refused_and_recorded(tmp_path: Path) -> None:
    events: list[DocUpdate] = []
    refused: list[str] = []
    shared = _shared(events, refused)
    try:
        async with WebServer() as server:
            meeting = server.create_meeting()
            wm = server.add_web(meeting, tmp_path)
            wm.hub.attach(shared)
            url = f"ws://127.0.0.1:{server.port}/doc/{meeting.meeting_id}?token={meeting.token}"
            agent = await YClient.open(url)
            try:
                await asyncio.wait_for(agent.synced.wait(), 10)
                agent.synced.clear()
                await agent.update(_edit(agent.doc, _nest(1500)))
                await agent.send(sync_message(SYNC_STEP1, agent.doc.get_state()))  # answered after the update
                await asyncio.wait_for(agent.synced.wait(), 10)
            finally:
                await agent.close()
            # The document and the sandbox's mirror are as before: a fresh replica's edit applies.
            again = await YClient.open(url)
            try:
                await asyncio.wait_for(again.synced.wait(), 10)
                again.synced.clear()
                await again.update(_edit(again.doc, lambda root: root["model"]["content"].__setitem__("a", 2)))
                await again.send(sync_message(SYNC_STEP1, again.doc.get_state()))
                await asyncio.wait_for(again.synced.wait(), 10)
            finally:
                await again.close()
        assert refused == [f"update nests the document more than {MAX_NESTING} levels deep"]
        assert [e.origin for e in events] == ["persona", "agent"]
        assert shared.products()["model"]["content"] == {"a": 2}
        mutations, _ = derive_trajectory(events)
        assert [(m.mutation_type, m.path) for m in mutations] == [("update_value", "/a")]
    finally:
        shared.close()


@pytest.mark.parametrize("kind", [Map, Array])
def test_nesting_one_level_per_update_stops_at_the_bound(kind: type[Map] | type[Array]) -> None:
    events: list[DocUpdate] = []
    refused: list[str] = []
    shared = _shared(events, refused)
    try:
        # products root (0) → product (1) → content (2) → the agent's containers from level 3.
        for level in range(3, MAX_NESTING + 3):
            agent = Doc()  # a fresh replica per step: each update adds one level to what was accepted
            agent.apply_update(shared.full_state())
            update = _edit(agent, _deepen(kind))
            if level <= MAX_NESTING:
                shared.handle_message("agent", sync_message(SYNC_UPDATE, update))
            else:
                with pytest.raises(DocMessageError, match="levels deep"):
                    shared.handle_message("agent", sync_message(SYNC_UPDATE, update))
                break
        assert _depth(shared.products()["model"]["content"]) == MAX_NESTING - 1  # content is level 2
        mutations, _ = derive_trajectory(events)
        assert len(mutations) == MAX_NESTING - 2
    finally:
        shared.close()


def _deepen(kind: type[Map] | type[Array]) -> Any:
    """A change adding one container inside the deepest one under the content."""
    def change(root: Map) -> None:
        cur: Any = root["model"]["content"]
        while True:
            nxt = cur.get("x") if isinstance(cur, Map) else (cur[0] if len(cur) else None)
            if not isinstance(nxt, Map | Array):
                break
            cur = nxt
        if isinstance(cur, Map):
            cur["x"] = kind()
        else:
            cur.append(kind())
    return change


def _depth(value: Any) -> int:
    depth, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict | list):
            depth = max(depth, d)
            stack.extend((c, d + 1) for c in (v.values() if isinstance(v, dict) else v))
    return depth


def test_walks_over_a_record_made_without_the_bound_do_not_recurse() -> None:
    # A record written before the bound existed: 1,500 levels in one agent update.
    author = Doc()
    first = _edit(author, lambda root: root.__setitem__("model", Map({"type": "kv", "title": "M", "content": Map()})))
    deep = _edit(author, _nest(1500))
    events = [_event("persona", first, 0.0), _event("agent", deep, 1.0)]
    mutations, doc = derive_trajectory(events)
    assert [(m.mutation_type, m.path) for m in mutations] == [("add_key", "/x")]
    products = products_json(doc)
    json.dumps(products)  # bounded: serialisable without a RecursionError
    json.dumps([m.model_dump(mode="json") for m in mutations])
    assert TOO_DEEP in json.dumps(products)
    assert _depth(products) <= MAX_NESTING + 1


async def test_a_meeting_with_a_1500_deep_agent_edit_is_recorded_and_replays(tmp_path: Path) -> None:
    # The agent's doc channel, end to end: the meeting completes, the refusal is in the record, and the
    # record derives and replays (it once died with RecursionError after the meeting).
    clock = VirtualClock()
    link = InProcessMeeting(clock, LinkOptions(connect_timeout=60))
    speech = make_engine("espeak")
    agent = make_agent("oracle", MINI)
    folder = tmp_path / "session"

    async def join() -> None:
        client = await join_inprocess(link, synthesize=speech.synthesize, receive_audio=False)
        evil = Doc()
        deep = _edit(evil, lambda root: root.__setitem__("evil", Map()))
        await client.send_doc(sync_message(SYNC_UPDATE, deep))
        await client.send_doc(sync_message(SYNC_UPDATE, _edit(evil, _nest_under("evil", 1500))))
        await agent.run(client)

    result, _ = await asyncio.gather(run_meeting(link, MINI, "oracle", folder, clock, speech), join())
    assert result.termination_reason == "completed"
    events = read_record(folder).events
    rejected = [e for e in events if e.event == "doc_update_rejected"]
    assert [(e.origin, e.reason) for e in rejected] == [
        ("agent", f"update nests the document more than {MAX_NESTING} levels deep")]
    responses = derive_responses(events)
    assert len(responses.turns) == len(MINI.turns)
    products = {p.product_id: p for p in responses.work_products}
    assert "model" in products  # the oracle's work, after the refusal
    replay = subprocess.run([sys.executable, "-m", "modylbench.simulator.cli", "replay", str(folder),
                             "--scenarios", str(ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl")],
                            capture_output=True, text=True, timeout=300, cwd=str(ROOT))
    assert replay.returncode == 0, replay.stderr[-2000:]
    assert "Traceback" not in replay.stderr


def _nest_under(key: str, levels: int) -> Any:
    def change(root: Map) -> None:
        cur: Any = root[key]
        for _ in range(levels):
            cur["x"] = Map()
            cur = cur["x"]
    return change
