"""The one bounded JSONL line reader, and the line limit of each JSONL file the package reads.

Every JSONL file (scenarios, responses, the session record, the recognition sidecar) is read through
``bounded_lines``: no line is held in memory past its file's limit, and an overlong line is drained in
bounded chunks and reported, never read whole.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import BinaryIO

logger = logging.getLogger(__name__)

MIB = 1024 * 1024
MAX_SCENARIO_LINE = 8 * MIB
"""A scenario line: one meeting's script and products' templates."""
MAX_RESPONSES_LINE = 16 * MIB
"""A responses line: one run's answers and final work products."""
MAX_RECORD_LINE = 64 * MIB
"""A session record line: the largest is a shared-document snapshot (its base64 within this)."""
MAX_RECOGNITION_LINE = 1 * MIB
"""A recognition sidecar line: one segment's recognised text."""

_DRAIN_CHUNK = 1 * MIB


def bounded_lines(fh: BinaryIO, max_bytes: int) -> Iterator[tuple[int, bytes | None]]:
    """``(line number, bytes)`` per line of ``fh`` (from 1, the newline kept: a last line without one was cut);
    ``None`` for a line longer than ``max_bytes``, which is drained unread."""
    lineno = 0
    while True:
        line = fh.readline(max_bytes + 1)
        if not line:
            return
        lineno += 1
        if len(line) > max_bytes and not line.endswith(b"\n"):
            while True:
                rest = fh.readline(_DRAIN_CHUNK)
                if not rest or rest.endswith(b"\n"):
                    break
            yield lineno, None
            continue
        yield lineno, line
