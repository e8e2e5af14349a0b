"""The meeting's shared document over y-websocket: standard Yjs websocket clients join as editors
(meeting token) or read-only observers (observer token); updates flow both ways with the WebRTC agent.

Wire format is y-protocols (binary frames): 0 sync (step1/step2/update), 1 awareness (relayed),
2 auth (server → client: permission denied), 3 query-awareness. Edits are applied through
``SharedDocument.handle_message`` with the participant's origin, so they are recorded and attributed
like the agent's doc-channel edits.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from modylbench.channels._shareddoc import (
    MSG_AWARENESS,
    MSG_SYNC,
    SYNC_STEP1,
    SYNC_UPDATE,
    DocMessageError,
    SharedDocument,
    parse_message,
    read_doc_varuint,
    sync_message,
    write_varuint,
)

logger = logging.getLogger(__name__)

MSG_AUTH = 2
MSG_QUERY_AWARENESS = 3
AUTH_PERMISSION_DENIED = 0
MAX_AWARENESS_BYTES = 64 * 1024
"""Largest awareness message relayed (presence is small; larger ones are dropped)."""
MAX_CLIENTS = 32
"""Websocket doc clients per meeting."""
SEND_QUEUE = 2048
"""Messages queued for one client before it is cut off as too slow."""
DOC_WAIT = 30.0
"""Seconds a client that connects before the meeting's document exists waits for it."""
EMPTY_UPDATE = b"\x00\x00"

Role = Literal["editor", "observer"]


def _varstring(text: str) -> bytes:
    raw = text.encode()
    return write_varuint(len(raw)) + raw


def permission_denied(reason: str) -> bytes:
    """y-protocols auth message telling a client its write was refused."""
    return bytes([MSG_AUTH, AUTH_PERMISSION_DENIED]) + _varstring(reason[:200])


def parse_awareness(payload: bytes) -> list[tuple[int, int, str]]:
    """(client id, clock, state JSON) entries of an awareness update; raises DocMessageError."""
    count, pos = read_doc_varuint(payload, 0)
    if count > 1000:
        raise DocMessageError("too many awareness entries")
    out = []
    for _ in range(count):
        cid, pos = read_doc_varuint(payload, pos)
        clock, pos = read_doc_varuint(payload, pos)
        length, pos = read_doc_varuint(payload, pos)
        if pos + length > len(payload):
            raise DocMessageError("awareness state runs past the message")
        out.append((cid, clock, payload[pos : pos + length].decode("utf-8", "replace")))
        pos += length
    return out


def awareness_message(entries: list[tuple[int, int, str]]) -> bytes:
    """An awareness message (type 1) holding ``entries``."""
    body = bytearray(write_varuint(len(entries)))
    for cid, clock, state in entries:
        body += write_varuint(cid) + write_varuint(clock) + _varstring(state)
    return bytes([MSG_AWARENESS]) + write_varuint(len(body)) + bytes(body)


@dataclass
class _Client:
    ws: ServerConnection
    role: Role
    queue: asyncio.Queue[bytes] = field(default_factory=lambda: asyncio.Queue(SEND_QUEUE))
    awareness: dict[int, tuple[int, str]] = field(default_factory=dict)
    """Presence this client announced: client id → (clock, state JSON)."""


class YWebsocketHub:
    """All y-websocket clients of one meeting, around the meeting's ``SharedDocument``.

    ``attach`` is given the document (``MeetingOptions.on_doc``); clients that connect earlier wait for
    it. ``to_agent`` receives sync messages for edits made by websocket editors, because the meeting
    only forwards non-agent edits to the WebRTC agent. ``on_rejected(origin, size, reason)`` is told of
    every refused message (an observer's write, a malformed or unappliable update).
    """

    def __init__(self, editor_origin: str = "agent", max_clients: int = MAX_CLIENTS) -> None:
        self.editor_origin = editor_origin
        self.max_clients = max_clients
        self.doc: SharedDocument | None = None
        self.clients: list[_Client] = []
        self.to_agent: Callable[[bytes], None] | None = None
        self.on_rejected: Callable[[str, int, str], None] | None = None
        self.rejected: list[tuple[str, str]] = []
        """(role, reason) of every refused message, for logs and tests."""
        self._ready = asyncio.Event()
        self._sender: _Client | None = None

    def attach(self, doc: SharedDocument) -> None:
        """Serve ``doc``; every update applied to it from now on reaches the connected clients."""
        self.doc = doc
        doc.listeners.append(self._on_update)
        self._ready.set()

    def detach(self) -> None:
        """Stop following the document (the meeting is over)."""
        if self.doc is not None and self._on_update in self.doc.listeners:
            self.doc.listeners.remove(self._on_update)

    # ---------------------------------------------------------------- fan-out

    def _on_update(self, origin: str, update: bytes) -> None:
        msg = sync_message(SYNC_UPDATE, update)
        for client in list(self.clients):
            if client is not self._sender:
                self._enqueue(client, msg)
        # Edits from websocket editors share the agent's origin, which the meeting does not echo to the
        # WebRTC agent; send them on ourselves so both kinds of agent-side editor converge.
        if self._sender is not None and self.to_agent is not None:
            self.to_agent(msg)

    def _enqueue(self, client: _Client, msg: bytes) -> None:
        try:
            client.queue.put_nowait(msg)
        except asyncio.QueueFull:
            logger.warning("y-websocket client too slow; disconnecting it")
            self._drop(client)

    def _drop(self, client: _Client) -> None:
        if client in self.clients:
            self.clients.remove(client)
            if client.awareness:
                # Tell the others this client's presence is gone (y-protocols: state "null", clock + 1).
                gone = awareness_message([(cid, clock + 1, "null") for cid, (clock, _) in client.awareness.items()])
                for other in self.clients:
                    self._enqueue(other, gone)

    def _refuse(self, client: _Client, size: int, reason: str) -> None:
        origin = self.editor_origin if client.role == "editor" else "observer"
        self.rejected.append((client.role, reason))
        logger.info("y-websocket %s message refused: %s", client.role, reason)
        hook = self.on_rejected or (self.doc.on_refused if self.doc is not None else None)
        if hook is not None:
            try:
                hook(origin, size, reason)
            except Exception:  # noqa: BLE001 - recording must not end the connection
                logger.exception("on_rejected hook failed")

    # ---------------------------------------------------------------- one client

    async def serve(self, ws: ServerConnection, role: Role) -> None:
        """Run one authenticated client until it disconnects."""
        if len(self.clients) >= self.max_clients:
            await ws.close(1013, "too many document clients")
            return
        if self.doc is None:
            try:
                await asyncio.wait_for(self._ready.wait(), DOC_WAIT)
            except TimeoutError:
                await ws.close(1013, "the meeting's document is not ready")
                return
        doc = self.doc
        assert doc is not None
        client = _Client(ws, role)
        self.clients.append(client)
        self._enqueue(client, doc.step1())
        others = [(cid, c, s) for o in self.clients if o is not client for cid, (c, s) in o.awareness.items()]
        if others:
            self._enqueue(client, awareness_message(others))
        writer = asyncio.ensure_future(self._write(client))
        try:
            async for data in ws:
                if client not in self.clients:
                    break
                if isinstance(data, str):
                    self._refuse(client, len(data), "text frame on a binary protocol")
                    continue
                self._receive(client, doc, data)
        except ConnectionClosed:
            pass
        finally:
            self._drop(client)
            writer.cancel()
            await asyncio.gather(writer, return_exceptions=True)

    async def _write(self, client: _Client) -> None:
        try:
            while True:
                msg = await client.queue.get()
                await client.ws.send(msg)
                if client not in self.clients:
                    break
        except ConnectionClosed:
            pass
        finally:
            if client not in self.clients:
                await client.ws.close(1008 if client.queue.full() else 1000)

    def _receive(self, client: _Client, doc: SharedDocument, data: bytes) -> None:
        if not data:
            self._refuse(client, 0, "empty message")
            return
        mtype = data[0]
        if mtype == MSG_AWARENESS:
            self._awareness(client, data)
            return
        if mtype == MSG_QUERY_AWARENESS:
            states = [(cid, c, s) for o in self.clients if o is not client for cid, (c, s) in o.awareness.items()]
            if states:
                self._enqueue(client, awareness_message(states))
            return
        if mtype == MSG_AUTH:
            return  # clients have nothing to say about permissions
        if mtype != MSG_SYNC:
            self._refuse(client, len(data), f"unknown message type {mtype}")
            return
        try:
            _, sub, payload = parse_message(data, doc.max_message_bytes)
        except DocMessageError as exc:
            self._refuse(client, len(data), str(exc))
            return
        if client.role == "observer" and sub != SYNC_STEP1:
            # An observer's reply to our step 1 is normally empty; anything else is a write.
            if payload != EMPTY_UPDATE:
                self._refuse(client, len(data), "observers may not edit the document")
                self._enqueue(client, permission_denied("observers may not edit the document"))
            return
        self._sender = client
        try:
            result = doc.handle_message(self.editor_origin, data)
        except DocMessageError as exc:
            self._refuse(client, len(data), str(exc))
            return
        finally:
            self._sender = None
        for reply in result.replies:
            self._enqueue(client, reply)

    def _awareness(self, client: _Client, data: bytes) -> None:
        if len(data) > MAX_AWARENESS_BYTES:
            self._refuse(client, len(data), "awareness message too large")
            return
        try:
            length, pos = read_doc_varuint(data, 1)
            if pos + length != len(data):
                raise DocMessageError("awareness payload length does not match the message")
            entries = parse_awareness(data[pos:])
        except DocMessageError as exc:
            self._refuse(client, len(data), str(exc))
            return
        for cid, clock, state in entries:
            if state == "null":
                client.awareness.pop(cid, None)
            else:
                client.awareness[cid] = (clock, state)
        for other in self.clients:
            if other is not client:
                self._enqueue(other, data)

    def snapshot(self) -> dict[str, Any]:
        """Connected clients by role (for status pages)."""
        roles = [c.role for c in self.clients]
        presence: list[Any] = []
        for c in self.clients:
            for _, state in c.awareness.values():
                try:
                    presence.append(json.loads(state))
                except ValueError:
                    continue
        return {"editors": roles.count("editor"), "observers": roles.count("observer"), "presence": presence[:50]}
