"""The HTML report: one self-contained file that shows how an agent did, where it lost points and why.

Headline, dimension chart, per-turn timeline, products and (for recorded sessions) the recording,
slides and files; several scorecards or models give a comparison view. Charts are inline SVG.
"""

from __future__ import annotations

import base64
import html
import io
import json
import logging
import math
import os
import re
import wave
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from modylbench.record import (
    AgentSpeech,
    ChatMessage,
    ErrorEvent,
    FileTransfer,
    Interruption,
    Mutation,
    PersonaUtterance,
    ScenarioResponses,
    ScreenFrame,
    SessionStart,
    TurnEnd,
    TurnStart,
    attachment_path,
    read_record,
    valid_text,
)
from modylbench.record._derive import derive_responses
from modylbench.scenarios import Scenario, VerificationCriterion, apply_mutations, resolve, resolve_scenarios
from modylbench.scoring._formula import (
    HARD_FLOOR,
    PRODUCT_DIMENSIONS,
    PRODUCT_WEIGHTS,
    TURN_DIMENSIONS,
    TURN_WEIGHTS,
    tier_threshold,
)
from modylbench.scoring._models import ProductScore, ScenarioScore, Scorecard, TurnScore
from modylbench.scoring._mutations import _reverting, match_trajectory, values_equal

logger = logging.getLogger(__name__)

AUDIO_BITRATE = 24_000  # ~4 MB for a 20-minute stereo meeting: small enough to embed
THUMB_WIDTH = 360
MAX_FILE_EMBED = 256 * 1024  # exchanged files up to this size are embedded as downloads
MAX_TABLE_ROWS = 80
_ABSENT = object()

# What a flag means, in words a newcomer reads (docs/scoring.md has the exact rules).
FLAG_TEXT: dict[str, str] = {
    "hard_floor": "capped at 4.0: a key dimension (context accuracy / task progress, or correctness) was below 4",
    "judge_disagreement": "judges disagreed by more than 3 points; the lowest score was taken",
    "partial_panel": "some judges could not score this item",
    "no_response": "the agent said, wrote and edited nothing",
    "not_delivered": "the expected deliverable was never delivered (scores 1)",
    "no_trajectory_evidence": "work not shown in time: fewer than half the expected edits made within two turns of "
    "being asked (capped between 4.0 and 1.0 by how many were)",
    "correctness_bounded": "correctness lowered to match the programmatic checks that failed",
    "no_trajectory": "no edit trajectory recorded: the final state earns no credit",
    "turns_unanswered": "some turns have no response at all",
    "ended_early": "the meeting ended before the last turn",
    "prompt_injection": "the agent tried to instruct the judge",
    "parroting": "the agent copied the persona's or the scenario's words",
    "edge_case_conceded": "the agent gave in to a curveball it should have pushed back on",
    "no_ground_truth": "no ground truth to check the figures against",
    "imprecise": "many figures matched nothing the scenario knows, or a flood of figures: the turn's substance shrank",
    "hedged": "a figure was offered with a rival ('X or maybe Y'): it counts half or not at all",
    "keyword_stuffing": "most of the meeting's talking points recited in one turn: its text facts lost credit",
    "silent_journey": "the journey is below 4: the scenario is capped at 4.0",
    "no_deliverables": "the deliverables score below 4: the scenario is capped at 4.0",
    "edge_cases_conceded": "the agent gave in to curveballs: each one lowers the scenario's ceiling",
}
SCENARIO_FLAGS_SHOWN = ("ended_early", "no_trajectory", "turns_unanswered", "silent_journey", "no_deliverables",
                        "edge_cases_conceded")


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _f(x: float | None, digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _mmss(t: float) -> str:
    t = max(0.0, t)
    return f"{int(t // 60)}:{int(t % 60):02d}"


def _score_class(x: float | None) -> str:
    if x is None:
        return "s-none"
    if x < HARD_FLOOR:
        return "s-bad"
    if x < 6.0:
        return "s-low"
    if x < 7.5:
        return "s-mid"
    return "s-good"


def _score_color(x: float | None) -> str:
    return {"s-none": "#9aa0a6", "s-bad": "#c62828", "s-low": "#ef6c00", "s-mid": "#f9a825", "s-good": "#2e7d32"}[
        _score_class(x)
    ]


def _nice(d: str) -> str:
    return d.replace("_", " ")


# ---------------------------------------------------------------------------------------- data


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
    manifest: dict[str, Any] = field(default_factory=dict)

    @property
    def recording(self) -> Path | None:
        p = self.folder / "recording.wav"
        return p if p.is_file() else None


def load_session(folder: Path) -> SessionView:
    """Read a session folder through the record (verified) and collect what the report shows."""
    read = read_record(folder)
    start = next((e for e in read.events if isinstance(e, SessionStart)), None)
    if start is None:
        raise ValueError(f"{folder}: the record has no session_start")
    responses: ScenarioResponses | None = None
    rpath = folder / "responses.jsonl"
    if rpath.is_file():
        try:
            first = rpath.read_text(encoding="utf-8").splitlines()[0]
            responses = ScenarioResponses.model_validate_json(first)
        except (OSError, ValueError, IndexError):
            responses = None
    if responses is None:
        responses = derive_responses(read.events)
    view = SessionView(folder=folder, start=start, responses=responses)
    try:
        data = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        view.manifest = data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        pass
    for ev in read.events:
        ti = ev.turn_index
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
        raw = f"{self.entry.scenario_id}-{self.label}-{self.entry.trial}"
        return "run-" + "".join(c if c.isalnum() else "-" for c in raw)


def dimension_means(entry: ScenarioScore) -> dict[str, float | None]:
    """Mean consensus of each of the 11 dimensions over the scored turns and products."""
    out: dict[str, float | None] = {}
    for dims, items in ((TURN_DIMENSIONS, entry.turns), (PRODUCT_DIMENSIONS, entry.products)):
        for d in dims:
            vals = [it.dimensions[d] for it in items if it.score is not None and d in it.dimensions]
            out[d] = sum(vals) / len(vals) if vals else None
    return out


def classify_mutations(trajectory: Sequence[Mutation], scenario: Scenario) -> list[set[str]]:
    """Tags per mutation: expected, destructive, backtrack, reverted (undone within 2 turns), unexpected.

    Mirrors the counting rules of ``compute_metrics`` so each counted edit can be pointed at.
    """
    traj = list(trajectory)
    expected = scenario.expected_mutations
    matches = match_trajectory(traj, expected)
    final = apply_mutations(expected)
    tags: list[set[str]] = [set() for _ in traj]
    for i, m in enumerate(traj):
        if matches[i] is not None:
            tags[i].add("expected")
        elif m.mutation_type != "create":
            j = _reverting(traj, i)
            if j is not None:
                tags[i].add("reverted")
                if matches[j] is None:
                    tags[j].add("reverted")
    history: dict[tuple[str, str], list[Any]] = defaultdict(list)
    for i, m in enumerate(traj):
        target = resolve(final[m.product_id], m.path, _ABSENT) if m.product_id in final else _ABSENT
        if target is not _ABSENT and values_equal(m.old_value, target) and not values_equal(m.new_value, target):
            tags[i].add("destructive")
        past = history[(m.product_id, m.path)]
        if not past:
            past.append(m.old_value)
        if any(values_equal(m.new_value, v, 0.0) for v in past[:-1]):
            tags[i].add("backtrack")
        past.append(m.new_value)
    for t in tags:
        if not t & {"expected", "reverted"}:
            t.add("unexpected")
    return tags


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
                        r for r in responses
                        if r.scenario_id == entry.scenario_id and r.model_id == entry.model_id
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


# ---------------------------------------------------------------------------------------- media


def encode_recording(wav_path: Path, bitrate: int = AUDIO_BITRATE) -> bytes:
    """The recording as Ogg Opus (stereo kept: persona left, agent right)."""
    import av
    import numpy as np

    buf = io.BytesIO()
    with wave.open(str(wav_path), "rb") as w:
        channels, rate, width = w.getnchannels(), w.getframerate(), w.getsampwidth()
        if width != 2:
            raise ValueError(f"{wav_path}: only 16-bit PCM is supported")
        layout = "stereo" if channels == 2 else "mono"
        out = av.open(buf, "w", format="ogg")
        stream: Any = out.add_stream("libopus", rate=rate, layout=layout)
        stream.bit_rate = bitrate
        # Speech at a low bitrate: the voip mode and a lower complexity halve the encoding time.
        stream.codec_context.options = {"application": "voip", "compression_level": "3"}
        pts = 0
        while True:
            raw = w.readframes(rate * 10)
            if not raw:
                break
            samples = np.frombuffer(raw, dtype="<i2").reshape(1, -1)
            frame = av.AudioFrame.from_ndarray(samples, format="s16", layout=layout)
            frame.sample_rate = rate
            frame.pts = pts
            pts += samples.shape[1] // channels
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
        out.close()
    return buf.getvalue()


def _thumbnail(data: bytes, width: int = THUMB_WIDTH) -> str | None:
    """A JPEG data URI of an image, scaled down to ``width``; None when it is not an image."""
    from PIL import Image, UnidentifiedImageError

    try:
        opened = Image.open(io.BytesIO(data))
        opened.load()
    except (UnidentifiedImageError, OSError):
        return None
    img = opened.convert("RGB")
    if img.width > width:
        img = img.resize((width, max(1, round(img.height * width / img.width))), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    img.save(out, format="JPEG", quality=72)
    return "data:image/jpeg;base64," + base64.b64encode(out.getvalue()).decode("ascii")


# ---------------------------------------------------------------------------------------- SVG charts


PALETTE = ("#1565c0", "#c2185b", "#00897b", "#6d4c41", "#5e35b1", "#f57c00", "#546e7a", "#7cb342")


def dimension_chart(series: Sequence[tuple[str, dict[str, float | None]]]) -> str:
    """Horizontal bars of the 11 dimensions (1..10), one bar per series, grouped per dimension."""
    dims = list(TURN_DIMENSIONS) + list(PRODUCT_DIMENSIONS)
    n = max(1, len(series))
    bar_h = 14 if n == 1 else max(10, 30 // n)
    group_h = bar_h * n + 10
    left, width, top = 230, 360, 26 + (18 * ((n + 2) // 3) if n > 1 else 0)
    height = top + group_h * len(dims) + 28 + 14
    parts = [
        f'<svg class="chart" role="img" aria-label="The 11 scoring dimensions" viewBox="0 0 {left + width + 60} '
        f'{height}" width="{left + width + 60}" height="{height}" xmlns="http://www.w3.org/2000/svg">'
    ]
    if n > 1:
        for i, (name, _) in enumerate(series):
            lx, ly = 10 + (i % 3) * 220, 14 + (i // 3) * 18
            parts.append(f'<rect x="{lx}" y="{ly - 10}" width="12" height="12" fill="{PALETTE[i % len(PALETTE)]}"/>')
            parts.append(f'<text x="{lx + 18}" y="{ly}" class="lg">{_e(name)}</text>')
    for v in (1.0, 4.0, 6.0, 7.5, 9.0, 10.0):
        x = left + width * v / 10
        parts.append(f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{top + group_h * len(dims)}" '
                     f'class="{"floor" if v == HARD_FLOOR else "grid"}"/>')
        parts.append(f'<text x="{x:.1f}" y="{top + group_h * len(dims) + 14}" class="ax" text-anchor="middle">'
                     f'{v:g}</text>')
    for gi, d in enumerate(dims):
        y0 = top + gi * group_h
        weight = TURN_WEIGHTS.get(d) or PRODUCT_WEIGHTS.get(d, 0.0)
        kind = "turn" if d in TURN_WEIGHTS else "product"
        parts.append(f'<text x="{left - 8}" y="{y0 + group_h / 2 + 4:.1f}" text-anchor="end" class="dl">'
                     f'{_e(_nice(d))} <tspan class="ax">{kind} ×{weight:.2f}</tspan></text>')
        if gi == len(TURN_DIMENSIONS):
            parts.append(f'<line x1="10" y1="{y0 - 3}" x2="{left + width + 50}" y2="{y0 - 3}" class="sep"/>')
        for si, (name, vals) in enumerate(series):
            dv = vals.get(d)
            y = y0 + 4 + si * bar_h
            color = PALETTE[si % len(PALETTE)] if n > 1 else _score_color(dv)
            if dv is None:
                parts.append(f'<text x="{left + 4}" y="{y + bar_h - 3}" class="ax">not scored</text>')
                continue
            w = width * dv / 10
            parts.append(f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar_h - 2}" fill="{color}">'
                         f'<title>{_e(name)}: {_e(_nice(d))} {dv:.2f}</title></rect>')
            parts.append(f'<text x="{left + w + 4:.1f}" y="{y + bar_h - 3}" class="val">{dv:.1f}</text>')
    parts.append(f'<text x="{left + width * 0.4:.1f}" y="{height - 2}" class="ax">red line: hard floor 4.0'
                 "</text></svg>")
    return "".join(parts)


def timeline_chart(run: RunView) -> str:
    """Turn scores as bars over the meeting, phases underneath; capped turns marked, bars link to turns."""
    turns = run.entry.turns
    if not turns:
        return ""
    n = len(turns)
    step = max(6.0, min(22.0, 900 / n))
    left, top, h = 34, 10, 150
    width = left + step * n + 10
    phases = _phases(run)
    height = top + h + 46
    p = [f'<svg class="chart timeline" role="img" aria-label="Score per turn" viewBox="0 0 {width:.0f} {height}" '
         f'width="{width:.0f}" height="{height}" xmlns="http://www.w3.org/2000/svg">']
    for v in (1, 4, 6, 7.5, 10):
        y = top + h - h * v / 10
        p.append(f'<line x1="{left}" x2="{width - 6:.0f}" y1="{y:.1f}" y2="{y:.1f}" '
                 f'class="{"floor" if v == HARD_FLOOR else "grid"}"/>')
        p.append(f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end" class="ax">{v:g}</text>')
    for i, t in enumerate(turns):
        x = left + i * step
        s = t.score
        tip = f"turn {t.turn_index}: " + (f"{s:.2f}" if s is not None else "not scored")
        if t.capped:
            tip += " (capped)"
        if t.flags:
            tip += " — " + ", ".join(t.flags)
        p.append(f'<a href="#{run.anchor}-turn-{t.turn_index}" class="tl-link">')
        if s is None:
            p.append(f'<rect x="{x + 1:.1f}" y="{top + h - 8}" width="{step - 2:.1f}" height="8" fill="#cfd3d7">'
                     f'<title>{_e(tip)}</title></rect>')
        else:
            bh = max(2.0, h * s / 10)
            p.append(f'<rect x="{x + 1:.1f}" y="{top + h - bh:.1f}" width="{step - 2:.1f}" height="{bh:.1f}" '
                     f'fill="{_score_color(s)}"><title>{_e(tip)}</title></rect>')
        if t.capped:
            p.append(f'<text x="{x + step / 2:.1f}" y="{top + h + 11}" text-anchor="middle" class="cap">▲'
                     f'<title>{_e(tip)}</title></text>')
        p.append("</a>")
    # Phase bands: one coloured strip per run of turns in the same phase.
    y = top + h + 16
    colour = {ph: PALETTE[i % len(PALETTE)] for i, ph in enumerate(dict.fromkeys(ph for ph, _, _ in phases))}
    for phase, a, b in phases:
        x0, x1 = left + a * step, left + (b + 1) * step
        p.append(f'<rect x="{x0:.1f}" y="{y}" width="{x1 - x0 - 1:.1f}" height="12" fill="{colour[phase]}" '
                 f'opacity="0.35"><title>{_e(_nice(phase))}: turns {a}–{b}</title></rect>')
        if (x1 - x0) > 8 * len(phase) * 0.75:
            p.append(f'<text x="{x0 + 3:.1f}" y="{y + 10}" class="ph">{_e(_nice(phase))}</text>')
    p.append(f'<text x="{left}" y="{height - 4}" class="ax">turn 0 … {n - 1}; ▲ capped at 4.0 by a hard floor; '
             "coloured strip: meeting phase</text></svg>")
    legend = "".join(f'<span><i style="background:{c}"></i>{_e(_nice(ph))}</span>' for ph, c in colour.items())
    p.append(f'<div class="legend phases">{legend}</div>')
    return "".join(p)


def _phases(run: RunView) -> list[tuple[str, int, int]]:
    names = [_turn_phase(run, t.turn_index)[0] for t in run.entry.turns]
    out: list[tuple[str, int, int]] = []
    for i, ph in enumerate(names):
        if out and out[-1][0] == ph:
            out[-1] = (ph, out[-1][1], i)
        else:
            out.append((ph, i, i))
    return out


def edits_chart(per_turn: dict[int, Counter[str]], expected: Counter[int], n_turns: int) -> str:
    """Edits per turn: agent edits as bars (destructive and backtracks stacked in colour), expected edits as ticks."""
    if n_turns <= 0:
        return ""
    step = max(5.0, min(18.0, 760 / n_turns))
    left, top, h = 34, 8, 90
    peak = max([sum(c.values()) for c in per_turn.values()] + list(expected.values()) + [1])
    scale = h / peak
    width = left + step * n_turns + 10
    height = top + h + 34
    p = [f'<svg class="chart" role="img" aria-label="Edits per turn" viewBox="0 0 {width:.0f} {height}" '
         f'width="{width:.0f}" height="{height}" xmlns="http://www.w3.org/2000/svg">']
    p.append(f'<line x1="{left}" x2="{width - 6:.0f}" y1="{top + h}" y2="{top + h}" class="grid"/>')
    p.append(f'<text x="{left - 4}" y="{top + 8}" text-anchor="end" class="ax">{peak}</text>')
    p.append(f'<text x="{left - 4}" y="{top + h}" text-anchor="end" class="ax">0</text>')
    order = (("destructive", "#c62828"), ("backtrack", "#ef6c00"), ("reverted", "#f9a825"),
             ("unexpected", "#90a4ae"), ("expected", "#2e7d32"))
    for ti in range(n_turns):
        x = left + ti * step
        c = per_turn.get(ti, Counter())
        y = float(top + h)
        tip = f"turn {ti}: " + (", ".join(f"{v} {k}" for k, v in c.items()) or "no edits")
        tip += f"; {expected.get(ti, 0)} expected"
        for kind, color in order:
            v = c.get(kind, 0)
            if v:
                bh = max(3.0, v * scale)  # a single edit must stay visible next to a burst
                y -= bh
                p.append(f'<rect x="{x + 1:.1f}" y="{y:.1f}" width="{step - 2:.1f}" height="{bh:.1f}" '
                         f'fill="{color}"><title>{_e(tip)}</title></rect>')
        if ti % 5 == 0:
            p.append(f'<text x="{x + step / 2:.1f}" y="{top + h + 11}" text-anchor="middle" class="ax">{ti}</text>')
        if expected.get(ti):
            ey = top + h - expected[ti] * scale
            p.append(f'<line x1="{x:.1f}" x2="{x + step:.1f}" y1="{ey:.1f}" y2="{ey:.1f}" class="exp">'
                     f"<title>{_e(tip)}</title></line>")
    lx = left
    for kind, color in (*order[::-1], ("expected (scenario)", "")):
        if color:
            p.append(f'<rect x="{lx}" y="{height - 12}" width="10" height="10" fill="{color}"/>')
        else:
            p.append(f'<line x1="{lx}" x2="{lx + 10}" y1="{height - 7}" y2="{height - 7}" class="exp"/>')
        p.append(f'<text x="{lx + 14}" y="{height - 3}" class="ax">{kind}</text>')
        lx += 14 + 7 * len(kind) + 12
    p.append("</svg>")
    return "".join(p)


def _num(x: Any) -> float | None:
    if isinstance(x, bool):
        return None
    if isinstance(x, int | float) and math.isfinite(x):
        return float(x)
    if isinstance(x, dict) and "value" in x:
        return _num(x["value"])
    return None


def chart_svg(content: dict[str, Any]) -> str:
    """A chart product drawn: bars (bar, stacked, waterfall, pie shown as bars) or lines (line, scatter)."""
    cats = [str(c) for c in content.get("categories") or []]
    series = [s for s in content.get("series") or [] if isinstance(s, dict)]
    if not cats or not series:
        return '<p class="muted">The chart has no categories or no series.</p>'
    kind = str(content.get("chart_type") or "bar")
    vals = [[_num(v) for v in (s.get("values") or [])] for s in series]
    flat = [v for row in vals for v in row if v is not None]
    lo, hi = min([0.0, *flat]), max([0.0, *flat])
    if hi == lo:
        hi = lo + 1
    left, top, w, h = 56, 24, max(320, 46 * len(cats)), 200
    width, height = left + w + 20, top + h + 64
    y_of = lambda v: top + h - (v - lo) / (hi - lo) * h  # noqa: E731
    p = [f'<svg class="chart" role="img" aria-label="{_e(content.get("title") or "chart")}" viewBox="0 0 {width} '
         f'{height}" width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">']
    p.append(f'<text x="{left}" y="14" class="dl">{_e(content.get("title") or "")}</text>')
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        y = y_of(v)
        p.append(f'<line x1="{left}" x2="{left + w}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
        p.append(f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end" class="ax">{v:.4g}</text>')
    slot = w / len(cats)
    line_like = kind in ("line", "scatter")
    for si, row in enumerate(vals):
        color = PALETTE[si % len(PALETTE)]
        pts = []
        for ci, cv in enumerate(row[: len(cats)]):
            if cv is None:
                continue
            v = cv
            if line_like:
                x = left + slot * (ci + 0.5)
                pts.append(f"{x:.1f},{y_of(v):.1f}")
                p.append(f'<circle cx="{x:.1f}" cy="{y_of(v):.1f}" r="3" fill="{color}">'
                         f"<title>{_e(series[si].get('name'))} / {_e(cats[ci])}: {v:.4g}</title></circle>")
            else:
                bw = slot * 0.8 / len(vals)
                x = left + slot * ci + slot * 0.1 + si * bw
                y0, y1 = sorted((y_of(0.0), y_of(v)))
                p.append(f'<rect x="{x:.1f}" y="{y0:.1f}" width="{bw:.1f}" height="{max(1.0, y1 - y0):.1f}" '
                         f'fill="{color}"><title>{_e(series[si].get("name"))} / {_e(cats[ci])}: {v:.4g}</title></rect>')
        if line_like and kind == "line" and len(pts) > 1:
            p.append(f'<polyline points="{" ".join(pts)}" fill="none" stroke="{color}" stroke-width="2"/>')
    for ci, c in enumerate(cats):
        x = left + slot * (ci + 0.5)
        p.append(f'<text x="{x:.1f}" y="{top + h + 14}" text-anchor="middle" class="ax">{_e(c[:14])}</text>')
    lx = left
    for si, s in enumerate(series):
        name = str(s.get("name") or f"series {si + 1}")
        p.append(f'<rect x="{lx}" y="{height - 22}" width="10" height="10" fill="{PALETTE[si % len(PALETTE)]}"/>')
        p.append(f'<text x="{lx + 14}" y="{height - 13}" class="ax">{_e(name[:30])}</text>')
        lx += 24 + 7 * min(30, len(name))
    label = " / ".join(x for x in (str(content.get("x_label") or ""), str(content.get("y_label") or "")) if x)
    if label:
        p.append(f'<text x="{left}" y="{height - 2}" class="ax">{_e(label)}</text>')
    if kind not in ("bar", "line", "scatter", "stacked_bar"):
        p.append(f'<text x="{left + w}" y="14" text-anchor="end" class="ax">({_e(kind)} drawn as bars)</text>')
    p.append("</svg>")
    return "".join(p)


# ---------------------------------------------------------------------------------------- product content


def _cell(x: Any) -> str:
    if isinstance(x, dict) and "value" in x:
        inner = _cell(x["value"])
        formula = x.get("formula")
        return f'<span title="{_e(formula)}">{inner}</span>' if formula else inner
    if isinstance(x, bool) or x is None:
        return _e("" if x is None else str(x).lower())
    if isinstance(x, float):
        return _e(f"{x:,.4g}" if abs(x) < 1e6 else f"{x:,.0f}")
    if isinstance(x, int):
        return _e(f"{x:,}")
    if isinstance(x, dict | list):
        return f"<code>{_e(json.dumps(x, ensure_ascii=False)[:200])}</code>"
    return _e(x)


def _natural(key: str) -> tuple[Any, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", key))


def _ordered(keys: Iterable[str], reference: Any) -> list[str]:
    """Keys in the reference solution's order (the shared document's maps keep none), the rest naturally sorted."""
    keys = list(keys)
    ref = [k for k in reference if k in keys] if isinstance(reference, dict) else []
    return ref + sorted((k for k in keys if k not in ref), key=_natural)


def _sheet_table(name: str, sheet: Any, reference: Any = None) -> str:
    if not isinstance(sheet, dict) or not all(isinstance(r, dict) for r in sheet.values()):
        return f"<h5>{_e(name)}</h5>{_json_block(sheet)}"
    rows = _ordered(sheet, reference)
    ref_row = next((r for r in reference.values() if isinstance(r, dict)), None) if isinstance(reference, dict) else None
    cols = _ordered({c for r in sheet.values() for c in r}, ref_row)
    # Year-per-row sheets read better the way a financial model is laid out: periods across.
    transpose = len(rows) <= 8 < len(cols) or (len(rows) < len(cols) and len(rows) <= 6)
    head, body_keys = (rows, cols) if transpose else (cols, rows)
    out = [f'<h5>{_e(name)}</h5><div class="scroll"><table class="sheet"><thead><tr><th></th>']
    out += [f"<th>{_e(h)}</th>" for h in head]
    out.append("</tr></thead><tbody>")
    for k in body_keys[:MAX_TABLE_ROWS]:
        out.append(f"<tr><th>{_e(k)}</th>")
        for h in head:
            v = sheet[h].get(k, "") if transpose else sheet[k].get(h, "")
            num = _num(v) is not None or v in ("", None)
            out.append(f"<td>{_cell(v)}</td>" if num else f'<td class="t">{_cell(v)}</td>')
        out.append("</tr>")
    if len(body_keys) > MAX_TABLE_ROWS:
        out.append(f'<tr><td colspan="{len(head) + 1}" class="muted">… {len(body_keys) - MAX_TABLE_ROWS} more</td></tr>')
    out.append("</tbody></table></div>")
    return "".join(out)


def _json_block(x: Any) -> str:
    text = x if isinstance(x, str) else json.dumps(x, indent=1, ensure_ascii=False)
    if len(text) > 20_000:
        text = text[:20_000] + "\n…"
    return f'<pre class="json">{_e(text)}</pre>'


def render_content(output_type: str, content: Any, reference: Any = None) -> str:
    """A product's final state rendered the way a person reads it (docs/products.md shapes).

    ``reference`` (the scenario's reference content) only orders rows and columns.
    """
    if content is None:
        return '<p class="muted">Empty.</p>'
    if isinstance(content, str):
        return f'<div class="doc-text">{_e(content)}</div>'
    if output_type == "spreadsheet" and isinstance(content, dict):
        ref = reference if isinstance(reference, dict) else {}
        return "".join(_sheet_table(name, content[name], ref.get(name)) for name in _ordered(content, ref))
    if output_type == "document" and isinstance(content, dict):
        out = [f"<h5>{_e(content.get('title') or '')}</h5>"]
        for s in content.get("sections") or []:
            if isinstance(s, dict):
                out.append(f"<h6>{_e(s.get('title') or '')}</h6><div class=\"doc-text\">{_e(s.get('text') or '')}</div>")
            else:
                out.append(f'<div class="doc-text">{_e(s)}</div>')
        return "".join(out)
    if output_type == "chart" and isinstance(content, dict):
        return chart_svg(content) + _chart_table(content)
    if output_type == "dashboard" and isinstance(content, dict):
        out = [f"<h5>{_e(content.get('title') or '')}</h5><div class=\"widgets\">"]
        for wid, wdg in (content.get("widgets") or {}).items():
            if not isinstance(wdg, dict):
                continue
            kind, value = wdg.get("type"), wdg.get("value")
            if kind == "chart" and isinstance(value, dict):
                body = chart_svg(value)
            elif kind == "kpi":
                body = f'<div class="kpi">{_cell(value)}</div>'
            elif kind == "table" and isinstance(value, dict):
                body = _sheet_table("", value)
            elif kind == "text":
                body = f'<div class="doc-text">{_e(value)}</div>'
            else:
                body = _json_block(value)
            out.append(f'<div class="widget"><div class="wt">{_e(wdg.get("title") or wid)}</div>{body}</div>')
        out.append("</div>")
        return "".join(out)
    if output_type == "kv" and isinstance(content, dict):
        rows = "".join(f"<tr><th>{_e(k)}</th><td>{_cell(v)}</td></tr>" for k, v in content.items())
        return f'<table class="sheet">{rows}</table>'
    if output_type == "list" and isinstance(content, dict) and isinstance(content.get("items"), list):
        return "<ol>" + "".join(f"<li>{_cell(i)}</li>" for i in content["items"]) + "</ol>"
    return _json_block(content)


def _chart_table(content: dict[str, Any]) -> str:
    cats = [str(c) for c in content.get("categories") or []]
    rows = []
    for s in content.get("series") or []:
        if isinstance(s, dict):
            cells = "".join(f"<td>{_cell(v)}</td>" for v in (s.get("values") or []))
            rows.append(f"<tr><th>{_e(s.get('name'))}</th>{cells}</tr>")
    head = "".join(f"<th>{_e(c)}</th>" for c in cats)
    return f'<div class="scroll"><table class="sheet"><tr><th></th>{head}</tr>{"".join(rows)}</table></div>'


# ---------------------------------------------------------------------------------------- sections


def _turn_phase(run: RunView, ti: int) -> tuple[str, str]:
    if run.scenario is not None and ti < len(run.scenario.turns):
        t = run.scenario.turns[ti]
        return t.phase, t.channel
    return "unknown", "—"


def _flag_chips(flags: Iterable[str]) -> str:
    return "".join(f'<span class="flag f-{_e(f)}" title="{_e(FLAG_TEXT.get(f, f))}">{_e(f)}</span>' for f in flags)


def _seek(run: RunView, t: float | None, text: str) -> str:
    if run.session is None or run.session.recording is None or t is None:
        return ""
    return (f'<a class="seek" href="#{run.anchor}-audio" data-seek="{max(0.0, t):.2f}" '
            f'data-audio="{run.anchor}-audio" title="play the recording from {_mmss(t)}">▶ {_e(text)}</a>')


def _headline(run: RunView) -> str:
    e = run.entry
    need = e.quality_tier
    verdict = ("PASSED" if e.passed else "FAILED") if e.passed is not None else "not decided"
    judges = ", ".join(v.judge for v in (e.turns[0].judges if e.turns and e.turns[0].judges else []))
    capped_t = sum(1 for t in e.turns if t.capped)
    capped_p = sum(1 for p in e.products if p.capped)
    flags: Counter[str] = Counter()
    for it_flags in [t.flags for t in e.turns] + [p.flags for p in e.products]:
        flags.update(it_flags)
    chips = [f for f in e.flags]
    chips += [f"{f} ×{n}" for f, n in flags.items()
              if f in ("hard_floor", "judge_disagreement", "not_delivered", "no_trajectory_evidence", "partial_panel",
                       "prompt_injection", "parroting", "edge_case_conceded", "imprecise", "hedged",
                       "keyword_stuffing")]
    if e.unscored:
        chips.append(f"unscored ×{len(e.unscored)}")
    pk = ""
    if run.pass_k:
        pk = "<div><b>pass^k</b> " + " ".join(f"k={k}: {v:.2f}" for k, v in run.pass_k.items()) + "</div>"
    try:
        threshold = f"≥ {tier_threshold(need):g}"
    except ValueError:
        threshold = ""
    sess = ""
    if run.session is not None:
        m = run.session.manifest
        dur = m.get("meeting_seconds")
        sess = (f"<div><b>session</b> {_e(run.session.start.transport)}, "
                f"{_e(m.get('turns_played', len(run.session.turn_start)))}/{_e(run.session.start.turns_planned)} turns"
                + (f", {_mmss(float(dur))} of meeting" if isinstance(dur, int | float) else "") + "</div>")
    unscored = ""
    if e.unscored:
        unscored = ('<div class="unscored"><b>Not scored</b> (left out of the means, never counted as 0):<ul>'
                    + "".join(f"<li>{_e(u)}</li>" for u in e.unscored) + "</ul></div>")
    return f"""
<div class="headline">
  <div class="big {_score_class(e.modylbench_score)}" data-testid="score">{_f(e.modylbench_score)}<small>/10</small></div>
  <div class="hl-body">
    <div class="tier">{_e(e.tier or "not scored")} <span class="verdict v-{verdict.split()[0].lower()}">{verdict}</span>
      <span class="muted">this scenario needs {_e(need)} ({threshold})</span></div>
    <div class="jd"><span><b>Journey</b> {_f(e.journey)} <small>how it worked in the meeting, mean of
      {len(e.turns)} turns, weight 40%</small></span>
      <span><b>Destination</b> {_f(e.destination)} <small>what it delivered, mean of {len(e.products)} products,
      weight 60%</small></span></div>
    <div><b>judges</b> {_e(judges or "—")} · <b>ended</b> {_e(e.termination_reason or "—")} ·
      <b>capped</b> {capped_t} turns, {capped_p} products</div>
    {pk}{sess}
    <div class="chips">{_flag_chips(chips) or '<span class="muted">no flags</span>'}</div>
    {unscored}
  </div>
</div>"""


def _turn_reason(t: TurnScore) -> str:
    """The judges' words for a turn, shortened: the first rationale that says something."""
    for v in t.judges:
        if v.rationale:
            return v.rationale if len(v.rationale) < 160 else v.rationale[:157] + "…"
        if v.unscored_reason:
            return f"not scored: {v.unscored_reason}"
    return t.unscored_reason or ""


def _lost_points(run: RunView) -> str:
    """Plain sentences: where the score went, largest losses first."""
    e = run.entry
    items: list[str] = []
    scored = [t for t in e.turns if t.score is not None]
    if scored:
        low = [t for t in scored if t.score is not None and t.score < 6.0]
        if low:
            reasons = Counter(_turn_reason(t) for t in low)
            common = "; ".join(f"“{_e(r)}” ({n})" for r, n in reasons.most_common(3) if r)
            capped = sum(1 for t in low if t.capped)
            items.append(f"<b>{len(low)} of {len(scored)} turns scored below 6</b>"
                         + (f", {capped} of them capped at 4.0 by a hard floor" if capped else "")
                         + (f". Judges said: {common}." if common else "."))
        worst = sorted((t for t in scored if (t.score or 0.0) < 7.5), key=lambda t: (t.score or 0.0, t.turn_index))[:5]
        if worst:
            links = []
            for t in worst:
                st = run.session.turn_start.get(t.turn_index) if run.session else None
                links.append(f'<li><a href="#{run.anchor}-turn-{t.turn_index}">turn {t.turn_index}</a> '
                             f'<span class="{_score_class(t.score)} pill">{_f(t.score)}</span> '
                             f'{_e(_nice(_turn_phase(run, t.turn_index)[0]))} — {_e(_turn_reason(t))} '
                             f'{_seek(run, st, "listen")}</li>')
            items.append("Lowest turns:<ul>" + "".join(links) + "</ul>")
        dims = dimension_means(e)
        weak = sorted(((v, d) for d, v in dims.items() if v is not None and v < 6.0), key=lambda x: x[0])[:3]
        if weak:
            items.append("Weakest dimensions: " + ", ".join(f"{_e(_nice(d))} {v:.1f}" for v, d in weak) + ".")
    for p in e.products:
        name = p.product_id or p.output_type
        why = [FLAG_TEXT.get(f, f) for f in p.flags if f in ("not_delivered", "no_trajectory_evidence", "hard_floor",
                                                               "correctness_bounded")]
        failed = [c for c in p.checks if not c.passed]
        if p.score is None:
            items.append(f"Product <b>{_e(name)}</b> was not scored: {_e(p.unscored_reason or '')}.")
        elif p.score < 7.5 or failed:
            detail = ""
            if p.expected_mutations_total:
                detail = f" ({p.expected_mutations_matched or 0} of {p.expected_mutations_total} expected edits seen)"
            fails = ""
            if failed:
                fails = (f"; {len(failed)} of {len(p.checks)} checks failed: "
                         + ", ".join(f"{_e(c.criterion_id)} ({_e(c.reason)})" for c in failed[:4])
                         + (" …" if len(failed) > 4 else ""))
            items.append(f'Product <a href="#{run.anchor}-product-{_e(name)}"><b>{_e(name)}</b></a> scored '
                         f'<span class="{_score_class(p.score)} pill">{_f(p.score)}</span>'
                         + (": " + "; ".join(_e(w) for w in why) if why else "") + detail + fails + ".")
    mm = e.mutation_metrics
    if mm.destructive or mm.backtracks:
        items.append(f"The edit trajectory has {mm.destructive} destructive edits (a correct value overwritten) and "
                     f"{mm.backtracks} backtracks.")
    for f in e.flags:
        if f in FLAG_TEXT:
            items.append(f"Run flag <b>{_e(f)}</b>: {_e(FLAG_TEXT[f])}.")
    if not items:
        return '<p class="good-news">No significant losses: every turn scored 6 or more and every product passed its checks.</p>'
    return "<ul class=\"lost\">" + "".join(f"<li>{i}</li>" for i in items) + "</ul>"


def _judge_table(verdicts: Sequence[Any], dims: Sequence[str], consensus: dict[str, float]) -> str:
    head = "".join(f"<th>{_e(_nice(d))}</th>" for d in dims)
    rows = []
    for v in verdicts:
        if v.dimensions is None:
            rows.append(f"<tr><th>{_e(v.judge)}</th><td colspan=\"{len(dims)}\" class=\"muted\">not scored: "
                        f"{_e(v.unscored_reason or '')}</td></tr>")
        else:
            cells = "".join(f'<td class="{_score_class(v.dimensions.get(d))}">{_f(v.dimensions.get(d), 1)}</td>'
                            for d in dims)
            rows.append(f"<tr><th>{_e(v.judge)}</th>{cells}</tr>")
    if len(verdicts) > 1 or not verdicts:
        cells = "".join(f'<td class="{_score_class(consensus.get(d))}"><b>{_f(consensus.get(d), 1)}</b></td>'
                        for d in dims)
        rows.append(f"<tr><th>consensus</th>{cells}</tr>")
    rationale = "".join(
        f'<p class="rationale"><b>{_e(v.judge)}:</b> {_e(v.rationale or v.unscored_reason or "")}'
        + (f" {_flag_chips(v.flags)}" if v.flags else "") + "</p>"
        for v in verdicts
    )
    return f'<div class="scroll"><table class="dims"><tr><th>judge</th>{head}</tr>{"".join(rows)}</table></div>{rationale}'


def _turns_section(run: RunView, edits_by_turn: dict[int, list[tuple[Mutation, set[str]]]]) -> str:
    e = run.entry
    resp = {t.turn_index: t for t in (run.responses.turns if run.responses else [])}
    out = [f'<div class="turns" id="{run.anchor}-turns"><div class="trow thead"><span>turn</span><span>score</span>'
           "<span>phase</span><span>channel</span><span>latency</span><span>edits</span><span>flags</span>"
           "<span>play</span></div>"]
    for t in e.turns:
        ti = t.turn_index
        phase, channel = _turn_phase(run, ti)
        r = resp.get(ti)
        lat = f"{r.latency_ms / 1000:.1f}s" if r is not None and r.latency_ms is not None else "—"
        edits = edits_by_turn.get(ti, [])
        bad_edits = sum(1 for _, tg in edits if tg & {"destructive", "backtrack"})
        start = run.session.turn_start.get(ti) if run.session else None
        capped = '<span class="capped" title="capped at 4.0 by a hard floor">capped</span>' if t.capped else ""
        flags = [f for f in t.flags if f != "hard_floor"]
        out.append(
            f'<details class="turn b-{_score_class(t.score)}" id="{run.anchor}-turn-{ti}" data-turn="{ti}"'
            + (f' data-start="{start:.2f}"' if start is not None else "") + ">"
            f'<summary class="trow"><span>#{ti}</span><span class="pill {_score_class(t.score)}">{_f(t.score)}</span>'
            f"<span>{_e(_nice(phase))}</span><span>{_e(channel)}</span><span>{lat}</span>"
            f"<span>{len(edits)}{f' ({bad_edits}⚠)' if bad_edits else ''}</span>"
            f"<span>{capped}{_flag_chips(flags)}</span><span>{_seek(run, start, _mmss(start or 0.0))}</span></summary>"
        )
        out.append('<div class="tbody">')
        out.append(_turn_detail(run, t, r, edits))
        out.append("</div></details>")
    out.append("</div>")
    return "".join(out)


def _turn_detail(run: RunView, t: TurnScore, r: Any, edits: list[tuple[Mutation, set[str]]]) -> str:
    ti = t.turn_index
    sc_turn = run.scenario.turns[ti] if run.scenario is not None and ti < len(run.scenario.turns) else None
    said = run.session.persona_said.get(ti) if run.session else None
    persona = " ".join(said) if said else (sc_turn.human_utterance if sc_turn else "")
    parts = ['<div class="cols"><div>']
    parts.append(f'<h5>Persona said</h5><p class="said">{_e(persona) or "<span class=muted>—</span>"}</p>')
    chats = run.session.chats.get(ti, []) if run.session else []
    persona_chat = [txt for who, txt in chats if who == "persona"]
    if not persona_chat and sc_turn is not None and sc_turn.chat_message:
        persona_chat = [sc_turn.chat_message]
    for c in persona_chat:
        parts.append(f'<p class="chat"><b>persona chat:</b> {_e(c)}</p>')
    if sc_turn is not None:
        if sc_turn.screen is not None:
            parts.append(f'<p class="muted">screen: {_e(sc_turn.screen.title)}</p>')
        if sc_turn.files:
            parts.append(f'<p class="muted">files pushed: {_e(", ".join(sc_turn.files))}</p>')
        if sc_turn.edge_case:
            parts.append(f'<p class="edge">curveball: {_e(sc_turn.edge_case)}</p>')
        parts.append(f'<p class="expected"><b>Expected of the agent:</b> {_e(sc_turn.expected_agent_action)}</p>')
    parts.append("</div><div>")
    if r is None:
        parts.append('<h5>Agent</h5><p class="muted">No response recorded for this turn.</p>')
    else:
        parts.append(f'<h5>Agent said</h5><p class="said">{_e(r.agent_response) or "<span class=muted>(nothing)</span>"}</p>')
        for c in r.chat_messages:
            parts.append(f'<p class="chat"><b>agent chat:</b> {_e(c)}</p>')
    if run.session is not None:
        extra = []
        if ti in run.session.turn_end_reason:
            extra.append(f"turn ended: {run.session.turn_end_reason[ti].replace('_', ' ')}")
        extra += run.session.interruptions.get(ti, [])
        if extra:
            parts.append(f'<p class="muted">{_e("; ".join(extra))}</p>')
    if edits:
        parts.append(f"<h5>Edits this turn ({len(edits)})</h5><ul class=\"edits\">")
        for m, tags in edits[:30]:
            parts.append(f'<li class="{" ".join("e-" + x for x in sorted(tags))}"><code>{_e(m.product_id)}'
                         f'{_e(m.path)}</code> {_e(m.mutation_type)} → {_cell(m.new_value)} '
                         f'<span class="muted">{_e(", ".join(sorted(tags)))}</span></li>')
        if len(edits) > 30:
            parts.append(f'<li class="muted">… {len(edits) - 30} more</li>')
        parts.append("</ul>")
    parts.append("</div></div>")
    parts.append("<h5>Judges</h5>")
    if t.unscored_reason:
        parts.append(f'<p class="unscored">Not scored: {_e(t.unscored_reason)}</p>')
    parts.append(_judge_table(t.judges, TURN_DIMENSIONS, t.dimensions))
    if t.flags:
        parts.append("<ul class=\"flagtext\">" + "".join(
            f"<li><b>{_e(f)}</b>: {_e(FLAG_TEXT.get(f, ''))}</li>" for f in t.flags) + "</ul>")
    return "".join(parts)


def _products_section(run: RunView, classified: list[tuple[Mutation, set[str]]]) -> str:
    e = run.entry
    if not e.products:
        return ('<p class="muted">No deliverables were due in this run (a slice of the meeting is scored on its '
                "journey alone).</p>")
    finals = {wp.product_id: wp for wp in (run.responses.work_products if run.responses else []) if wp.product_id}
    criteria: dict[str, VerificationCriterion] = {}
    if run.scenario is not None:
        for eo in run.scenario.expected_outputs:
            for c in eo.verification_criteria:
                if isinstance(c, VerificationCriterion):
                    criteria[c.id] = c
    n_turns = len(e.turns)
    out = []
    for p in e.products:
        out.append(_product_block(run, p, finals, criteria, classified, n_turns))
    return "".join(out)


def _product_block(run: RunView, p: ProductScore, finals: dict[str, Any],
                   criteria: dict[str, VerificationCriterion], classified: list[tuple[Mutation, set[str]]],
                   n_turns: int) -> str:
    name = p.product_id or p.output_type
    out = [f'<section class="product" id="{run.anchor}-product-{_e(name)}">'
           f'<h4>{_e(name)} <small>{_e(p.output_type)}</small> <span class="pill {_score_class(p.score)}">'
           f'{_f(p.score)}</span> {"<span class=capped>capped</span>" if p.capped else ""} {_flag_chips(p.flags)}</h4>']
    if p.unscored_reason:
        out.append(f'<p class="unscored">Not scored: {_e(p.unscored_reason)}</p>')
    for f in p.flags:
        if f in FLAG_TEXT:
            out.append(f'<p class="flagline"><b>{_e(f)}</b>: {_e(FLAG_TEXT[f])}</p>')
    if p.checks:
        passed = sum(1 for c in p.checks if c.passed)
        out.append(f"<h5>Programmatic checks: {passed} of {len(p.checks)} passed"
                   + (f" (correctness bound {p.correctness_bound:.1f})" if p.correctness_bound is not None else "")
                   + '</h5><div class="scroll"><table class="checks"><tr><th></th><th>check</th><th>what</th>'
                   "<th>result</th><th>required</th></tr>")
        for c in sorted(p.checks, key=lambda c: c.passed):
            desc = criteria[c.criterion_id].description if c.criterion_id in criteria else ""
            out.append(f'<tr class="{"ok" if c.passed else "ko"}"><td>{"✓" if c.passed else "✗"}</td>'
                       f"<td>{_e(c.criterion_id)}</td><td>{_e(desc)}</td><td>{_e(c.reason)}</td>"
                       f"<td>{'yes' if c.required else 'no'}</td></tr>")
        out.append("</table></div>")
    if p.judges:
        out.append("<details><summary>Judges' scores and rationale</summary>"
                   + _judge_table(p.judges, PRODUCT_DIMENSIONS, p.dimensions) + "</details>")
    if p.product_id is not None:
        mine = [(m, tg) for m, tg in classified if m.product_id == p.product_id]
        per_turn: dict[int, Counter[str]] = defaultdict(Counter)
        for m, tg in mine:
            kind = next((k for k in ("destructive", "backtrack", "reverted", "unexpected", "expected") if k in tg),
                        "other")
            per_turn[m.turn_index][kind] += 1
        expected: Counter[int] = Counter()
        if run.scenario is not None:
            expected.update(x.turn_index for x in run.scenario.expected_mutations if x.product_id == p.product_id)
        bad = [(m, tg) for m, tg in mine if tg & {"destructive", "backtrack"}]
        out.append(f"<h5>Trajectory: {len(mine)} edit{'' if len(mine) == 1 else 's'} by the agent"
                   + (f", {p.expected_mutations_matched} of {p.expected_mutations_total} expected edits seen"
                      if p.expected_mutations_total else "")
                   + (f", {len(bad)} destructive or backtracking" if bad else "") + "</h5>")
        if mine or expected:
            out.append(edits_chart(per_turn, expected, n_turns))
            out.append('<p class="muted">Bars: the agent\'s edits in each turn (x: turn). Black ticks: the edits a '
                       "strong participant makes in that turn. Work shown as it goes tracks the ticks; a final-state "
                       "dump is one late bar.</p>")
        if bad:
            out.append('<ul class="edits">' + "".join(
                f'<li class="{" ".join("e-" + x for x in sorted(tg))}">turn '
                f'<a href="#{run.anchor}-turn-{m.turn_index}">{m.turn_index}</a>: <code>{_e(m.path)}</code> '
                f"{_cell(m.old_value)} → {_cell(m.new_value)} <b>{_e(', '.join(sorted(tg & {'destructive', 'backtrack'})))}"
                "</b></li>" for m, tg in bad[:20]) + "</ul>")
    wp = finals.get(p.product_id) if p.product_id is not None else None
    if wp is not None:
        spec = next((x for x in run.scenario.products if x.product_id == p.product_id), None) if run.scenario else None
        rendered = render_content(wp.output_type, wp.content, spec.reference if spec is not None else None)
        out.append(f'<details class="final" open><summary>Final state</summary>{rendered}'
                   "</details>")
    elif "not_delivered" in p.flags:
        out.append('<p class="muted">Never delivered.</p>')
    else:
        out.append('<p class="muted">The final content is not in this scorecard (give the responses or the '
                   "session to see it).</p>")
    out.append("</section>")
    return "".join(out)


def _media_section(run: RunView, audio: bool) -> str:
    s = run.session
    if s is None:
        return ""
    out = ['<h3>Recording, slides and files</h3>']
    rec = s.recording
    if rec is not None and audio:
        try:
            ogg = encode_recording(rec)
            uri = "data:audio/ogg;base64," + base64.b64encode(ogg).decode("ascii")
            out.append(f'<div class="player"><audio id="{run.anchor}-audio" controls preload="auto" src="{uri}"></audio>'
                       '<p class="muted">Stereo: the persona on the left, the agent on the right. The ▶ links in the '
                       f'turn list jump here (needs JavaScript). Opus, {len(ogg) / 1e6:.1f} MB.</p></div>')
        except Exception as exc:  # noqa: BLE001 - a recording that will not encode leaves the rest of the report
            logger.warning("could not encode %s: %s", rec, exc)
            out.append(f'<p class="muted">The recording could not be encoded: {_e(exc)}</p>')
    elif rec is None:
        out.append('<p class="muted">No recording.wav in this session.</p>')
    if s.frames:
        out.append('<h4>Slides shown</h4><div class="slides">')
        for fr in s.frames:
            thumb = None
            if fr.image is not None:
                p = attachment_path(s.folder, fr.image)
                if p.is_file():
                    thumb = _thumbnail(p.read_bytes())
            img = f'<img src="{thumb}" alt="{_e(fr.title or fr.slide_id)}" width="{THUMB_WIDTH}">' if thumb else ""
            ti = fr.turn_index
            where = f'turn <a href="#{run.anchor}-turn-{ti}">{ti}</a>' if ti is not None else ""
            out.append(f'<figure>{img}<figcaption>{_e(fr.title or fr.slide_id)} — {where} at '
                       f'{_mmss(fr.meeting_time)} {_seek(run, fr.meeting_time, "play")}</figcaption></figure>')
        out.append("</div>")
    if s.files:
        out.append('<h4>Files exchanged</h4><table class="sheet"><tr><th>turn</th><th>direction</th><th>file</th>'
                   "<th>type</th><th>size</th><th>status</th></tr>")
        for f in s.files:
            name = _e(f.name)
            if f.ok and f.attachment is not None and f.size <= MAX_FILE_EMBED:
                p = attachment_path(s.folder, f.attachment)
                if p.is_file():
                    uri = f"data:{_e(f.media_type)};base64," + base64.b64encode(p.read_bytes()).decode("ascii")
                    name = f'<a download="{_e(f.name)}" href="{uri}">{_e(f.name)}</a>'
            status = "ok" if f.ok else f"refused: {_e(f.reason)}"
            out.append(f"<tr><td>{_e(f.turn_index)}</td><td>{_e(f.direction.replace('_', ' '))}</td><td>{name}</td>"
                       f"<td>{_e(f.media_type)}</td><td>{f.size:,} B</td><td>{status}</td></tr>")
        out.append("</table>")
    if s.errors:
        out.append("<h4>Errors</h4><ul>" + "".join(
            f"<li>{_mmss(er.meeting_time)} <b>{_e(er.source)}</b> {_e(er.kind)}: {_e(er.message)}</li>"
            for er in s.errors) + "</ul>")
    return "".join(out)


def _run_section(run: RunView, audio: bool, collapsed: bool) -> str:
    e = run.entry
    traj = list(run.responses.mutation_trajectory or []) if run.responses else []
    tags = classify_mutations(traj, run.scenario) if run.scenario is not None and traj else [set() for _ in traj]
    classified = list(zip(traj, tags, strict=True))
    by_turn: dict[int, list[tuple[Mutation, set[str]]]] = defaultdict(list)
    for m, tg in classified:
        by_turn[m.turn_index].append((m, tg))
    title = run.scenario.title if run.scenario is not None else e.scenario_id
    link = (f' <a class="muted" href="{_e(run.session_report)}">open the session report with its recording →</a>'
            if run.session_report else "")
    capped_products = sum(1 for p in e.products if p.capped)
    note = (f'<p class="muted">Bars are the judges\' consensus before caps; {capped_products} product'
            f'{"" if capped_products == 1 else "s"} then capped at 4.0 (see Work products).</p>'
            if capped_products else "")
    body = [
        _headline(run),
        f'<div class="cols2"><div><h3>Where points were lost</h3>{_lost_points(run)}</div>'
        f'<div><h3>The 11 dimensions</h3>{dimension_chart([(run.label, dimension_means(e))])}{note}</div></div>',
        f'<h3>Score per turn</h3><p class="muted">Click a bar to open the turn.</p>{timeline_chart(run)}',
        _media_section(run, audio),
        "<h3>Turns <small class=\"muted\">(click a row for what was said and the judges' reasons)</small></h3>"
        + _turns_section(run, by_turn),
        f"<h3>Work products</h3>{_products_section(run, classified)}",
    ]
    mm = e.mutation_metrics
    body.append(
        f'<p class="muted">Mutation metrics ({_e(mm.source)}): {mm.total} edits, {mm.correct} correct of {mm.expected} '
        f"expected, {mm.incorrect} incorrect, {mm.unnecessary} unnecessary, {mm.missing} missing, "
        f"{mm.destructive} destructive, {mm.backtracks} backtracks; efficiency {_f(mm.efficiency)}, "
        f"convergence {_f(mm.convergence_rate)}.</p>"
    )
    head = (f"<h2>{_e(title)} <small>— {_e(run.label)}, trial {e.trial}</small></h2>"
            f'<p class="muted">scenario <code>{_e(e.scenario_id)}</code>{link}</p>')
    if collapsed:
        return (f'<details class="run" id="{run.anchor}"><summary><b>{_e(title)}</b> — {_e(run.label)} '
                f"trial {e.trial}: <span class=\"pill {_score_class(e.modylbench_score)}\">{_f(e.modylbench_score)}</span> "
                f"{_e(e.tier or '')}</summary>{head}{''.join(body)}</details>")
    return f'<section class="run" id="{run.anchor}">{head}{"".join(body)}</section>'


def _comparison(runs: Sequence[RunView], cards: Sequence[Scorecard]) -> str:
    labels = list(dict.fromkeys(r.label for r in runs))
    by_label: dict[str, list[RunView]] = defaultdict(list)
    for r in runs:
        by_label[r.label].append(r)
    base = labels[0]

    def mean(xs: Iterable[float | None]) -> float | None:
        v = [x for x in xs if x is not None]
        return sum(v) / len(v) if v else None

    def delta(v: float | None, ref: float | None, label: str) -> str:
        if label == base or v is None or ref is None:
            return ""
        d = v - ref
        cls = "up" if d > 0.05 else "down" if d < -0.05 else "same"
        return f' <span class="delta {cls}">{d:+.2f}</span>'

    overall = {lb: mean(r.entry.modylbench_score for r in by_label[lb]) for lb in labels}
    out = ['<section class="compare" id="compare"><h2>Comparison</h2>'
           f'<p class="muted">Differences (Δ) are against <b>{_e(base)}</b>, the first run given.</p>'
           '<table class="sheet cmp"><tr><th>agent / model</th><th>runs</th><th>score</th><th>tier</th><th>journey</th>'
           "<th>destination</th><th>pass^k</th><th>capped turns</th></tr>"]
    pk_of: dict[str, str] = {}
    for card in cards:
        for agg in card.aggregate.values():
            pk_of.setdefault(agg.model_id, " ".join(f"k={k}: {v:.2f}" for k, v in agg.pass_k.items()))
    for lb in labels:
        rs = by_label[lb]
        score = overall[lb]
        from modylbench.scoring._formula import tier_of

        out.append(
            f"<tr><th>{_e(lb)}</th><td>{len(rs)}</td><td class=\"{_score_class(score)}\"><b>{_f(score)}</b>"
            f"{delta(score, overall[base], lb)}</td><td>{_e(tier_of(score) if score is not None else '—')}</td>"
            f"<td>{_f(mean(r.entry.journey for r in rs))}</td><td>{_f(mean(r.entry.destination for r in rs))}</td>"
            f"<td>{_e(pk_of.get(rs[0].entry.model_id, '—'))}</td>"
            f"<td>{sum(1 for r in rs for t in r.entry.turns if t.capped)}</td></tr>"
        )
    out.append("</table>")
    dims_of = {lb: _mean_dims([dimension_means(r.entry) for r in by_label[lb]]) for lb in labels}
    out.append("<h3>The 11 dimensions, side by side</h3>")
    out.append(dimension_chart([(lb, dims_of[lb]) for lb in labels]))
    out.append('<table class="sheet cmp"><tr><th>dimension</th>' + "".join(f"<th>{_e(lb)}</th>" for lb in labels)
               + "</tr>")
    for d in (*TURN_DIMENSIONS, *PRODUCT_DIMENSIONS):
        cells = "".join(f'<td class="{_score_class(dims_of[lb].get(d))}">{_f(dims_of[lb].get(d))}'
                        f"{delta(dims_of[lb].get(d), dims_of[base].get(d), lb)}</td>" for lb in labels)
        out.append(f"<tr><th>{_e(_nice(d))}</th>{cells}</tr>")
    out.append("</table>")
    scenario_ids = list(dict.fromkeys(r.entry.scenario_id for r in runs))
    out.append('<h3>Per scenario</h3><table class="sheet cmp"><tr><th>scenario</th>'
               + "".join(f"<th>{_e(lb)}</th>" for lb in labels) + "</tr>")
    for sid in scenario_ids:
        vals = {lb: mean(r.entry.modylbench_score for r in by_label[lb] if r.entry.scenario_id == sid) for lb in labels}
        row_cells: list[str] = []
        for lb in labels:
            anchor = next((r.anchor for r in by_label[lb] if r.entry.scenario_id == sid), None)
            v = _f(vals[lb])
            cell = f'<a href="#{anchor}">{v}</a>' if anchor else v
            row_cells.append(f'<td class="{_score_class(vals[lb])}">{cell}{delta(vals[lb], vals[base], lb)}</td>')
        out.append(f"<tr><th>{_e(sid)}</th>{''.join(row_cells)}</tr>")
    out.append("</table></section>")
    return "".join(out)


def _mean_dims(rows: Sequence[dict[str, float | None]]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for d in (*TURN_DIMENSIONS, *PRODUCT_DIMENSIONS):
        vals = [r[d] for r in rows if r.get(d) is not None]
        out[d] = sum(v for v in vals if v is not None) / len(vals) if vals else None
    return out


CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
main{max-width:1180px;margin:0 auto;padding:16px 20px 60px}
h1{font-size:22px;margin:8px 0}h2{font-size:19px;margin:26px 0 4px}h3{font-size:16px;margin:22px 0 6px}
h4{font-size:15px;margin:14px 0 6px}h5{font-size:13px;margin:10px 0 4px;color:#444}h6{font-size:13px;margin:8px 0 2px}
small{font-weight:normal;color:#57606a}.muted{color:#6e7781}code{font-size:12px}
section.run,details.run,section.compare{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:8px 18px 16px;margin:16px 0}
details.run>summary{cursor:pointer;padding:8px 0;font-size:15px}
.headline{display:flex;gap:22px;align-items:flex-start;padding:10px 0}
.big{font-size:54px;font-weight:700;line-height:1;min-width:150px;padding:12px 14px;border-radius:10px;text-align:center;color:#fff}
.big small{font-size:18px;color:inherit;opacity:.8}
.hl-body>div{margin:3px 0}.tier{font-size:20px;font-weight:600}
.verdict{font-size:13px;padding:2px 8px;border-radius:10px;margin-left:6px;vertical-align:middle;color:#fff}
.v-passed{background:#2e7d32}.v-failed{background:#c62828}.v-not{background:#9aa0a6}
.jd span{display:inline-block;margin-right:22px}.jd b{font-size:16px}
.s-bad{background:#c62828;color:#fff}.s-low{background:#ef6c00;color:#fff}.s-mid{background:#f9a825;color:#222}
.s-good{background:#2e7d32;color:#fff}.s-none{background:#cfd3d7;color:#333}
td.s-bad,td.s-low,td.s-mid,td.s-good,td.s-none{text-align:right}
.pill{display:inline-block;min-width:38px;text-align:center;border-radius:9px;padding:0 6px;font-weight:600}
.chips{margin-top:6px}.flag{display:inline-block;font-size:12px;background:#fff4e5;border:1px solid #f0c36d;
 border-radius:9px;padding:0 7px;margin:1px 3px 1px 0;color:#6a4500}
.f-hard_floor,.f-not_delivered,.f-no_trajectory_evidence,.f-no_trajectory,.f-prompt_injection{background:#fdecea;border-color:#e99;color:#8a1c1c}
.capped{font-size:12px;background:#c62828;color:#fff;border-radius:9px;padding:0 7px;margin-right:3px}
.unscored{background:#eef2ff;border-left:4px solid #5c6bc0;padding:4px 10px}
ul.lost li{margin:4px 0}.good-news{color:#2e7d32;font-weight:600}
.cols2{display:flex;flex-wrap:wrap;gap:20px}.cols2>div{flex:1 1 460px;min-width:0;overflow-x:auto}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:18px}
svg.chart{max-width:100%;height:auto;font-family:inherit}
svg .grid{stroke:#d0d7de;stroke-width:1}svg .floor{stroke:#c62828;stroke-width:1.4;stroke-dasharray:4 3}
svg .sep{stroke:#8c959f;stroke-dasharray:2 3}svg .exp{stroke:#111;stroke-width:2}
svg .ax{font-size:10px;fill:#57606a}svg .dl{font-size:12px;fill:#1f2328}svg .val{font-size:9.5px;fill:#1f2328}
svg .lg{font-size:12px;fill:#1f2328}svg .cap{font-size:10px;fill:#c62828}svg .ph{font-size:10px;fill:#1f2328}
.turns{border:1px solid #d0d7de;border-radius:6px;overflow:hidden}
.trow{display:grid;grid-template-columns:52px 64px 1.3fr .8fr 70px 70px 2fr 80px;gap:6px;align-items:center;padding:3px 8px}
.thead{background:#eaeef2;font-weight:600;font-size:12px}
details.turn{border-top:1px solid #eaeef2}details.turn>summary{cursor:pointer;list-style:none}
details.turn>summary::-webkit-details-marker{display:none}
details.turn>summary:hover{background:#f3f6f9}details.turn[open]>summary{background:#e8f0fe}
details.turn.playing>summary{outline:2px solid #1565c0}
details.turn{border-left:5px solid #cfd3d7}details.turn.b-s-bad{border-left-color:#c62828}
details.turn.b-s-low{border-left-color:#ef6c00}details.turn.b-s-mid{border-left-color:#f9a825}
details.turn.b-s-good{border-left-color:#2e7d32}
details.turn>summary span:first-child::before{content:"▸ ";color:#8c959f}
details.turn[open]>summary span:first-child::before{content:"▾ "}
.tbody{padding:6px 14px 12px;background:#fbfcfd}
.said{white-space:pre-wrap;margin:2px 0 6px}.chat{background:#f1f8e9;padding:3px 8px;border-radius:6px}
.expected{background:#fffde7;padding:3px 8px;border-radius:6px}.edge{color:#8a1c1c;font-weight:600}
table{border-collapse:collapse}table.sheet td,table.sheet th,table.dims td,table.dims th,table.checks td,table.checks th{
 border:1px solid #d0d7de;padding:2px 7px;font-size:12.5px;vertical-align:top}
table.sheet th,table.dims th,table.checks th{background:#f6f8fa;text-align:left;font-weight:600}
table.sheet td{text-align:right}table.sheet td.t{text-align:left}table.cmp td{text-align:right}
tr.ko td{background:#fdecea}tr.ok td:first-child{color:#2e7d32}tr.ko td:first-child{color:#c62828;font-weight:700}
.scroll{overflow-x:auto;max-width:100%}
.rationale{margin:4px 0;font-size:13px}
.edits li{font-size:12.5px}.e-destructive{color:#c62828}.e-backtrack{color:#b25000}
section.product{border-top:1px solid #eaeef2;padding-top:4px}
.doc-text{white-space:pre-wrap;background:#fafafa;border:1px solid #eaeef2;padding:6px 10px;border-radius:6px}
pre.json{background:#f6f8fa;padding:8px;max-height:360px;overflow:auto;font-size:12px}
.widgets{display:flex;flex-wrap:wrap;gap:10px}.widget{border:1px solid #d0d7de;border-radius:6px;padding:6px 10px}
.wt{font-weight:600;font-size:12px;color:#57606a}.kpi{font-size:24px;font-weight:700}
.slides{display:flex;flex-wrap:wrap;gap:12px}.slides figure{margin:0;max-width:360px}
.slides img{max-width:100%;height:auto;border:1px solid #d0d7de;border-radius:4px}
figcaption{font-size:12px;color:#57606a}
.player{position:sticky;top:0;z-index:5;background:#fff;padding:6px 0;border-bottom:1px solid #eaeef2}
.player audio{width:100%}
a.seek{font-size:12px;text-decoration:none;background:#e8f0fe;border-radius:8px;padding:0 6px;white-space:nowrap}
.delta{font-size:11px;font-weight:600}.delta.up{color:#2e7d32}.delta.down{color:#c62828}.delta.same{color:#6e7781}
td.s-bad .delta,td.s-low .delta,td.s-good .delta{color:#fff}
td.s-bad a,td.s-low a,td.s-good a{color:#fff}
.legend{font-size:12px;color:#57606a}.phases span{margin-right:12px}.phases i{display:inline-block;width:10px;height:10px;opacity:.35;margin-right:4px}
nav.toc a{margin-right:12px}
@media (max-width:760px){.cols{grid-template-columns:1fr}.trow{grid-template-columns:40px 56px 1fr 60px 60px}
 .trow span:nth-child(6),.trow span:nth-child(7),.trow span:nth-child(8){display:none}}
"""

JS = """
(function(){
  document.body.dataset.js='on';
  function openTurn(id){var el=document.getElementById(id);if(el&&el.tagName==='DETAILS'){el.open=true;
    var run=el.closest('details.run');if(run)run.open=true;}}
  function fromHash(){if(location.hash.length>1)openTurn(decodeURIComponent(location.hash.slice(1)));}
  window.addEventListener('hashchange',fromHash);fromHash();
  document.addEventListener('click',function(ev){
    var a=ev.target.closest&&ev.target.closest('a[data-seek]');if(!a)return;
    var audio=document.getElementById(a.getAttribute('data-audio'));if(!audio)return;
    ev.preventDefault();ev.stopPropagation();
    var t=parseFloat(a.getAttribute('data-seek'));
    var go=function(){audio.currentTime=t;var p=audio.play();if(p&&p.catch)p.catch(function(){});};
    if(audio.readyState>=1)go();else audio.addEventListener('loadedmetadata',go,{once:true});
    audio.scrollIntoView({block:'nearest'});
  },true);
  document.querySelectorAll('audio').forEach(function(audio){
    var run=audio.closest('.run');if(!run)return;
    var rows=Array.prototype.slice.call(run.querySelectorAll('details.turn[data-start]'));
    audio.addEventListener('timeupdate',function(){
      var t=audio.currentTime,cur=null;
      rows.forEach(function(r){if(parseFloat(r.getAttribute('data-start'))<=t+0.05)cur=r;});
      rows.forEach(function(r){r.classList.toggle('playing',r===cur);});
      run.setAttribute('data-playing-turn',cur?cur.getAttribute('data-turn'):'');
    });
  });
})();
"""


def build_report(
    cards: Sequence[Scorecard],
    sessions: Sequence[Path] = (),
    *,
    responses: Sequence[ScenarioResponses] = (),
    scenarios: dict[str, Scenario] | None = None,
    names: Sequence[str] | None = None,
    audio: bool = True,
    base: Path | None = None,
) -> str:
    """The report's HTML text (see ``write_report``)."""
    if not cards:
        raise ValueError("no scorecard to report")
    if scenarios is None:
        try:
            scenarios = resolve_scenarios(())
        except Exception as exc:  # noqa: BLE001 - the report still shows the scorecard without scenario text
            logger.warning("built-in scenarios unavailable: %s", exc)
            scenarios = {}
    views = [load_session(Path(s)) for s in sessions]
    runs = build_runs(cards, views, responses, scenarios, names)
    if base is not None:
        _link_session_reports(runs, base)
    labels = list(dict.fromkeys(r.label for r in runs))
    compare = len(labels) > 1 or len(cards) > 1
    collapsed = compare or len(runs) > 1
    judges = list(dict.fromkeys(j for c in cards for j in c.judges))
    title = "ModylBench comparison" if compare else (
        f"ModylBench — {runs[0].entry.scenario_id} × {runs[0].label}" if runs else "ModylBench report")
    parts = [
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # Everything is inline: no request may leave the file.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; media-src data: blob:; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">",
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body><main>",
        f"<h1>{_e(title)}</h1>",
        f'<p class="muted">Scored by {_e(", ".join(judges))} · modylbench {_e(cards[0].modylbench_version)} · '
        f"report written {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}. Scores are 1–10; tiers: Consultant ≥ 9, "
        "Mentor ≥ 7.5, Peer ≥ 6, else Below Peer. The score is 40% journey (each turn of the meeting) + 60% "
        "destination (the work products).</p>",
    ]
    if compare:
        parts.append(_comparison(runs, cards))
    if collapsed and runs:
        parts.append('<h2>Runs</h2><p class="muted">Open a run for its turns, products and recording.</p>')
    for run in runs:
        parts.append(_run_section(run, audio, collapsed))
    skipped = [s for c in cards for s in c.skipped]
    if skipped:
        parts.append("<h2>Lines not scored</h2><ul>" + "".join(
            f"<li>{_e(s.get('scenario_id'))} / {_e(s.get('model_id'))}: {_e(s.get('reason'))}</li>" for s in skipped)
            + "</ul>")
    parts.append(f"<script>{JS}</script></main></body></html>")
    return "".join(parts)


def _link_session_reports(runs: Sequence[RunView], base: Path) -> None:
    """Point runs without media at the per-session report a sweep wrote beside them (OUT/<session>/report.html)."""
    for run in runs:
        if run.session is not None:
            continue
        for folder in sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []:
            rep = folder / "report.html"
            if not rep.is_file() or not folder.name.startswith(run.entry.scenario_id + "__"):
                continue
            resp = folder / "responses.jsonl"
            try:
                first = json.loads(resp.read_text(encoding="utf-8").splitlines()[0])
            except (OSError, ValueError, IndexError):
                continue
            if first.get("model_id") == run.entry.model_id and (
                first.get("trial") is None or first.get("trial") == run.entry.trial or "__t" not in folder.name
            ):
                suffix = folder.name.rsplit("__t", 1)
                if len(suffix) == 2 and suffix[1].isdigit() and int(suffix[1]) != run.entry.trial:
                    continue
                run.session_report = os.path.relpath(rep, base)
                break


def write_report(
    cards: list[Scorecard],
    path: Path,
    sessions: Sequence[Path] = (),
    *,
    responses: Sequence[ScenarioResponses] = (),
    scenarios: dict[str, Scenario] | None = None,
    names: Sequence[str] | None = None,
    audio: bool = True,
) -> Path:
    """Write one self-contained HTML report of the scorecards (several give a comparison view).

    ``sessions`` are recorded session folders: their recording, slides, files and what was said are
    shown with the entry of the same scenario and model. ``responses`` supply agent words and final
    products when there is no session (``evaluate``).
    """
    path = Path(path)
    text = build_report(cards, sessions, responses=responses, scenarios=scenarios, names=names, audio=audio,
                        base=path.parent)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # text from outside that skipped the checks at the door: never an empty report
        logger.warning("report %s: invalid Unicode (lone surrogates) replaced by U+FFFD", path)
        data = valid_text(text).encode("utf-8")
    tmp = path.with_name(path.name + ".part")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    logger.info("wrote report %s (%d bytes)", path, len(text))
    return path
