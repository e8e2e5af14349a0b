"""A sandbox that tries every incoming Yjs update in a child process before the meeting's document sees it.

Why a process: fuzzing the pinned yrs (0.28, in pycrdt 0.14.13) found corrupt updates that panic in the
middle of integration after changing part of the document, and corrupt updates that never return (a
loop inside the block store, holding the GIL). Neither can be undone or interrupted in-process. The
child keeps a mirror of the document; an update is applied there first, with a deadline. If the child
answers "ok" the same update is safe to apply to the real document (same state, same bytes); if it
fails, panics, hangs or dies, the update is refused and the child is replaced by a fresh one rebuilt
from the real document's state.
"""

from __future__ import annotations

import logging
import os
import select
import struct
import subprocess
import sys
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)

_CHILD = r"""
import struct, sys
from pycrdt import Doc
inp, out = sys.stdin.buffer, sys.stdout.buffer
doc = Doc()

def read_exact(n):
    buf = b""
    while len(buf) < n:
        chunk = inp.read(n - len(buf))
        if not chunk:
            sys.exit(0)
        buf += chunk
    return buf

def reply(ok, text=""):
    data = (b"1" if ok else b"0") + text.encode("utf-8", "replace")[:400]
    out.write(struct.pack(">I", len(data)) + data)
    out.flush()

while True:
    kind = read_exact(1)
    (n,) = struct.unpack(">I", read_exact(4))
    payload = read_exact(n)
    if kind == b"r":  # reset the mirror to a given state
        doc = Doc()
        doc.apply_update(payload)
        reply(True)
        continue
    try:
        if kind == b"u":
            doc.apply_update(payload)
        elif kind == b"s":
            doc.get_update(payload)
        reply(True)
    except BaseException as exc:
        # "d": an update failed, so the mirror may be half-changed (a panic): the parent resets it.
        reply(False, ("d" if kind == b"u" else "c") + (str(exc).splitlines() or [type(exc).__name__])[0])
"""


class GuardError(Exception):
    """The sandbox refused the input (failed, panicked, hung or died); the message says which."""


class UpdateSandbox:
    """A child process with a mirror of the document; ``check_update`` / ``check_state_vector`` before use."""

    def __init__(self, initial_state: bytes = b"", timeout: float = 2.0):
        self.timeout = timeout
        self._proc: subprocess.Popen[bytes] | None = None
        self.restarts = 0
        self._start(initial_state)

    def _start(self, state: bytes) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, bufsize=0,
        )
        if state:
            ok, why = self._ask(b"u", state)
            if not ok:
                raise RuntimeError(f"document sandbox could not load the document state: {why}")

    def close(self) -> None:
        """Stop the child."""
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                proc.kill()
                proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass

    def restart(self, state: bytes) -> None:
        """Replace the child with a fresh one holding ``state`` (after a hang or a crash)."""
        self.close()
        self.restarts += 1
        self._start(state)

    def reset(self, state: bytes) -> None:
        """Bring the mirror back to ``state``; respawns the child if it does not answer."""
        try:
            ok, _ = self._ask(b"r", state)
        except GuardError:
            ok = False
        if not ok:
            self.restart(state)

    def _ask(self, kind: bytes, payload: bytes) -> tuple[bool, str]:
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdout is None:
            raise GuardError("document sandbox is not running")
        try:
            proc.stdin.write(kind + struct.pack(">I", len(payload)) + payload)
        except (BrokenPipeError, OSError):
            raise GuardError("document sandbox died") from None
        header = self._read(proc, 4)
        (n,) = struct.unpack(">I", header)
        body = self._read(proc, n)
        return body[:1] == b"1", body[1:].decode("utf-8", "replace")

    def _read(self, proc: subprocess.Popen[bytes], n: int) -> bytes:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        deadline = time.monotonic() + self.timeout
        buf = b""
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise GuardError(f"update did not finish applying within {self.timeout:g} s")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, n - len(buf))
            if not chunk:
                raise GuardError("document sandbox died while applying the update")
            buf += chunk
        return buf

    def check_update(self, update: bytes, state: Callable[[], bytes]) -> None:
        """Apply ``update`` to the mirror; raises GuardError when it must be refused.

        ``state`` gives the real document's full state, used only to repair the mirror when the
        refused update damaged it, hung or killed the child.
        """
        try:
            ok, why = self._ask(b"u", update)
        except GuardError:
            self.restart(state())
            raise
        if not ok:
            if why[:1] == "d":
                self.reset(state())
            raise GuardError(f"update does not decode or apply: {why[1:161]}")

    def check_state_vector(self, state_vector: bytes, state: Callable[[], bytes]) -> None:
        """Compute a diff against ``state_vector`` in the mirror; raises GuardError when it is bad."""
        try:
            ok, why = self._ask(b"s", state_vector)
        except GuardError:
            self.restart(state())
            raise
        if not ok:
            raise GuardError(f"state vector does not decode: {why[1:161]}")

    def mirror(self, update: bytes, state: Callable[[], bytes]) -> None:
        """Apply an update that is already known good (a local edit) to keep the mirror in step."""
        try:
            ok, why = self._ask(b"u", update)
        except GuardError:
            ok, why = False, "no answer"
        if not ok:  # not expected for updates the real document produced; repair the mirror anyway
            logger.warning("document sandbox rejected a local update (%s); rebuilding it", why)
            self.reset(state())
