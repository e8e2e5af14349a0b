"""A meeting bot written against Attendee's documented API (REST, webhooks, realtime audio websocket), using
only the standard library and ``websockets``. Point it at Attendee's server or, unchanged but for the base URL,
at a ModylBench meeting started with ``modylbench serve SCENARIO --bot-api``:

    python examples/attendee_bot.py --api http://127.0.0.1:8766 --token=TOKEN --meeting-url MEETING_URL

It creates a bot for the meeting with a webhook (served here, on 127.0.0.1) and a websocket for the meeting's
mixed audio at 16 kHz (served here too: Attendee connects to it). On every ``transcript.update`` it answers
out loud (``POST /speech``) and in the chat (``POST /send_chat_message``); with ``--echo-audio`` it answers
instead by sending back the speech it heard as ``realtime_audio.bot_output`` over the websocket. It stops
when the bot's state becomes ``ended`` and prints what it saw as one JSON line (``bot_stats``).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import sys
import threading
import time
import urllib.request
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from websockets.asyncio.server import ServerConnection, serve

SAMPLE_RATE = 16000


class Api:
    """Attendee's REST API: ``Authorization: Token …``, JSON in and out."""

    def __init__(self, base: str, token: str) -> None:
        self.base, self.token = base.rstrip("/"), token

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"{self.base}{path}", data=data, method=method,
                                     headers={"Authorization": f"Token {self.token}",
                                              "Content-Type": "application/json"})  # fmt: skip
        with urllib.request.urlopen(req, timeout=30) as resp:  # noqa: S310 - the URL is the user's
            raw = resp.read()
        return json.loads(raw) if raw else None

    async def acall(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        return await asyncio.to_thread(self.call, method, path, body)


def webhook_server(loop: asyncio.AbstractEventLoop, inbox: asyncio.Queue[dict[str, Any]]) -> ThreadingHTTPServer:
    """An HTTP server on 127.0.0.1 that hands every webhook delivery to ``inbox``."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            return

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            length = int(self.headers.get("Content-Length", "0"))
            payload = json.loads(self.rfile.read(min(length, 8 << 20)))
            payload["_signature"] = self.headers.get("X-Webhook-Signature")
            loop.call_soon_threadsafe(inbox.put_nowait, payload)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def reply_to(text: str) -> str:
    """Replace with your model call."""
    return f"Noted: {text[:300]}"


async def main(a: argparse.Namespace) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    hooks = webhook_server(loop, inbox)
    stats: dict[str, Any] = {"webhooks": Counter(), "audio_s": 0.0, "per_participant_s": {}, "answered": 0,
                             "states": []}
    heard: list[bytes] = []
    """Voiced 16 kHz chunks since the last answer (for --echo-audio)."""
    socket: list[ServerConnection] = []

    async def on_audio(ws: ServerConnection) -> None:
        if ws.request is not None and ws.request.path == "/attendee-websocket":
            socket.append(ws)
        async for raw in ws:
            msg = json.loads(raw)
            if msg.get("trigger") == "realtime_audio.per_participant":
                speaker = msg["data"]["participant_name"]
                pcm = base64.b64decode(msg["data"]["chunk"])
                stats["per_participant_s"][speaker] = (stats["per_participant_s"].get(speaker, 0.0)
                                                       + len(pcm) / 2 / msg["data"]["sample_rate"])  # fmt: skip
            elif msg.get("trigger") == "realtime_audio.mixed":
                pcm = base64.b64decode(msg["data"]["chunk"])
                stats["audio_s"] += len(pcm) / 2 / msg["data"]["sample_rate"]
                if max((abs(int.from_bytes(pcm[i:i + 2], "little", signed=True)) for i in range(0, len(pcm), 64)),
                       default=0) > 500:  # fmt: skip
                    heard.append(pcm)

    api = Api(a.api, a.token)
    async with serve(on_audio, "127.0.0.1", 0, max_size=1 << 20) as audio_server:
        ws_port = next(iter(audio_server.sockets)).getsockname()[1]
        bot = await api.acall("POST", "/api/v1/bots", {
            "meeting_url": a.meeting_url,
            "bot_name": a.name,
            "websocket_settings": {"audio": {"url": f"ws://127.0.0.1:{ws_port}/attendee-websocket",
                                             "sample_rate": SAMPLE_RATE},
                                   **({"per_participant_audio": {"url": f"ws://127.0.0.1:{ws_port}/per-participant",
                                                                 "sample_rate": SAMPLE_RATE}}
                                      if a.per_participant else {})},
            "webhooks": [{"url": f"http://127.0.0.1:{hooks.server_address[1]}/webhook",
                          "triggers": ["bot.state_change", "transcript.update", "chat_messages.update",
                                       "participant_events.join_leave"]}],
        })  # fmt: skip
        bot_id = bot["id"]
        print(f"bot {bot_id}: {bot['state']}", file=sys.stderr, flush=True)
        started = time.monotonic()
        while time.monotonic() - started < a.timeout:
            try:
                event = await asyncio.wait_for(inbox.get(), 5.0)
            except TimeoutError:
                continue
            trigger, data = event["trigger"], event["data"]
            stats["webhooks"][trigger] += 1
            if trigger == "bot.state_change":
                stats["states"].append(data["new_state"])
                print(f"bot {bot_id}: {data['old_state']} -> {data['new_state']}", file=sys.stderr, flush=True)
                if data["new_state"] in ("ended", "fatal_error"):
                    break
            elif trigger == "transcript.update":
                text = data["transcription"]["transcript"]
                answer = reply_to(text)
                try:
                    if a.echo_audio and socket and heard:
                        pcm, heard[:] = b"".join(heard), []
                        step = SAMPLE_RATE  # half a second of 16 kHz s16 per message
                        for i in range(0, len(pcm), step):
                            await socket[0].send(json.dumps({"trigger": "realtime_audio.bot_output", "data": {
                                "chunk": base64.b64encode(pcm[i:i + step]).decode(), "sample_rate": SAMPLE_RATE}}))
                        # ModylBench extension: the words of the audio just sent (Attendee has no such call).
                        await api.acall("POST", f"/api/v1/bots/{bot_id}/modylbench/transcript", {"text": text})
                    else:
                        await api.acall("POST", f"/api/v1/bots/{bot_id}/speech", {"text": answer})
                    await api.acall("POST", f"/api/v1/bots/{bot_id}/send_chat_message",
                                    {"to": "everyone", "message": answer})
                    stats["answered"] += 1
                except OSError as exc:  # the meeting may end while answering
                    print(f"bot {bot_id}: answer failed: {exc}", file=sys.stderr, flush=True)
    hooks.shutdown()
    stats["webhooks"] = dict(stats["webhooks"])
    return stats


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--api", required=True, help="the API's base URL (Attendee's, or serve --bot-api's)")
    p.add_argument("--token", required=True,
                   help="the API key (for ModylBench: the meeting's token; write --token=TOKEN, a token may start with -)")
    p.add_argument("--meeting-url", required=True)
    p.add_argument("--name", default="Notes Bot")
    p.add_argument("--echo-audio", action="store_true", help="answer with realtime_audio.bot_output instead of /speech")
    p.add_argument("--per-participant", action="store_true", help="also ask for per-participant audio")
    p.add_argument("--timeout", type=float, default=1800.0, help="seconds before giving up")
    args = p.parse_args()
    print("bot_stats " + json.dumps(asyncio.run(main(args))), flush=True)
