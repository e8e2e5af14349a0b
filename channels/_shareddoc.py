"""The meeting's live shared document: Yjs sync with each participant, attributed and bounded.

Every update is applied inside a transaction whose origin is the participant it came from and
handed to ``on_update(origin, update)`` (the recorder and the forwarder to other participants).
Malformed or oversized messages are refused with a reason and leave the document as it was. Every
incoming update is first tried in a child process holding a mirror of the document
(``_docguard.UpdateSandbox``): the pinned yrs (0.28, in pycrdt 0.14.13) has corrupt updates that
panic half-way through integration and corrupt updates that never return (docs/shared-document.md),
and neither can be undone or interrupted inside this process.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from pycrdt import Doc, Map

from modylbench.channels._docguard import GuardError, UpdateSandbox
from modylbench.channels._wire import (
    MSG_AWARENESS,
    MSG_SYNC,
    SYNC_STEP1,
    SYNC_STEP2,
    SYNC_UPDATE,
    WireError,
    check_doc_message,
    encode_sync,
    read_varuint,
    write_varuint,
)
from modylbench.record import new_product, products_json, products_root, to_yjs
from modylbench.scenarios import parse_pointer

logger = logging.getLogger(__name__)

__all__ = [
    "MAX_UPDATE_BYTES", "MSG_AWARENESS", "MSG_SYNC", "SEALED", "SYNC_STEP1", "SYNC_STEP2", "SYNC_UPDATE", "DocMessageError",
    "SharedDocument", "SyncResult", "parse_message", "read_doc_varuint", "sync_message", "write_varuint",
]

MAX_UPDATE_BYTES = 1024 * 1024
"""Largest Yjs message accepted from a participant."""
SEALED = "the meeting is over and its record is sealed: the document is read-only"
"""Why an update that arrives after the meeting is refused."""


class DocMessageError(ValueError):
    """A doc-channel message that was refused; the reason is one line."""


def read_doc_varuint(data: bytes, pos: int) -> tuple[int, int]:
    """A lib0 varuint at ``pos`` → (value, next position); raises DocMessageError when malformed."""
    try:
        return read_varuint(data, pos)
    except WireError as exc:
        raise DocMessageError(str(exc)) from None


def sync_message(sub_type: int, payload: bytes) -> bytes:
    """A y-protocols sync message: [0, sub_type, varuint len, payload]."""
    return encode_sync(sub_type, payload)


def parse_message(data: bytes, max_bytes: int = MAX_UPDATE_BYTES) -> tuple[int, int, bytes]:
    """Split a doc-channel message into (message type, sync sub-type or -1, payload); bounded and strict."""
    try:
        mtype, sub = check_doc_message(data, max_bytes)
    except WireError as exc:
        raise DocMessageError(str(exc)) from None
    _, pos = read_varuint(data, 0)
    if mtype == MSG_AWARENESS or sub is None:
        return mtype, -1, data[pos:]
    _, pos = read_varuint(data, pos)
    _, pos = read_varuint(data, pos)
    return mtype, sub, data[pos:]


@dataclass
class SyncResult:
    """What handling one message produced: replies for the sender and whether the doc changed."""

    replies: list[bytes]
    applied: bool


class SharedDocument:
    """One pycrdt ``Doc`` per meeting holding every work product under its ``product_id``."""

    def __init__(
        self,
        on_update: Callable[[str, bytes], None] | None = None,
        max_message_bytes: int = MAX_UPDATE_BYTES,
        sandbox_timeout: float = 2.0,
    ):
        self.doc: Doc = Doc()
        self.root: Map = products_root(self.doc)
        self.on_update = on_update
        self.max_message_bytes = max_message_bytes
        self._pending: list[bytes] = []
        self._sub = self.doc.observe(self._on_transaction)
        self.accepted: list[bytes] = []
        """Every update applied to the document, in order (the sandbox rebuilds its mirror from it)."""
        self.sandbox = UpdateSandbox(lambda: self.accepted, timeout=sandbox_timeout)
        self.updates_applied = 0
        self.updates_refused = 0
        self.listeners: list[Callable[[str, bytes], None]] = []
        """Extra observers of every applied update (origin, update), e.g. websocket clients."""
        self.on_refused: Callable[[str, int, str], None] | None = None
        """Told of messages refused outside ``handle_message`` (origin, size, reason), to record them."""
        self.sealed = False
        """The meeting's record is closed: the document is read-only (see ``seal``)."""

    def seal(self) -> None:
        """Make the document read-only: the meeting is over and its record closed.

        Participants may still sync (read) during the page's linger period, but every update is refused
        with ``SEALED`` and nothing more reaches ``on_update`` or ``on_refused`` (the record they write
        to is closed).
        """
        self.sealed = True

    def close(self) -> None:
        """The meeting is over: seal the document and stop the sandbox process.

        The sandbox starts again by itself if a participant syncs later (reading stays possible).
        """
        self.seal()
        self.sandbox.close()


    def _on_transaction(self, event: Any) -> None:
        update = event.update
        # An empty transaction still emits a 2-byte update; it changes nothing.
        if update and update != b"\x00\x00":
            self._pending.append(update)

    def _flush(self, origin: str, local: bool = False) -> None:
        pending, self._pending = self._pending, []
        for u in pending:
            if local:
                self.accepted.append(u)
                self.sandbox.mirror(u)
            self.updates_applied += 1
            if self.on_update is not None:
                self.on_update(origin, u)
            for listener in list(self.listeners):
                try:
                    listener(origin, u)
                except Exception:  # noqa: BLE001 - one bad observer must not break the meeting
                    logger.exception("doc update listener failed")

    # ---------------------------------------------------------------- remote participants

    def state_vector(self) -> bytes:
        """The document's state vector (for a sync step 1)."""
        return self.doc.get_state()

    def step1(self) -> bytes:
        """Our sync step 1, sent when a participant connects."""
        return sync_message(SYNC_STEP1, self.doc.get_state())

    def apply_update(self, origin: str, update: bytes) -> None:
        """Apply a raw Yjs update from ``origin``; raises DocMessageError and leaves the doc unchanged."""
        if self.sealed:
            if update == b"\x00\x00":  # an empty sync step 2: nothing to apply, nothing refused
                return
            raise DocMessageError(SEALED)
        if len(update) > self.max_message_bytes:
            raise DocMessageError(
                f"update of {len(update)} bytes is over the {self.max_message_bytes}-byte limit"
            )
        try:
            self.sandbox.check_update(update)
        except GuardError as exc:
            self.updates_refused += 1
            raise DocMessageError(str(exc)) from None
        try:
            with self.doc.transaction(origin=origin):
                self.doc.apply_update(update)
        except BaseException as exc:  # noqa: BLE001 - PanicException is a BaseException
            # The sandbox applied the same bytes to the same state; reaching here means they differ.
            self._pending.clear()
            if isinstance(exc, KeyboardInterrupt | SystemExit):
                raise
            self.sandbox.reset()
            raise DocMessageError(f"update does not apply: {str(exc).splitlines()[0][:160]}") from None
        # The raw bytes, not the transaction's update: structs still waiting for their dependencies
        # are in the former only, and the sandbox's mirror must hold them too.
        self.accepted.append(update)
        self._flush(origin)

    def handle_message(self, origin: str, data: bytes) -> SyncResult:
        """Handle one doc-channel message from ``origin``; raises DocMessageError when refused."""
        mtype, sub, payload = parse_message(data, self.max_message_bytes)
        if mtype != MSG_SYNC:
            return SyncResult([], False)  # presence (awareness) is not part of the record
        if sub == SYNC_STEP1:
            try:
                self.sandbox.check_state_vector(payload)
            except GuardError as exc:
                raise DocMessageError(str(exc)) from None
            try:
                missing = self.doc.get_update(payload)
            except BaseException as exc:  # noqa: BLE001
                if isinstance(exc, KeyboardInterrupt | SystemExit):
                    raise
                raise DocMessageError(
                    f"state vector does not decode: {str(exc).splitlines()[0][:160]}"
                ) from None
            return SyncResult([sync_message(SYNC_STEP2, missing)], False)
        before = self.updates_applied
        self.apply_update(origin, payload)
        return SyncResult([], self.updates_applied > before)

    # ---------------------------------------------------------------- local edits (persona, SDK helpers)

    @contextmanager
    def edit(self, origin: str) -> Iterator[Map]:
        """A transaction attributed to ``origin``; yields the products root map."""
        if self.sealed:
            raise DocMessageError(SEALED)
        try:
            with self.doc.transaction(origin=origin):
                yield self.root
        finally:
            self._flush(origin, local=True)

    def create_product(
        self, origin: str, product_id: str, output_type: str, title: str, content: Any = None
    ) -> None:
        """Add a product with initial content (a skeleton or ``{}``)."""
        with self.edit(origin) as root:
            root[product_id] = new_product(output_type, title, content)

    def set_value(self, origin: str, product_id: str, pointer: str, value: Any) -> None:
        """Set the value at an RFC 6901 pointer inside a product's content, creating missing objects."""
        tokens = parse_pointer(pointer)
        if not tokens:
            raise ValueError("use create_product to replace a whole product")
        with self.edit(origin) as root:
            cur: Any = root[product_id]["content"]
            for tok in tokens[:-1]:
                if isinstance(cur, Map):
                    if tok not in cur:
                        cur[tok] = Map()
                    cur = cur[tok]
                else:
                    cur = cur[int(tok)]
            last = tokens[-1]
            if isinstance(cur, Map):
                cur[last] = to_yjs(value)
            else:
                idx = len(cur) if last == "-" else int(last)
                if idx >= len(cur):
                    cur.append(to_yjs(value))
                else:
                    cur[idx] = to_yjs(value)

    def products(self) -> dict[str, dict[str, Any]]:
        """Every product as plain JSON."""
        return products_json(self.doc)

    def full_state(self) -> bytes:
        """The whole document as one update (for snapshots)."""
        return self.doc.get_update()
