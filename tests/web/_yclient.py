"""A y-websocket client in Python (pycrdt + websockets), speaking y-protocols as the official client does."""

from __future__ import annotations

import asyncio
from typing import Any

from pycrdt import Doc, Map
from websockets.asyncio.client import ClientConnection, connect

from modylbench.channels import SYNC_STEP1, SYNC_STEP2, SYNC_UPDATE, sync_message
from modylbench.channels._shareddoc import read_doc_varuint
from modylbench.channels._ywebsocket import awareness_message, parse_awareness


class YClient:
    """One connection; keeps a local pycrdt ``Doc`` in sync and collects what the server says."""

    def __init__(self, ws: ClientConnection, doc: Doc | None = None) -> None:
        self.ws = ws
        self.doc = doc if doc is not None else Doc()
        self.awareness: list[list[tuple[int, int, str]]] = []
        self.denied: list[str] = []
        self.synced = asyncio.Event()
        self.got_awareness = asyncio.Event()
        self.got_denied = asyncio.Event()
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def open(cls, url: str, doc: Doc | None = None) -> YClient:
        ws = await connect(url, max_size=None)
        client = cls(ws, doc)
        await ws.send(sync_message(SYNC_STEP1, client.doc.get_state()))
        return client

    def products(self) -> dict[str, Any]:
        return self.doc.get("products", type=Map).to_py() or {}

    async def send(self, data: bytes) -> None:
        await self.ws.send(data)

    async def update(self, update: bytes) -> None:
        await self.ws.send(sync_message(SYNC_UPDATE, update))

    async def announce(self, entries: list[tuple[int, int, str]]) -> None:
        await self.ws.send(awareness_message(entries))

    async def _read(self) -> None:
        async for data in self.ws:
            assert isinstance(data, bytes)
            mtype, pos = read_doc_varuint(data, 0)
            if mtype == 0:
                sub, pos = read_doc_varuint(data, pos)
                n, pos = read_doc_varuint(data, pos)
                payload = data[pos : pos + n]
                if sub == SYNC_STEP1:
                    await self.ws.send(sync_message(SYNC_STEP2, self.doc.get_update(payload)))
                else:
                    self.doc.apply_update(payload)
                    if sub == SYNC_STEP2:
                        self.synced.set()
            elif mtype == 1:
                n, pos = read_doc_varuint(data, pos)
                self.awareness.append(parse_awareness(data[pos : pos + n]))
                self.got_awareness.set()
            elif mtype == 2:
                _, pos = read_doc_varuint(data, pos)
                n, pos = read_doc_varuint(data, pos)
                self.denied.append(data[pos : pos + n].decode())
                self.got_denied.set()

    async def close(self) -> None:
        await self.ws.close()
        await asyncio.gather(self._reader, return_exceptions=True)

    @property
    def close_code(self) -> int | None:
        return self.ws.close_code
