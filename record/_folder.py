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
from typing import Any

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

    def read_manifest(self) -> dict[str, Any] | None:
        """The manifest, or None when it is missing, unreadable or not a JSON object."""
        try:
            data = json.loads(self.manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Write the manifest atomically: a reader sees the old one or the new one, never half of one."""
        tmp = self.manifest.with_name(self.MANIFEST_FILE + ".part")
        tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, self.manifest)
