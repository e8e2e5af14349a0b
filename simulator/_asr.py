"""Speech recognition of the agent's segments during a meeting (``--asr``) and after it (``replay --asr``).

During a meeting the event loop paces media, so it only hands each closed segment over: a thread of its own
reads the segment's WAV attachment and asks the recogniser, and the answer comes back to the loop as an
``agent_speech_recognised`` / ``agent_speech_unrecognised`` event. After the meeting (``replay --asr``) the
answers go to the ``recognition.jsonl`` sidecar: the sealed record is never rewritten.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from modylbench.record import (
    AgentSpeech,
    AgentSpeechRecognised,
    AgentSpeechUnrecognised,
    Attachment,
    attachment_path,
    read_recognition,
    read_record,
    write_recognition,
)
from modylbench.scoring import AsrSpecError, Heard, SpeechRecogniser
from modylbench.simulator._errors import UserError

logger = logging.getLogger(__name__)

DRAIN_S = 30.0
"""After the meeting, how long (wall seconds) the record waits for recognitions still under way; the ones
still pending are recorded unrecognised (``replay --asr`` can add them later)."""


def asr_cache_dir() -> Path:
    """Where recognised text is cached: beside the synthesised speech ($MODYLBENCH_CACHE/asr)."""
    from modylbench.personas import default_cache_dir

    return default_cache_dir().parent / "asr"


def make_recogniser(spec: str, **kwargs: Any) -> SpeechRecogniser:
    """The recogniser ``--asr SPEC`` names, cached on disk; a bad spec is a one-line UserError."""
    try:
        return SpeechRecogniser(spec, cache_dir=kwargs.pop("cache_dir", asr_cache_dir()), **kwargs)
    except AsrSpecError as exc:
        raise UserError(str(exc)) from None


def _heard_event(common: dict[str, Any], segment: int, att: Attachment, model: str, heard: Heard) -> Any:
    if heard.text is not None:
        return AgentSpeechRecognised(
            **common, segment=segment, audio_sha256=att.sha256, text=heard.text, model=model
        )
    return AgentSpeechUnrecognised(**common, segment=segment, audio_sha256=att.sha256, model=model,
                                   reason=heard.reason or "unknown")  # fmt: skip


class MeetingRecognition:
    """Recognises a live meeting's agent segments off its event loop and records the answers.

    ``segment`` is called with every ``agent_speech`` event as it is recorded (it numbers them as
    ``derive_responses`` does); ``close`` waits up to ``DRAIN_S`` for the answers still out.
    """

    def __init__(self, recogniser: SpeechRecogniser, folder: Path, emit: Callable[[Any], None],
                 common: Callable[[], dict[str, Any]]):  # fmt: skip
        self.recogniser, self.folder, self.emit, self.common = recogniser, folder, emit, common
        self.segments = 0
        self.pending: dict[int, tuple[Attachment, concurrent.futures.Future[Heard]]] = {}
        self.recognised = self.unrecognised = 0
        self._closed = False
        self._main = asyncio.get_running_loop()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="asr", daemon=True)
        self._thread.start()
        # Before the meeting's clock matters (as the persona prepares its speech): the client's import and
        # set-up are CPU work that would otherwise compete with media pacing when the first segment closes.
        asyncio.run_coroutine_threadsafe(recogniser.prepare(), self._loop).result(timeout=60)

    def segment(self, event: AgentSpeech) -> None:
        """Number a recorded segment and, when it has audio, send it for recognition (returns at once)."""
        n = self.segments
        self.segments += 1
        if event.audio is None or self._closed:
            return
        att = event.audio
        fut = asyncio.run_coroutine_threadsafe(self._one(att), self._loop)
        self.pending[n] = (att, fut)
        fut.add_done_callback(lambda _f: self._main.call_soon_threadsafe(self._deliver, n))

    async def _one(self, att: Attachment) -> Heard:
        # The file read happens here, in the recognition thread, not on the meeting's loop.
        wav = attachment_path(self.folder, att).read_bytes()
        return await self.recogniser.recognise(wav, att.sha256)

    @property
    def closed(self) -> bool:
        """Whether ``close`` has run: later answers are dropped."""
        return self._closed

    def _deliver(self, n: int) -> None:
        if self._closed or n not in self.pending:
            return
        att, fut = self.pending.pop(n)
        try:
            heard = fut.result()
        except Exception as exc:  # noqa: BLE001 - recognition never ends the meeting
            logger.exception("speech recognition of segment %d failed", n)
            heard = Heard(None, f"{type(exc).__name__}: {exc}"[:300])
        if heard.text is None:
            self.unrecognised += 1
        else:
            self.recognised += 1
        self.emit(_heard_event(self.common(), n, att, self.recogniser.name, heard))

    async def close(self, drain_s: float = DRAIN_S) -> None:
        """Record the answers still out (waiting up to ``drain_s``), the rest as unrecognised; stop the thread."""
        if self.pending:
            waiting = [asyncio.wrap_future(f) for _, f in self.pending.values()]
            await asyncio.wait(waiting, timeout=drain_s)
        for n in sorted(self.pending):
            if self.pending[n][1].done():
                self._deliver(n)
        for n in sorted(self.pending):
            att, fut = self.pending.pop(n)
            fut.cancel()
            self.unrecognised += 1
            self.emit(
                _heard_event(
                    self.common(),
                    n,
                    att,
                    self.recogniser.name,
                    Heard(None, f"still being recognised when the meeting ended (waited {drain_s:g}s)"),
                )
            )
        self._closed = True
        try:
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(self.recogniser.aclose(), self._loop))
        except Exception:  # noqa: BLE001 - closing a client is housekeeping
            logger.debug("closing the recognition client failed", exc_info=True)
        self._loop.call_soon_threadsafe(self._loop.stop)
        await asyncio.to_thread(self._thread.join, 5.0)
        if not self._loop.is_running():
            self._loop.close()


@dataclass
class ReplayRecognition:
    """What ``replay --asr`` did."""

    segments: int
    asked: int
    recognised: int
    unrecognised: int
    round_trips: int


async def recognise_session(folder: Path, recogniser: SpeechRecogniser) -> ReplayRecognition:
    """Recognise the recorded segments that have audio and no recognised text yet; answers go to the sidecar.

    The record must already be verified (``replay`` does that first); recognitions already in the sidecar are
    kept, a new answer for a segment is appended after them (so it wins, docs/scoring.md).
    """
    events = read_record(folder).events
    old = read_recognition(folder)
    done = {e.segment for e in [*events, *old] if isinstance(e, AgentSpeechRecognised)}
    todo: list[tuple[int, Attachment, AgentSpeech]] = []
    n = -1
    for e in events:
        if isinstance(e, AgentSpeech):
            n += 1
            if e.audio is not None and n not in done:
                todo.append((n, e.audio, e))

    async def one(seg: int, att: Attachment, ev: AgentSpeech) -> Any:
        common = {"wall_time": ev.wall_time, "meeting_time": ev.offset, "turn_index": ev.turn_index}
        try:
            wav = await asyncio.to_thread(attachment_path(folder, att).read_bytes)
        except OSError as exc:
            return _heard_event(
                common, seg, att, recogniser.name, Heard(None, f"audio missing: {exc.strerror or exc}")
            )
        return _heard_event(common, seg, att, recogniser.name, await recogniser.recognise(wav, att.sha256))

    try:
        new = await asyncio.gather(*(one(*t) for t in todo))
    finally:
        await recogniser.aclose()
    if new:
        write_recognition(folder, [*old, *new])
    ok = sum(1 for e in new if isinstance(e, AgentSpeechRecognised))
    return ReplayRecognition(n + 1, len(todo), ok, len(new) - ok, recogniser.calls)


async def close_recognition(recognition: MeetingRecognition | None) -> None:
    """Close a meeting's recognition, if it has one (idempotent: the record is sealed once)."""
    if recognition is not None and not recognition.closed:
        await recognition.close()
