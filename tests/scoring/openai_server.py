"""A real local HTTP server speaking the OpenAI chat-completions API, playing scripted answers."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


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
                    "message": {"role": "assistant", "content": a.content, "refusal": a.refusal},
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    ).encode()


@contextmanager
def openai_server(script: Script) -> Iterator[str]:
    """Serve ``script`` on 127.0.0.1; yields the base URL (ending in /v1)."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            return

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            length = int(self.headers.get("content-length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path.rstrip("/") != "/v1/chat/completions":
                self.send_response(404)
                self.end_headers()
                return
            script.enter()
            try:
                a = script.next(body)
                if a.delay_s:
                    time.sleep(a.delay_s)  # the server plays a slow model
            finally:
                script.leave()
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
