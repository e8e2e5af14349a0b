"""What the agent said: its declared transcripts checked against what was recognised or what its voice allows.

One home for the crediting rules of docs/scoring.md ("What the agent said"): ``derive_responses`` calls
``credit_turn`` per turn; the recognition sidecar (``recognition.jsonl``, written by ``replay --asr``) is
read and written here.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

from pydantic import ValidationError

from modylbench.record._events import (
    EVENT_ADAPTER,
    AgentSpeech,
    AgentSpeechRecognised,
    AgentSpeechUnrecognised,
)
from modylbench.record._folder import SessionFolder
from modylbench.scenarios import MAX_RECOGNITION_LINE, bounded_lines

logger = logging.getLogger(__name__)

WORDS_PER_VOICED_SECOND = 4.5
"""Without recognition, a turn's declared transcript is credited up to this many words per second of voice.

Conversational English runs at 2-3 words a second and fast talkers at about 3.5; 4.5 leaves them room
(the voiced time VAD measures also includes short pauses), while 200 words declared over 2 s are cut to 9.
"""
HEARD_SHARE_MIN = 0.6
"""With recognition, a declared transcript fewer of whose words than this share were heard is a mismatch.

Recognisers drop and misspell words and write figures their own way; a transcript that is mostly heard
is not flagged, one that is mostly not is (and only the heard text counts either way).
"""

_WORD = re.compile(r"[\w.%$€£-]+", re.UNICODE)


def words(text: str) -> list[str]:
    """The words of ``text`` as counted for crediting (whitespace-separated)."""
    return text.split()


def _norm(text: str) -> list[str]:
    return [w.strip(".,-").lower() for w in _WORD.findall(text) if w.strip(".,-")]


def heard_share(declared: str, heard: str) -> float:
    """Share of the declared words (case and punctuation aside) that are among the words heard."""
    want = _norm(declared)
    if not want:
        return 1.0
    have = Counter(_norm(heard))
    hits = 0
    for w in want:
        if have[w] > 0:
            have[w] -= 1
            hits += 1
    return hits / len(want)


Recognition: TypeAlias = AgentSpeechRecognised | AgentSpeechUnrecognised


def recognitions(events: Iterable[Any]) -> dict[int, Recognition]:
    """The recognition of each speech segment among ``events``: a recognised text beats a failure, and
    among two of a kind the later (the sidecar's, appended after the record's) wins."""
    out: dict[int, Recognition] = {}
    for e in events:
        if isinstance(e, AgentSpeechRecognised) or (
            isinstance(e, AgentSpeechUnrecognised)
            and not isinstance(out.get(e.segment), AgentSpeechRecognised)
        ):
            out[e.segment] = e
    return out


@dataclass
class SpeechTurn:
    """One turn's speech as the record has it, segment by segment."""

    declared: list[str] = field(default_factory=list)
    heard: list[str] = field(default_factory=list)
    voiced_s: float = 0.0
    recognised_s: float = 0.0
    unrecognised_s: float = 0.0
    not_asked_s: float = 0.0
    """Voiced seconds recognition was not asked about (no --asr, or no audio kept)."""

    def add(self, seg: AgentSpeech, rec: Recognition | None) -> None:
        """Account for one segment and its recognition (None: none, or one for other audio)."""
        if seg.transcript:
            self.declared.append(seg.transcript)
        voiced = max(0.0, seg.offset - seg.onset)
        self.voiced_s += voiced
        if rec is not None and seg.audio is not None and rec.audio_sha256 not in (None, seg.audio.sha256):
            logger.warning("recognition of segment %d is of other audio; ignored", rec.segment)
            rec = None
        if isinstance(rec, AgentSpeechRecognised):
            self.recognised_s += voiced
            if rec.text.strip():
                self.heard.append(rec.text.strip())
        elif isinstance(rec, AgentSpeechUnrecognised):
            self.unrecognised_s += voiced
        else:
            self.not_asked_s += voiced


@dataclass
class CreditedSpeech:
    """What a turn is credited with having said, and why."""

    text: str
    source: str
    """``recognised`` (the recogniser's words), ``declared`` (the transcript, capped by voiced time) or ``none``."""
    words_declared: int
    words_credited: int
    flags: list[str]


def credit_turn(turn: SpeechTurn, words_per_second: float = WORDS_PER_VOICED_SECOND) -> CreditedSpeech:
    """docs/scoring.md "What the agent said": recognised text when every voiced second of the turn was
    recognised, else the declared transcript up to ``words_per_second`` per voiced second."""
    declared = " ".join(turn.declared)
    n_declared = len(words(declared))
    flags: list[str] = []
    if turn.voiced_s > 0 and turn.recognised_s >= turn.voiced_s:
        heard = " ".join(turn.heard)
        if n_declared and heard_share(declared, heard) < HEARD_SHARE_MIN:
            flags.append("transcript_mismatch")
        return CreditedSpeech(heard, "recognised", n_declared, len(words(heard)), flags)
    allowed = math.floor(words_per_second * turn.voiced_s + 1e-9)
    kept = words(declared)[:allowed]
    if n_declared > allowed:
        flags.append("transcript_unsupported")
    source = "declared" if n_declared else "none"
    return CreditedSpeech(" ".join(kept), source, n_declared, len(kept), flags)


def speech_summary(
    turns: Sequence[SpeechTurn], recognition_used: bool, words_per_second: float
) -> dict[str, Any]:
    """The session's speech account (``measurements.speech``; the scorecard's ``speech``)."""
    return {
        "recognition": recognition_used,
        "voiced_s": sum(t.voiced_s for t in turns),
        "recognised_s": sum(t.recognised_s for t in turns),
        "unrecognised_s": sum(t.unrecognised_s for t in turns),
        "not_recognised_s": sum(t.not_asked_s for t in turns),
        "words_per_voiced_second": words_per_second,
    }


# ---------------------------------------------------------------------------- the sidecar


def read_recognition(folder: str | os.PathLike[str]) -> list[Recognition]:
    """The recognitions ``replay --asr`` stored beside a sealed record; [] when there are none.

    The sidecar is not hash-chained: each line names the audio it heard by hash, and a line whose hash is
    not its segment's is ignored when responses are derived. Unreadable lines are skipped with a warning.
    """
    path = SessionFolder(folder).recognition
    out: list[Recognition] = []
    try:
        fh = path.open("rb")
    except FileNotFoundError:
        return out
    with fh:
        for lineno, raw in bounded_lines(fh, MAX_RECOGNITION_LINE):
            if raw is None:
                logger.warning("%s:%d: line too long; skipped", path, lineno)
                continue
            if not raw.strip():
                continue
            try:
                ev = EVENT_ADAPTER.validate_json(raw)
            except (ValidationError, ValueError) as exc:
                logger.warning(
                    "%s:%d: not a recognition (%s); skipped", path, lineno, str(exc).splitlines()[0]
                )
                continue
            if isinstance(ev, AgentSpeechRecognised | AgentSpeechUnrecognised):
                out.append(ev)
    return out


def write_recognition(folder: str | os.PathLike[str], events: Iterable[Recognition]) -> Path:
    """Replace the sidecar with ``events``, atomically (a reader sees the old file or the new one)."""
    path = SessionFolder(folder).recognition
    tmp = path.with_name(path.name + ".part")
    with tmp.open("w", encoding="utf-8") as fh:
        for ev in events:
            fh.write(json.dumps(ev.model_dump(mode="json"), ensure_ascii=False, sort_keys=True) + "\n")
    os.replace(tmp, path)
    return path
