"""A real local HTTP server speaking the OpenAI ``/v1/audio/transcriptions`` API (multipart in, JSON out).

It "recognises" deterministically: the text configured for the audio's SHA-256, else ``default_text``
(``None``: an empty transcription). Scripted faults play before that: an HTTP status, a delay, a raw
body (garbage). Every request is parsed for real (multipart/form-data) and kept in ``requests``.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_BODY = 32 * 1024 * 1024


@dataclass
class Fault:
    """One scripted misbehaviour, played instead of a transcription."""

    status: int = 200
    delay_s: float = 0.0
    raw_body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    declare_length: bool = True
    """False: no Content-Length, the body ends when the connection closes (a server that streams its answer)."""


@dataclass
class Transcriber:
    """What the server answers: faults first (in order), then texts by audio hash, else ``default_text``."""

    texts: dict[str, str] = field(default_factory=dict)
    default_text: str | None = None
    faults: list[Fault] = field(default_factory=list)
    always: Fault | None = None
    """Played for every request once ``faults`` are used up (a server that is down, slow or broken)."""
    delay_s: float = 0.0
    """Delay before every answer (a slow model)."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_fault(self) -> Fault | None:
        with self.lock:
            if self.faults:
                return self.faults.pop(0)
            return self.always


def parse_multipart(content_type: str, body: bytes) -> dict[str, tuple[str | None, bytes]]:
    """Form fields of a multipart/form-data body: name -> (file name or None, bytes)."""
    msg = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    if not msg.is_multipart():
        raise ValueError("not multipart")
    out: dict[str, tuple[str | None, bytes]] = {}
    for part in msg.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str):
            raise ValueError("a part without a name")
        payload = part.get_payload(decode=True)
        out[name] = (part.get_filename(), payload if isinstance(payload, bytes) else b"")
    return out


@contextmanager
def transcription_server(t: Transcriber) -> Iterator[str]:
    """Serve ``t`` on 127.0.0.1; yields the base URL (ending in /v1)."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            return

        def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None,
                  declare_length: bool = True) -> None:  # fmt: skip
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                if declare_length:
                    self.send_header("content-length", str(len(payload)))
                else:
                    self.close_connection = True
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            length = int(self.headers.get("content-length", "0"))
            if self.path.rstrip("/") != "/v1/audio/transcriptions" or length > MAX_BODY:
                self._send(404 if length <= MAX_BODY else 413, b'{"error": {"message": "no"}}')
                return
            body = self.rfile.read(length)
            try:
                form = parse_multipart(self.headers.get("content-type", ""), body)
                filename, audio = form["file"]
                model = form["model"][1].decode()
            except (KeyError, ValueError) as exc:
                self._send(400, json.dumps({"error": {"message": f"bad form: {exc}"}}).encode())
                return
            sha = hashlib.sha256(audio).hexdigest()
            with t.lock:
                t.requests.append({"model": model, "filename": filename, "sha256": sha, "size": len(audio),
                                   "fields": sorted(form)})  # fmt: skip
            fault = t.next_fault()
            delay = t.delay_s + (fault.delay_s if fault else 0.0)
            if delay:
                time.sleep(delay)  # the server plays a slow model
            if fault is not None and (fault.status != 200 or fault.raw_body is not None):
                payload = fault.raw_body if fault.raw_body is not None else json.dumps(
                    {"error": {"message": f"scripted {fault.status}", "type": "server_error"}}).encode()
                self._send(fault.status, payload, fault.headers, fault.declare_length)
                return
            text = t.texts.get(sha, t.default_text or "")
            self._send(200, json.dumps({"text": text}).encode())

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
