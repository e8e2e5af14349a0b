"""The meeting's shared document over y-websocket: standard Yjs websocket clients join as editors
(meeting token) or read-only observers (observer token); updates flow both ways with the WebRTC agent.

Wire format is y-protocols (binary frames): 0 sync (step1/step2/update), 1 awareness, 2 auth (server →
client: permission denied), 3 query-awareness. Edits are applied through ``SharedDocument.handle_message``
with the participant's origin, so they are recorded and attributed like the agent's doc-channel edits.
Presence (awareness) is kept as y-websocket servers keep it, every accepted change sent to every client
including its sender (the official client closes a socket that is silent for 30 s), and bounded per
connection in client ids, bytes and rate (observers must not be able to grow memory or delay audio).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from modylbench.channels._clock import Clock, WallClock
from modylbench.channels._shareddoc import (
    MSG_AWARENESS,
    MSG_SYNC,
    SEALED,
    SYNC_STEP1,
    SYNC_UPDATE,
    DocMessageError,
    SharedDocument,
    parse_message,
    read_doc_varuint,
    sync_message,
    write_varuint,
)
from modylbench.channels._tasks import TaskOwner
from modylbench.channels._wire import TokenBucket

logger = logging.getLogger(__name__)

MSG_AUTH = 2
MSG_QUERY_AWARENESS = 3
AUTH_PERMISSION_DENIED = 0
MAX_AWARENESS_BYTES = 16 * 1024
"""Largest awareness message accepted (presence is a name, a colour and a cursor; larger ones are refused)."""
MAX_AWARENESS_IDS = 8
"""Presence client ids one connection may hold (a browser tab uses one)."""
MAX_AWARENESS_STATE = 8 * 1024
"""Bytes of presence state one connection may hold, all its client ids together."""
MAX_AWARENESS_ENTRIES = 256
"""Entries in one awareness message (clients pass on others' presence too, so more than their own)."""
AWARENESS_RATE = 10.0
"""Awareness and query-awareness messages per second per connection (cursor moves), and observers' sync ones."""
AWARENESS_BURST = 40
MAX_RECORDED_REFUSALS = 16
"""Refusals of one connection written to the record; the rest are counted and logged only."""
MAX_RECORDED_REFUSALS_MEETING = 256
"""Refusals of all websocket connections of a meeting written to the record."""
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


def parse_awareness(payload: bytes, max_entries: int = MAX_AWARENESS_ENTRIES) -> list[tuple[int, int, str]]:
    """(client id, clock, state JSON) entries of an awareness update; raises DocMessageError."""
    count, pos = read_doc_varuint(payload, 0)
    if count > max_entries:
        raise DocMessageError(f"awareness message with {count} entries (at most {max_entries})")
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


def update_authors(update: bytes) -> tuple[int, ...]:
    """Client id of the first struct group of a Yjs (v1) update: who wrote it; () when it holds no structs.

    Only the header is read; the update is never decoded here (it is refused, not applied).
    """
    try:
        groups, pos = read_doc_varuint(update, 0)
        if groups == 0:
            return ()
        _, pos = read_doc_varuint(update, pos)
        author, _ = read_doc_varuint(update, pos)
    except DocMessageError:
        return ()
    return (author,)


@dataclass
class _Client:
    ws: ServerConnection
    role: Role
    bucket: TokenBucket
    queue: asyncio.Queue[bytes] = field(default_factory=lambda: asyncio.Queue(SEND_QUEUE))
    awareness: dict[int, tuple[int, str]] = field(default_factory=dict)
    """Presence this client holds: client id → (clock, state JSON)."""
    recorded: set[str] = field(default_factory=set)
    """Reasons of this client's refusals already written to the record."""

    def awareness_bytes(self) -> int:
        return sum(len(state.encode()) for _, state in self.awareness.values())


class YWebsocketHub:
    """All y-websocket clients of one meeting, around the meeting's ``SharedDocument``.

    ``attach`` is given the document (``MeetingOptions.on_doc``); clients that connect earlier wait for
    it. ``to_agent`` receives sync messages for edits made by websocket editors, because the meeting
    only forwards non-agent edits to the WebRTC agent. ``on_rejected(origin, size, reason)`` is told of
    every refused message (an observer's write, a malformed or unappliable update).
    """

    def __init__(self, editor_origin: str = "agent", max_clients: int = MAX_CLIENTS,
                 clock: Clock | None = None) -> None:
        self.editor_origin = editor_origin
        self.max_clients = max_clients
        self.clock: Clock = clock or WallClock()
        self.doc: SharedDocument | None = None
        self.clients: list[_Client] = []
        self.to_agent: Callable[[bytes], None] | None = None
        self.on_rejected: Callable[[str, int, str], None] | None = None
        self.rejected: deque[tuple[str, str]] = deque(maxlen=1000)
        """(role, reason) of the latest refused messages, for logs and tests."""
        self.refusals = 0
        """Refused messages in all."""
        self.recorded_refusals = 0
        """Refusals written to the record (bounded per connection and per meeting)."""
        self._observer_writes: set[str] = set()
        """Observer writes already recorded, by author: a client re-sends its refused edits on every reconnect."""
        self._owner: dict[int, _Client] = {}
        """Presence client id → the connection that holds it."""
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
            for cid in client.awareness:
                if self._owner.get(cid) is client:
                    del self._owner[cid]
            if client.awareness:
                # Tell the others this client's presence is gone (y-protocols: state "null", clock + 1).
                gone = awareness_message([(cid, clock + 1, "null") for cid, (clock, _) in client.awareness.items()])
                client.awareness.clear()
                for other in list(self.clients):  # a full queue drops that client from the list
                    self._enqueue(other, gone)

    def _refuse(self, client: _Client, size: int, reason: str, key: str | None = None) -> None:
        """Count and log a refused message; write it to the record unless that would repeat or flood it.

        ``key`` names what is refused when the reason alone does not (an observer's write, by author).
        Nothing is recorded once the document is sealed: the record is closed.
        """
        origin = self.editor_origin if client.role == "editor" else "observer"
        self.rejected.append((client.role, reason))
        self.refusals += 1
        logger.info("y-websocket %s message refused: %s", client.role, reason)
        if self.doc is not None and self.doc.sealed:
            return
        key = key or reason
        if (key in client.recorded or len(client.recorded) >= MAX_RECORDED_REFUSALS
                or self.recorded_refusals >= MAX_RECORDED_REFUSALS_MEETING):
            return
        client.recorded.add(key)
        self.recorded_refusals += 1
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
        client = _Client(ws, role, TokenBucket(self.clock, AWARENESS_RATE, AWARENESS_BURST))
        self.clients.append(client)
        self._enqueue(client, doc.step1())
        others = self._presence()
        if others:
            self._enqueue(client, awareness_message(others))
        writer = TaskOwner("y-client", quiet=True).start(self._write(client), "writer")
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
            if not client.bucket.take():
                self._refuse(client, len(data), "awareness messages too frequent")
                return
            states = self._presence()
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
        if client.role == "observer" and not client.bucket.take():
            self._refuse(client, len(data), "observer messages too frequent")
            return
        if sub != SYNC_STEP1 and payload != EMPTY_UPDATE and (doc.sealed or client.role == "observer"):
            # An observer's reply to our step 1 is normally empty; anything else is a write. After the
            # meeting nobody writes: the record is sealed.
            reason = SEALED if doc.sealed else "observers may not edit the document"
            authors = update_authors(payload) or tuple(client.awareness)
            author = ",".join(map(str, authors)) if authors else hashlib.sha256(payload).hexdigest()
            if client.role == "observer" and author in self._observer_writes:
                self.rejected.append((client.role, reason))  # the same refused edit again: not recorded twice
                self.refusals += 1
            else:
                if client.role == "observer" and not doc.sealed and len(self._observer_writes) < 4096:
                    self._observer_writes.add(author)
                self._refuse(client, len(data), reason, key=f"write by {author}")
            self._enqueue(client, permission_denied(reason))
            return
        self._sender = client
        try:
            result = doc.handle_message(self.editor_origin, data)
        except DocMessageError as exc:
            self._refuse(client, len(data), str(exc))
            if str(exc) == SEALED:
                self._enqueue(client, permission_denied(SEALED))
            return
        finally:
            self._sender = None
        for reply in result.replies:
            self._enqueue(client, reply)

    def _presence(self) -> list[tuple[int, int, str]]:
        """Every presence state held, as (client id, clock, state JSON)."""
        return [(cid, c, st) for o in self.clients for cid, (c, st) in o.awareness.items()]

    def _awareness(self, client: _Client, data: bytes) -> None:
        if not client.bucket.take():
            self._refuse(client, len(data), "awareness messages too frequent")
            return
        if len(data) > MAX_AWARENESS_BYTES:
            self._refuse(client, len(data), f"awareness message over {MAX_AWARENESS_BYTES} bytes")
            return
        try:
            length, pos = read_doc_varuint(data, 1)
            if pos + length != len(data):
                raise DocMessageError("awareness payload length does not match the message")
            entries = parse_awareness(data[pos:])
        except DocMessageError as exc:
            self._refuse(client, len(data), str(exc))
            return
        changed: list[tuple[int, int, str]] = []
        for cid, clock, state in entries:
            owner = self._owner.get(cid)
            if owner is not None and owner is not client:
                continue  # another connection's presence passed on (y-websocket clients relay what they hear)
            current = client.awareness.get(cid)
            if state == "null":
                if current is not None and clock >= current[0]:
                    del client.awareness[cid]
                    del self._owner[cid]
                    changed.append((cid, clock, state))
                continue
            if current is not None and clock <= current[0]:
                continue  # not newer (y-protocols keeps the higher clock)
            problem = ""
            if current is None and len(client.awareness) >= MAX_AWARENESS_IDS:
                problem = f"presence for more than {MAX_AWARENESS_IDS} client ids on one connection"
            elif (client.awareness_bytes() - len(current[1].encode() if current else b"") + len(state.encode())
                  > MAX_AWARENESS_STATE):
                problem = f"presence states over {MAX_AWARENESS_STATE} bytes on one connection"
            else:
                try:
                    json.loads(state)
                except (ValueError, RecursionError):
                    problem = "presence state is not JSON"
            if problem:
                self._refuse(client, len(data), problem)
                continue
            client.awareness[cid] = (clock, state)
            self._owner[cid] = client
            changed.append((cid, clock, state))
        if changed:
            # Every client, the sender included, as y-websocket servers do: the sender's own presence
            # coming back is what keeps its connection from looking dead.
            msg = awareness_message(changed)
            for other in list(self.clients):
                self._enqueue(other, msg)

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
