"""Running one built meeting: the persona plays the scenario over a ``MeetingLink`` while everything is recorded.

``run_meeting`` is pure orchestration: it takes a connected-or-connecting link, a scenario, a clock and a
speech engine, and writes the session folder (hash-chained record, attachments, stereo WAV, manifest).
Resolving names, starting servers and scoring happen in the layers above (``_runner.py``).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import io
import json
import logging
import subprocess
import traceback
import wave
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from modylbench.channels import (
    SYNC_UPDATE,
    AgentAudio,
    AgentChat,
    AgentDisconnected,
    AgentDocMessage,
    AgentDoneSignal,
    AgentFile,
    AgentReportedError,
    AgentSpeechOffset,
    AgentSpeechOnset,
    AgentTranscript,
    Clock,
    DocMessageError,
    MeetingLink,
    ProtocolFault,
    SharedDocument,
    TaskOwner,
    sync_message,
)
from modylbench.personas import (
    DEFAULT_ANSWERER,
    AgentActivity,
    PersonaOptions,
    ScriptedPersona,
    SpeechEngine,
    make_answerer,
    room_hello_of,
)
from modylbench.record import (
    MAX_RECORD_LINE,
    AgentDone,
    AgentError,
    AgentSpeech,
    Attachment,
    ChatMessage,
    Disconnect,
    DocSnapshot,
    DocUpdate,
    DocUpdateRejected,
    ErrorEvent,
    FileTransfer,
    Manifest,
    NetworkStats,
    RecordWriter,
    SessionEnd,
    SessionFolder,
    SessionStart,
    file_sha256,
    package_version,
)
from modylbench.scenarios import Scenario, briefing, to_public
from modylbench.simulator._asr import MeetingRecognition, close_recognition, make_recogniser
from modylbench.simulator._faults import AgentFaults

logger = logging.getLogger(__name__)

RECORDING_RATE = 16_000
"""Sample rate of the stereo recording (speech band; keeps a full meeting's WAV ~4 MB a minute)."""
MAX_SNAPSHOT_BASE64 = MAX_RECORD_LINE - 1024 * 1024
"""Longest snapshot state (base64 characters) a record line holds with room for its envelope."""
LARGE_ATTACHMENT = 256 * 1024
"""Received files at least this large are stored off the event loop (it paces media)."""


def scenario_hash(scenario: Scenario) -> str:
    """SHA-256 of the scenario's canonical public JSON."""
    return hashlib.sha256(json.dumps(to_public(scenario), sort_keys=True, separators=(",", ":")).encode()).hexdigest()


UNKNOWN_COMMIT = "unknown"
"""``manifest.json`` ``git_commit`` when the code's commit cannot be known (see ``git_commit``)."""


def git_commit(package_dir: Path | None = None) -> str:
    """The commit of the code that ran the meeting, for ``manifest.json``.

    From a source checkout (the repository itself, or an editable install of it) this is its ``HEAD``.
    ``pip install .`` copies the code out of the checkout and keeps no commit, so an installed copy reports
    the commit pip recorded for a VCS install (``pip install git+https://…@<commit>``) and otherwise
    ``"unknown"``: never the commit of whatever repository the install happens to sit in.
    """
    root = (package_dir or Path(__file__).resolve().parent).parent
    if (root / "pyproject.toml").is_file():
        try:
            out = subprocess.run(["git", "rev-parse", "--show-toplevel", "HEAD"], cwd=root, capture_output=True,
                                 text=True, timeout=5)
        except (OSError, subprocess.SubprocessError):
            out = None
        lines = out.stdout.split() if out is not None and out.returncode == 0 else []
        if len(lines) == 2 and Path(lines[0]).resolve() == root.resolve():
            return lines[1]
    try:
        raw = metadata.distribution("modylbench").read_text("direct_url.json")
        commit = json.loads(raw)["vcs_info"]["commit_id"] if raw else None
    except (metadata.PackageNotFoundError, ValueError, KeyError, TypeError):
        commit = None
    if package_dir is None and isinstance(commit, str) and commit:
        return commit
    return UNKNOWN_COMMIT


class SessionRecorder:
    """Writes one session folder as the meeting happens."""

    def __init__(self, folder: Path, clock: Clock, snapshot_every: int = 500,
                 on_event: Callable[[Any], None] | None = None):
        self.folder = folder
        self.on_event = on_event
        self.clock = clock
        self.writer = RecordWriter(folder)
        self.turn_index: int | None = None
        self.snapshot_every = snapshot_every
        self.doc_updates = 0
        self.persona_audio: list[tuple[float, bytes]] = []
        self.agent_audio: list[tuple[float, bytes]] = []
        self.doc: SharedDocument | None = None
        self.recognition: MeetingRecognition | None = None
        """Speech recognition (``--asr``): told of every agent speech segment as it is recorded."""
        self._since_updates = 0
        self._since_bytes = 0
        self._last_snapshot_bytes = 0

    def common(self) -> dict[str, Any]:
        """wall_time, meeting_time and turn_index for a new event."""
        return {"wall_time": self.clock.wall_time(), "meeting_time": self.clock.now(), "turn_index": self.turn_index}

    def emit(self, event: Any) -> None:
        """Append an event (the persona's events carry their own turn)."""
        if getattr(event, "event", "") == "turn_start":
            self.turn_index = event.turn_index
        self.writer.append(event)
        if self.recognition is not None and isinstance(event, AgentSpeech):
            self.recognition.segment(event)  # hands the segment over; never waits for the recogniser
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception:  # noqa: BLE001 - a display must never break the record
                logger.exception("progress hook failed")

    def attach(self, data: bytes | bytearray, media_type: str) -> Attachment:
        """Store bytes as an attachment."""
        return self.writer.attach(data, media_type)

    def doc_update(self, origin: str, update: bytes) -> None:
        """Record an applied doc update, and now and then a full snapshot.

        A snapshot is taken after at least ``snapshot_every`` updates *and* once the update bytes since
        the last one exceed that snapshot's size: rebuilding at any moment then applies one snapshot plus
        at most about its size in updates, while snapshots take at most about half of the record.
        """
        self.writer.append(DocUpdate(**self.common(), origin=origin,  # type: ignore[arg-type]
                                     update=base64.b64encode(update).decode(), size=len(update)))
        self.doc_updates += 1
        self._since_updates += 1
        self._since_bytes += len(update)
        if (self.doc is not None and self._since_updates >= self.snapshot_every
                and self._since_bytes >= self._last_snapshot_bytes):
            self.snapshot()

    def snapshot(self) -> None:
        """Store the whole document state."""
        if self.doc is not None:
            state = self.doc.full_state()
            if (len(state) + 2) // 3 * 4 > MAX_SNAPSHOT_BASE64:
                # The record's reader refuses longer lines; the updates rebuild the document without it.
                logger.warning("document of %d bytes: no snapshot (the record's line limit)", len(state))
                return
            self.writer.append(DocSnapshot(**self.common(), state=base64.b64encode(state).decode(),
                                           updates_so_far=self.doc_updates))
            self._since_updates = self._since_bytes = 0
            self._last_snapshot_bytes = len(state)

    def write_recording(self) -> Path:
        """Stereo WAV, persona left and agent right, aligned on the meeting clock (streamed, bounded memory)."""
        path = SessionFolder(self.folder).recording
        step = 48_000 // RECORDING_RATE

        tracks = [sorted(self.persona_audio, key=lambda x: x[0]), sorted(self.agent_audio, key=lambda x: x[0])]
        end = 0.0
        for tr in tracks:
            for t, pcm in tr:
                end = max(end, t + len(pcm) / 2 / 48_000)
        total = int(end * RECORDING_RATE) + 1
        block = RECORDING_RATE * 10
        with wave.open(str(path), "wb") as w:
            w.setnchannels(2)
            w.setsampwidth(2)
            w.setframerate(RECORDING_RATE)
            cursors = [0, 0]
            for b0 in range(0, total, block):
                b1 = min(total, b0 + block)
                out = np.zeros((b1 - b0, 2), dtype=np.int32)
                for ch, tr in enumerate(tracks):
                    i = cursors[ch]
                    while i < len(tr) and int(tr[i][0] * RECORDING_RATE) + len(tr[i][1]) // 2 // step < b0:
                        i += 1
                    cursors[ch] = i
                    j = i
                    while j < len(tr) and int(tr[j][0] * RECORDING_RATE) < b1:
                        s0 = int(tr[j][0] * RECORDING_RATE)
                        # Frames that follow each other sample for sample (the agent's 20 ms frames) are
                        # downsampled as one run: the same samples, one numpy pass instead of one per frame.
                        run, end_at = [tr[j][1]], s0 + len(tr[j][1]) // 2 // step
                        j += 1
                        while (j < len(tr) and end_at < b1 and len(run[-1]) % (2 * step) == 0
                               and int(tr[j][0] * RECORDING_RATE) == end_at):
                            run.append(tr[j][1])
                            end_at += len(tr[j][1]) // 2 // step
                            j += 1
                        seg = _down(run[0] if len(run) == 1 else b"".join(run))
                        lo, hi = max(s0, b0), min(s0 + len(seg), b1)
                        if hi > lo:
                            out[lo - b0 : hi - b0, ch] += seg[lo - s0 : hi - s0]
                w.writeframes(np.clip(out, -32768, 32767).astype("<i2").tobytes())
        return path

    def agent_segment(self, onset: float, offset: float) -> bytes | None:
        """The agent's received audio from ``onset`` to ``offset`` as a mono WAV at the recording's rate
        (silence where no audio arrived), or None when none arrived in that span."""
        parts: list[tuple[float, bytes]] = []
        for t, pcm in reversed(self.agent_audio):  # the segment just ended: its frames are at the end
            if t + len(pcm) / 2 / 48_000 <= onset:
                break
            if t < offset:
                parts.append((t, pcm))
        if not parts or offset <= onset:
            return None
        out = np.zeros(int(round((offset - onset) * RECORDING_RATE)), dtype=np.int16)
        # Frames that follow each other sample for sample are downsampled as one run (the same samples, one
        # numpy pass). Runs are written latest first, as the frames were: an earlier one overwrites a later one
        # where they overlap.
        parts.reverse()
        step = 48_000 // RECORDING_RATE
        runs: list[tuple[int, list[bytes]]] = []
        end_at = None
        for t, pcm in parts:
            s0 = int(round((t - onset) * RECORDING_RATE))
            if runs and s0 == end_at and len(runs[-1][1][-1]) % (2 * step) == 0:
                runs[-1][1].append(pcm)
            else:
                runs.append((s0, [pcm]))
            end_at = s0 + len(pcm) // 2 // step
        for s0, run in reversed(runs):
            seg = _down(run[0] if len(run) == 1 else b"".join(run))
            lo, hi = max(s0, 0), min(s0 + len(seg), len(out))
            if hi > lo:
                out[lo:hi] = seg[lo - s0 : hi - s0]
        buf = io.BytesIO()
        with wave.open(buf, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(RECORDING_RATE)
            w.writeframes(out.astype("<i2").tobytes())
        return buf.getvalue()


def _down(pcm: bytes) -> np.ndarray:
    """48 kHz s16 PCM to the recording's rate (mean of each group of samples)."""
    step = 48_000 // RECORDING_RATE
    a = np.frombuffer(pcm[: len(pcm) - len(pcm) % 2], dtype=np.int16)
    n = len(a) // step * step
    # the mean as an integer sum divided: the same values as .mean(axis=1), at a fraction of its overhead
    return (a[:n].reshape(-1, step).sum(axis=1, dtype=np.int32) / step).astype(np.int16) if n else np.zeros(0, np.int16)


@dataclass
class MeetingResult:
    """How a meeting ended and where it was recorded."""

    folder: Path
    termination_reason: str
    turns_played: int
    detail: str = ""
    media: dict[str, Any] = field(default_factory=dict)
    agent_errors: list[str] = field(default_factory=list)
    """The agent's failures (``agent_error`` events), one line each, for the run's output."""


@dataclass
class MeetingOptions:
    """Knobs of one meeting."""

    turns: int | None = None
    """Play only the first N turns."""
    persona: PersonaOptions = field(default_factory=PersonaOptions)
    snapshot_every: int = 500
    judges: list[str] = field(default_factory=lambda: ["offline"])
    seed: int = 0
    """Instance of a built-in scenario played (--seed; 0 the published one); replay rebuilds it from this."""
    extra_manifest: dict[str, Any] = field(default_factory=dict)
    on_event: Callable[[Any], None] | None = None
    """Called with every event as it is recorded (progress displays)."""
    on_doc: Callable[[SharedDocument], None] | None = None
    """Called with the meeting's shared document once it exists (extra participants, e.g. y-websocket)."""
    asr: str | None = None
    """Recognise the agent's speech segments with this recogniser (``openai/MODEL[@BASE_URL]``; docs/scoring.md)."""
    faults: AgentFaults | None = None
    """Where the agent's runner reports its failures; recorded as ``agent_error`` events. A meeting the agent
    left after a fatal one ends as ``agent_error``."""
    answerer: str | None = DEFAULT_ANSWERER
    """Who answers the agent's questions: ``offline`` (deterministic, from the scenario's knowledge),
    ``openai/MODEL[@BASE_URL]`` (``--persona-llm``: a model words the answers, each checked) or None (the persona
    plays its script whatever is asked). Scenarios without knowledge have no answerer."""


class AgentEventRecorder:
    """Consumes the agent's events: records them and keeps ``AgentActivity`` current."""

    def __init__(self, link: MeetingLink, rec: SessionRecorder, doc: SharedDocument, act: AgentActivity,
                 faults: AgentFaults | None = None):
        self.link, self.rec, self.doc, self.act = link, rec, doc, act
        self.faults = faults if faults is not None else AgentFaults()
        """Where the agent's own reports of failure (control ``error``) go; the meeting binds it to the record."""
        self.pending_transcripts: list[tuple[float, str]] = []
        self.disconnect_reason: str | None = None
        self.cut_at: float | None = None
        """Where ``end_turn`` cut the agent's open speech segment: the rest of it starts there."""

    async def run(self) -> None:
        async for ev in self.link.events():
            try:
                await self.handle(ev)
            except Exception as exc:  # noqa: BLE001 - never let one event end the meeting
                logger.exception("failed to handle agent event %r", type(ev).__name__)
                self.rec.emit(ErrorEvent(**self.rec.common(), source="infrastructure", kind="event_handling",
                                         message=f"{type(ev).__name__}: {exc}", traceback=traceback.format_exc()))
            if isinstance(ev, AgentDisconnected):
                return

    async def store(self, data: bytes | bytearray, media_type: str) -> Attachment:
        """Store a received file as an attachment; a large one is hashed and written in a worker thread
        (hashlib and file writes release the GIL): a 50 MB file stored on the event loop held it 40-160 ms
        and made up to 20 persona audio frames late, by up to 309 ms (issue 14, item 6)."""
        if len(data) < LARGE_ATTACHMENT:
            return self.rec.attach(data, media_type)
        hold = getattr(self.rec.clock, "hold", None)
        with hold() if hold is not None else contextlib.nullcontext():
            return await asyncio.to_thread(self.rec.attach, data, media_type)

    async def end_turn(self) -> None:
        """At a turn's end, the agent's declared words go with this turn's voice. A segment still open (the agent
        talking when its window closed) is cut here: its part so far is recorded with the words and its audio,
        the rest (recorded when its offset comes) is the next turn's; before, the words were recorded with no
        voice at all and the voice in the next turn, so the transcript cap credited a long answer nothing."""
        act = self.act
        if act.speaking_since is None:
            self.flush_transcripts()
            return
        onset = act.speaking_since if self.cut_at is None else max(act.speaking_since, self.cut_at)
        common = self.rec.common()
        now = common["meeting_time"]
        text = " ".join(x for _, x in self.pending_transcripts) or None
        self.pending_transcripts = []
        wav = self.rec.agent_segment(onset, now)
        audio = await self.store(wav, "audio/wav") if wav is not None else None
        self.rec.emit(AgentSpeech(**common, onset=onset, offset=now, transcript=text, audio=audio))
        self.cut_at = now

    def flush_transcripts(self) -> None:
        """Text the agent said it spoke but no voice was detected for (text-only agents)."""
        if self.pending_transcripts:
            t = self.pending_transcripts[0][0]
            text = " ".join(x for _, x in self.pending_transcripts)
            self.pending_transcripts = []
            self.rec.emit(AgentSpeech(**self.rec.common(), onset=t, offset=t, transcript=text))

    async def handle(self, ev: Any) -> None:
        rec, act = self.rec, self.act
        if isinstance(ev, AgentAudio):
            if ev.pcm.strip(b"\x00"):  # silence is what the recording holds by default
                rec.agent_audio.append((ev.time, ev.pcm))
            return
        if isinstance(ev, AgentSpeechOnset):
            act.speaking_since = ev.time
            self.cut_at = None
            act.spoke_this_turn = True
            act.onsets.append(ev.time)
        elif isinstance(ev, AgentSpeechOffset):
            act.speaking_since = None
            act.last_voice_end = ev.time
            text = " ".join(x for _, x in self.pending_transcripts) or None
            self.pending_transcripts = []
            onset = ev.onset if self.cut_at is None else max(ev.onset, self.cut_at)
            self.cut_at = None
            common = rec.common()
            wav = rec.agent_segment(onset, ev.time)
            audio = await self.store(wav, "audio/wav") if wav is not None else None
            rec.emit(AgentSpeech(**common, onset=onset, offset=ev.time, transcript=text, audio=audio))
        elif isinstance(ev, AgentTranscript):
            self.pending_transcripts.append((ev.time, ev.text))
            act.heard.append((ev.time, "audio", ev.text))
            act.acted_this_turn = True
        elif isinstance(ev, AgentChat):
            common = rec.common()
            rec.emit(ChatMessage(**common, sender="agent", text=ev.text))
            act.heard.append((common["meeting_time"], "chat", ev.text))
            act.acted_this_turn = True
        elif isinstance(ev, AgentFile):
            common = rec.common()  # stamped on arrival, not after storing
            attachment = await self.store(ev.data, ev.media_type) if ev.ok else None
            rec.emit(FileTransfer(
                **common, direction="from_agent", file_id=ev.file_id, name=ev.name, media_type=ev.media_type,
                size=ev.size, sha256=ev.sha256, ok=ev.ok, reason=ev.reason, attachment=attachment,
            ))
            act.acted_this_turn = True
        elif isinstance(ev, AgentDocMessage):
            try:
                result = self.doc.handle_message("agent", ev.data)
            except DocMessageError as exc:
                rec.emit(DocUpdateRejected(**rec.common(), origin="agent", size=len(ev.data), reason=str(exc)))
            else:
                for reply in result.replies:
                    await self.link.send_doc(reply)
                if result.applied:
                    act.acted_this_turn = True
        elif isinstance(ev, AgentDoneSignal):
            rec.emit(AgentDone(**rec.common()))
            # A late "done" for a turn the persona already closed (e.g. after a barge-in) must not end
            # the next one.
            if ev.turn_index is None or ev.turn_index == act.turn_index:
                act.done.set()
        elif isinstance(ev, ProtocolFault):
            rec.emit(ErrorEvent(**rec.common(), source="agent", kind=ev.kind, message=ev.message, count=ev.count))
        elif isinstance(ev, AgentReportedError):
            # The agent's own "I failed" is an agent_error like one its runner reports; after a fatal one the
            # link has already treated the agent as gone, so the meeting ends as agent_error.
            self.faults.report(ev.kind, ev.message, ev.traceback, fatal=ev.fatal)
        elif isinstance(ev, AgentDisconnected):
            self.flush_transcripts()
            self.disconnect_reason = ev.reason
            rec.emit(Disconnect(**rec.common(), participant="agent", reason=ev.reason))
            act.gone = True
            # Nobody pulls the persona's audio track any more: end what is queued now, or a persona awaiting
            # the end of its speech would wait until the meeting's timeout.
            self.link.stop_playback()
        act.poke()


NETWORK_SAMPLE_EVERY = 2.0
"""Meeting seconds between samples of a WebRTC meeting's network (one more is taken at each turn's end)."""


class NetworkSampler:
    """Records the link's network statistics (``network_stats`` events) through the meeting; nothing for a link
    without them (the in-process transport has no packets)."""

    def __init__(self, link: MeetingLink, rec: SessionRecorder) -> None:
        self.rec = rec
        self._stats: Callable[[], Awaitable[dict[str, Any]]] | None = getattr(link, "network_stats", None)
        self.last: dict[str, Any] | None = None

    async def sample(self) -> None:
        if self._stats is None:
            return
        try:
            data = await self._stats()
            self.rec.emit(NetworkStats(**self.rec.common(), **data))
            self.last = data
        except Exception:  # noqa: BLE001 - a measurement; the meeting goes on without it
            logger.exception("network statistics unavailable")

    async def run(self) -> None:
        while self._stats is not None:
            await self.rec.clock.sleep(NETWORK_SAMPLE_EVERY)
            await self.sample()


def network_manifest(link: MeetingLink) -> dict[str, Any] | None:
    """The manifest's ``network``: the profile, its seed; None for a link without a network (in process)."""
    if link.transport != "webrtc":
        return None
    from modylbench.channels import PROFILES

    profile = link.options.network or PROFILES["clean"]
    return {**profile.manifest(), "seed": link.options.network_seed}


async def run_meeting(
    link: MeetingLink,
    scenario: Scenario,
    agent_name: str,
    folder: Path,
    clock: Clock,
    speech: SpeechEngine,
    options: MeetingOptions | None = None,
) -> MeetingResult:
    """Play ``scenario`` over ``link`` and record it in ``folder``. Never raises for agent misbehaviour."""
    opts = options or MeetingOptions()
    # Meeting time is the link's clock: zero when the agent joins (docs/protocol.md §7), not when the
    # harness became ready; ``clock`` is the clock that link was built on.
    clock = getattr(link, "clock", clock)
    # Set before anything awaits: the hello the agent gets on joining carries it.
    if getattr(link, "connected", False):
        logger.warning("the agent joined before the meeting started: its hello carried no briefing")
    link.briefing = briefing(scenario)
    link.room = room_hello_of(scenario)  # who is in a multi-party meeting (hello.room); None one-to-one
    folder.mkdir(parents=True, exist_ok=True)
    turns = scenario.turns[: opts.turns] if opts.turns else list(scenario.turns)
    rec = SessionRecorder(folder, clock, opts.snapshot_every, opts.on_event)
    if opts.asr:
        rec.recognition = MeetingRecognition(make_recogniser(opts.asr), folder, rec.emit, rec.common)
    manifest = Manifest.model_validate({
        "modylbench_version": package_version(),
        "scenario_id": scenario.scenario_id,
        "scenario_hash": scenario_hash(scenario),
        "agent": agent_name,
        "transport": link.transport,
        "judges": opts.judges,
        "seed": opts.seed,
        "seeds": {"scenario": scenario.seed},
        "git_commit": git_commit(),
        "speech": {"engine": speech.name, "voice": speech.voice},
        "turns_planned": len(turns),
        "started_wall_time": clock.wall_time(),
        "complete": False,
        "asr": opts.asr,
        "network": network_manifest(link),
        "answerer": opts.answerer if scenario.knowledge is not None else None,
        **opts.extra_manifest,
    })
    SessionFolder(folder).write_manifest(manifest)
    act = AgentActivity()
    outgoing: asyncio.Queue[bytes] = asyncio.Queue()

    def on_update(origin: str, update: bytes) -> None:
        rec.doc_update(origin, update)
        if origin != "agent":
            outgoing.put_nowait(sync_message(SYNC_UPDATE, update))

    doc = SharedDocument(on_update=on_update)
    doc.on_refused = lambda origin, size, reason: rec.emit(DocUpdateRejected(
        **rec.common(), origin=origin if origin in ("persona", "agent", "harness", "observer") else "observer",  # type: ignore[arg-type]
        size=size, reason=reason))
    rec.doc = doc
    if opts.on_doc is not None:
        opts.on_doc(doc)
    answerer = make_answerer(opts.answerer, scenario)
    persona = ScriptedPersona(scenario, link, clock, speech, rec.emit, rec.attach, act, opts.persona,
                              on_audio=lambda t, pcm: rec.persona_audio.append((t, pcm)), answerer=answerer)
    persona.prepare(turns)  # before the clock matters: synthesis time is not meeting time
    # The agent's failures: its runner's reports and its own (control ``error``), recorded alike.
    faults = opts.faults if opts.faults is not None else AgentFaults()
    pump = AgentEventRecorder(link, rec, doc, act, faults)
    reason, detail, played = "completed", "", 0
    rec.emit(SessionStart(**rec.common(), scenario_id=scenario.scenario_id, scenario_hash=scenario_hash(scenario),
                          agent=agent_name, transport=link.transport, turns_planned=len(turns),
                          scenario_seed=opts.seed, persona_challenges=persona.challenges))
    faults.bind(lambda entry: rec.emit(AgentError(**rec.common(), **entry)))
    # The deliverables' templates are in the document before turn 0 (recorded with origin persona);
    # an agent that syncs gets them with everything else.
    persona.set_up_deliverables(doc)

    async def forward() -> None:
        while True:
            msg = await outgoing.get()
            await link.send_doc(msg)

    try:
        await link.wait_connected()
    except (TimeoutError, ConnectionError) as exc:
        rec.emit(ErrorEvent(**rec.common(), source="agent", kind="connect", message=str(exc)))
        reason, detail = await _charge_agent(faults, "agent_disconnected", str(exc))
        await close_recognition(rec.recognition)
        return _finish(rec, link, manifest, reason, detail, 0, pump, faults)
    tasks = TaskOwner("meeting", quiet=True)  # ended in the finally below: cancelled and awaited
    pump_task = tasks.start(pump.run(), "pump")
    forward_task = tasks.start(forward(), "forward")
    network = NetworkSampler(link, rec)
    sampler_task = tasks.start(network.run(), "network")
    try:
        await link.send_doc(doc.step1())
        deadline = clock.now() + scenario.timeout_minutes * 60
        for turn in turns:
            if act.gone:
                reason, detail = "agent_disconnected", pump.disconnect_reason or ""
                break
            if clock.now() > deadline:
                reason, detail = "timeout", f"meeting exceeded {scenario.timeout_minutes} minutes"
                break
            try:
                if not await _within(persona.play_turn(turn), clock, deadline):
                    reason, detail = "timeout", f"meeting exceeded {scenario.timeout_minutes} minutes"
                    break
            except Exception as exc:  # noqa: BLE001 - the persona's fault, never the agent's
                if act.gone:
                    reason, detail = "agent_disconnected", pump.disconnect_reason or ""
                    break
                rec.emit(ErrorEvent(**rec.common(), source="persona", kind=type(exc).__name__, message=str(exc),
                                    traceback=traceback.format_exc()))
                reason, detail = "persona_error", str(exc)
                break
            played += 1
            await pump.end_turn()
            await network.sample()
        else:
            if opts.turns and opts.turns < len(scenario.turns):
                reason, detail = "max_turns", f"played the first {len(turns)} of {len(scenario.turns)} turns"
        # An agent that left before the harness ended the meeting left it, even during the last planned
        # turn (docs/protocol.md §8); the pump may not have seen the disconnect yet, the link has.
        left = act.gone or getattr(link, "connected", True) is False
        if left and reason in ("completed", "max_turns"):
            reason, detail = "agent_disconnected", pump.disconnect_reason or ""
        sampler_task.cancel()
        await network.sample()
        await link.close(reason)  # meeting_end carries the record's termination reason
        # Let the agent's last events (its final speech offset, doc edits) land before the record closes.
        await _drain(pump_task, clock)
        if reason == "agent_disconnected" and not detail:
            detail = pump.disconnect_reason or ""
        reason, detail = await _charge_agent(faults, reason, detail)
    except Exception as exc:  # noqa: BLE001 - an infrastructure failure is never charged to the agent
        rec.emit(ErrorEvent(**rec.common(), source="infrastructure", kind=type(exc).__name__, message=str(exc),
                            traceback=traceback.format_exc()))
        reason, detail = "infrastructure_error", str(exc)
        await link.close("infrastructure_error")
    finally:
        for task in (forward_task, pump_task, sampler_task):
            task.cancel()
        await asyncio.gather(forward_task, pump_task, sampler_task, return_exceptions=True)
        # The agent's last segments are recognised before the record is sealed (at most DRAIN_S more).
        await close_recognition(rec.recognition)
    return _finish(rec, link, manifest, reason, detail, played, pump, faults)


async def _within(turn: Coroutine[Any, Any, Any], clock: Clock, deadline: float) -> bool:
    """Play ``turn`` unless the meeting's deadline comes first (then it is cut, and False): the meeting
    timeout holds during a turn, not only between turns."""
    race = TaskOwner("turn", quiet=True)
    play, timer = race.start(turn, "play"), race.start(clock.sleep_until(deadline), "deadline")
    try:
        await asyncio.wait({play, timer}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        timer.cancel()
        await asyncio.gather(timer, return_exceptions=True)
        cut = not play.done()
        if cut:
            play.cancel()
            await asyncio.gather(play, return_exceptions=True)
    if cut:
        return False
    play.result()
    return True


async def _charge_agent(faults: AgentFaults | None, reason: str, detail: str) -> tuple[str, str]:
    """A meeting the agent left because it failed (it crashed, exited, never joined) ends as ``agent_error``,
    with the failure as its detail; leaving on its own stays ``agent_disconnected``."""
    if faults is None or reason != "agent_disconnected":
        return reason, detail
    if faults.fatal is None and faults.settle is not None:
        try:
            await faults.settle()
        except Exception:  # noqa: BLE001 - a failed check leaves the reason as it was
            logger.exception("waiting for the agent's runner to settle")
    fatal = faults.fatal
    return ("agent_error", fatal["message"]) if fatal is not None else (reason, detail)


async def _drain(pump_task: asyncio.Future[None], clock: Clock) -> None:
    """Wait (on the meeting clock, at most 5 s) for the event pump to see the agent's disconnect."""
    sleeper = TaskOwner("drain", quiet=True).start(clock.sleep(5.0), "sleep")
    try:
        await asyncio.wait({pump_task, sleeper}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        sleeper.cancel()
        await asyncio.gather(sleeper, return_exceptions=True)


def _finish(rec: SessionRecorder, link: MeetingLink, manifest: Manifest, reason: str, detail: str,
            played: int, pump: AgentEventRecorder, faults: AgentFaults | None = None) -> MeetingResult:
    pump.flush_transcripts()
    rec.snapshot()
    if rec.doc is not None:
        rec.doc.close()  # stops the update sandbox process; the document stays readable
    recording = None
    try:
        # Written before the record ends, so the sealed record holds its hash (replay checks it).
        recording = file_sha256(rec.write_recording())[0]
    except Exception:  # noqa: BLE001 - the record is what matters; the WAV is a convenience
        logger.exception("could not write the stereo recording")
    rec.emit(SessionEnd(**rec.common(), termination_reason=reason, detail=detail,  # type: ignore[arg-type]
                        recording_sha256=recording))
    rec.writer.close()
    if faults is not None:
        faults.close()
    media = _media_stats(link)
    manifest = manifest.model_copy(update={
        "ended_wall_time": rec.clock.wall_time(),
        "meeting_seconds": rec.clock.now(),
        "termination_reason": reason,
        "detail": detail,
        "turns_played": played,
        "doc_updates": rec.doc_updates,
        "record_last_hash": rec.writer.last_hash,
        "media": media,
        "complete": True,
    })
    SessionFolder(rec.folder).write_manifest(manifest)
    return MeetingResult(rec.folder, reason, played, detail, media, faults.summary() if faults is not None else [])


def _media_stats(link: MeetingLink) -> dict[str, Any]:
    try:
        return dict(link.media_stats())
    except Exception:  # noqa: BLE001 - the stats are a measurement; the meeting's record is what matters
        logger.exception("media stats unavailable")
        return {}


