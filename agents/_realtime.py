"""The ``realtime`` agent: a speech-to-speech model behind an OpenAI-Realtime-compatible websocket takes part in the
meeting (the persona's audio in, the model's audio out on the meeting track, tool calls for chat and the document).

The protocol is spoken with ``websockets`` (the ``openai[realtime]`` extra pins websockets below 16). See
docs/realtime.md for the events used and how a turn maps onto the session.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import os
import traceback
from collections import deque
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from modylbench.agents._client import MeetingClient
from modylbench.agents._reference import LLMAgent
from modylbench.channels import (
    SAMPLE_RATE,
    AudioReceived,
    CaptionReceived,
    Hello,
    MeetingEvent,
    Playback,
    TaskOwner,
    TurnStarted,
    VirtualClock,
    VoiceActivity,
)
from modylbench.personas import resample_s16
from modylbench.record import ModelSpecError
from modylbench.scenarios import Scenario

logger = logging.getLogger(__name__)

REALTIME_RATE = 24_000
"""The sample rate of the Realtime API's pcm16 audio (both ways); the meeting's is 48 kHz."""
DEFAULT_MODEL = "gpt-realtime"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
MAX_SERVER_MESSAGE = 2**20
"""Largest message taken from the realtime server (bytes); websockets closes the session on a bigger one.
A message is parsed, and an audio delta decoded and resampled, on the meeting's event loop: at 8 MiB a
server sending 7.8 MB deltas made 91 persona frames late (202 ms). 1 MiB is ~15 s of 24 kHz audio in one
delta (the OpenAI server sends ~0.1-0.2 s) and far more than any other event carries."""
MAX_RESPONSE_AUDIO_S = 180.0
"""Seconds of audio taken from one response; the rest of its deltas are refused (one ``agent_error``)."""
CONNECT_TIMEOUT = 20.0
RESPONSE_TIMEOUT = 120.0
"""Wall seconds a response may take from ``response.create`` to ``response.done`` (a network bound, like the
``llm`` agent's client timeout: the model's latency is real time whatever the meeting clock does)."""
MAX_TOOL_ROUNDS = 4
"""Responses per turn: the model may answer tool outputs with more tool calls this many times."""
APPEND_BYTES = 5 * 1920
"""Persona audio is appended in 100 ms pieces (five 20 ms meeting frames of 48 kHz s16)."""
END_OF_SPEECH = 0.8
"""With captions off: seconds of quiet after the persona's voice that end its turn."""
PREROLL_FRAMES = 10
"""With captions off: frames kept before the voice detector opens, so the first syllable is heard."""
MAX_TEXT = 8000
"""Characters of one transcript or chat message taken from the model."""
MAX_FILE_TEXT = 20_000
"""Characters of a received file shown to the model (as the ``llm`` agent does)."""

AUDIO_DELTA = frozenset({"response.output_audio.delta", "response.audio.delta"})
"""The GA event name and the beta one (servers that copied the beta protocol still send it)."""
TRANSCRIPT_DONE = frozenset({"response.output_audio_transcript.done", "response.audio_transcript.done"})
TEXT_DONE = frozenset({"response.output_text.done", "response.text.done"})

TOOLS: list[dict[str, Any]] = [
    {"type": "function", **tool["function"]} for tool in LLMAgent.TOOLS if tool["function"]["name"] != "say"
]
"""The ``llm`` agent's chat and document tools in the realtime shape (the model speaks for itself: no ``say``)."""


class RealtimeError(Exception):
    """The realtime server refused a request or went away."""


def realtime_url(model: str, base_url: str | None) -> str:
    """The websocket URL of a realtime session: ``BASE/realtime?model=MODEL`` (http(s) becomes ws(s))."""
    base = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    parts = urlsplit(base)
    scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}.get(parts.scheme)
    if scheme is None or not parts.netloc:
        raise ModelSpecError(
            f"{base!r}: a realtime base URL is ws://, wss://, http:// or https:// with a host"
        )
    query = "&".join(q for q in (parts.query, f"model={quote(model, safe='')}") if q)
    return urlunsplit((scheme, parts.netloc, parts.path.rstrip("/") + "/realtime", query, ""))


class RealtimeAgent(LLMAgent):
    """A realtime speech model as the agent: it hears the persona and answers out loud, in one session.

    Each turn: the persona's audio is appended to the session's input buffer as it arrives; when the persona
    has finished speaking (its caption's end, or a voice detector when captions are off) the buffer is
    committed, chat and files are added as text, and ``response.create`` asks for the answer. The answer's
    audio is played on the meeting track as it streams in, its transcript is declared, tool calls edit the
    document or post chat, and ``done`` follows the last response of the turn.
    """

    name = "realtime"
    listens = True
    ANSWER_HOW = (
        "Answer each turn out loud: short, specific, with the figures. Post tables and long detail with "
        "the chat tool and write the products with edit_product while you talk."
    )

    def __init__(self, scenario: Scenario, model: str | None = None, base_url: str | None = None):
        super().__init__(
            scenario, model or os.environ.get("MODYLBENCH_REALTIME_MODEL", DEFAULT_MODEL), base_url
        )
        self.url = realtime_url(self.model, base_url)
        self.ws: ClientConnection | None = None
        self.failures: list[str] = []
        """What went wrong with the session, in order (each also logged at warning)."""
        self._owner = TaskOwner("realtime", quiet=True)
        self._reader: asyncio.Future[None] | None = None
        self._answering = asyncio.Lock()
        self._pending: asyncio.Future[dict[str, Any]] | None = None
        self._started = False
        """The pending response was created by the server (an error after that does not end it)."""
        self._answer_turn: int | None = None
        """The turn the response in flight answers; its audio is dropped once the persona moved on."""
        self._calls = 0
        self._answered = False
        """The model said or did something for the turn being answered."""
        self._playback: Playback | None = None
        self._audio_bytes = 0
        """Bytes (24 kHz) of audio taken from the response in flight (bounded by ``MAX_RESPONSE_AUDIO_S``)."""
        self._audio_refused = False
        self._pcm = bytearray()
        self._appended = 0
        """Bytes (24 kHz) appended to the server's input buffer since the last commit."""
        self._listening = False
        self._vad: VoiceActivity | None = None
        self._preroll: deque[bytes] = deque(maxlen=PREROLL_FRAMES)

    # ---------------------------------------------------------------- the session

    async def run(self, client: MeetingClient) -> None:
        self.client = client
        await self._connect()
        try:
            await super().run(client)
        finally:
            await self._close()

    def _virtual(self) -> bool:
        """Whether the meeting runs on a ``VirtualClock`` (the agent's clock wraps it, with time zero at the join)."""
        clock = self.clock
        while not isinstance(clock, VirtualClock) and getattr(clock, "base", None) is not None:
            clock = clock.base
        return isinstance(clock, VirtualClock)

    def _held(self) -> contextlib.AbstractContextManager[Any]:
        # On a virtual clock, time must not jump while the server works (a wait on the network is not dead
        # air); a clock that sees the socket lets time flow at the wall rate instead.
        hold = getattr(self.clock, "hold", None)
        return hold() if hold is not None else contextlib.nullcontext()

    def _fail(self, message: str, kind: str = "model_error") -> None:
        """A failure of the model's side: recorded as the agent's ``agent_error`` when a harness runs it, else
        logged (at warning either way)."""
        message = f"realtime {self.model}: {message}"
        self.failures.append(message)
        if self.client is not None:
            self.client.report_error(kind, message)
        else:
            logger.warning("%s", message)

    async def _connect(self) -> bool:
        """Open the session (again, after a failure); False when the server cannot be reached."""
        if self.ws is not None:
            return True
        key = os.environ.get("OPENAI_API_KEY")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        shown = self.url.split("?")[0]
        virtual = self._virtual()
        try:
            with self._held():
                self.ws = await connect(
                    self.url,
                    additional_headers=headers,
                    max_size=MAX_SERVER_MESSAGE,
                    open_timeout=CONNECT_TIMEOUT,
                    # A keepalive timer is wall-clock work: meeting time would never jump.
                    ping_interval=None if virtual else 20.0,
                )
        except (OSError, TimeoutError, WebSocketException) as exc:
            hint = "" if key else " (OPENAI_API_KEY is not set)"
            self._fail(f"cannot open a realtime session at {shown}: {exc}{hint}")
            return False
        self._reader = self._owner.start(self._read(self.ws), "reader")
        sent = await self._send(self._session_update())
        self._expecting(False)
        return sent

    def _expecting(self, answer: bool) -> None:
        """Read the session's socket only while an answer is expected, on a virtual clock.

        A virtual clock lets meeting time flow at the wall rate while a socket of its loop waits to be read
        (a model at work), so an open session would make the whole meeting run in real time. Between answers
        the socket is not read: what the server says meanwhile (``session.updated``) waits in the kernel's
        buffer and is read with the next answer. On the wall clock the socket is always read.
        """
        if self.ws is not None and self._virtual():
            transport = self.ws.transport
            transport.resume_reading() if answer else transport.pause_reading()

    async def _close(self) -> None:
        self._expecting(True)  # the closing handshake reads the server's close frame
        ws, self.ws = self.ws, None
        if ws is not None:
            await ws.close()
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)

    def _session_update(self) -> dict[str, Any]:
        pcm = {"type": "audio/pcm", "rate": REALTIME_RATE}
        return {
            "type": "session.update",
            "session": {
                "type": "realtime",
                "output_modalities": ["audio"],
                "instructions": self._system(),
                # No server turn detection: the meeting says when the persona has finished (see respond).
                "audio": {"input": {"format": pcm, "turn_detection": None}, "output": {"format": pcm}},
                "tools": TOOLS,
                "tool_choice": "auto",
            },
        }

    async def _send(self, event: dict[str, Any]) -> bool:
        ws = self.ws
        if ws is None:
            return False
        try:
            await ws.send(json.dumps(event))
        except ConnectionClosed as exc:
            self._lost(ws, f"the realtime session closed: {exc}")
            return False
        return True

    def _lost(self, ws: ClientConnection, message: str) -> None:
        if self.ws is ws:
            self.ws = None
            self._fail(message)
        if self._pending is not None and not self._pending.done():
            self._pending.set_exception(RealtimeError(message))

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for raw in ws:
                try:
                    event = json.loads(raw)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    logger.warning("realtime server sent a message that is not JSON; ignored")
                    continue
                if not isinstance(event, dict):
                    continue
                try:
                    await self._on_server_event(event)
                except ConnectionError:
                    return  # the meeting is gone
                except Exception:
                    logger.exception("realtime agent: handling a %r event", event.get("type"))
        except ConnectionClosed as exc:
            self._lost(ws, f"the realtime session closed: {exc}")
            return
        self._lost(ws, "the realtime server closed the session")

    async def _on_server_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        assert self.client is not None
        if kind in AUDIO_DELTA:
            if self.turn == self._answer_turn:
                self._on_audio(event.get("delta"))
        elif kind in TRANSCRIPT_DONE:
            text = str(event.get("transcript") or "").strip()[:MAX_TEXT]
            if text and self.turn == self._answer_turn:
                # The audio is already on the track; this declares its words (no audio of its own).
                await self.client.say(text, b"")
        elif kind in TEXT_DONE:
            text = str(event.get("text") or "").strip()[:MAX_TEXT]
            if text and self.turn == self._answer_turn:
                await self._speak_text(text)  # a text-only session: the agent's own voice says it
        elif kind == "response.function_call_arguments.done":
            await self._call(event)
        elif kind == "response.created":
            self._started = True
        elif kind == "response.done":
            if self._pending is not None and not self._pending.done():
                response = event.get("response")
                self._pending.set_result(response if isinstance(response, dict) else {})
        elif kind == "error":
            raw = event.get("error")
            error: dict[str, Any] = raw if isinstance(raw, dict) else {}
            message = (
                f"server error {error.get('code') or error.get('type') or ''}: {error.get('message', '')}"
            )
            self._fail(message.strip()[:500])
            if self._pending is not None and not self._pending.done() and not self._started:
                self._pending.set_exception(RealtimeError(message))
        else:
            logger.debug("realtime event %s", kind)

    def _on_audio(self, delta: object) -> None:
        """Play one audio delta of the response in flight, within ``MAX_RESPONSE_AUDIO_S``."""
        assert self.client is not None
        try:
            pcm = base64.b64decode(delta if isinstance(delta, str) else "", validate=True)
        except ValueError:
            self._fail("an audio delta that is not base64; ignored")
            return
        pcm = pcm[: len(pcm) // 2 * 2]
        room = int(MAX_RESPONSE_AUDIO_S * REALTIME_RATE) * 2 - self._audio_bytes
        if len(pcm) > room:
            if not self._audio_refused:
                self._audio_refused = True
                self._fail(f"a response's audio passed {MAX_RESPONSE_AUDIO_S:.0f} s; the rest is refused",
                           "model_error")  # fmt: skip
            pcm = pcm[: max(0, room)]
        if not pcm:
            return
        self._audio_bytes += len(pcm)
        self._playback = self.client.session.audio.play(resample_s16(pcm, REALTIME_RATE, SAMPLE_RATE))
        self._answered = True

    async def _speak_text(self, text: str) -> None:
        assert self.client is not None
        with self._held():
            pcm = await asyncio.to_thread(self.client.session.synthesize, text)
        self._playback = await self.client.say(text, pcm)
        self._answered = True

    async def _call(self, event: dict[str, Any]) -> None:
        """Run one tool call and hand its output back to the model."""
        assert self.client is not None
        name, call_id = str(event.get("name", "")), str(event.get("call_id", ""))
        try:
            args = json.loads(str(event.get("arguments") or "{}"))
        except json.JSONDecodeError:
            args = None
        if not isinstance(args, dict):
            result = "error: the arguments are not a JSON object"
        elif name == "chat":
            text = str(args.get("text", "")).strip()[:MAX_TEXT]
            if text:
                await self.client.chat(text)
            result = "ok" if text else "error: empty text"
        elif name == "edit_product":
            result = await self._edit(args)
        else:
            result = f"error: there is no tool named {name!r}"
        if result != "ok":
            logger.info("realtime agent: tool %s: %s", name, result)
        self._calls += 1
        self._answered = True
        await self._send(
            {
                "type": "conversation.item.create",
                "item": {"type": "function_call_output", "call_id": call_id, "output": result},
            }
        )

    # ---------------------------------------------------------------- the meeting

    def on_hello(self, hello: Hello) -> None:
        super().on_hello(hello)
        self._vad = None if hello.captions else VoiceActivity(hangover=END_OF_SPEECH)
        self._start(self._send(self._session_update()))  # the instructions now hold the meeting's briefing

    async def on_event(self, ev: MeetingEvent) -> None:
        if isinstance(ev, TurnStarted):
            self._listening = True
            if self._pending is not None and self._started:
                await self._send({"type": "response.cancel"})  # the persona took the floor back
        elif isinstance(ev, CaptionReceived):
            self._listening = True  # the persona speaks again (a second utterance within one turn)
        elif isinstance(ev, AudioReceived):
            await self._hear(ev)

    async def _hear(self, ev: AudioReceived) -> None:
        if self._vad is not None:
            for kind, _t, _onset in self._vad.push(ev.time, ev.pcm):
                if kind == "onset" and not self._listening:
                    self._listening = True
                    self._pcm += b"".join(self._preroll)
                elif kind == "offset" and self.turn is not None:
                    self._start(self._answer(self.turn))
            self._preroll.append(ev.pcm)
        if not self._listening:
            return
        self._pcm += ev.pcm
        if len(self._pcm) >= APPEND_BYTES:
            await self._append()

    async def _append(self) -> None:
        pcm, self._pcm = bytes(self._pcm), bytearray()
        if not pcm or self.ws is None:
            return
        audio = resample_s16(pcm, SAMPLE_RATE, REALTIME_RATE)
        if await self._send({"type": "input_audio_buffer.append", "audio": base64.b64encode(audio).decode()}):
            self._appended += len(audio)

    async def _answer(self, turn_index: int) -> None:
        """The voice detector heard the persona stop (captions off): answer as ``_act`` does for a caption."""
        try:
            await self.respond(turn_index)
        except ConnectionError:
            return
        except Exception as exc:  # noqa: BLE001 - a failed answer is a silent turn, recorded, not a crash
            logger.exception("realtime agent failed to answer turn %d", turn_index)
            if self.client is not None:
                self.client.report_error(
                    "crash", f"turn {turn_index}: {type(exc).__name__}: {exc}", traceback.format_exc()
                )

    def _heard_as_text(self) -> str:
        """Chat and files since the last answer, as the model's text input."""
        parts = [f"[chat] {text}" for text in self.chat_log]
        parts += [
            f"[file {f.name}]\n" + f.data[:MAX_FILE_TEXT].decode("utf-8", "replace") for f in self.files
        ]
        self.chat_log.clear()
        self.files.clear()
        self.captions.clear()  # the model heard the speech itself
        return "\n".join(parts)

    async def respond(self, turn_index: int) -> None:
        """The persona has finished speaking: commit what it said and let the model answer the turn."""
        assert self.client is not None
        async with self._answering:
            if self.turn != turn_index:
                return
            self._listening = False
            if not await self._connect():
                await self.client.done(turn_index)  # no model: a silent turn, already reported
                return
            await self._append()
            text = self._heard_as_text()
            heard = False
            if self._appended:
                heard = await self._send({"type": "input_audio_buffer.commit"})
                self._appended = 0
            if text:
                heard = (
                    await self._send(
                        {
                            "type": "conversation.item.create",
                            "item": {
                                "type": "message",
                                "role": "user",
                                "content": [{"type": "input_text", "text": text}],
                            },
                        }
                    )
                    or heard
                )
            if not heard:
                return  # nothing new since the last answer (a second caption already answered)
            self._answer_turn, self._playback, self._answered = turn_index, None, False
            failed = len(self.failures)
            for _ in range(MAX_TOOL_ROUNDS):
                self._calls = 0
                try:
                    response = await self._response()
                except (RealtimeError, TimeoutError) as exc:
                    if isinstance(exc, TimeoutError):
                        self._fail(f"no response.done within {RESPONSE_TIMEOUT:.0f} s")
                    break
                status = response.get("status", "completed")
                if status not in ("completed", "cancelled"):
                    self._fail(f"response {status}: {json.dumps(response.get('status_details'))[:300]}")
                if not self._calls or status != "completed" or self.turn != turn_index:
                    break
            if self.turn == turn_index and not self._answered and not self.failures[failed:]:
                self._fail(
                    f"turn {turn_index}: the model answered nothing (no audio, no text, no tool call)",
                    "empty_answer",
                )
            if self._playback is not None:
                await self._playback.ended
            if self.turn == turn_index:
                await self.client.done(turn_index)

    async def _response(self) -> dict[str, Any]:
        """Ask for a response and wait for its ``response.done`` (the tool calls run as their arguments arrive)."""
        pending: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending, self._started = pending, False
        self._audio_bytes, self._audio_refused = 0, False
        self._expecting(True)
        try:
            if not await self._send({"type": "response.create"}):
                raise RealtimeError("the realtime session is closed")
            with self._held():
                return await asyncio.wait_for(pending, RESPONSE_TIMEOUT)
        finally:
            self._pending = None
            self._expecting(False)
