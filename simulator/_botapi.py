"""``serve --bot-api``: the meeting exposed the way open meeting-bot APIs expose a call, in the public shape of
Attendee's API (REST under ``/api/v1/bots``, ``Authorization: Token …``, webhooks, realtime audio over a
websocket the bot's author serves). A bot written against that API joins this meeting with only its base URL
changed; the harness's agent side (the SDK's WebRTC join) is the bot in the meeting.

What is implemented, what is not, and the ModylBench extensions (the shared document, files, the briefing):
docs/integrations.md, "Meeting-bot API".
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
import threading
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from modylbench.channels import SAMPLE_RATE as MEETING_RATE
from modylbench.channels import TaskOwner

logger = logging.getLogger(__name__)

MAX_HEAD = 16 * 1024
"""Bytes of a request line and its headers."""
MAX_BODY = 12 * 1024 * 1024
"""Bytes of a request body (``output_audio``'s base64 MP3 is the largest: ~9 MB of MP3, minutes of speech)."""
MAX_JSON_ON_LOOP = 64 * 1024
"""Bodies larger than this are parsed in a worker thread, not on the meeting's event loop."""
MAX_CONNECTIONS = 32
"""Requests served at once; more are refused (503) until one ends."""
MAX_WS_MESSAGE = 1 << 20
"""Bytes of one message from the bot's audio websocket (``realtime_audio.bot_output``: ~30 s at 16 kHz)."""
MAX_CHAT_CHARS = 8000
MAX_SPEECH_CHARS = 4096
MAX_WEBHOOKS = 2
"""Per bot, as Attendee allows."""
WEBHOOK_QUEUE = 4096
"""Deliveries waiting per webhook; past it new ones are dropped (counted in the bot's ``modylbench`` field)."""
WEBHOOK_TIMEOUT = 10.0
WEBHOOK_ATTEMPTS = 3
SAMPLE_RATES = (8000, 16000, 24000)
AUDIO_CHUNK_FRAMES = 5
"""Meeting audio is sent to the bot in 100 ms chunks (five 20 ms frames)."""
TRIGGERS = ("bot.state_change", "transcript.update", "chat_messages.update", "participant_events.join_leave",
            "participant_events.speech_start_stop", "modylbench_files.update")  # fmt: skip
NOT_IMPLEMENTED = ("output_image", "output_video", "pause_recording", "resume_recording", "recording",
                   "delete_data", "voice_agent_settings")  # fmt: skip


class ApiError(Exception):
    """A request the API refuses: its HTTP status and a one-line message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + f".{int(time.time() * 1e6) % 1_000_000:06d}Z"


def sign_payload(payload: dict[str, Any], secret_b64: str) -> str:
    """The ``X-Webhook-Signature`` of a delivery: base64 HMAC-SHA256 of the canonical JSON (sorted keys, no
    spaces, UTF-8) under the base64-decoded secret, as Attendee documents it."""
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    digest = hmac.new(base64.b64decode(secret_b64), canonical.encode("utf-8"), hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def downsample(pcm48: bytes, rate: int) -> bytes:
    """48 kHz s16 mono to ``rate`` (8, 16 or 24 kHz) by block averaging (a box low-pass, cheap on the loop)."""
    a = np.frombuffer(pcm48, dtype="<i2")
    k = MEETING_RATE // rate
    a = a[: len(a) // k * k].reshape(-1, k).astype(np.int32).mean(axis=1)
    return a.astype("<i2").tobytes()


def _url(value: Any, schemes: tuple[str, ...], what: str) -> str:
    if not isinstance(value, str) or len(value) > 2048:
        raise ApiError(400, f"{what}: a URL is required")
    parts = urlsplit(value)
    if parts.scheme not in schemes or not parts.hostname:
        raise ApiError(400, f"{what}: must be a {' or '.join(s + '://' for s in schemes)} URL")
    return value


@dataclass
class Webhook:
    url: str
    triggers: set[str]
    queue: asyncio.Queue[dict[str, Any]] = field(default_factory=lambda: asyncio.Queue(WEBHOOK_QUEUE))


@dataclass
class AudioSocket:
    url: str
    sample_rate: int
    trigger: str
    ws: ClientConnection | None = None


def _triggers(hook: dict[str, Any]) -> set[str]:
    given = hook.get("triggers", list(TRIGGERS))
    if not isinstance(given, list) or not all(isinstance(t, str) for t in given):
        raise ApiError(400, "webhooks[].triggers: a list of trigger names")
    unknown = sorted(set(given) - set(TRIGGERS))
    if unknown:
        raise ApiError(400, f"webhooks[].triggers: {unknown[0][:60]!r} is not served here (served: {', '.join(TRIGGERS)})")
    return set(given)


class Bot:
    """One bot in the meeting: its state, what it has seen, and the bridge to the harness's agent side."""

    def __init__(self, api: BotApi, body: dict[str, Any]) -> None:
        self.api = api
        self.id = "bot_" + secrets.token_urlsafe(12).replace("-", "x").replace("_", "y")
        self.meeting_url = str(body["meeting_url"])
        self.bot_name = str(body.get("bot_name") or "Bot")[:100]
        meta = body.get("metadata")
        self.metadata: dict[str, Any] = meta if isinstance(meta, dict) else {}
        self.state = "joining"
        self.events: list[dict[str, Any]] = [{"type": "join_requested", "sub_type": None, "created_at": _now_iso()}]
        self.webhooks = [Webhook(_url(w.get("url"), ("http", "https"), "webhooks[].url"), _triggers(w))
                         for w in body.get("webhooks") or []]  # fmt: skip
        self.sockets: list[AudioSocket] = []
        ws = body.get("websocket_settings") or {}
        for key, trigger in (("audio", "realtime_audio.mixed"), ("per_participant_audio", "realtime_audio.per_participant")):
            cfg = ws.get(key)
            if cfg:
                rate = cfg.get("sample_rate", 16000)
                if rate not in SAMPLE_RATES or (key == "per_participant_audio" and rate == 24000):
                    raise ApiError(400, f"websocket_settings.{key}.sample_rate: one of 8000, 16000"
                                        f"{', 24000' if key == 'audio' else ''}")  # fmt: skip
                self.sockets.append(AudioSocket(_url(cfg.get("url"), ("ws", "wss"), f"websocket_settings.{key}.url"),
                                                int(rate), trigger))  # fmt: skip
        self.transcript: list[dict[str, Any]] = []
        self.chat: list[dict[str, Any]] = []
        self.participant_events: list[dict[str, Any]] = []
        self.files: list[Any] = []
        self.dropped_webhooks = 0
        self.refused_audio = 0
        self.client: Any = None
        self.doc: Any = None
        self.briefing: Any = None
        self.tasks = TaskOwner("bot")
        self.joined = asyncio.Event()

    # ---------------------------------------------------------------- the public shape

    def as_json(self) -> dict[str, Any]:
        recording = {"joining": "not_started", "joined_recording": "in_progress"}.get(self.state, "complete")
        return {"id": self.id, "metadata": self.metadata, "meeting_url": self.meeting_url, "state": self.state,
                "events": list(self.events), "transcription_state": recording, "recording_state": recording,
                "join_at": None, "deduplication_key": None,
                "modylbench": {"dropped_webhooks": self.dropped_webhooks,
                               "refused_audio_messages": self.refused_audio}}  # fmt: skip

    def _start(self, coro: Any) -> None:
        self.tasks.start(coro, getattr(coro, "__name__", "task"))

    def change_state(self, new: str, event_type: str, sub_type: str | None = None) -> None:
        old, self.state = self.state, new
        created = _now_iso()
        self.events.append({"type": event_type, "sub_type": sub_type, "created_at": created})
        self.webhook("bot.state_change", {"new_state": new, "old_state": old, "created_at": created,
                                          "event_type": event_type, "event_sub_type": sub_type})  # fmt: skip

    def webhook(self, trigger: str, data: dict[str, Any]) -> None:
        payload = {"idempotency_key": str(uuid.uuid4()), "bot_id": self.id, "bot_metadata": self.metadata,
                   "trigger": trigger, "data": data}  # fmt: skip
        for hook in self.webhooks:
            if trigger in hook.triggers:
                try:
                    hook.queue.put_nowait(payload)
                except asyncio.QueueFull:
                    self.dropped_webhooks += 1

    async def _deliver(self, hook: Webhook) -> None:
        """Deliveries to one URL, in order; each in a worker thread (urllib), retried with backoff."""
        while True:
            payload = await hook.queue.get()
            body = json.dumps(payload).encode()
            headers = {"Content-Type": "application/json",
                       "X-Webhook-Signature": sign_payload(payload, self.api.webhook_secret)}  # fmt: skip
            for attempt in range(WEBHOOK_ATTEMPTS + 1):
                if await asyncio.to_thread(_post, hook.url, body, headers):
                    break
                if attempt < WEBHOOK_ATTEMPTS:
                    await asyncio.sleep(min(4.0, 0.25 * 2**attempt))
            else:
                logger.warning("bot API: webhook %s to %s failed %d times", payload["trigger"], hook.url,
                               WEBHOOK_ATTEMPTS + 1)  # fmt: skip
            hook.queue.task_done()

    # ---------------------------------------------------------------- the bridge to the meeting

    async def run(self) -> None:
        """Join the meeting as its agent, then carry the meeting to the bot and the bot into the meeting."""
        from modylbench.agents import AgentDoc, join

        for hook in self.webhooks:
            self._start(self._deliver(hook))
        try:
            self.client = await join(self.api.join_url, self.api.token, timeout=30.0)
        except Exception as exc:  # noqa: BLE001 - the bot learns it through its state
            logger.warning("bot API: %s could not join: %s", self.id, exc)
            self.change_state("fatal_error", "could_not_join_meeting")
            return
        self.doc = AgentDoc()
        await self.client.send_doc(self.doc.hello())
        for sock in self.sockets:
            try:
                sock.ws = await connect(sock.url, max_size=MAX_WS_MESSAGE, open_timeout=10)
            except (OSError, TimeoutError, WebSocketException) as exc:
                logger.warning("bot API: cannot open %s: %s", sock.url, exc)
                continue
            self._start(self._read_socket(sock))
        self.change_state("joined_recording", "bot_joined_meeting")
        self.joined.set()
        self._participant("join")
        try:
            await self._events()
        finally:
            await self._leave()

    def _participant(self, kind: str) -> None:
        p = self.api.persona
        ev: dict[str, Any] = {"id": f"pe_{len(self.participant_events)}", "participant_name": p["name"],
              "participant_uuid": p["uuid"], "participant_user_uuid": None, "participant_is_host": True,
              "event_type": kind, "event_data": {}, "timestamp_ms": int(time.time() * 1000)}  # fmt: skip
        self.participant_events.append(ev)
        trigger = "participant_events.join_leave" if kind in ("join", "leave") else "participant_events.speech_start_stop"
        self.webhook(trigger, ev)

    async def _events(self) -> None:
        from modylbench.agents import (
            AudioReceived,
            CaptionReceived,
            ChatReceived,
            Disconnected,
            DocMessageReceived,
            FileReceived,
            Hello,
            MeetingEnded,
        )

        pending = bytearray()
        frames = 0
        ev: Any
        async for ev in self.client.events():
            if isinstance(ev, AudioReceived):
                pending += ev.pcm
                frames += 1
                if frames >= AUDIO_CHUNK_FRAMES:
                    await self._send_audio(bytes(pending))
                    pending.clear()
                    frames = 0
            elif isinstance(ev, DocMessageReceived):
                for reply in self.doc.receive(ev.data):
                    await self.client.send_doc(reply)
            elif isinstance(ev, Hello):
                self.briefing = ev.briefing
            elif isinstance(ev, CaptionReceived) and ev.final:
                self._start(self._utterance(ev))
            elif isinstance(ev, ChatReceived):
                msg = {"id": f"msg_{len(self.chat)}", "to": "everyone", "text": ev.text,
                       "timestamp": int(time.time()), "timestamp_ms": int(time.time() * 1000),
                       "sender_name": self.api.persona["name"], "sender_uuid": self.api.persona["uuid"],
                       "sender_user_uuid": None, "additional_data": {}}  # fmt: skip
                self.chat.append(msg)
                self.webhook("chat_messages.update", msg)
            elif isinstance(ev, FileReceived):
                self.files.append(ev)
                self.webhook("modylbench_files.update", {"id": len(self.files) - 1, "name": ev.name,
                                                          "media_type": ev.media_type, "size": len(ev.data)})
            elif isinstance(ev, MeetingEnded | Disconnected):
                return

    async def _utterance(self, ev: Any) -> None:
        """A caption becomes a transcript utterance once the persona has finished saying it."""
        clock = self.client.session.clock
        self._participant("speech_start")
        # A caption comes as the persona starts; start and end are on the harness's clock, so the wait is
        # the utterance's length (as the built-in agents wait), not a time on this side's clock.
        duration = max(0.0, ev.end - ev.start) if ev.start is not None and ev.end is not None else 0.0
        await clock.sleep(duration)
        self._participant("speech_stop")
        start = ev.start if ev.start is not None else 0.0
        end = start + duration
        p = self.api.persona
        utterance = {"speaker_name": p["name"], "speaker_uuid": p["uuid"], "speaker_user_uuid": None,
                     "speaker_is_host": True, "timestamp_ms": int(start * 1000),
                     "duration_ms": int(max(0.0, end - start) * 1000),
                     "transcription": {"transcript": ev.text, "words": None}}  # fmt: skip
        self.transcript.append(utterance)
        self.webhook("transcript.update", utterance)

    async def _send_audio(self, pcm48: bytes) -> None:
        for sock in self.sockets:
            if sock.ws is None:
                continue
            data: dict[str, Any] = {"chunk": base64.b64encode(downsample(pcm48, sock.sample_rate)).decode(),
                                    "sample_rate": sock.sample_rate, "timestamp_ms": int(time.time() * 1000)}
            if sock.trigger == "realtime_audio.per_participant":
                p = self.api.persona
                data.update(participant_uuid=p["uuid"], participant_user_uuid=None, participant_name=p["name"],
                            participant_is_host=True)  # fmt: skip
            try:
                await sock.ws.send(json.dumps({"bot_id": self.id, "trigger": sock.trigger, "data": data}))
            except ConnectionClosed:
                sock.ws = None

    async def _read_socket(self, sock: AudioSocket) -> None:
        """``realtime_audio.bot_output`` from the bot's websocket: its audio, played into the meeting."""
        from modylbench.personas import resample_s16

        assert sock.ws is not None
        try:
            async for raw in sock.ws:
                try:
                    msg = json.loads(raw)
                    data = msg["data"]
                    rate = int(data.get("sample_rate", 16000))
                    if msg.get("trigger") != "realtime_audio.bot_output" or rate not in SAMPLE_RATES:
                        raise ValueError("not realtime_audio.bot_output at 8000, 16000 or 24000 Hz")
                    pcm = base64.b64decode(str(data["chunk"]), validate=True)
                except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
                    self.refused_audio += 1
                    continue
                pcm = pcm[: len(pcm) // 2 * 2]
                if pcm and self.client is not None and not self.client.over:
                    self.client.session.audio.play(resample_s16(pcm, rate, MEETING_RATE))
        except ConnectionClosed:
            pass
        finally:
            sock.ws = None

    async def _leave(self) -> None:
        self._participant("leave")
        if self.state not in ("leaving", "ended", "fatal_error"):
            self.change_state("leaving", "meeting_ended")  # POST leave set "leaving" itself
        for sock in self.sockets:
            if sock.ws is not None:
                with contextlib.suppress(Exception):
                    await sock.ws.close()
        if self.client is not None:
            await self.client.leave()
        self.change_state("post_processing", "bot_left_meeting")
        self.change_state("ended", "post_processing_completed")
        # The last webhooks (the end) are delivered before the bot's tasks stop.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(h.queue.join() for h in self.webhooks)), WEBHOOK_TIMEOUT * 2)
        await self.tasks.aclose()

    # ---------------------------------------------------------------- actions the bot asks for

    def _in_meeting(self) -> Any:
        if self.client is None or self.state != "joined_recording" or self.client.over:
            raise ApiError(400, f"the bot is {self.state}, not in the meeting")
        return self.client

    async def send_chat(self, body: dict[str, Any]) -> None:
        text = body.get("message")
        if not isinstance(text, str) or not text.strip():
            raise ApiError(400, "message: a non-empty string is required")
        if len(text) > MAX_CHAT_CHARS:
            raise ApiError(400, f"message: at most {MAX_CHAT_CHARS} characters")
        await self._in_meeting().chat(text)

    async def speech(self, body: dict[str, Any]) -> None:
        text = body.get("text")
        if not isinstance(text, str) or not text.strip():
            raise ApiError(400, "text: a non-empty string is required")
        if len(text) > MAX_SPEECH_CHARS:
            raise ApiError(400, f"text: at most {MAX_SPEECH_CHARS} characters")
        client = self._in_meeting()
        pcm = await asyncio.to_thread(client.session.synthesize, text)
        await client.say(text, pcm)

    async def output_audio(self, body: dict[str, Any]) -> None:
        if body.get("type") != "audio/mp3" or not isinstance(body.get("data"), str):
            raise ApiError(400, "type must be audio/mp3 and data base64 MP3")
        client = self._in_meeting()
        pcm = await asyncio.to_thread(_decode_mp3, body["data"])
        client.session.audio.play(pcm)

    async def declare(self, body: dict[str, Any]) -> None:
        """ModylBench extension: the words of audio the bot already sent (no audio of their own)."""
        text = body.get("text")
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_SPEECH_CHARS:
            raise ApiError(400, f"text: a non-empty string of at most {MAX_SPEECH_CHARS} characters")
        await self._in_meeting().say(text, b"")

    async def edit(self, body: dict[str, Any]) -> None:
        """ModylBench extension: set a value in a product of the shared document (JSON pointer)."""
        client = self._in_meeting()
        pid, pointer = body.get("product_id"), body.get("pointer", "")
        if not isinstance(pid, str) or not isinstance(pointer, str) or "value" not in body:
            raise ApiError(400, "product_id (string), pointer (JSON pointer) and value are required")
        try:
            if pid not in self.doc.products():
                self.doc.create_product(pid, str(body.get("output_type", "kv")), pid, {} if pointer else body["value"])
            if pointer:
                self.doc.set(pid, pointer, body["value"])
            elif pid in self.doc.products():
                self.doc.create_product(pid, str(body.get("output_type", "kv")), pid, body["value"])
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise ApiError(400, f"cannot edit {pid}{pointer}: {exc}") from None
        for msg in self.doc.take_outbox():
            await client.send_doc(msg)


def _post(url: str, body: bytes, headers: dict[str, str]) -> bool:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=WEBHOOK_TIMEOUT) as response:  # noqa: S310 - http(s) only, checked
            response.read(64 * 1024)
            return 200 <= response.status < 300
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _decode_mp3(data_b64: str) -> bytes:
    """Base64 MP3 to 48 kHz mono s16 (PyAV's bundled FFmpeg), in a worker thread."""
    import io

    import av

    try:
        raw = base64.b64decode(data_b64, validate=True)
        out = bytearray()
        with av.open(io.BytesIO(raw), format="mp3", mode="r") as container:
            resampler = av.AudioResampler(format="s16", layout="mono", rate=MEETING_RATE)
            for frame in container.decode(audio=0):
                for f in resampler.resample(frame):
                    out += f.to_ndarray().tobytes()
                if len(out) > 600 * MEETING_RATE * 2:
                    raise ApiError(400, "data: more than 10 minutes of audio")
        return bytes(out)
    except ApiError:
        raise
    except Exception as exc:  # noqa: BLE001 - FFmpeg's errors are many; any of them is bad input
        raise ApiError(400, f"data: not decodable MP3 ({type(exc).__name__})") from None


class BotApi:
    """The REST server of ``serve --bot-api`` for one meeting (one bot: the meeting has one agent seat)."""

    def __init__(self, join_url: str, token: str, persona_name: str, host: str = "127.0.0.1", port: int = 0) -> None:
        self.join_url, self.token, self.host, self.port = join_url, token, host, port
        self.persona = {"name": persona_name, "uuid": "persona-" + hashlib.sha256(persona_name.encode()).hexdigest()[:12]}
        self.webhook_secret = base64.b64encode(secrets.token_bytes(32)).decode()
        self.bot: Bot | None = None
        self._server: asyncio.Server | None = None
        self._slots = asyncio.Semaphore(MAX_CONNECTIONS)
        self._run: asyncio.Future[None] | None = None
        self._owner = TaskOwner("bot-api", quiet=True)  # the bot's run: bot_done reads its result
        self._created = asyncio.Event()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def start(self) -> BotApi:
        self._server = await asyncio.start_server(self._connection, self.host, self.port, limit=MAX_HEAD)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def close(self) -> None:
        if self._run is not None and not self._run.done():
            await asyncio.wait({self._run}, timeout=WEBHOOK_TIMEOUT * 3)
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()

    async def bot_joined(self) -> str:
        """Wait until a bot has been created and has joined the meeting; its id."""
        await self._created.wait()
        assert self.bot is not None
        await self.bot.joined.wait()
        return self.bot.id

    async def bot_done(self) -> None:
        """Wait until the bot has left and its last webhooks are out (or it never came)."""
        if self._run is not None:
            await asyncio.gather(self._run, return_exceptions=True)

    # ---------------------------------------------------------------- HTTP

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._slots.locked():
            await self._respond(writer, 503, {"error": "too many requests at once"})
            return
        async with self._slots:
            try:
                status, payload = await self._request(reader)
            except ApiError as exc:
                status, payload = exc.status, {"error": str(exc)}
            except Exception:  # noqa: BLE001 - one bad request never stops the API
                logger.exception("bot API: request failed")
                status, payload = 500, {"error": "internal error"}
            await self._respond(writer, status, payload)

    async def _respond(self, writer: asyncio.StreamWriter, status: int, payload: Any) -> None:
        from http import HTTPStatus

        body = b"" if payload is None else json.dumps(payload).encode()
        head = (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n")
        with contextlib.suppress(ConnectionError, OSError):
            writer.write(head.encode() + body)
            await writer.drain()
            writer.close()

    async def _request(self, reader: asyncio.StreamReader) -> tuple[int, Any]:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10.0)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError):
            raise ApiError(400, f"a request line and headers of at most {MAX_HEAD} bytes") from None
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3:
            raise ApiError(400, "not an HTTP request")
        method, target = parts[0], parts[1]
        headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:] if ":" in x)}
        length = headers.get("content-length", "0")
        if not length.isdigit():
            raise ApiError(400, "Content-Length: a number is required (chunked bodies are not accepted)")
        if int(length) > MAX_BODY:
            raise ApiError(413, f"a body of at most {MAX_BODY} bytes")
        try:
            body = await asyncio.wait_for(reader.readexactly(int(length)), 60.0)
        except (asyncio.IncompleteReadError, TimeoutError):
            raise ApiError(400, "the body ended before Content-Length") from None
        auth = headers.get("authorization", "")
        scheme, _, given = auth.partition(" ")
        if scheme != "Token" or not hmac.compare_digest(given.strip().encode(), self.token.encode()):
            raise ApiError(401, "Authorization: Token <the meeting's token> is required")
        path = urlsplit(target).path.rstrip("/")
        return await self._route(method, path, body)

    async def _json(self, body: bytes) -> dict[str, Any]:
        try:
            data = json.loads(body) if len(body) <= MAX_JSON_ON_LOOP else await asyncio.to_thread(json.loads, body)
        except (ValueError, RecursionError):
            raise ApiError(400, "the body is not JSON") from None
        if not isinstance(data, dict):
            raise ApiError(400, "the body is not a JSON object")
        return data

    def _bot(self, bot_id: str) -> Bot:
        if self.bot is None or not hmac.compare_digest(bot_id, self.bot.id):
            raise ApiError(404, "Bot not found")
        return self.bot

    async def _route(self, method: str, path: str, body: bytes) -> tuple[int, Any]:
        seg = path.split("/")[1:]
        if seg[:3] != ["api", "v1", "bots"]:
            raise ApiError(404, f"no such endpoint {path or '/'} (the bot API is under /api/v1/bots)")
        rest = seg[3:]
        if not rest:
            if method == "POST":
                return 201, await self._create(await self._json(body))
            if method == "GET":
                return 200, {"next": None, "previous": None, "results": [self.bot.as_json()] if self.bot else []}
            raise ApiError(405, f"{method} {path}: use GET or POST")
        bot = self._bot(rest[0])
        action = "/".join(rest[1:])
        if action == "" and method == "GET":
            return 200, bot.as_json()
        if action == "" or action in NOT_IMPLEMENTED:
            raise ApiError(501, f"{method} {path}: not implemented by ModylBench's bot API (docs/integrations.md)")
        gets = {"transcript": lambda: bot.transcript,
                "chat_messages": lambda: {"next": None, "previous": None, "results": bot.chat},
                "participants": lambda: [{"id": "par_0", "name": self.persona["name"], "uuid": self.persona["uuid"],
                                          "user_uuid": None, "is_host": True}],
                "participant_events": lambda: {"next": None, "previous": None, "results": bot.participant_events},
                "modylbench/products": lambda: bot.doc.products() if bot.doc is not None else {},
                "modylbench/briefing": lambda: _briefing_json(bot.briefing),
                "modylbench/files": lambda: [{"id": i, "name": f.name, "media_type": f.media_type, "size": len(f.data)}
                                             for i, f in enumerate(bot.files)]}  # fmt: skip
        if method == "GET" and action in gets:
            return 200, gets[action]()
        if method == "GET" and action.startswith("modylbench/files/"):
            index = action.rsplit("/", 1)[1]
            if not index.isdigit() or int(index) >= len(bot.files):
                raise ApiError(404, "File not found")
            f = bot.files[int(index)]
            return 200, {"id": int(index), "name": f.name, "media_type": f.media_type,
                         "data": base64.b64encode(f.data).decode()}  # fmt: skip
        posts = {"send_chat_message": bot.send_chat, "speech": bot.speech, "output_audio": bot.output_audio,
                 "modylbench/transcript": bot.declare, "modylbench/edit": bot.edit}  # fmt: skip
        if method == "POST" and action in posts:
            await posts[action](await self._json(body))
            return 200, None
        if method == "POST" and action == "leave":
            if bot.client is None or bot.state != "joined_recording":
                raise ApiError(400, f"the bot is {bot.state}, not in the meeting")
            bot.change_state("leaving", "leave_requested")
            await bot.client.leave()
            return 200, bot.as_json()
        raise ApiError(404, f"{method} {path}: no such endpoint")

    async def _create(self, body: dict[str, Any]) -> dict[str, Any]:
        if self.bot is not None:
            raise ApiError(409, f"this meeting already has its bot ({self.bot.id}): one agent seat")
        meeting_url = body.get("meeting_url")
        if not isinstance(meeting_url, str) or meeting_url.rstrip("/") != self.join_url.rstrip("/"):
            raise ApiError(400, f"meeting_url: this server hosts one meeting, {self.join_url}")
        hooks = body.get("webhooks") or []
        if not isinstance(hooks, list) or len(hooks) > MAX_WEBHOOKS or not all(isinstance(h, dict) for h in hooks):
            raise ApiError(400, f"webhooks: a list of at most {MAX_WEBHOOKS} objects with url and triggers")
        ws = body.get("websocket_settings") or {}
        if not isinstance(ws, dict) or not all(isinstance(v, dict) for v in ws.values()):
            raise ApiError(400, "websocket_settings: an object of objects")
        self.bot = Bot(self, body)
        self._run = self._owner.start(self.bot.run(), "bot")
        self._created.set()
        return self.bot.as_json()


def persona_name(scenario: Any) -> str:
    """The name the bot sees as the meeting's host (a persona given as one line of text: that line, cut)."""
    persona = scenario.human_persona
    name = getattr(persona, "name", None)
    return str(name if name else persona).split(",")[0].strip()[:100] or "Host"


def _briefing_json(briefing: Any) -> Any:
    if briefing is None:
        return None
    import dataclasses

    if dataclasses.is_dataclass(briefing) and not isinstance(briefing, type):
        return dataclasses.asdict(briefing)
    return briefing


class BotApiThread:
    """``BotApi`` on an event loop of its own, in a thread: the bot's audio, webhooks, request parsing and its
    WebRTC agent side are never a task on the meeting's loop, which paces the persona's media (they still share
    the process's GIL; ``benchmarks/bench_bot_api.py --same-loop`` measures the difference)."""

    def __init__(self, join_url: str, token: str, persona_name: str, host: str = "127.0.0.1", port: int = 0) -> None:
        self._args = (join_url, token, persona_name, host, port)
        self.api: BotApi | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def base_url(self) -> str:
        assert self.api is not None
        return self.api.base_url

    @property
    def webhook_secret(self) -> str:
        assert self.api is not None
        return self.api.webhook_secret

    async def start(self) -> BotApiThread:
        self._thread = threading.Thread(target=self._main, name="bot-api", daemon=True)
        self._thread.start()
        await asyncio.to_thread(self._ready.wait, 30.0)
        if self._error is not None:
            raise self._error
        return self

    def _main(self) -> None:
        loop = self._loop = asyncio.new_event_loop()
        try:
            self.api = loop.run_until_complete(BotApi(*self._args).start())
        except BaseException as exc:  # noqa: BLE001 - handed to start(), in the caller's loop
            self._error = exc
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    async def _call(self, coro: Any) -> Any:
        assert self._loop is not None
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    async def bot_done(self) -> None:
        """Wait until the bot has left and its last webhooks are out (or it never came)."""
        assert self.api is not None
        await self._call(self.api.bot_done())

    async def bot_joined(self) -> str:
        """Wait until a bot has been created and has joined the meeting; its id."""
        assert self.api is not None
        return str(await self._call(self.api.bot_joined()))

    async def close(self) -> None:
        if self.api is None or self._loop is None or self._thread is None:
            return
        await self._call(self.api.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        await asyncio.to_thread(self._thread.join, 10.0)
