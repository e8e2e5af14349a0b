"""The wire protocol shared by both transports (docs/protocol.md): channel labels, JSON limits, file framing,
Yjs sync-message framing checks, name sanitising and the chat rate limit."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import unicodedata
import weakref
from dataclasses import dataclass, field
from typing import Any, Protocol

from modylbench.channels._clock import Clock

logger = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
CHANNEL_LABELS = ("control", "chat", "files", "doc")
MAX_MESSAGE = 262_144
"""Largest data-channel message aiortc accepts (and so the protocol's hard ceiling)."""
MAX_DOC_MESSAGE = MAX_MESSAGE
"""Largest message on the doc channel, either way (docs/protocol.md §6): the data channel's own ceiling."""
MAX_JSON = 64 * 1024
"""Largest JSON message on control, chat or files."""
MAX_SIGNALING_MESSAGE = 256 * 1024
"""Largest signaling websocket message either end accepts (bytes); the harness closes with 1009 above it."""
SEND_BUFFER_HIGH = 1 << 20
"""A data channel's sender waits while more than this many bytes are buffered (docs/protocol.md §5) ..."""
SEND_BUFFER_LOW = 256 * 1024
"""... and resumes once the buffer drains below this."""
FILE_CHUNK = 16 * 1024
"""Payload bytes per file chunk: well under MAX_MESSAGE, small enough to interleave with media."""
FILE_RATE = 2_000_000
"""Default file pacing (bytes/s); faster sends caused lost audio packets here (aiortc #543)."""
MAX_NAME = 200
MAX_FILE_SIZE = 50 * 1024 * 1024
"""Largest file either end accepts or pushes by default (docs/protocol.md §5)."""

# ---------------------------------------------------------------- budgets per turn and per meeting
# Each message above is bounded; these bound what one agent can make the harness record or do over a turn
# and over a meeting (docs/protocol.md §8, "Budgets"). Past a budget the excess is refused and counted once
# per kind and turn; past a meeting budget marked hard the agent is ended with ``agent_error``.
CONTROL_RATE = 20.0
"""Control messages per second the agent may sustain (pings, unknown and malformed ones included) ..."""
CONTROL_BURST = 200
"""... with bursts of this many."""
MAX_CONTROL_MEETING = 100_000
"""Control messages taken per meeting; the rest are refused (and counted as faults, whose budget is hard)."""
TRANSCRIPT_RATE = 5.0
"""``transcript`` messages per second (bursts of ``TRANSCRIPT_BURST``), like chat."""
TRANSCRIPT_BURST = 20
MAX_TRANSCRIPT_TURN = 65_536
"""Transcript characters kept per turn (what a turn's joined speech line can hold)."""
MAX_TRANSCRIPT_MEETING = 1_048_576
"""Transcript characters kept per meeting."""
MAX_CHAT_TURN = 200
"""Chat messages kept per turn ..."""
MAX_CHAT_MEETING = 2_000
"""... and per meeting."""
MAX_FILES_TURN = 8
"""Files the agent may start per turn ..."""
MAX_FILES_MEETING = 64
"""... and per meeting."""
MAX_FILE_BYTES_MEETING = 256 * 1024 * 1024
"""Declared file bytes per meeting (hard)."""
MAX_DOC_BYTES_TURN = 8 * 1024 * 1024
"""Doc-channel bytes per turn ..."""
MAX_DOC_BYTES_MEETING = 32 * 1024 * 1024
"""... and per meeting (hard): keeps the document, and so its snapshot line, well under the record's line limit."""
MAX_FAULTS_MEETING = 100_000
"""Protocol faults per meeting, counted even when not recorded one by one (hard)."""

_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_SHA_RE = re.compile(r"^[0-9a-f]{64}$")


class WireError(ValueError):
    """A message broke the protocol; ``kind`` is machine-readable."""

    def __init__(self, kind: str, message: str, file_id: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.file_id = file_id
        """The transfer a ``file_overrun`` ended (its sender is told with ``file_error``)."""


class Pipe(Protocol):
    """One direction of one data channel, as the cores see it."""

    label: str

    @property
    def file_budget(self) -> SharedRate | None:
        """The byte budget file chunks on this pipe share with other transfers, if the transport has one."""
        ...

    async def send(self, data: str | bytes) -> None:
        """Send one message, waiting while the channel's send buffer is above its high-water mark."""
        ...


def parse_json(data: str | bytes, channel: str) -> dict[str, Any]:
    """Decode a JSON object message with a ``type`` string, or raise ``WireError``."""
    if isinstance(data, bytes):
        raise WireError("unexpected_binary", f"binary message on the {channel} channel")
    if len(data) > MAX_JSON:
        raise WireError("oversized_message", f"{len(data)} characters on {channel} (limit {MAX_JSON})")
    try:
        obj = json.loads(data)
    except ValueError as exc:
        raise WireError("malformed_json", f"{channel}: {exc}") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise WireError("malformed_message", f"{channel}: expected an object with a string 'type'")
    return obj


def dumps(obj: dict[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def sanitize_name(name: str) -> str:
    """A file name safe to store anywhere: no directories, no control or reserved characters, bounded."""
    name = unicodedata.normalize("NFC", str(name)).replace("\\", "/").split("/")[-1]
    name = "".join(c for c in name if unicodedata.category(c)[0] != "C" and c not in '<>:"|?*')
    name = name.strip().lstrip(".").strip()
    if len(name) > MAX_NAME:
        stem, dot, ext = name.rpartition(".")
        name = (stem[: MAX_NAME - len(ext) - 1] + dot + ext) if dot and len(ext) <= 16 else name[:MAX_NAME]
    return name or "file"


# ---------------------------------------------------------------- Yjs sync framing (y-protocols)

MSG_SYNC = 0
MSG_AWARENESS = 1
SYNC_STEP1, SYNC_STEP2, SYNC_UPDATE = 0, 1, 2


def read_varuint(data: bytes, pos: int) -> tuple[int, int]:
    """lib0 varuint: 7 bits per byte, little-endian groups, high bit = more. Bounded to 53 bits like lib0."""
    value = shift = 0
    while True:
        if pos >= len(data):
            raise WireError("malformed_doc_message", "truncated varuint")
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7
        if shift > 53:
            raise WireError("malformed_doc_message", "varuint too long")


def write_varuint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(0x80 | (value & 0x7F))
        value >>= 7
    out.append(value)
    return bytes(out)


def encode_sync(sub_type: int, payload: bytes) -> bytes:
    """Frame a sync message: varuint 0, varuint sub-type, varuint length, payload."""
    return write_varuint(MSG_SYNC) + write_varuint(sub_type) + write_varuint(len(payload)) + payload


def check_doc_message(data: str | bytes, limit: int) -> tuple[int, int | None]:
    """Validate one doc-channel message; returns (message type, sync sub-type or None)."""
    if isinstance(data, str):
        raise WireError("unexpected_text", "text message on the doc channel (binary only)")
    if len(data) > limit:
        raise WireError("oversized_message", f"{len(data)} bytes on doc (limit {limit})")
    mtype, pos = read_varuint(data, 0)
    if mtype == MSG_AWARENESS:
        return mtype, None
    if mtype != MSG_SYNC:
        raise WireError("malformed_doc_message", f"unknown message type {mtype}")
    sub, pos = read_varuint(data, pos)
    if sub not in (SYNC_STEP1, SYNC_STEP2, SYNC_UPDATE):
        raise WireError("malformed_doc_message", f"unknown sync sub-type {sub}")
    length, pos = read_varuint(data, pos)
    if length != len(data) - pos:
        raise WireError("malformed_doc_message", f"declared {length} payload bytes, found {len(data) - pos}")
    return mtype, sub


# ---------------------------------------------------------------- files


def chunk_frame(file_id: str, payload: bytes) -> bytes:
    raw = file_id.encode("ascii")
    return bytes([len(raw)]) + raw + payload


def parse_chunk(data: bytes) -> tuple[str, bytes]:
    if not data:
        raise WireError("malformed_file_chunk", "empty chunk")
    n = data[0]
    try:
        fid = data[1 : 1 + n].decode("ascii")
    except UnicodeDecodeError:
        raise WireError("malformed_file_chunk", "chunk id is not ASCII") from None
    if len(data) < 1 + n or not _ID_RE.match(fid):
        raise WireError("malformed_file_chunk", "bad chunk id")
    return fid, data[1 + n :]


@dataclass
class FileHeader:
    file_id: str
    name: str
    media_type: str
    size: int
    sha256: str

    @classmethod
    def parse(cls, obj: dict[str, Any], max_size: int) -> FileHeader:
        fid, size, sha = obj.get("id"), obj.get("size"), obj.get("sha256")
        if not isinstance(fid, str) or not _ID_RE.match(fid):
            raise WireError("bad_file_header", "id must match [A-Za-z0-9_-]{1,64}")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise WireError("bad_file_header", "size must be a non-negative integer")
        if size > max_size:
            raise WireError("file_too_large", f"{size} bytes (limit {max_size})")
        if not isinstance(sha, str) or not _SHA_RE.match(sha):
            raise WireError("bad_file_header", "sha256 must be 64 lowercase hex digits")
        media = obj.get("media_type", "application/octet-stream")
        if not isinstance(media, str) or len(media) > 255:
            raise WireError("bad_file_header", "media_type must be a string of at most 255 characters")
        return cls(fid, sanitize_name(str(obj.get("name", ""))), media, size, sha)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "file_start",
            "id": self.file_id,
            "name": self.name,
            "media_type": self.media_type,
            "size": self.size,
            "sha256": self.sha256,
        }


@dataclass
class Incoming:
    header: FileHeader
    last_activity: float
    buf: bytearray = field(default_factory=bytearray)
    hasher: Any = field(default_factory=hashlib.sha256)


class FileAssembler:
    """Receiving side of the files channel: bounded concurrent transfers, size and sha256 checks."""

    def __init__(self, max_size: int, max_concurrent: int = 4) -> None:
        self.max_size = max_size
        self.max_concurrent = max_concurrent
        self.open: dict[str, Incoming] = {}

    def start(self, obj: dict[str, Any], now: float) -> FileHeader:
        header = FileHeader.parse(obj, self.max_size)
        if header.file_id in self.open:
            raise WireError("duplicate_file_id", header.file_id)
        if len(self.open) >= self.max_concurrent:
            raise WireError("too_many_files", f"more than {self.max_concurrent} transfers at once")
        self.open[header.file_id] = Incoming(header, now)
        return header

    def chunk(self, data: bytes, now: float) -> None:
        fid, payload = parse_chunk(data)
        inc = self.open.get(fid)
        if inc is None:
            raise WireError("unknown_file_id", fid)
        if len(inc.buf) + len(payload) > inc.header.size:
            del self.open[fid]
            raise WireError("file_overrun", f"{fid}: more bytes than the declared {inc.header.size}", fid)
        inc.buf += payload
        inc.hasher.update(payload)
        inc.last_activity = now

    def end(self, fid: Any) -> tuple[FileHeader, bytes | bytearray, str]:
        """Finish a transfer: returns (header, data, failure reason or "")."""
        inc = self.open.pop(fid, None) if isinstance(fid, str) else None
        if inc is None:
            raise WireError("unknown_file_id", str(fid))
        if len(inc.buf) != inc.header.size:
            return inc.header, b"", f"size mismatch: got {len(inc.buf)}, declared {inc.header.size}"
        if inc.hasher.hexdigest() != inc.header.sha256:
            return inc.header, b"", "sha256 mismatch"
        # The assembled buffer itself, not a copy: copying 50 MB held the event loop (and the persona's
        # audio) for 25-60 ms. Nothing writes to it once the transfer is popped.
        return inc.header, inc.buf, ""

    def expire(self, now: float, timeout: float) -> list[FileHeader]:
        """Drop transfers idle for ``timeout`` seconds; returns their headers."""
        stale = [fid for fid, inc in self.open.items() if now - inc.last_activity >= timeout]
        return [self.open.pop(fid).header for fid in stale]


async def sha256_hex(data: bytes) -> str:
    """SHA-256 of ``data``; large payloads are hashed in a worker thread (hashlib releases the GIL), so a
    megabyte does not hold the event loop for ~2.5 ms per file while media is paced."""
    if len(data) < 64 * 1024:
        return hashlib.sha256(data).hexdigest()
    return await asyncio.to_thread(lambda: hashlib.sha256(data).hexdigest())


class SharedRate:
    """One real-time byte budget shared by every WebRTC file transfer on an event loop.

    aiortc's SCTP is pure Python: here a megabyte costs ~80 ms of CPU (sender and receiver together,
    benchmarks/bench_transport.py --file-cost), so eight meetings of one process each pushing at ``FILE_RATE`` at once
    (16 MB/s) took most of the loop for half a second and made audio frames late. Transfers queue for
    slots in the order they ask; one alone still gets the full rate.
    """

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self._next = 0.0  # wall time (s) from which the next chunk may go

    async def take(self, clock: Clock, nbytes: int) -> None:
        """Wait, on ``clock``, for a slot to send ``nbytes``. Meetings may bring different clock objects;
        their ``wall_time()`` is the common scale."""
        now = clock.wall_time()
        start = max(now, self._next)
        self._next = start + nbytes / self.rate
        if start > now:
            await clock.sleep(start - now)


_LOOP_RATES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, SharedRate] = weakref.WeakKeyDictionary()


def loop_file_budget(rate: float = FILE_RATE) -> SharedRate:
    """The ``SharedRate`` of the running event loop (created on first use)."""
    loop = asyncio.get_running_loop()
    budget = _LOOP_RATES.get(loop)
    if budget is None:
        budget = _LOOP_RATES[loop] = SharedRate(rate)
    return budget


async def send_file(
    pipe: Pipe, clock: Clock, header: FileHeader, data: bytes, rate: float = FILE_RATE
) -> None:
    """Stream header, chunks (paced at ``rate`` bytes/s on ``clock``, and within the pipe's ``file_budget``)
    and end marker on the files pipe."""
    await pipe.send(dumps(header.to_json()))
    t = clock.now()
    shared = pipe.file_budget
    for i in range(0, len(data), FILE_CHUNK):
        payload = data[i : i + FILE_CHUNK]
        if shared is not None:
            await shared.take(clock, len(payload))
        await pipe.send(chunk_frame(header.file_id, payload))
        t += len(payload) / rate
        await clock.sleep_until(t)
    await pipe.send(dumps({"type": "file_end", "id": header.file_id}))


class TokenBucket:
    """``rate`` messages per second with bursts of ``burst``, on the injected clock."""

    def __init__(self, clock: Clock, rate: float, burst: int) -> None:
        self.clock, self.rate, self.burst = clock, rate, burst
        self.tokens = float(burst)
        self.t = clock.now()

    def take(self) -> bool:
        now = self.clock.now()
        self.tokens = min(self.burst, self.tokens + (now - self.t) * self.rate)
        self.t = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False
