"""What the report shows, gathered before any HTML: sessions read from their folders, runs paired with them."""

from __future__ import annotations

import json
import logging
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from modylbench.record import (
    AgentSpeech,
    ChatMessage,
    DocUpdate,
    ErrorEvent,
    FileTransfer,
    Interruption,
    Manifest,
    PersonaUtterance,
    RecordRead,
    ScenarioResponses,
    ScreenFrame,
    SessionFolder,
    SessionStart,
    TurnEnd,
    TurnStart,
    derive_responses,
    read_record,
)
from modylbench.scenarios import Scenario
from modylbench.scoring._formula import PRODUCT_DIMENSIONS, TURN_DIMENSIONS
from modylbench.scoring._models import ScenarioScore, Scorecard

logger = logging.getLogger(__name__)

Who = Literal["persona", "agent"]
ActivityKind = Literal["speech", "chat", "file", "edit"]


@dataclass(frozen=True)
class Activity:
    """One act in the meeting on the meeting clock: who spoke, posted, pushed a file or edited, and when."""

    who: Who
    kind: ActivityKind
    start: float
    end: float  # equal to start for instant acts (a chat message, a file, an edit)
    turn_index: int | None
    text: str = ""  # what was said or posted, the file's name


@dataclass(frozen=True)
class TurnLatency:
    """How long the agent took to answer a turn, from the end of the persona's speech (milliseconds).

    ``speech_ms`` is its first speech, ``action_ms`` its first written act (chat, document edit or file,
    ``action_kind`` says which); None when it did not do that in the turn. A responses line without our
    measurements only has ``first_ms``, the first response of any kind (the public ``latency_ms``).
    """

    turn_index: int
    first_ms: float | None
    first_kind: str | None = None
    speech_ms: float | None = None
    action_ms: float | None = None
    action_kind: str | None = None
    measured: bool = False  # True when speech and action were measured apart (a recorded session)


@dataclass
class SessionView:
    """What a recorded session adds to the report: timing, what was said, slides, files, recording."""

    folder: Path
    start: SessionStart
    responses: ScenarioResponses
    turn_start: dict[int, float] = field(default_factory=dict)
    turn_end: dict[int, float] = field(default_factory=dict)
    turn_end_reason: dict[int, str] = field(default_factory=dict)
    persona_said: dict[int, list[str]] = field(default_factory=dict)
    agent_onset: dict[int, float] = field(default_factory=dict)
    chats: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    frames: list[ScreenFrame] = field(default_factory=list)
    files: list[FileTransfer] = field(default_factory=list)
    errors: list[ErrorEvent] = field(default_factory=list)
    interruptions: dict[int, list[str]] = field(default_factory=dict)
    manifest: Manifest = field(default_factory=Manifest)
    activity: list[Activity] = field(default_factory=list)
    meeting_end: float = 0.0  # meeting time of the record's last event (the session's end when sealed)

    @property
    def recording(self) -> Path | None:
        """The session's recording.wav, None when the session has none."""
        p = SessionFolder(self.folder).recording
        return p if p.is_file() else None


def load_session(folder: Path, read: RecordRead | None = None) -> SessionView:
    """Read a session folder through the record (verified) and collect what the report shows; ``read``: the
    record as the caller already read it (a batch reads each session's record once)."""
    files = SessionFolder(folder)
    if read is None:
        read = read_record(folder)
    start = next((e for e in read.events if isinstance(e, SessionStart)), None)
    if start is None:
        raise ValueError(f"{folder}: the record has no session_start")
    responses: ScenarioResponses | None = None
    first = _first_line(files.responses)
    if first is not None:
        try:
            responses = ScenarioResponses.model_validate_json(first)
        except ValueError:
            responses = None
    if responses is None:
        responses = derive_responses(read.events)
    view = SessionView(folder=folder, start=start, responses=responses, manifest=files.read_manifest() or Manifest())
    for ev in read.events:
        ti = ev.turn_index
        view.meeting_end = max(view.meeting_end, ev.meeting_time)
        act = _activity(ev)
        if act is not None:
            view.activity.append(act)
            view.meeting_end = max(view.meeting_end, act.end)
        if isinstance(ev, TurnStart) and ti is not None:
            view.turn_start[ti] = ev.meeting_time
        elif isinstance(ev, TurnEnd) and ti is not None:
            view.turn_end[ti] = ev.meeting_time
            view.turn_end_reason[ti] = ev.reason
        elif isinstance(ev, PersonaUtterance) and ti is not None:
            view.persona_said.setdefault(ti, []).append(ev.text)
        elif isinstance(ev, AgentSpeech) and ti is not None:
            view.agent_onset[ti] = min(view.agent_onset.get(ti, ev.onset), ev.onset)
        elif isinstance(ev, ChatMessage) and ti is not None:
            view.chats.setdefault(ti, []).append((ev.sender, ev.text))
        elif isinstance(ev, ScreenFrame):
            view.frames.append(ev)
        elif isinstance(ev, FileTransfer):
            view.files.append(ev)
        elif isinstance(ev, ErrorEvent):
            view.errors.append(ev)
        elif isinstance(ev, Interruption) and ti is not None:
            view.interruptions.setdefault(ti, []).append(f"{ev.kind} by {ev.by}")
    return view


def _activity(ev: Any) -> Activity | None:
    """The who-spoke-when entry of a record event; None for events that are not someone acting."""
    ti = ev.turn_index
    if isinstance(ev, PersonaUtterance):
        return Activity("persona", "speech", ev.start, max(ev.start, ev.end), ti, ev.text)
    if isinstance(ev, AgentSpeech):
        return Activity("agent", "speech", ev.onset, max(ev.onset, ev.offset), ti, ev.transcript or "")
    if isinstance(ev, ChatMessage) and ev.sender in ("persona", "agent"):
        return Activity(ev.sender, "chat", ev.meeting_time, ev.meeting_time, ti, ev.text)
    if isinstance(ev, FileTransfer):
        who: Who = "persona" if ev.direction == "to_agent" else "agent"
        name = ev.name if ev.ok else f"{ev.name} (refused: {ev.reason})"
        return Activity(who, "file", ev.meeting_time, ev.meeting_time, ti, name)
    if isinstance(ev, DocUpdate) and ev.origin in ("persona", "agent"):
        return Activity(ev.origin, "edit", ev.meeting_time, ev.meeting_time, ti, f"{ev.size} B update")
    return None


def turn_latencies(responses: ScenarioResponses | None) -> list[TurnLatency]:
    """Each answered turn's latencies: speech and first written act apart when the record measured them."""
    if responses is None:
        return []
    measured: dict[int, dict[str, Any]] = {}
    rows = (responses.measurements or {}).get("turns")
    if isinstance(rows, list):
        for row in rows:
            if isinstance(row, dict) and isinstance(row.get("turn_index"), int):
                measured[row["turn_index"]] = row
    out = []
    for t in responses.turns:
        row = measured.get(t.turn_index)
        if row is None:
            out.append(TurnLatency(t.turn_index, t.latency_ms))
            continue
        kinds = {k: row.get(f"latency_{k}_ms") for k in ("chat", "doc", "file")}
        present = {k: float(v) for k, v in kinds.items() if isinstance(v, int | float)}
        out.append(
            TurnLatency(
                t.turn_index,
                t.latency_ms,
                row.get("latency_first") if isinstance(row.get("latency_first"), str) else None,
                _ms(row.get("latency_speech_ms")),
                _ms(row.get("latency_action_ms")),
                min(present, key=lambda k: present[k]) if present else None,
                measured=True,
            )
        )
    return out


def _ms(x: Any) -> float | None:
    return float(x) if isinstance(x, int | float) and not isinstance(x, bool) else None


@dataclass
class RunView:
    """One scored (scenario, model, trial) with everything known about it."""

    entry: ScenarioScore
    label: str
    scenario: Scenario | None = None
    responses: ScenarioResponses | None = None
    session: SessionView | None = None
    pass_k: dict[str, float] | None = None
    session_report: str | None = None  # relative link to the session's own report

    @property
    def anchor(self) -> str:
        """The run's HTML id; its turns, products and audio hang their ids on it."""
        raw = f"{self.entry.scenario_id}-{self.label}-{self.entry.trial}"
        return "run-" + "".join(c if c.isalnum() else "-" for c in raw)

    def turn_phase(self, ti: int) -> tuple[str, str]:
        """The scenario's phase and channel of turn ``ti`` ("unknown", "—" without the scenario)."""
        if self.scenario is not None and ti < len(self.scenario.turns):
            t = self.scenario.turns[ti]
            return t.phase, t.channel
        return "unknown", "—"

    def phases(self) -> list[tuple[str, int, int]]:
        """The meeting's phases as (phase, first turn, last turn), one per run of scored turns in the same phase."""
        names = [self.turn_phase(t.turn_index)[0] for t in self.entry.turns]
        out: list[tuple[str, int, int]] = []
        for i, ph in enumerate(names):
            if out and out[-1][0] == ph:
                out[-1] = (ph, out[-1][1], i)
            else:
                out.append((ph, i, i))
        return out


def dimension_means(entry: ScenarioScore) -> dict[str, float | None]:
    """Mean consensus of each of the 11 dimensions over the scored turns and products."""
    out: dict[str, float | None] = {}
    for dims, items in ((TURN_DIMENSIONS, entry.turns), (PRODUCT_DIMENSIONS, entry.products)):
        for d in dims:
            vals = [it.dimensions[d] for it in items if it.score is not None and d in it.dimensions]
            out[d] = sum(vals) / len(vals) if vals else None
    return out


def mean_dims(rows: Sequence[dict[str, float | None]]) -> dict[str, float | None]:
    """Per dimension, the mean of the rows that have a value (several runs of one model)."""
    out: dict[str, float | None] = {}
    for d in (*TURN_DIMENSIONS, *PRODUCT_DIMENSIONS):
        vals = [r[d] for r in rows if r.get(d) is not None]
        out[d] = sum(v for v in vals if v is not None) / len(vals) if vals else None
    return out


def _labels(cards: Sequence[Scorecard], names: Sequence[str] | None) -> list[list[str]]:
    """Display label of each entry: the model id, made unique across cards when it repeats."""
    seen: Counter[str] = Counter()
    for card in cards:
        for m in {s.model_id for s in card.scenarios}:
            seen[m] += 1
    out = []
    for ci, card in enumerate(cards):
        tag = names[ci] if names and ci < len(names) else f"#{ci + 1}"
        out.append([s.model_id if seen[s.model_id] < 2 else f"{s.model_id} ({tag})" for s in card.scenarios])
    return out


def _scenario_for(sid: str, n_turns: int, scenarios: dict[str, Scenario]) -> Scenario | None:
    sc = scenarios.get(sid)
    if sc is None:
        return None
    return sc.first_turns(n_turns) if n_turns < len(sc.turns) else sc


def build_runs(
    cards: Sequence[Scorecard],
    sessions: Sequence[SessionView],
    responses: Sequence[ScenarioResponses],
    scenarios: dict[str, Scenario],
    names: Sequence[str] | None = None,
) -> list[RunView]:
    """Pair every scorecard entry with its scenario, responses and session (matched by scenario and model)."""
    runs: list[RunView] = []
    labels = _labels(cards, names)
    free_sessions = list(sessions)
    for ci, card in enumerate(cards):
        for si, entry in enumerate(card.scenarios):
            run = RunView(entry=entry, label=labels[ci][si])
            run.scenario = _scenario_for(entry.scenario_id, len(entry.turns), scenarios)
            for s in free_sessions:
                r = s.responses
                if r.scenario_id == entry.scenario_id and r.model_id == entry.model_id:
                    run.session = s
                    run.responses = r
                    free_sessions.remove(s)
                    break
            if run.responses is None:
                run.responses = next(
                    (
                        r
                        for r in responses
                        if r.scenario_id == entry.scenario_id
                        and r.model_id == entry.model_id
                        and (r.trial is None or r.trial == entry.trial)
                    ),
                    None,
                )
            agg = card.aggregate.get(entry.model_id)
            if agg is not None:
                ps = next((p for p in agg.per_scenario if p.scenario_id == entry.scenario_id), None)
                if ps is not None and ps.trials > 1:
                    run.pass_k = ps.pass_k
            runs.append(run)
    return runs


def link_session_reports(runs: Sequence[RunView], base: Path) -> None:
    """Point runs without media at the per-session report a sweep wrote beside them (OUT/<session>/report.html)."""
    for run in runs:
        if run.session is not None:
            continue
        for folder in sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []:
            files = SessionFolder(folder)
            rep = files.report
            if not rep.is_file() or not folder.name.startswith(run.entry.scenario_id + "__"):
                continue
            line = _first_line(files.responses)
            try:
                first = json.loads(line) if line is not None else None
            except ValueError:
                continue
            if not isinstance(first, dict):
                continue
            if first.get("model_id") == run.entry.model_id and (
                first.get("trial") is None
                or first.get("trial") == run.entry.trial
                or "__t" not in folder.name
            ):
                suffix = folder.name.rsplit("__t", 1)
                if len(suffix) == 2 and suffix[1].isdigit() and int(suffix[1]) != run.entry.trial:
                    continue
                run.session_report = os.path.relpath(rep, base)
                break


def _first_line(path: Path) -> str | None:
    """The first line of a responses.jsonl (a session's one scenario), None when there is none to read."""
    try:
        return path.read_text(encoding="utf-8").splitlines()[0]
    except (OSError, ValueError, IndexError):
        return None
