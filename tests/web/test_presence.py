"""y-websocket presence (awareness) and refusals, with real websocket clients on 127.0.0.1: presence comes
back to its sender as y-websocket servers send it, is bounded per connection in ids, bytes and rate, and
an observer's refused edit that its client re-sends on every reconnect is recorded once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pycrdt import Map

from modylbench.channels import SharedDocument, VirtualClock, WebServer
from modylbench.channels._web import WebMeeting
from modylbench.channels._ywebsocket import (
    AWARENESS_BURST,
    MAX_AWARENESS_IDS,
    MAX_AWARENESS_STATE,
    YWebsocketHub,
    awareness_message,
)
from tests.web._yclient import YClient


def _doc(refused: list[tuple[str, int, str]]) -> SharedDocument:
    shared = SharedDocument()
    shared.on_refused = lambda origin, size, reason: refused.append((origin, size, reason))
    shared.create_product("persona", "model", "kv", "Model", {"a": None})
    return shared


def _url(server: WebServer, wm: WebMeeting, token: str) -> str:
    return f"ws://127.0.0.1:{server.port}/doc/{wm.meeting.meeting_id}?token={token}"


async def test_a_lone_client_hears_its_own_presence_back(tmp_path: Path) -> None:
    # The official client closes a socket it has heard nothing on for 30 s and renews its presence every
    # 15 s: the echo of that renewal is what a lone client hears.
    async with WebServer() as server:
        wm = server.add_web(server.create_meeting(), tmp_path)
        wm.hub.attach(_doc([]))
        client = await YClient.open(_url(server, wm, wm.meeting.token))
        try:
            await client.announce([(7, 0, '{"user":"lone"}')])
            await asyncio.wait_for(client.got_awareness.wait(), 10)
            assert client.awareness[-1] == [(7, 0, '{"user":"lone"}')]
            await client.announce([(7, 0, '{"user":"lone"}')])  # not newer: nothing to send
            await client.announce([(7, 1, '{"user":"lone"}')])  # the renewal
            await client.send(bytes([3]))  # query awareness: answered after the two above were handled
            while len(client.awareness) < 3:
                client.got_awareness.clear()
                await asyncio.wait_for(client.got_awareness.wait(), 10)
            assert client.awareness[1:3] == [[(7, 1, '{"user":"lone"}')], [(7, 1, '{"user":"lone"}')]]
        finally:
            await client.close()


async def test_an_observer_refused_edit_is_recorded_once_across_reconnects(tmp_path: Path) -> None:
    refused: list[tuple[str, int, str]] = []
    shared = _doc(refused)
    async with WebServer() as server:
        wm = server.add_web(server.create_meeting(), tmp_path)
        wm.hub.attach(shared)
        url = _url(server, wm, wm.observer_token)
        first = await YClient.open(url)
        await asyncio.wait_for(first.synced.wait(), 10)
        updates: list[bytes] = []
        sub = first.doc.observe(lambda ev: updates.append(ev.update))
        first.doc.get("products", type=Map)["model"]["content"]["a"] = "observer"
        first.doc.unobserve(sub)
        await first.update(updates[0])
        await asyncio.wait_for(first.got_denied.wait(), 10)
        await first.close()
        for _ in range(3):  # y-websocket reconnects with the same Y.Doc: its sync step 2 holds the edit again
            again = await YClient.open(url, doc=first.doc)
            await asyncio.wait_for(again.got_denied.wait(), 10)
            assert again.denied == ["observers may not edit the document"]
            await again.close()
    assert [r for o, _, r in refused if o == "observer"] == ["observers may not edit the document"]
    assert wm.hub.refusals == 4
    assert shared.products()["model"]["content"] == {"a": None}


async def test_presence_is_bounded_per_connection_in_ids_and_bytes(tmp_path: Path) -> None:
    refused: list[tuple[str, int, str]] = []
    async with WebServer() as server:
        wm = server.add_web(server.create_meeting(), tmp_path)
        wm.hub = YWebsocketHub(clock=VirtualClock())  # time stands still: no refill during the flood
        wm.hub.attach(_doc(refused))
        watcher = await YClient.open(_url(server, wm, wm.meeting.token))
        flood = await YClient.open(_url(server, wm, wm.observer_token))
        try:
            await asyncio.wait_for(flood.synced.wait(), 10)
            # 1,000 client ids in one message (too large), large states, then many ids a few at a time.
            await flood.announce([(i, 0, '{"u":1}') for i in range(1000)])
            await flood.announce([(100 + i, 0, json.dumps({"pad": "x" * 3000})) for i in range(4)])
            await flood.announce([(200, 0, "{not json")])
            for start in range(0, 30, 3):
                await flood.announce([(i, 0, '{"u":1}') for i in range(start, start + 3)])
            assert len(wm.hub.clients) == 2
        finally:
            await flood.close()
        # The flood client's presence removed (y-protocols: state null) is the last thing the watcher hears.
        while not any(state == "null" for msg in watcher.awareness for _, _, state in msg):
            watcher.got_awareness.clear()
            await asyncio.wait_for(watcher.got_awareness.wait(), 10)
        await watcher.close()
    held = {cid for msg in watcher.awareness for cid, _, state in msg if state != "null"}
    assert len(held) <= MAX_AWARENESS_IDS
    biggest = max(sum(len(s) for _, _, s in msg) for msg in watcher.awareness)
    assert biggest <= MAX_AWARENESS_STATE
    assert not any(state == "{not json" for msg in watcher.awareness for _, _, state in msg)
    assert not wm.hub._owner and not any(c.awareness for c in wm.hub.clients)
    assert len(held) == MAX_AWARENESS_IDS and {100, 101} <= held and not {102, 103} & held
    reasons = [r for _, _, r in refused]
    assert len(reasons) == len(set(reasons)) == 4  # each reason recorded once for the connection
    assert any("bytes on one connection" in r for r in reasons)
    assert any("client ids on one connection" in r for r in reasons)


async def test_presence_is_rate_limited_per_connection(tmp_path: Path) -> None:
    async with WebServer() as server:
        wm = server.add_web(server.create_meeting(), tmp_path)
        wm.hub = YWebsocketHub(clock=VirtualClock())
        wm.hub.attach(_doc([]))
        watcher = await YClient.open(_url(server, wm, wm.meeting.token))
        chatty = await YClient.open(_url(server, wm, wm.observer_token))
        try:
            await asyncio.wait_for(chatty.synced.wait(), 10)
            for clock in range(3 * AWARENESS_BURST):
                await chatty.send(awareness_message([(5, clock, json.dumps({"cursor": clock}))]))
        finally:
            await chatty.close()
        while not any(state == "null" for msg in watcher.awareness for _, _, state in msg):
            watcher.got_awareness.clear()
            await asyncio.wait_for(watcher.got_awareness.wait(), 10)
        await watcher.close()
    relayed = [msg for msg in watcher.awareness if msg[0][2] != "null"]
    assert 0 < len(relayed) <= AWARENESS_BURST
    assert ("observer", "awareness messages too frequent") in wm.hub.rejected
