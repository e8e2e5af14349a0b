"""A realtime speech model to test against: the OpenAI Realtime event protocol served over real websockets on
127.0.0.1, in a thread of its own (so its work is invisible to the meeting's event loop, as a remote model's is).

Its "model" answers the n-th committed user turn with the scenario's reference response for turn n: speech-shaped
pcm16 audio at 24 kHz streamed as ``response.output_audio.delta`` events with the words as the transcript. On the
turns of ``plan`` it first calls the planned tools, and speaks once their outputs came back.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from websockets.asyncio.server import ServerConnection, serve

from modylbench.channels import fallback_speech
from modylbench.personas import resample_s16
from modylbench.scenarios import Scenario

RATE = 24_000
MAX_BUFFER = 15 * 2**20
"""The input buffer's bound (the real server's is 15 MiB)."""

GA_NAMES = {"audio": "response.output_audio", "transcript": "response.output_audio_transcript"}
BETA_NAMES = {"audio": "response.audio", "transcript": "response.audio_transcript"}


@dataclass
class Commit:
    """One committed user turn, as the server heard it."""

    audio: bytes
    texts: list[str] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        return len(self.audio) / 2 / RATE

    @property
    def rms(self) -> float:
        a = np.frombuffer(self.audio, dtype="<i2").astype(np.float64)
        return float(np.sqrt(np.mean(a * a))) if a.size else 0.0


@dataclass
class Seen:
    """What the server saw, for the test to check."""

    paths: list[str] = field(default_factory=list)
    authorization: list[str | None] = field(default_factory=list)
    sessions: list[dict[str, Any]] = field(default_factory=list)
    commits: list[Commit] = field(default_factory=list)
    outputs: list[dict[str, Any]] = field(default_factory=list)
    responses: list[int] = field(default_factory=list)
    """The turn each response.create answered."""
    cancels: int = 0
    errors_sent: list[str] = field(default_factory=list)


class RealtimeServer:
    """``with RealtimeServer(scenario, plan) as base_url:`` serves ``ws://127.0.0.1:PORT/v1/realtime``."""

    def __init__(
        self,
        scenario: Scenario,
        plan: dict[int, list[tuple[str, dict[str, Any]]]] | None = None,
        names: dict[str, str] = GA_NAMES,
        refuse_responses: bool = False,
        flood: tuple[int, int] | None = None,
    ) -> None:
        """``flood=(size, count)``: a hostile model whose every answer is ``count`` audio deltas of ``size``
        base64 characters of silence (built once, so the server's own work is a socket write)."""
        self.scenario = scenario
        self.flood = None
        if flood is not None:
            t = np.arange(flood[0] // 4 * 3 // 2) / RATE
            tone = (8000 * np.sin(2 * np.pi * 220 * t)).astype("<i2").tobytes()
            self.flood = (base64.b64encode(tone).decode(), flood[1])
        self.plan = plan or {}
        self.names = names
        self.refuse_responses = refuse_responses
        self.seen = Seen()
        self._ids = itertools.count(1)
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self.port = 0

    def __enter__(self) -> str:
        self._thread = threading.Thread(
            target=lambda: asyncio.run(self._main()), name="realtime-server", daemon=True
        )
        self._thread.start()
        assert self._ready.wait(10), "the realtime test server did not start"
        return f"http://127.0.0.1:{self.port}/v1"

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None and self._stop is not None and self._thread is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    async def _main(self) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        async with serve(self._session, "127.0.0.1", 0, max_size=MAX_BUFFER, compression=None) as server:
            self.port = next(iter(server.sockets)).getsockname()[1]
            self._ready.set()
            await self._stop.wait()

    def _id(self, prefix: str) -> str:
        return f"{prefix}_{next(self._ids)}"

    async def _session(self, ws: ServerConnection) -> None:
        request = ws.request
        assert request is not None
        self.seen.paths.append(request.path)
        self.seen.authorization.append(request.headers.get("Authorization"))

        async def send(event: dict[str, Any]) -> None:
            await ws.send(json.dumps({"event_id": self._id("event"), **event}))

        await send({"type": "session.created", "session": {"type": "realtime", "id": self._id("sess")}})
        buffer = bytearray()
        texts: list[str] = []
        tools_done: set[int] = set()
        async for raw in ws:
            event = json.loads(raw)
            kind = event.get("type")
            if kind == "session.update":
                self.seen.sessions.append(event["session"])
                await send({"type": "session.updated", "session": event["session"]})
            elif kind == "input_audio_buffer.append":
                buffer += base64.b64decode(event["audio"])
                if len(buffer) > MAX_BUFFER:
                    await send(self._error("input_audio_buffer_too_large", "the input buffer is full"))
                    buffer.clear()
            elif kind == "input_audio_buffer.commit":
                if not buffer:
                    await send(self._error("input_audio_buffer_commit_empty", "buffer is empty"))
                    continue
                self.seen.commits.append(Commit(bytes(buffer), texts))
                buffer.clear()
                texts = []
                item = self._id("item")
                await send(
                    {"type": "input_audio_buffer.committed", "item_id": item, "previous_item_id": None}
                )
                await send(
                    {
                        "type": "conversation.item.added",
                        "item": {
                            "id": item,
                            "type": "message",
                            "role": "user",
                            "content": [{"type": "input_audio"}],
                        },
                    }
                )
            elif kind == "conversation.item.create":
                item = event["item"]
                if item.get("type") == "function_call_output":
                    self.seen.outputs.append(item)
                elif item.get("type") == "message":
                    part = item["content"][0]
                    (self.seen.commits[-1].texts if self.seen.commits else texts).append(part.get("text", ""))
                await send({"type": "conversation.item.added", "item": {"id": self._id("item"), **item}})
            elif kind == "response.create":
                turn = len(self.seen.commits) - 1
                self.seen.responses.append(turn)
                if self.refuse_responses:
                    await send(self._error("server_error", "the model is unavailable"))
                elif turn in self.plan and turn not in tools_done:
                    tools_done.add(turn)
                    await self._call_tools(send, self.plan[turn])
                else:
                    await self._speak(send, turn, ws.send)
            elif kind == "response.cancel":
                self.seen.cancels += 1
            else:
                await send(self._error("invalid_event", f"unknown event type {kind!r}"))

    def _error(self, code: str, message: str) -> dict[str, Any]:
        self.seen.errors_sent.append(code)
        return {"type": "error", "error": {"type": "invalid_request_error", "code": code, "message": message}}

    async def _call_tools(self, send: Any, calls: list[tuple[str, dict[str, Any]]]) -> None:
        rid = self._id("resp")
        await send(
            {"type": "response.created", "response": {"id": rid, "status": "in_progress", "output": []}}
        )
        items = []
        for index, (name, args) in enumerate(calls):
            arguments = args if isinstance(args, str) else json.dumps(args)
            item = {
                "id": self._id("item"),
                "type": "function_call",
                "call_id": self._id("call"),
                "name": name,
                "arguments": arguments,
                "status": "completed",
            }
            common = {"response_id": rid, "item_id": item["id"], "output_index": index}
            await send(
                {
                    "type": "response.output_item.added",
                    "response_id": rid,
                    "output_index": index,
                    "item": {**item, "arguments": "", "status": "in_progress"},
                }
            )
            await send(
                {
                    "type": "response.function_call_arguments.delta",
                    **common,
                    "call_id": item["call_id"],
                    "delta": arguments,
                }
            )
            await send(
                {
                    "type": "response.function_call_arguments.done",
                    **common,
                    "call_id": item["call_id"],
                    "name": name,
                    "arguments": arguments,
                }
            )
            await send(
                {"type": "response.output_item.done", "response_id": rid, "output_index": index, "item": item}
            )
            items.append(item)
        await send({"type": "response.done", "response": {"id": rid, "status": "completed", "output": items}})

    async def _speak(self, send: Any, turn: int, ws_send: Any = None) -> None:
        rid, item = self._id("resp"), self._id("item")
        text = self.scenario.turns[turn].reference_response if 0 <= turn < len(self.scenario.turns) else None
        text = text or "Understood."
        pcm = resample_s16(fallback_speech(text), 48_000, RATE)
        common = {"response_id": rid, "item_id": item, "output_index": 0, "content_index": 0}
        await send(
            {"type": "response.created", "response": {"id": rid, "status": "in_progress", "output": []}}
        )
        if self.flood is not None:
            delta, count = self.flood
            head = json.dumps({"type": f"{self.names['audio']}.delta", **common})[:-1]
            for _ in range(count):
                await ws_send(f'{head}, "delta": "{delta}"}}')
            await send({"type": f"{self.names['transcript']}.done", **common, "transcript": text})
            await send({"type": "response.done", "response": {"id": rid, "status": "completed", "output": []}})
            return
        await send(
            {
                "type": "response.output_item.added",
                "response_id": rid,
                "output_index": 0,
                "item": {"id": item, "type": "message", "role": "assistant", "content": []},
            }
        )
        step = RATE // 5 * 2  # 200 ms of audio per delta
        words = text.split()
        for n, start in enumerate(range(0, len(pcm), step)):
            await send(
                {
                    "type": f"{self.names['audio']}.delta",
                    **common,
                    "delta": base64.b64encode(pcm[start : start + step]).decode(),
                }
            )
            if n < len(words):
                await send({"type": f"{self.names['transcript']}.delta", **common, "delta": words[n] + " "})
        await send({"type": f"{self.names['audio']}.done", **common})
        await send({"type": f"{self.names['transcript']}.done", **common, "transcript": text})
        done_item = {
            "id": item,
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_audio", "transcript": text}],
        }
        await send(
            {"type": "response.output_item.done", "response_id": rid, "output_index": 0, "item": done_item}
        )
        await send(
            {"type": "response.done", "response": {"id": rid, "status": "completed", "output": [done_item]}}
        )
