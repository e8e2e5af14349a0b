"""A real local HTTP server speaking the OpenAI chat-completions API, playing scripted answers: plain JSON, or
server-sent events when the request asks for ``stream`` (text and tool calls in deltas, as OpenAI sends them).
With ``Script.speak`` / ``Script.transcribe`` set it also serves ``audio/speech`` (text in, 24 kHz PCM or WAV out)
and ``audio/transcriptions`` (a multipart WAV in, JSON text out), so a voice pipeline runs against it offline."""

from __future__ import annotations

import io
import json
import threading
import time
import wave
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .transcription_server import MAX_BODY, parse_multipart

SPEECH_RATE = 24_000
"""OpenAI's speech output: 24 kHz mono s16 (``pcm``; ``wav`` is the same samples with a header)."""
SPEECH_FORMATS = {"pcm": "audio/pcm", "wav": "audio/wav"}

@dataclass
class Answer:
    """One scripted reply: HTTP status, JSON body fields, headers, delay before answering."""

    content: str | None = None
    status: int = 200
    finish_reason: str = "stop"
    refusal: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    raw_body: bytes | None = None
    tool_calls: list[dict[str, Any]] | None = None
    """OpenAI-shaped calls ``{"id", "type": "function", "function": {"name", "arguments"}}`` (see ``tool_call``)."""


def tool_call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """One tool call as the API sends it (arguments as JSON text)."""
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def good(dims: dict[str, float], rationale: str = "fine") -> Answer:
    return Answer(content=json.dumps({**dims, "rationale": rationale}))


@dataclass
class Script:
    """Answers served in order; ``default`` once they run out. ``requests`` holds every request body."""

    answers: list[Answer] = field(default_factory=list)
    default: Answer | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    in_flight: int = 0
    max_in_flight: int = 0
    reply: Callable[[dict[str, Any]], Answer] | None = None
    """When set, answers every request from its body (a model that reads the conversation); else ``answers``."""
    delay_s: float = 0.0
    """Seconds every request takes before its answer (a slow model), on top of the answer's own ``delay_s``."""
    speak: Callable[[str], bytes] | None = None
    """When set, ``audio/speech`` answers with this voice: text -> 24 kHz mono s16 PCM."""
    transcribe: Callable[[bytes], str] | None = None
    """When set, ``audio/transcriptions`` answers with this recogniser: the uploaded file's bytes -> text."""
    speech_requests: list[dict[str, Any]] = field(default_factory=list)
    """Every ``audio/speech`` body."""
    transcriptions: list[dict[str, Any]] = field(default_factory=list)
    """Every ``audio/transcriptions`` request: model, file name, size, the text answered."""

    def enter(self) -> None:
        with self.lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def leave(self) -> None:
        with self.lock:
            self.in_flight -= 1

    def next(self, body: dict[str, Any]) -> Answer:
        with self.lock:
            self.requests.append(body)
            if self.reply is not None:
                return self.reply(body)
            if self.answers:
                return self.answers.pop(0)
            if self.default is None:
                return Answer(status=500, content="script exhausted")
            return self.default


def _completion(model: str, a: Answer) -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "finish_reason": a.finish_reason,
                    "message": {
                        "role": "assistant",
                        "content": a.content,
                        "refusal": a.refusal,
                        **({"tool_calls": a.tool_calls} if a.tool_calls else {}),
                    },
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    ).encode()


def _stream_events(model: str, a: Answer) -> Iterator[bytes]:
    """The answer as chat.completion.chunk server-sent events: role, content in pieces, each tool call as a
    name delta then argument deltas, the finish reason, usage, [DONE]."""

    def event(delta: dict[str, Any] | None, finish: str | None = None, usage: bool = False) -> bytes:
        chunk: dict[str, Any] = {
            "id": "chatcmpl-test",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [],
        }
        if delta is not None:
            chunk["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]
        if usage:
            chunk["usage"] = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        return b"data: " + json.dumps(chunk).encode() + b"\n\n"

    yield event({"role": "assistant", "content": ""})
    text = a.content or ""
    for i in range(0, len(text), 16):
        yield event({"content": text[i : i + 16]})
    for index, call in enumerate(a.tool_calls or []):
        fn = call["function"]
        yield event(
            {
                "tool_calls": [
                    {
                        "index": index,
                        "id": call["id"],
                        "type": "function",
                        "function": {"name": fn["name"], "arguments": ""},
                    }
                ]
            }
        )
        args = fn["arguments"]
        for i in range(0, len(args), 24):
            yield event({"tool_calls": [{"index": index, "function": {"arguments": args[i : i + 24]}}]})
    yield event({}, "tool_calls" if a.tool_calls else a.finish_reason)
    yield event(None, usage=True)
    yield b"data: [DONE]\n\n"


@contextmanager
def openai_server(script: Script) -> Iterator[str]:
    """Serve ``script`` on 127.0.0.1; yields the base URL (ending in /v1)."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            return

        def _reply(self, status: int, payload: bytes, content_type: str = "application/json") -> None:
            try:
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("x-request-id", f"req-{threading.get_ident()}-{time.monotonic_ns()}")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _error(self, status: int, message: str) -> None:
            self._reply(status, json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode())

        def _speech(self, body: dict[str, Any]) -> None:
            if script.speak is None:
                self._error(404, "no voice served")
                return
            fmt = body.get("response_format", "mp3")
            with script.lock:
                script.speech_requests.append(body)
            if fmt not in SPEECH_FORMATS:
                self._error(400, f"response_format {fmt!r} is not served here: {', '.join(SPEECH_FORMATS)}")
                return
            pcm = script.speak(str(body.get("input", "")))
            if fmt == "wav":
                out = io.BytesIO()
                with wave.open(out, "wb") as w:
                    w.setnchannels(1)
                    w.setsampwidth(2)
                    w.setframerate(SPEECH_RATE)
                    w.writeframes(pcm)
                pcm = out.getvalue()
            self._reply(200, pcm, SPEECH_FORMATS[fmt])

        def _transcription(self, length: int) -> None:
            if script.transcribe is None or length > MAX_BODY:
                self._error(404 if length <= MAX_BODY else 413, "no recogniser served")
                return
            try:
                form = parse_multipart(self.headers.get("content-type", ""), self.rfile.read(length))
                filename, audio = form["file"]
                model = form["model"][1].decode()
            except (KeyError, ValueError) as exc:
                self._error(400, f"bad form: {exc}")
                return
            text = script.transcribe(audio)
            with script.lock:
                script.transcriptions.append({"model": model, "filename": filename, "size": len(audio), "text": text})
            self._reply(200, json.dumps({"text": text}).encode())

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            length = int(self.headers.get("content-length", "0"))
            path = self.path.rstrip("/")
            if path == "/v1/audio/transcriptions":
                self._transcription(length)
                return
            body = json.loads(self.rfile.read(length) or b"{}")
            if path == "/v1/audio/speech":
                self._speech(body)
                return
            if path != "/v1/chat/completions":
                self.send_response(404)
                self.end_headers()
                return
            script.enter()
            try:
                a = script.next(body)
                if a.delay_s + script.delay_s:
                    time.sleep(a.delay_s + script.delay_s)  # the server plays a slow model
            finally:
                script.leave()
            if a.status == 200 and a.raw_body is None and body.get("stream"):
                try:
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.end_headers()
                    for chunk in _stream_events(body.get("model", "m"), a):
                        self.wfile.write(chunk)
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass
                self.close_connection = True  # no length was sent: the stream ends with the connection
                return
            payload = (
                a.raw_body
                if a.raw_body is not None
                else (
                    _completion(body.get("model", "m"), a)
                    if a.status == 200
                    else json.dumps(
                        {"error": {"message": a.content or "error", "type": "server_error"}}
                    ).encode()
                )
            )
            try:
                self.send_response(a.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                for k, v in a.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
