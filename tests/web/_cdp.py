"""A small Chrome DevTools Protocol driver over ``websockets`` for headless Debian Chromium (no browser
download, no Playwright): launch, open a page, evaluate JavaScript, take screenshots."""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import logging
import shutil
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

logger = logging.getLogger(__name__)

CHROMIUM = shutil.which("chromium") or (("/usr/bin/chromium") if Path("/usr/bin/chromium").exists() else None)
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream", "--autoplay-policy=no-user-gesture-required", "--window-size=1280,1400",
    "--remote-debugging-port=0", "--remote-allow-origins=*",
]  # fmt: skip


class CDPError(RuntimeError):
    """The browser answered a command with an error, or a script threw."""


class Browser:
    """One headless Chromium with one page, driven over the DevTools protocol."""

    def __init__(self, proc: asyncio.subprocess.Process, ws: ClientConnection) -> None:
        self.proc, self.ws = proc, ws
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.session: str | None = None
        self.console: list[str] = []
        self._loaded: asyncio.Future[None] | None = None
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def launch(cls, user_data_dir: Path) -> Browser:
        assert CHROMIUM is not None
        proc = await asyncio.create_subprocess_exec(
            CHROMIUM, *FLAGS, f"--user-data-dir={user_data_dir}", "about:blank",
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)  # fmt: skip
        assert proc.stderr is not None
        # Chromium announces its DevTools endpoint on stderr once it listens.
        while True:
            line = (await asyncio.wait_for(proc.stderr.readline(), 30)).decode(errors="replace")
            if not line:
                raise CDPError("chromium exited before opening DevTools")
            if "DevTools listening on " in line:
                url = line.split("DevTools listening on ", 1)[1].strip()
                break
        asyncio.ensure_future(_drain(proc.stderr))
        ws = await connect(url, max_size=64 * 1024 * 1024)
        return cls(proc, ws)

    async def _read(self) -> None:
        async for raw in self.ws:
            msg = json.loads(raw)
            if "id" in msg and msg["id"] in self._pending:
                fut = self._pending.pop(msg["id"])
                if not fut.done():
                    fut.set_result(msg)
            elif msg.get("method") == "Page.loadEventFired":
                if self._loaded is not None and not self._loaded.done():
                    self._loaded.set_result(None)
            elif msg.get("method") == "Runtime.consoleAPICalled":
                args = msg["params"].get("args", [])
                self.console.append(" ".join(str(a.get("value", a.get("description", ""))) for a in args))
            elif msg.get("method") == "Runtime.exceptionThrown":
                self.console.append("exception: " + json.dumps(msg["params"].get("exceptionDetails", {}))[:2000])

    async def send(self, method: str, params: dict[str, Any] | None = None, timeout: float = 30) -> dict[str, Any]:
        mid = next(self._ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[mid] = fut
        msg: dict[str, Any] = {"id": mid, "method": method, "params": params or {}}
        if self.session and not method.startswith("Target."):
            msg["sessionId"] = self.session
        await self.ws.send(json.dumps(msg))
        reply = await asyncio.wait_for(fut, timeout)
        if "error" in reply:
            raise CDPError(f"{method}: {reply['error']}")
        return dict(reply.get("result", {}))

    async def open(self, url: str) -> None:
        target = await self.send("Target.createTarget", {"url": "about:blank"})
        att = await self.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        self.session = att["sessionId"]
        await self.send("Runtime.enable")
        await self.send("Page.enable")
        self._loaded = asyncio.get_running_loop().create_future()
        await self.send("Page.navigate", {"url": url})
        # Module scripts have run by the load event, so the page's state object exists from here on.
        await asyncio.wait_for(self._loaded, 30)

    async def eval(self, expression: str, timeout: float = 30) -> Any:
        """Evaluate ``expression`` in the page (awaiting a promise) and return its JSON value."""
        out = await self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                   "returnByValue": True}, timeout=timeout)  # fmt: skip
        if "exceptionDetails" in out:
            raise CDPError(f"{expression[:200]}: {json.dumps(out['exceptionDetails'])[:1500]}")
        return out.get("result", {}).get("value")

    async def screenshot(self, path: Path) -> Path:
        out = await self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(out["data"]))
        return path

    async def close(self) -> None:
        try:
            await self.ws.close()
        finally:
            self._reader.cancel()
            if self.proc.returncode is None:
                self.proc.terminate()
                try:
                    await asyncio.wait_for(self.proc.wait(), 10)
                except TimeoutError:
                    self.proc.kill()
                    await self.proc.wait()


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.readline():
        pass
