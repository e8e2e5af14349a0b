"""A sandbox that tries every incoming Yjs update in a child process before the meeting's document sees it.

Why a process: fuzzing the pinned yrs (0.28, in pycrdt 0.14.13) found corrupt updates that panic in the
middle of integration after changing part of the document, and corrupt updates that never return (a
loop inside the block store, holding the GIL). Neither can be undone or interrupted in-process. The
child keeps a mirror of the document; an update is applied there first, with a deadline. If the child
answers "ok" the same update is safe to apply to the real document (same state, same bytes); if it
fails, panics, hangs or dies, the update is refused and the child is replaced by a fresh one rebuilt
from the real document's state.

The child also bounds nesting: an update that puts maps or arrays more than ``max_depth`` levels below the
products root is refused (walks over the content, in the scorer or in pydantic, must not exhaust the stack).
Only the values an update inserts are walked, without recursion, so the cost follows the update's size.
"""

from __future__ import annotations

import logging
import os
import select
import struct
import subprocess
import sys
import time
import weakref
from collections.abc import Callable

from modylbench.record import MAX_NESTING

logger = logging.getLogger(__name__)

_CHILD = r"""
import struct, sys
from pycrdt import Array, Doc, Map
inp, out = sys.stdin.buffer, sys.stdout.buffer
MAX_DEPTH = int(sys.argv[1])
deepest = [0]

def watch(events):
    # Depth of the deepest map/array each event brings: its target is len(path) below the products root.
    try:
        for ev in events:
            base = len(ev.path)
            if hasattr(ev, "keys") and not hasattr(ev, "delta"):
                new = [c.get("newValue") for c in ev.keys.values()]
            else:
                new = [v for op in ev.delta if isinstance(op.get("insert"), list) for v in op["insert"]]
            stack = [(v, base + 1) for v in new if isinstance(v, (Map, Array))]
            deepest[0] = max(deepest[0], base)
            while stack:
                v, d = stack.pop()
                deepest[0] = max(deepest[0], d)
                if d > MAX_DEPTH:
                    return
                stack.extend((c, d + 1) for c in (v.values() if isinstance(v, Map) else v)
                             if isinstance(c, (Map, Array)))
    except Exception:  # an event that cannot be read is not evidence of depth; the update stands or falls alone
        pass

subscriptions = []

def new_doc():
    d = Doc()
    subscriptions[:] = [d.get("products", type=Map).observe_deep(watch)]  # dropped, it would stop observing
    return d

doc = new_doc()

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
    if kind == b"r":  # rebuild the mirror from the log of accepted updates (4-byte length + bytes each)
        doc = new_doc()
        pos = 0
        while pos < len(payload):
            (m,) = struct.unpack(">I", payload[pos:pos + 4])
            doc.apply_update(payload[pos + 4:pos + 4 + m])
            pos += 4 + m
        reply(True)
        continue
    try:
        if kind == b"u":
            deepest[0] = 0
            doc.apply_update(payload)
            if deepest[0] > MAX_DEPTH:  # applied to the mirror: "d" has it rebuilt without this update
                reply(False, "dupdate nests the document more than %d levels deep" % MAX_DEPTH)
                continue
        elif kind == b"s":
            doc.get_update(payload)
        reply(True)
    except BaseException as exc:
        # Decoding errors (ValueError) are raised before the document is touched; anything else (a
        # PanicException half-way through integration) may have changed the mirror: "d" asks for a reset.
        dirty = kind == b"u" and not isinstance(exc, ValueError)
        reply(False, ("d" if dirty else "c") + (str(exc).splitlines() or [type(exc).__name__])[0])
"""


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        proc.kill()
        proc.wait(timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        pass


class GuardError(Exception):
    """The sandbox refused the input (failed, panicked, hung or died); the message says which."""


class UpdateSandbox:
    """A child process with a mirror of the document; ``check_update`` / ``check_state_vector`` before use."""

    def __init__(self, log: Callable[[], list[bytes]], timeout: float = 2.0, max_depth: int = MAX_NESTING):
        """``log`` returns every update the real document has accepted, in order.

        The mirror is rebuilt from that log, not from an encoded state: a state encoding leaves out
        structs still waiting for their dependencies, and a mirror without them can accept an update
        the real document then fails on.
        """
        self.timeout = timeout
        self.max_depth = max_depth
        self.log = log
        self._proc: subprocess.Popen[bytes] | None = None
        self.restarts = 0
        self.resets = 0
        self._start()

    def _start(self) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(self.max_depth)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, bufsize=0,
        )
        weakref.finalize(self, _kill, self._proc)  # no orphan child if the sandbox is dropped unclosed
        updates = self.log()
        if updates:
            ok, why = self._ask(b"r", b"".join(struct.pack(">I", len(u)) + u for u in updates))
            if not ok:
                raise RuntimeError(f"document sandbox could not rebuild the document: {why}")

    def close(self) -> None:
        """Stop the child."""
        proc, self._proc = self._proc, None
        if proc is not None:
            _kill(proc)

    def restart(self) -> None:
        """Replace the child with a fresh one rebuilt from the log (after a hang or a crash)."""
        self.close()
        self.restarts += 1
        self._start()

    def reset(self) -> None:
        """Rebuild the mirror from the log; respawns the child if it does not answer."""
        self.resets += 1
        payload = b"".join(struct.pack(">I", len(u)) + u for u in self.log())
        try:
            ok, _ = self._ask(b"r", payload)
        except GuardError:
            ok = False
        if not ok:
            self.restart()

    def _ask(self, kind: bytes, payload: bytes) -> tuple[bool, str]:
        if self._proc is None:
            self._start()  # closed earlier (the meeting ended) and needed again, e.g. by an observer
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

    def check_update(self, update: bytes) -> None:
        """Apply ``update`` to the mirror; raises GuardError when it must be refused."""
        self._check(b"u", update, "update does not decode or apply")

    def check_state_vector(self, state_vector: bytes) -> None:
        """Compute a diff against ``state_vector`` in the mirror; raises GuardError when it is bad."""
        self._check(b"s", state_vector, "state vector does not decode")

    def _check(self, kind: bytes, payload: bytes, refusal: str) -> None:
        try:
            ok, why = self._ask(kind, payload)
        except GuardError:  # the child hung or died: a fresh one holds the accepted state again
            self.restart()
            raise
        if not ok:
            if why[:1] == "d":  # the mirror may have changed half-way (see the child's loop)
                self.reset()
            if why[1:].startswith("update nests"):
                raise GuardError(why[1:161])
            raise GuardError(f"{refusal}: {why[1:161]}")

    def mirror(self, update: bytes) -> None:
        """Apply an update that is already known good (a local edit) to keep the mirror in step."""
        try:
            ok, why = self._ask(b"u", update)
        except GuardError:
            ok, why = False, "no answer"
        if not ok:  # not expected for updates the real document produced; repair the mirror anyway
            logger.warning("document sandbox rejected a local update (%s); rebuilding it", why)
            self.reset()
