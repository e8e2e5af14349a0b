"""The browser side of a served meeting: one 127.0.0.1 server for the page, WebRTC signaling,
the y-websocket shared document and a feed of the meeting's events for the page and observers.

Paths (tokens never appear in the page URL's query: the page reads them from its fragment):
``/`` the page; ``/static/<dir>/<file>`` its assets; ``/meetings/<id>`` signaling (docs/protocol.md);
``/doc/<id>?token=`` y-websocket; ``/feed/<id>?token=`` event feed; ``/api/<id>/<name>`` results,
with ``Authorization: Bearer``. The meeting token makes an editor, the observer token an observer.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import re
import secrets
from collections import deque
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from modylbench.channels._signaling import SignalingServer, WebRTCMeeting
from modylbench.channels._ywebsocket import YWebsocketHub

logger = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,100}$")
_SHA = re.compile(r"^[0-9a-f]{64}$")
FEED_HISTORY = 2000
"""Feed messages kept for pages that connect late."""
FEED_QUEUE = 1000
"""Feed messages queued for one page before it is cut off as too slow."""
MAX_FEED_TEXT = 4000
"""Characters of any text field passed to the feed."""
MAX_FEED_CLIENTS = 32
_DROPPED_FIELDS = {"update", "state", "audio", "traceback", "attachment"}
_SKIPPED_EVENTS = {"doc_update", "doc_snapshot"}

Role = Literal["editor", "observer"]


class MeetingFeed:
    """What happens in the meeting, as small JSON messages, for the page (scorecard) and observers."""

    def __init__(self) -> None:
        self.history: deque[dict[str, Any]] = deque(maxlen=FEED_HISTORY)
        self.subscribers: list[asyncio.Queue[dict[str, Any] | None]] = []
        self.screens: set[str] = set()
        """Attachment hashes of screen frames (the only attachments the feed lets pages fetch)."""

    def publish(self, msg: dict[str, Any]) -> None:
        self.history.append(msg)
        for q in list(self.subscribers):
            if q.qsize() >= FEED_QUEUE - 1:
                # Too slow a reader: end its stream (the sentinel still fits) rather than grow memory.
                self.subscribers.remove(q)
                q.put_nowait(None)
            else:
                q.put_nowait(msg)

    def on_event(self, event: Any) -> None:
        """``MeetingOptions.on_event``: forward a recorded event, without its bulky fields."""
        name = getattr(event, "event", "")
        if name in _SKIPPED_EVENTS:
            return
        data = event.model_dump(mode="json")
        image = data.pop("image", None)
        if name == "screen_frame" and isinstance(image, dict) and _SHA.match(str(image.get("sha256", ""))):
            self.screens.add(image["sha256"])
            data["image_sha256"] = image["sha256"]
        out = {k: (v[:MAX_FEED_TEXT] if isinstance(v, str) else v) for k, v in data.items() if k not in _DROPPED_FIELDS}
        self.publish({"type": "event", **out})

    def close(self) -> None:
        """End every subscriber's stream (the server is going away)."""
        for q in self.subscribers:
            while q.full():
                q.get_nowait()
            q.put_nowait(None)
        self.subscribers.clear()

    async def serve(self, ws: ServerConnection) -> None:
        if len(self.subscribers) >= MAX_FEED_CLIENTS:
            await ws.close(1013, "too many feed clients")
            return
        q: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(FEED_QUEUE)
        backlog = list(self.history)
        self.subscribers.append(q)
        try:
            for msg in backlog:
                await ws.send(json.dumps(msg))
            while (item := await q.get()) is not None:
                await ws.send(json.dumps(item))
            await ws.close(1001, "server closing")
        except ConnectionClosed:
            pass
        finally:
            if q in self.subscribers:
                self.subscribers.remove(q)


@dataclass
class WebMeeting:
    """A meeting's browser-facing parts."""

    meeting: WebRTCMeeting
    observer_token: str
    folder: Path
    info: dict[str, Any]
    hub: YWebsocketHub = field(default_factory=YWebsocketHub)
    feed: MeetingFeed = field(default_factory=MeetingFeed)
    results: dict[str, tuple[bytes, str]] = field(default_factory=dict)
    """Downloads published after the meeting: name → (bytes, content type)."""
    page_url: str = ""
    observer_url: str = ""

    def role(self, token: str) -> Role | None:
        """Which role ``token`` grants, compared in constant time."""
        if token and hmac.compare_digest(token.encode(), self.meeting.token.encode()):
            return "editor"
        if token and hmac.compare_digest(token.encode(), self.observer_token.encode()):
            return "observer"
        return None


def _response(status: HTTPStatus, body: bytes, content_type: str) -> Response:
    headers = Headers([
        ("Content-Type", content_type),
        ("Content-Length", str(len(body))),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' blob: data:; "
                                    "media-src 'self' blob: mediastream:; style-src 'self'; frame-ancestors 'none'"),
        ("Connection", "close"),
    ])  # fmt: skip
    return Response(status.value, status.phrase, headers, body)


class WebServer(SignalingServer):
    """``SignalingServer`` plus the meeting page, y-websocket and the event feed on the same port."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, static: Path = STATIC) -> None:
        super().__init__(host, port)
        self.static = static.resolve()
        self.web: dict[str, WebMeeting] = {}

    def add_web(self, meeting: WebRTCMeeting, folder: Path, info: dict[str, Any] | None = None) -> WebMeeting:
        """Give ``meeting`` a page, an observer token, a y-websocket hub and a feed.

        ``info`` must be plain JSON: it is encoded here, so a value that is not fails at start-up
        rather than as an HTTP 500 on every request for it.
        """
        encoded = json.dumps(dict(info or {}))
        wm = WebMeeting(meeting, secrets.token_urlsafe(24), folder, json.loads(encoded),
                        hub=YWebsocketHub(clock=meeting.clock))
        base = f"http://{self.host}:{self.port}/"
        wm.page_url = f"{base}#meeting={meeting.meeting_id}&token={meeting.token}"
        wm.observer_url = f"{base}#meeting={meeting.meeting_id}&observer={wm.observer_token}"
        self.web[meeting.meeting_id] = wm
        return wm

    async def close(self) -> None:
        for wm in self.web.values():
            wm.hub.detach()
            wm.feed.close()
            for client in list(wm.hub.clients):
                await client.ws.close(1001, "server closing")
        await super().close()

    # ---------------------------------------------------------------- HTTP side

    def _check(self, connection: ServerConnection, request: Request) -> Response | None:
        parts = urlsplit(request.path)
        segs = [s for s in parts.path.split("/") if s]
        if segs[:1] == ["meetings"]:
            return super()._check(connection, request)
        if len(segs) == 2 and segs[0] in ("doc", "feed"):
            wm = self.web.get(segs[1])
            if wm is None:
                return _response(HTTPStatus.NOT_FOUND, b"unknown meeting\n", CONTENT_TYPES[".txt"])
            token = parse_qs(parts.query).get("token", [""])[0]
            if wm.role(token) is None:
                self.refused.append((parts.path[:200], "bad token"))
                return _response(HTTPStatus.UNAUTHORIZED, b"missing or wrong token\n", CONTENT_TYPES[".txt"])
            return None
        if "upgrade" in request.headers.get("Connection", "").lower():
            return _response(HTTPStatus.NOT_FOUND, b"no websocket here\n", CONTENT_TYPES[".txt"])
        if len(segs) >= 3 and segs[0] == "api":
            return self._api(segs[1], segs[2:], request)
        return self._static(segs)

    def _static(self, segs: list[str]) -> Response:
        if not segs:
            segs = ["static", "web", "index.html"]
        if len(segs) != 3 or segs[0] != "static" or not all(_NAME.match(s) for s in segs[1:]):
            return _response(HTTPStatus.NOT_FOUND, b"not found\n", CONTENT_TYPES[".txt"])
        path = (self.static / segs[1] / segs[2]).resolve()
        ctype = CONTENT_TYPES.get(path.suffix)
        if ctype is None or not path.is_relative_to(self.static) or not path.is_file():
            return _response(HTTPStatus.NOT_FOUND, b"not found\n", CONTENT_TYPES[".txt"])
        return _response(HTTPStatus.OK, path.read_bytes(), ctype)

    def _api(self, meeting_id: str, rest: list[str], request: Request) -> Response:
        wm = self.web.get(meeting_id)
        auth = request.headers.get("Authorization", "")
        if wm is None:
            return _response(HTTPStatus.NOT_FOUND, b"unknown meeting\n", CONTENT_TYPES[".txt"])
        if wm.role(auth[7:] if auth.startswith("Bearer ") else "") is None:
            return _response(HTTPStatus.UNAUTHORIZED, b"missing or wrong token\n", CONTENT_TYPES[".txt"])
        if rest[0] == "info" and len(rest) == 1:
            return _response(HTTPStatus.OK, json.dumps(wm.info).encode(), "application/json")
        if rest[0] == "screen" and len(rest) == 2 and rest[1] in wm.feed.screens:
            path = wm.folder / "attachments" / rest[1]
            if path.is_file():
                return _response(HTTPStatus.OK, path.read_bytes(), "image/png")
        if len(rest) == 1 and rest[0] in wm.results:
            body, ctype = wm.results[rest[0]]
            return _response(HTTPStatus.OK, body, ctype)
        return _response(HTTPStatus.NOT_FOUND, b"not found\n", CONTENT_TYPES[".txt"])

    # ---------------------------------------------------------------- websockets

    async def _handle(self, ws: ServerConnection) -> None:
        parts = urlsplit(ws.request.path if ws.request else "")
        segs = [s for s in parts.path.split("/") if s]
        if segs[:1] == ["meetings"]:
            await super()._handle(ws)
            return
        wm = self.web.get(segs[1]) if len(segs) == 2 else None
        role = wm.role(parse_qs(parts.query).get("token", [""])[0]) if wm else None
        if wm is None or role is None:
            await ws.close(1008, "not allowed")
            return
        if segs[0] == "doc":
            await wm.hub.serve(ws, role)
        else:
            await wm.feed.serve(ws)
