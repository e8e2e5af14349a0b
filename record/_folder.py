"""The session folder: the one place its file names live, and the manifest's reading and writing.

A session folder holds ``record.jsonl`` (the hash-chained record), ``attachments/<sha256>``,
``session.lock``, ``manifest.json``, ``recording.wav``, ``responses.jsonl``, ``scorecard.json`` and
``report.html``, and ``recognition.jsonl`` when ``replay --asr`` recognised speech after the meeting. The folder a sweep writes (``OUT/``) uses the same scorecard and report names.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

from pydantic import ValidationError

from modylbench.record._manifest import Manifest

logger = logging.getLogger(__name__)

MAX_FOLDER_NAME = 200
"""Bytes a session folder's name may take: file systems allow 255 in one name, and a folder moved aside
gains ``.crashed-<time>[-n]`` (at most 30 more)."""


def fit_name(name: str) -> str:
    """``name`` as a folder name that fits the file system: unchanged when short enough, otherwise its
    start and a hash of the whole (so two long names that share a start stay distinct)."""
    raw = name.encode("utf-8")
    if len(raw) <= MAX_FOLDER_NAME:
        return name
    digest = hashlib.sha256(raw).hexdigest()[:16]
    head = raw[: MAX_FOLDER_NAME - len(digest) - 2].decode("utf-8", "ignore")
    return f"{head}~{digest}"


class SessionFolder:
    """Paths of one session folder's files, and its manifest."""

    RECORD_FILE = "record.jsonl"
    ATTACHMENTS_DIR = "attachments"
    LOCK_FILE = "session.lock"
    MANIFEST_FILE = "manifest.json"
    RECORDING_FILE = "recording.wav"
    RESPONSES_FILE = "responses.jsonl"
    SCORECARD_FILE = "scorecard.json"
    REPLAY_SCORECARD_FILE = "replay-scorecard.json"
    REPORT_FILE = "report.html"
    RECOGNITION_FILE = "recognition.jsonl"
    AGENT_STDOUT_FILE = "agent.stdout.log"
    AGENT_STDERR_FILE = "agent.stderr.log"

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"SessionFolder({str(self.path)!r})"

    def __fspath__(self) -> str:
        return os.fspath(self.path)

    @property
    def record(self) -> Path:
        """The hash-chained event record."""
        return self.path / self.RECORD_FILE

    @property
    def attachments(self) -> Path:
        """The folder of attachments, each named by its sha256."""
        return self.path / self.ATTACHMENTS_DIR

    def attachment(self, sha256: str) -> Path:
        """Where the attachment with this hash is stored."""
        return self.attachments / sha256

    @property
    def lock(self) -> Path:
        """The file the one writing process holds locked."""
        return self.path / self.LOCK_FILE

    @property
    def manifest(self) -> Path:
        """What ran, with what, and the hash the record was sealed at."""
        return self.path / self.MANIFEST_FILE

    @property
    def recording(self) -> Path:
        """The stereo WAV of the meeting (persona left, agent right)."""
        return self.path / self.RECORDING_FILE

    @property
    def responses(self) -> Path:
        """The responses derived from the record (the public ``responses.jsonl`` shape)."""
        return self.path / self.RESPONSES_FILE

    @property
    def scorecard(self) -> Path:
        """The scorecard the run wrote."""
        return self.path / self.SCORECARD_FILE

    @property
    def replay_scorecard(self) -> Path:
        """Where ``replay`` writes its scorecard by default."""
        return self.path / self.REPLAY_SCORECARD_FILE

    @property
    def report(self) -> Path:
        """The HTML report."""
        return self.path / self.REPORT_FILE

    @property
    def recognition(self) -> Path:
        """Speech recognition added after the meeting (``replay --asr``): the sealed record stays as it was."""
        return self.path / self.RECOGNITION_FILE

    @property
    def agent_stdout(self) -> Path:
        """A ``cmd:`` agent's standard output (bounded; a note says what was dropped)."""
        return self.path / self.AGENT_STDOUT_FILE

    @property
    def agent_stderr(self) -> Path:
        """A ``cmd:`` agent's standard error (bounded; a note says what was dropped)."""
        return self.path / self.AGENT_STDERR_FILE

    def has_record(self) -> bool:
        """Whether the folder holds a session record."""
        return self.record.exists()

    def read_manifest(self, *, strict: bool = False) -> Manifest | None:
        """The manifest, or None when it is missing, unreadable or not a manifest (``strict``: raise
        ``ValueError`` saying why for one that is there but wrong)."""
        try:
            text = self.manifest.read_text(encoding="utf-8")
        except OSError:
            return None
        try:
            return Manifest.model_validate_json(text)
        except ValidationError as exc:
            if strict:
                first = exc.errors()[0]
                where = ".".join(map(str, first["loc"])) or "its top level"
                raise ValueError(f"{self.manifest}: {where}: {first['msg']}") from None
            logger.warning("%s: not a manifest, read as missing", self.manifest)
            return None

    def write_manifest(self, manifest: Manifest) -> None:
        """Write the manifest atomically: a reader sees the old one or the new one, never half of one."""
        tmp = self.manifest.with_name(self.MANIFEST_FILE + ".part")
        tmp.write_text(json.dumps(manifest.model_dump(mode="json"), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, self.manifest)

    def sealed_hash(self) -> str | None:
        """The hash a complete manifest sealed the record at; None for an unsealed or unreadable one."""
        manifest = self.read_manifest()
        return manifest.sealed_hash if manifest is not None else None

    def is_scored(self) -> bool:
        """A finished session with its scorecard written (what resume skips and results combine)."""
        manifest = self.read_manifest()
        return manifest is not None and manifest.complete and self.scorecard.exists()

    def check_seal(self, events: int, last_hash: str, last_event: str | None, truncated: bool) -> tuple[bool, str]:
        """Compare a verified record (its event count, last hash, last event's type, whether its last line was
        cut) with the hash the manifest sealed it at when the meeting ended.

        The chain proves that no line was changed; only the seal shows that none was cut off the end. Returns
        (sealed, a one-line account); raises ``RecordIntegrityError`` when the record does not end where it was
        sealed, or is empty and unsealed.
        """
        from modylbench.record._store import RecordIntegrityError  # _store builds on this module

        manifest = self.read_manifest()
        sealed = manifest.sealed_hash if manifest is not None else None
        if sealed is None:
            if events == 0:
                raise RecordIntegrityError(f"{self.path}: the record is empty and unsealed: the run stopped before "
                                           "its meeting started; there is nothing to replay")
            why = ("holds no record_last_hash (the run did not finish)" if manifest is not None
                   else "is missing or unreadable")
            return False, (f"record NOT sealed: {self.MANIFEST_FILE} {why}, so lines cut off its end cannot be "
                           f"detected; replaying its {events} events")
        if last_hash != sealed:
            how = ("it was rewritten after it was sealed" if events and last_event == "session_end" and not truncated
                   else "it is shorter than what was sealed (lines were cut off its end)")
            raise RecordIntegrityError(
                f"record refused: {self.MANIFEST_FILE} sealed the record at hash {sealed[:12]}…, but "
                f"{self.RECORD_FILE} ends at event {events} with hash {last_hash[:12]}…: {how}")
        if truncated:
            raise RecordIntegrityError(
                f"record refused: {self.RECORD_FILE} ends at the hash {self.MANIFEST_FILE} sealed, followed by a "
                "partial line written after the seal")
        return True, (f"record verified: {events} events, hash chain intact and sealed ({self.MANIFEST_FILE} "
                      "record_last_hash matches)")
