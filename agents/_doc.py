"""The agent's copy of the shared document: a plain pycrdt ``Doc`` kept in sync over the doc channel.

Edits made here are sent to the meeting as Yjs updates; updates from the meeting are applied here.
Nothing in it is needed to take part (any Yjs client can sync the same way, see docs/protocol.md); it
saves agent authors from writing the sync protocol.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pycrdt import Array, Doc, Map

from modylbench.channels import (
    MAX_DOC_MESSAGE,
    MSG_SYNC,
    SYNC_STEP1,
    SYNC_STEP2,
    SYNC_UPDATE,
    DocMessageError,
    parse_message,
    sync_message,
)
from modylbench.record import new_product, products_json, products_root, to_yjs
from modylbench.scenarios import parse_pointer

logger = logging.getLogger(__name__)

_REMOTE = "remote"


class AgentDoc:
    """Local replica of the meeting's shared document. Call ``receive`` with every doc message; send ``outbox``."""

    def __init__(self) -> None:
        self.doc: Doc = Doc()
        self.root: Map = products_root(self.doc)
        self.outbox: list[bytes] = []
        self._sub = self.doc.observe(self._on_transaction)
        self._applying = False

    def _on_transaction(self, event: Any) -> None:
        if self._applying:
            return
        update = event.update
        if update and update != b"\x00\x00":
            self.outbox.append(sync_message(SYNC_UPDATE, update))

    def hello(self) -> bytes:
        """Our sync step 1 (send it once after joining)."""
        return sync_message(SYNC_STEP1, self.doc.get_state())

    def receive(self, message: bytes) -> list[bytes]:
        """Handle a doc message from the meeting; returns replies to send back."""
        try:
            mtype, sub, payload = parse_message(message, max_bytes=MAX_DOC_MESSAGE)
        except DocMessageError:
            logger.warning("ignoring a malformed doc message from the meeting")
            return []
        if mtype != MSG_SYNC:
            return []
        if sub == SYNC_STEP1:
            return [sync_message(SYNC_STEP2, self.doc.get_update(payload))]
        self._applying = True
        try:
            self.doc.apply_update(payload)
        finally:
            self._applying = False
        return []

    def take_outbox(self) -> list[bytes]:
        """Messages produced by local edits since the last call."""
        out, self.outbox = self.outbox, []
        return out

    @contextmanager
    def transaction(self) -> Iterator[Map]:
        """Group several edits into one update; yields the products root."""
        with self.doc.transaction():
            yield self.root

    def create_product(self, product_id: str, output_type: str, title: str, content: Any = None) -> None:
        """Create (or replace) a product."""
        self.root[product_id] = new_product(output_type, title, content)

    def set(self, product_id: str, pointer: str, value: Any) -> None:
        """Set the value at an RFC 6901 pointer inside a product's content, creating missing objects."""
        tokens = parse_pointer(pointer)
        if not tokens:
            raise ValueError("use create_product to replace a whole product")
        with self.doc.transaction():
            cur: Any = self.root[product_id]["content"]
            for tok in tokens[:-1]:
                if isinstance(cur, Map):
                    if tok not in cur:
                        cur[tok] = Map()
                    cur = cur[tok]
                elif isinstance(cur, Array):
                    cur = cur[int(tok)]
            last = tokens[-1]
            if isinstance(cur, Map):
                cur[last] = to_yjs(value)
            elif isinstance(cur, Array):
                idx = len(cur) if last == "-" else int(last)
                if idx >= len(cur):
                    cur.append(to_yjs(value))
                else:
                    cur[idx] = to_yjs(value)

    def delete(self, product_id: str, pointer: str) -> None:
        """Remove the value at a pointer (a key, a list item, or the whole product with '')."""
        tokens = parse_pointer(pointer)
        with self.doc.transaction():
            if not tokens:
                del self.root[product_id]
                return
            cur: Any = self.root[product_id]["content"]
            for tok in tokens[:-1]:
                cur = cur[tok] if isinstance(cur, Map) else cur[int(tok)]
            if isinstance(cur, Map):
                del cur[tokens[-1]]
            else:
                del cur[int(tokens[-1])]

    def products(self) -> dict[str, dict[str, Any]]:
        """Every product as plain JSON."""
        return products_json(self.doc)
