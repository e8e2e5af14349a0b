"""The append-only, hash-chained session record on disk, and its attachments.

The record is ``record.jsonl`` (one envelope per line:
``{"seq", "prev", "hash", "data"}`` where ``hash = sha256(prev + "\\n" + canonical(data))``),
beside ``attachments/<sha256>`` and ``session.lock``, held by the one process writing the folder
(names in ``SessionFolder``). A crash loses at most the line being written; a changed byte breaks
the chain: a line must be byte for byte the one the writer writes for its data (so a duplicate key,
which parses to the same data, is refused), and ``verify_media`` checks the attachments and the
recording against the hashes the record holds.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from modylbench.record._events import Attachment, parse_event
from modylbench.record._folder import SessionFolder
from modylbench.scenarios import MAX_RECORD_LINE, bounded_lines

logger = logging.getLogger(__name__)

GENESIS = "0" * 64
MAX_EVENT_DEPTH = 16
"""Deepest JSON nesting an event can have (the deepest, an attachment inside an event, is 3 levels)."""


class RecordIntegrityError(Exception):
    """The record was altered or is corrupt before its last line."""


class SessionBusyError(Exception):
    """Another live process is writing the session folder."""


class SessionLock:
    """One writer per session folder: an exclusive lock on ``session.lock`` for as long as it is held.

    The operating system drops the lock when its process ends however it ends, so a crashed run never
    leaves a folder locked, while a live one (an orphaned worker, say) keeps every other writer out.
    Re-entrant within a process: the runner holds it for a whole session, the record writer inside.
    """

    _held: dict[Path, tuple[int, int]] = {}  # folder -> (fd, depth), this process's locks

    def __init__(self, folder: str | os.PathLike[str]):
        self.folder = Path(folder).resolve()
        self._owned = False

    def acquire(self) -> SessionLock:
        """Take the lock, or raise SessionBusyError naming the process that holds it."""
        if self._owned:
            return self
        held = self._held.get(self.folder)
        if held is not None:
            self._held[self.folder] = (held[0], held[1] + 1)
            self._owned = True
            return self
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(SessionFolder(self.folder).lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            _lock_fd(fd)
        except OSError as exc:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise SessionBusyError(f"{self.folder} is being written by another process (pid {holder})") from None
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._held[self.folder] = (fd, 1)
        self._owned = True
        return self

    def release(self) -> None:
        """Give the lock up (the file stays: removing it would race with the next writer)."""
        if not self._owned:
            return
        self._owned = False
        fd, depth = self._held[self.folder]
        if depth > 1:
            self._held[self.folder] = (fd, depth - 1)
            return
        del self._held[self.folder]
        os.close(fd)  # closing the descriptor releases the lock

    def __enter__(self) -> SessionLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _lock_fd(fd: int) -> None:
    import fcntl  # POSIX, like the rest of the media stack

    # A POSIX record lock belongs to this process alone: a child it forks (a sandbox, a speech engine)
    # does not inherit it, so the lock ends exactly when the writing process does.
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def canonical(data: Any) -> str:
    """Canonical JSON used for hashing: sorted keys, no spaces, UTF-8."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def chain_hash(prev: str, data_json: str) -> str:
    """Hash of one record line given the previous line's hash."""
    return hashlib.sha256((prev + "\n" + data_json).encode("utf-8")).hexdigest()


def envelope_line(seq: int, prev: str, h: str, data_json: str) -> str:
    """The exact text of one record line (without its newline): the writer writes it, the reader requires it."""
    return f'{{"seq":{seq},"prev":"{prev}","hash":"{h}","data":{data_json}}}'


class RecordLineTooLong(ValueError):
    """An event too large for one record line (``MAX_RECORD_LINE``): it is not written."""


class RecordWriter:
    """Appends events to a session folder's record, flushing each line as it is written."""

    def __init__(self, folder: str | os.PathLike[str]):
        self.folder = Path(folder)
        self._lock = SessionLock(self.folder).acquire()
        try:
            self._files = SessionFolder(self.folder)
            self._files.attachments.mkdir(exist_ok=True)
            self._path = self._files.record
            if self._path.exists() and self._path.stat().st_size > 0:
                raise FileExistsError(f"{self._path} already holds a record; use a new session folder")
            self._fh = self._path.open("w", encoding="utf-8")
        except BaseException:
            self._lock.release()
            raise
        self._prev = GENESIS
        self.seq = 0

    def append(self, event: BaseModel) -> str:
        """Write one event; returns its chain hash."""
        data_json = canonical(event.model_dump(mode="json"))
        h = chain_hash(self._prev, data_json)
        line = envelope_line(self.seq, self._prev, h, data_json) + "\n"
        if len(line) > MAX_RECORD_LINE // 4 and len(line.encode("utf-8")) > MAX_RECORD_LINE:
            # read_record refuses such a line and with it the whole record: refuse the one event instead.
            raise RecordLineTooLong(f"a {type(event).__name__} of {len(line)} characters is over the record's "
                                    f"line limit of {MAX_RECORD_LINE} bytes")
        self._fh.write(line)
        self._fh.flush()
        self._prev = h
        self.seq += 1
        return h

    def attach(self, data: bytes | bytearray, media_type: str) -> Attachment:
        """Store bytes under their hash (once) and return the reference."""
        digest = hashlib.sha256(data).hexdigest()
        target = self._files.attachment(digest)
        if not target.exists():
            tmp = target.with_suffix(".part")
            tmp.write_bytes(data)
            os.replace(tmp, target)
        return Attachment(sha256=digest, size=len(data), media_type=media_type)

    @property
    def last_hash(self) -> str:
        """Hash of the last line written (GENESIS before any)."""
        return self._prev

    def close(self) -> None:
        """Flush and close the record file."""
        if not self._fh.closed:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
        self._lock.release()


@dataclass
class RecordRead:
    """What reading a record gave: the events, whether the end was cut, and the final hash."""

    events: list[Any] = field(default_factory=list)
    truncated: bool = False
    last_hash: str = GENESIS


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _nested_deeper_than(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict | list):
            if d > limit:
                return True
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return False


def read_record(folder: str | os.PathLike[str], verify: bool = True) -> RecordRead:
    """Read and verify a session record; a cut last line is tolerated, any other damage is refused."""
    path = SessionFolder(folder).record if Path(folder).is_dir() else Path(folder)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no session record here")
    out = RecordRead()
    prev = GENESIS
    with path.open("rb") as fh:
        for lineno, raw in bounded_lines(fh, MAX_RECORD_LINE):
            where = f"{path.name}:{lineno}"
            if raw is None:  # not a cut write: the writer never writes such lines
                raise RecordIntegrityError(f"{where}: line longer than {MAX_RECORD_LINE // (1024 * 1024)} MiB "
                                           "(the record is corrupt)")
            complete = raw.endswith(b"\n")
            try:
                # NaN/Infinity are not JSON, and the writer never writes them (allow_nan=False).
                env = json.loads(raw.decode("utf-8"), parse_constant=_no_constants)
                if not isinstance(env, dict) or not {"seq", "prev", "hash", "data"} <= set(env):
                    raise ValueError("not a record envelope")
            except (UnicodeDecodeError, ValueError, RecursionError) as exc:
                if not complete:  # only the last line can lack its newline: a cut write
                    out.truncated = True
                    break
                why = (f"{exc}" if isinstance(exc, ValueError) and "is not valid JSON" in str(exc)
                       else "line is not a valid record entry")
                raise RecordIntegrityError(f"{where}: {why} (the record is corrupt)") from None
            # Checked before anything walks the data recursively (hashing, validation): no event nests deeply.
            if _nested_deeper_than(env, MAX_EVENT_DEPTH):
                raise RecordIntegrityError(f"{where}: nested deeper than any event can be (the record is corrupt)")
            if env["seq"] != lineno - 1:
                raise RecordIntegrityError(f"{where}: sequence number {env['seq']!r} out of order")
            if env["prev"] != prev:
                raise RecordIntegrityError(f"{where}: hash chain broken (previous hash does not match)")
            if verify:
                try:
                    data_json = canonical(env["data"])
                    h = chain_hash(prev, data_json)
                except UnicodeEncodeError:
                    raise RecordIntegrityError(
                        f"{where}: holds a lone UTF-16 surrogate, which the recorder never writes (the record is corrupt)"
                    ) from None
                except ValueError:  # 1e999 reads as inf, which canonical JSON refuses
                    raise RecordIntegrityError(f"{where}: holds a number JSON cannot carry (the record is corrupt)") from None
                if h != env["hash"]:
                    raise RecordIntegrityError(f"{where}: hash chain broken (the record was altered)")
                # The hash is over the parsed data; the bytes must be the ones it was computed from, or a
                # duplicate key or an added space would change the line and still verify.
                if raw.rstrip(b"\n") != envelope_line(env["seq"], prev, h, data_json).encode("utf-8"):
                    raise RecordIntegrityError(f"{where}: not the bytes the recorder writes for its data (a duplicate "
                                               "key or an edit outside the hashed data; the record was altered)")
            try:
                out.events.append(parse_event(env["data"]))
            except ValidationError as exc:
                raise RecordIntegrityError(f"{where}: not a valid event ({exc.errors()[0]['msg']})") from None
            prev = env["hash"]
            if not complete:
                out.truncated = True
                break
    out.last_hash = prev
    return out


def attachment_path(folder: str | os.PathLike[str], att: Attachment) -> Path:
    """Where an attachment's bytes are stored."""
    return SessionFolder(folder).attachment(att.sha256)


def file_sha256(path: Path) -> tuple[str, int]:
    """SHA-256 (hex) and size of a file, read in blocks (bounded memory whatever its size)."""
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def _attachments_of(value: Any) -> list[Attachment]:
    found: list[Attachment] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, Attachment):
            found.append(v)
        elif isinstance(v, BaseModel):
            stack.extend(getattr(v, name) for name in type(v).model_fields)
        elif isinstance(v, list | tuple):
            stack.extend(v)
    return found


def verify_media(folder: str | os.PathLike[str], events: list[Any]) -> str:
    """Check every attachment the events name, and ``recording.wav`` when ``session_end`` holds its hash,
    against their hashes and sizes; raise RecordIntegrityError naming the first that does not match.

    Returns a one-line account (how many were checked; a recording the record holds no hash for is said so).
    """
    files = SessionFolder(folder)
    checked: set[str] = set()
    for att in (a for e in events for a in _attachments_of(e)):
        if att.sha256 in checked:
            continue
        path = files.attachment(att.sha256)
        name = f"{files.ATTACHMENTS_DIR}/{att.sha256[:12]}…"
        if path.is_symlink() or not path.is_file():
            raise RecordIntegrityError(f"{name}: the record names it, but it is missing (or not a plain file)")
        digest, size = file_sha256(path)
        if digest != att.sha256 or size != att.size:
            raise RecordIntegrityError(f"{name}: its bytes do not match the hash the record holds for them "
                                       f"({size} bytes, the record says {att.size}; the attachment was changed)")
        checked.add(att.sha256)
    end = next((e for e in reversed(events) if getattr(e, "event", None) == "session_end"), None)
    want = getattr(end, "recording_sha256", None)
    if want is None:
        if end is not None and files.recording.exists():
            return f"{len(checked)} attachments match their hashes; the record holds no hash for {files.RECORDING_FILE}"
        return f"{len(checked)} attachments match their hashes"
    rec = files.recording
    if rec.is_symlink() or not rec.is_file():
        raise RecordIntegrityError(f"{files.RECORDING_FILE}: the record holds its hash, but it is missing (or not a plain file)")
    if file_sha256(rec)[0] != want:
        raise RecordIntegrityError(f"{files.RECORDING_FILE}: does not match the hash session_end holds for it "
                                   "(the recording was replaced or changed)")
    return f"{len(checked)} attachments and {files.RECORDING_FILE} match their hashes"
