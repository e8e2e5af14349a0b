"""The report's charts as inline SVG (and one HTML table): the 11 dimensions, score per turn, who spoke when,
latency per turn, the dimensions × turns heat map, edits per turn, and chart products."""

from __future__ import annotations

import logging
import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from modylbench.scoring._formula import (
    HARD_FLOOR,
    PRODUCT_DIMENSIONS,
    PRODUCT_WEIGHTS,
    TURN_DIMENSIONS,
    TURN_WEIGHTS,
)
from modylbench.scoring.report._format import as_number, esc, mmss, nice, number, score_class, score_color
from modylbench.scoring.report._view import Activity, RunView, TurnLatency, turn_latencies

logger = logging.getLogger(__name__)

PALETTE = ("#1565c0", "#c2185b", "#00897b", "#6d4c41", "#5e35b1", "#f57c00", "#546e7a", "#7cb342")


LEGEND_CHARS = 28
"""Characters of a series name a legend column (220 px, 12 px class "lg" text) holds."""


def turn_step(n: int) -> float:
    """Pixels per turn on a turn axis: wide for a short slice, narrower for a 50-turn meeting (900 px in all)."""
    return max(6.0, min(36.0, 900 / max(1, n)))


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
            parts.append(
                f'<rect x="{lx}" y="{ly - 10}" width="12" height="12" fill="{PALETTE[i % len(PALETTE)]}"/>'
            )
            # A column is 220 px: a longer name is cut to fit (the whole name on hover), never drawn over the next.
            shown = name if len(name) <= LEGEND_CHARS else name[: LEGEND_CHARS - 1] + "…"
            parts.append(f'<text x="{lx + 18}" y="{ly}" class="lg"><title>{esc(name)}</title>{esc(shown)}</text>')
    for v in (1.0, 4.0, 6.0, 7.5, 9.0, 10.0):
        x = left + width * v / 10
        parts.append(
            f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{top + group_h * len(dims)}" '
            f'class="{"floor" if v == HARD_FLOOR else "grid"}"/>'
        )
        parts.append(
            f'<text x="{x:.1f}" y="{top + group_h * len(dims) + 14}" class="ax" text-anchor="middle">'
            f"{v:g}</text>"
        )
    for gi, d in enumerate(dims):
        y0 = top + gi * group_h
        weight = TURN_WEIGHTS.get(d) or PRODUCT_WEIGHTS.get(d, 0.0)
        kind = "turn" if d in TURN_WEIGHTS else "product"
        parts.append(
            f'<text x="{left - 8}" y="{y0 + group_h / 2 + 4:.1f}" text-anchor="end" class="dl">'
            f'{esc(nice(d))} <tspan class="ax">{kind} ×{weight:.2f}</tspan></text>'
        )
        if gi == len(TURN_DIMENSIONS):
            parts.append(f'<line x1="10" y1="{y0 - 3}" x2="{left + width + 50}" y2="{y0 - 3}" class="sep"/>')
        for si, (name, vals) in enumerate(series):
            dv = vals.get(d)
            y = y0 + 4 + si * bar_h
            color = PALETTE[si % len(PALETTE)] if n > 1 else score_color(dv)
            if dv is None:
                parts.append(f'<text x="{left + 4}" y="{y + bar_h - 3}" class="ax">not scored</text>')
                continue
            w = width * dv / 10
            parts.append(
                f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar_h - 2}" fill="{color}">'
                f"<title>{esc(name)}: {esc(nice(d))} {dv:.2f}</title></rect>"
            )
            parts.append(f'<text x="{left + w + 4:.1f}" y="{y + bar_h - 3}" class="val">{dv:.1f}</text>')
    parts.append(
        f'<text x="{left + width * 0.4:.1f}" y="{height - 2}" class="ax">red line: hard floor 4.0'
        "</text></svg>"
    )
    return "".join(parts)


def timeline_chart(run: RunView) -> str:
    """Turn scores as bars over the meeting, phases underneath; capped turns marked, bars link to turns."""
    turns = run.entry.turns
    if not turns:
        return ""
    n = len(turns)
    step = turn_step(n)
    left, top, h = 34, 10, 150
    plot_w = left + step * n + 4
    width = max(plot_w + 6, 480)  # the note under a short slice's bars needs the room
    phases = run.phases()
    height = top + h + 46
    p = [
        f'<svg class="chart timeline" role="img" aria-label="Score per turn" viewBox="0 0 {width:.0f} {height}" '
        f'width="{width:.0f}" height="{height}" xmlns="http://www.w3.org/2000/svg">'
    ]
    for v in (1, 4, 6, 7.5, 10):
        y = top + h - h * v / 10
        p.append(
            f'<line x1="{left}" x2="{plot_w:.0f}" y1="{y:.1f}" y2="{y:.1f}" '
            f'class="{"floor" if v == HARD_FLOOR else "grid"}"/>'
        )
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
            p.append(
                f'<rect x="{x + 1:.1f}" y="{top + h - 8}" width="{step - 2:.1f}" height="8" fill="#cfd3d7">'
                f"<title>{esc(tip)}</title></rect>"
            )
        else:
            bh = max(2.0, h * s / 10)
            p.append(
                f'<rect x="{x + 1:.1f}" y="{top + h - bh:.1f}" width="{step - 2:.1f}" height="{bh:.1f}" '
                f'fill="{score_color(s)}"><title>{esc(tip)}</title></rect>'
            )
        if t.capped:
            p.append(
                f'<text x="{x + step / 2:.1f}" y="{top + h + 11}" text-anchor="middle" class="cap">▲'
                f"<title>{esc(tip)}</title></text>"
            )
        p.append("</a>")
    # Phase bands: one coloured strip per run of turns in the same phase.
    y = top + h + 16
    colour = {ph: PALETTE[i % len(PALETTE)] for i, ph in enumerate(dict.fromkeys(ph for ph, _, _ in phases))}
    for phase, a, b in phases:
        x0, x1 = left + a * step, left + (b + 1) * step
        p.append(
            f'<rect x="{x0:.1f}" y="{y}" width="{x1 - x0 - 1:.1f}" height="12" fill="{colour[phase]}" '
            f'opacity="0.35"><title>{esc(nice(phase))}: turns {a}–{b}</title></rect>'
        )
        if (x1 - x0) > 8 * len(phase) * 0.75:
            p.append(f'<text x="{x0 + 3:.1f}" y="{y + 10}" class="ph">{esc(nice(phase))}</text>')
    p.append(
        f'<text x="{left}" y="{height - 4}" class="ax">turn 0 … {n - 1}; ▲ capped at 4.0 by a hard floor; '
        "coloured strip: meeting phase</text></svg>"
    )
    legend = "".join(
        f'<span><i style="background:{c}"></i>{esc(nice(ph))}</span>' for ph, c in colour.items()
    )
    p.append(f'<div class="legend phases">{legend}</div>')
    return "".join(p)


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
    p = [
        f'<svg class="chart" role="img" aria-label="Edits per turn" viewBox="0 0 {width:.0f} {height}" '
        f'width="{width:.0f}" height="{height}" xmlns="http://www.w3.org/2000/svg">'
    ]
    p.append(f'<line x1="{left}" x2="{width - 6:.0f}" y1="{top + h}" y2="{top + h}" class="grid"/>')
    p.append(f'<text x="{left - 4}" y="{top + 8}" text-anchor="end" class="ax">{peak}</text>')
    p.append(f'<text x="{left - 4}" y="{top + h}" text-anchor="end" class="ax">0</text>')
    order = (
        ("destructive", "#c62828"),
        ("backtrack", "#ef6c00"),
        ("reverted", "#f9a825"),
        ("unexpected", "#90a4ae"),
        ("expected", "#2e7d32"),
    )
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
                p.append(
                    f'<rect x="{x + 1:.1f}" y="{y:.1f}" width="{step - 2:.1f}" height="{bh:.1f}" '
                    f'fill="{color}"><title>{esc(tip)}</title></rect>'
                )
        if ti % 5 == 0:
            p.append(
                f'<text x="{x + step / 2:.1f}" y="{top + h + 11}" text-anchor="middle" class="ax">{ti}</text>'
            )
        if expected.get(ti):
            ey = top + h - expected[ti] * scale
            p.append(
                f'<line x1="{x:.1f}" x2="{x + step:.1f}" y1="{ey:.1f}" y2="{ey:.1f}" class="exp">'
                f"<title>{esc(tip)}</title></line>"
            )
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


def chart_svg(content: dict[str, Any]) -> str:
    """A chart product drawn: bars (bar, stacked, waterfall, pie shown as bars) or lines (line, scatter)."""
    cats = [str(c) for c in content.get("categories") or []]
    series = [s for s in content.get("series") or [] if isinstance(s, dict)]
    if not cats or not series:
        return '<p class="muted">The chart has no categories or no series.</p>'
    kind = str(content.get("chart_type") or "bar")
    vals = [[as_number(v) for v in (s.get("values") or [])] for s in series]
    flat = [v for row in vals for v in row if v is not None]
    lo, hi = min([0.0, *flat]), max([0.0, *flat])
    if hi == lo:
        hi = lo + 1
    left, top, w, h = 56, 24, max(320, 46 * len(cats)), 200
    width, height = left + w + 20, top + h + 64
    y_of = lambda v: top + h - (v - lo) / (hi - lo) * h  # noqa: E731
    p = [
        f'<svg class="chart" role="img" aria-label="{esc(content.get("title") or "chart")}" viewBox="0 0 {width} '
        f'{height}" width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">'
    ]
    p.append(f'<text x="{left}" y="14" class="dl">{esc(content.get("title") or "")}</text>')
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
                p.append(
                    f'<circle cx="{x:.1f}" cy="{y_of(v):.1f}" r="3" fill="{color}">'
                    f"<title>{esc(series[si].get('name'))} / {esc(cats[ci])}: {v:.4g}</title></circle>"
                )
            else:
                bw = slot * 0.8 / len(vals)
                x = left + slot * ci + slot * 0.1 + si * bw
                y0, y1 = sorted((y_of(0.0), y_of(v)))
                p.append(
                    f'<rect x="{x:.1f}" y="{y0:.1f}" width="{bw:.1f}" height="{max(1.0, y1 - y0):.1f}" '
                    f'fill="{color}"><title>{esc(series[si].get("name"))} / {esc(cats[ci])}: {v:.4g}</title></rect>'
                )
        if line_like and kind == "line" and len(pts) > 1:
            p.append(f'<polyline points="{" ".join(pts)}" fill="none" stroke="{color}" stroke-width="2"/>')
    for ci, c in enumerate(cats):
        x = left + slot * (ci + 0.5)
        p.append(f'<text x="{x:.1f}" y="{top + h + 14}" text-anchor="middle" class="ax">{esc(c[:14])}</text>')
    lx = left
    for si, s in enumerate(series):
        name = str(s.get("name") or f"series {si + 1}")
        p.append(
            f'<rect x="{lx}" y="{height - 22}" width="10" height="10" fill="{PALETTE[si % len(PALETTE)]}"/>'
        )
        p.append(f'<text x="{lx + 14}" y="{height - 13}" class="ax">{esc(name[:30])}</text>')
        lx += 24 + 7 * min(30, len(name))
    label = " / ".join(x for x in (str(content.get("x_label") or ""), str(content.get("y_label") or "")) if x)
    if label:
        p.append(f'<text x="{left}" y="{height - 2}" class="ax">{esc(label)}</text>')
    if kind not in ("bar", "line", "scatter", "stacked_bar"):
        p.append(
            f'<text x="{left + w}" y="14" text-anchor="end" class="ax">({esc(kind)} drawn as bars)</text>'
        )
    p.append("</svg>")
    return "".join(p)


# --------------------------------------------------------------------------- the meeting on its clock

PERSONA_COLOUR, AGENT_COLOUR = "#6a1b9a", "#1565c0"
# Seconds one row of the timeline may cover.
_SPANS = (60, 120, 180, 240, 300, 360, 450, 480, 540, 600, 720, 900, 1200, 1800, 2400, 3600)
_MAX_ROWS = 4
ROW_WIDTH = 960  # pixels one row of the timeline spans
_LANES: tuple[tuple[str, str, str], ...] = (
    ("persona", "speech", "persona speaks"),
    ("persona", "post", "persona chat, files"),
    ("persona", "edit", "persona edits"),
    ("agent", "speech", "agent speaks"),
    ("agent", "post", "agent chat, files"),
    ("agent", "edit", "agent edits"),
)


def _row_span(total: float) -> float:
    """Seconds per row: up to ten minutes a row and at most four rows (a 45-minute meeting in four rows of
    15 minutes), the shortest round span that fits."""
    rows = min(_MAX_ROWS, max(1, math.ceil(total / 600)))
    for span in _SPANS:
        if total <= span * rows:
            return float(span)
    return float(math.ceil(total / _MAX_ROWS / 600) * 600)


def _tick_step(span: float) -> float:
    """A round time step giving about six labelled ticks per row."""
    return next(s for s in (10, 15, 30, 60, 120, 300, 600, 900, 1800) if span / s <= 8)


def _lane_of(act: Activity) -> tuple[str, str]:
    return act.who, "post" if act.kind in ("chat", "file") else act.kind


def activity_chart(run: RunView) -> str:
    """Who spoke when: persona and agent speech, chat, files and document edits on the meeting clock.

    One lane per participant and kind of act, turns as alternating bands with their numbers (links to the
    turn); long meetings wrap into up to four rows so a 45-minute meeting keeps seconds visible. Speech
    bars seek the recording when there is one. Every mark has a <title>; shapes, not colour alone, tell
    chat (●) from files (■) and edits (|).
    """
    s = run.session
    if s is None:
        return ""
    acts = s.activity
    total = max([s.meeting_end, 1.0, *(a.end for a in acts)])
    span = _row_span(total)
    n_rows = max(1, math.ceil(total / span))
    used = {_lane_of(a) for a in acts}
    # Agent lanes are always shown (an empty one is the finding); persona lanes when the persona used them.
    lanes = [ln for ln in _LANES if ln[0] == "agent" or (ln[0], ln[1]) in used]
    lane_h, gap, left, head, foot = 14, 3, 122, 14, 16
    row_h = head + len(lanes) * (lane_h + gap) + foot
    px = ROW_WIDTH / span
    width = left + ROW_WIDTH + 24  # room for the last tick's label
    height = n_rows * (row_h + 8) + 22
    starts = sorted(s.turn_start.items(), key=lambda kv: kv[1])
    bounds = [
        (ti, t0, starts[i + 1][1] if i + 1 < len(starts) else total) for i, (ti, t0) in enumerate(starts)
    ]
    seekable = s.recording is not None
    lane_y = {(w, k): head + i * (lane_h + gap) for i, (w, k, _) in enumerate(lanes)}
    p = [
        f'<svg class="chart activity" role="img" aria-label="Who spoke when: {len(acts)} acts over '
        f'{mmss(total)} of meeting" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        'xmlns="http://www.w3.org/2000/svg">'
    ]
    for r in range(n_rows):
        t_lo, t_hi = r * span, min(total, (r + 1) * span)
        y0 = r * (row_h + 8)
        x_of = lambda t, t_lo=t_lo: left + (t - t_lo) * px  # noqa: E731
        p.append(f'<g transform="translate(0 {y0})">')
        body_h = len(lanes) * (lane_h + gap)
        # Turns as alternating bands, their numbers on top (linked to the turn), skipped where they would collide.
        last_label = -1e9
        for ti, a, b in bounds:
            if b < t_lo or a > t_hi:
                continue
            xa, xb = x_of(max(a, t_lo)), x_of(min(b, t_hi))
            if ti % 2:
                p.append(
                    f'<rect x="{xa:.1f}" y="{head - 2}" width="{max(0.0, xb - xa):.1f}" '
                    f'height="{body_h + 2}" class="band"/>'
                )
            if a >= t_lo:
                p.append(
                    f'<line x1="{xa:.1f}" x2="{xa:.1f}" y1="{head - 2}" y2="{head + body_h}" class="tb"/>'
                )
                if xa - last_label >= 18:
                    p.append(
                        f'<a href="#{run.anchor}-turn-{ti}"><text x="{xa + 1:.1f}" y="{head - 4}" class="ax">'
                        f"#{ti}<title>turn {ti} from {mmss(a)}</title></text></a>"
                    )
                    last_label = xa
        for w, k, label in lanes:
            y = lane_y[(w, k)]
            p.append(
                f'<text x="{left - 6}" y="{y + lane_h - 3}" text-anchor="end" class="dl">{esc(label)}</text>'
            )
            p.append(
                f'<line x1="{left}" x2="{x_of(t_hi):.1f}" y1="{y + lane_h}" y2="{y + lane_h}" class="grid"/>'
            )
        edits: dict[tuple[str, int], list[Activity]] = defaultdict(list)
        last_mark: dict[tuple[str, str], float] = {}
        for act in acts:
            if act.end < t_lo or act.start > t_hi or (act.start == t_hi and r + 1 < n_rows):
                continue
            w, k = _lane_of(act)
            if (w, k) not in lane_y:
                continue
            y = lane_y[(w, k)]
            colour = PERSONA_COLOUR if w == "persona" else AGENT_COLOUR
            turn = f" (turn {act.turn_index})" if act.turn_index is not None else ""
            if act.kind == "speech":
                xa, xb = x_of(max(act.start, t_lo)), x_of(min(act.end, t_hi))
                tip = f"{w} speaks {mmss(act.start)}–{mmss(act.end)}{turn}: {_short(act.text) or '(no transcript)'}"
                bar = (
                    f'<rect x="{xa:.1f}" y="{y}" width="{max(1.5, xb - xa):.1f}" height="{lane_h}" '
                    f'fill="{colour}" rx="2"><title>{esc(tip)}</title></rect>'
                )
                if seekable:
                    bar = (
                        f'<a href="#{run.anchor}-audio" data-seek="{act.start:.2f}" data-audio="{run.anchor}-audio">'
                        f"{bar}</a>"
                    )
                p.append(bar)
            elif act.kind == "edit":
                edits[(w, round(x_of(act.start) / 2))].append(act)
            else:
                x, cy = x_of(act.start), y + lane_h / 2
                # Acts at the same moment (two files pushed together) sit side by side, not on top of each other.
                if x - last_mark.get((w, k), -1e9) < 9:
                    x = last_mark[(w, k)] + 9
                last_mark[(w, k)] = x
                what = "chat" if act.kind == "chat" else "file"
                tip = f"{w} {what} at {mmss(act.start)}{turn}: {_short(act.text)}"
                if act.kind == "chat":
                    p.append(
                        f'<circle cx="{x:.1f}" cy="{cy:.1f}" r="4" fill="{colour}"><title>{esc(tip)}</title></circle>'
                    )
                else:
                    p.append(
                        f'<rect x="{x - 4:.1f}" y="{cy - 4:.1f}" width="8" height="8" fill="#fff" stroke="{colour}" '
                        f'stroke-width="2"><title>{esc(tip)}</title></rect>'
                    )
        # Edits come in bursts (hundreds per product): one tick per 2 pixels, its count in the title.
        for (w, _), group in edits.items():
            y = lane_y[(w, "edit")]
            x = x_of(group[0].start)
            turns = sorted({a.turn_index for a in group if a.turn_index is not None})
            tip = f"{len(group)} {w} edit{'s' if len(group) > 1 else ''} at {mmss(group[0].start)}" + (
                f" (turn {', '.join(map(str, turns))})" if turns else ""
            )
            p.append(
                f'<rect x="{x - 0.75:.1f}" y="{y + 1}" width="1.5" height="{lane_h - 2}" '
                f'fill="{PERSONA_COLOUR if w == "persona" else AGENT_COLOUR}"><title>{esc(tip)}</title></rect>'
            )
        step = _tick_step(span)
        t = math.ceil(t_lo / step) * step
        while t <= t_hi + 1e-6:
            x = x_of(t)
            p.append(
                f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{head + body_h}" y2="{head + body_h + 4}" class="grid"/>'
            )
            p.append(
                f'<text x="{x:.1f}" y="{head + body_h + 14}" text-anchor="middle" class="ax">{mmss(t)}</text>'
            )
            t += step
        p.append("</g>")
    p.append(
        f'<text x="{left}" y="{height - 4}" class="ax">meeting time (m:ss); bars: speech; ● chat; ■ file; '
        "| document edit; shaded bands: every other turn, numbered at its start</text></svg>"
    )
    return "".join(p)


def activity_table(run: RunView) -> str:
    """Who spoke when, per turn, as a table: seconds of speech, chat, files and edits of each side.

    The chart's text equivalent (a screen reader reads a table, not an SVG's marks).
    """
    s = run.session
    if s is None or not s.activity:
        return ""
    per: dict[int, Counter[str]] = defaultdict(Counter)
    secs: dict[int, dict[str, float]] = defaultdict(lambda: {"persona": 0.0, "agent": 0.0})
    for a in s.activity:
        if a.turn_index is None:
            continue
        if a.kind == "speech":
            secs[a.turn_index][a.who] += a.end - a.start
            per[a.turn_index][f"{a.who} speech"] += 1
        else:
            per[a.turn_index][f"{a.who} {a.kind}"] += 1
    rows = []
    for ti in sorted(set(per) | set(s.turn_start)):
        c = per[ti]
        rows.append(
            f'<tr><th scope="row"><a href="#{run.anchor}-turn-{ti}">{ti}</a></th>'
            f"<td>{mmss(s.turn_start[ti]) if ti in s.turn_start else '—'}</td>"
            f"<td>{number(secs[ti]['persona'], 3)} s</td>"
            f"<td>{number(secs[ti]['agent'], 3)} s in {c['agent speech']}</td>"
            f"<td>{c['persona chat']} / {c['agent chat']}</td><td>{c['persona file']} / {c['agent file']}</td>"
            f"<td>{c['agent edit']}</td></tr>"
        )
    return (
        "<details><summary>The same per turn, as a table</summary>"
        '<div class="scroll"><table class="sheet"><tr><th scope="col">turn</th><th scope="col">starts</th>'
        '<th scope="col">persona speaks</th><th scope="col">agent speaks (segments)</th>'
        '<th scope="col">chat persona / agent</th><th scope="col">files to / from agent</th>'
        '<th scope="col">agent edits</th></tr>' + "".join(rows) + "</table></div></details>"
    )


def _short(text: str, n: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def latency_chart(run: RunView) -> str:
    """Latency per turn: the agent's first speech and its first written act as paired bars (seconds).

    A turn where the agent did not speak, or did nothing written, shows ✕ in that bar's place, so a
    missing answer is not read as an instant one. Without the record's measurements (an ``evaluate`` of a
    responses file) only the first response of any kind is drawn.
    """
    lats = {lt.turn_index: lt for lt in turn_latencies(run.responses)}
    turns = [t.turn_index for t in run.entry.turns] or sorted(lats)
    if not turns or not any(lt.first_ms is not None for lt in lats.values()):
        return ""
    measured = any(lt.measured for lt in lats.values())
    series: tuple[tuple[str, str, str], ...] = (
        (("speech", "first speech", AGENT_COLOUR), ("action", "first chat, edit or file", "#00897b"))
        if measured
        else (("first", "first response", AGENT_COLOUR),)
    )

    def value(lt: TurnLatency | None, key: str) -> float | None:
        if lt is None:
            return None
        return {"speech": lt.speech_ms, "action": lt.action_ms, "first": lt.first_ms}[key]

    peak = max([value(lats.get(ti), k) or 0.0 for ti in turns for k, _, _ in series] + [1.0]) / 1000
    tick_s = _nice_step(peak / 4)
    n_ticks = max(1, math.ceil(peak / tick_s - 1e-9))
    top_s = tick_s * n_ticks
    n = len(turns)
    step = turn_step(n)
    left, top, h = 40, 10, 130
    plot_w = left + step * n + 4
    note = "✕ none in that turn · x: turn"
    width = max(plot_w + 6, left + sum(28 + 6 * len(label) for _, label, _ in series) + 6 * len(note))
    height = top + h + 40
    bw = (step - 3) / len(series)
    hatch = f"{run.anchor}-hatch"  # ids are page-wide: one pattern per run
    p = [
        f'<svg class="chart latency" role="img" aria-label="Latency per turn" viewBox="0 0 {width:.0f} {height}" '
        f'width="{width:.0f}" height="{height}" xmlns="http://www.w3.org/2000/svg">',
        f'<defs><pattern id="{hatch}" width="4" height="4" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="4" height="4" fill="#00897b"/>'
        '<line x1="0" y1="0" x2="0" y2="4" stroke="#fff" stroke-width="1.5"/></pattern></defs>',
    ]
    for k in range(n_ticks + 1):
        tick = tick_s * k
        y = top + h - h * k / n_ticks
        p.append(f'<line x1="{left}" x2="{plot_w:.0f}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
        p.append(
            f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end" class="ax">{number(tick, 3)} s</text>'
        )
    for i, ti in enumerate(turns):
        x = left + i * step + 1.5
        lt = lats.get(ti)
        for si, (key, label, colour) in enumerate(series):
            v = value(lt, key)
            bx = x + si * bw
            if lt is None:
                tip = f"turn {ti}: no response recorded"
            elif v is None:
                tip = f"turn {ti}: no {label}"
            else:
                kind = f" ({lt.action_kind})" if key == "action" and lt.action_kind else ""
                tip = f"turn {ti}: {label}{kind} after {number(v / 1000, 3)} s"
            if v is None:
                p.append(
                    f'<text x="{bx + bw / 2:.1f}" y="{top + h - 2}" text-anchor="middle" class="miss">✕'
                    f"<title>{esc(tip)}</title></text>"
                )
                continue
            bh = max(1.5, h * (v / 1000) / top_s)
            fill = f"url(#{hatch})" if key == "action" else colour
            p.append(
                f'<rect x="{bx:.1f}" y="{top + h - bh:.1f}" width="{max(1.0, bw - 0.5):.1f}" height="{bh:.1f}" '
                f'fill="{fill}"><title>{esc(tip)}</title></rect>'
            )
        if n <= 26 or ti % 5 == 0:
            p.append(
                f'<a href="#{run.anchor}-turn-{ti}"><text x="{x + (step - 3) / 2:.1f}" y="{top + h + 12}" '
                f'text-anchor="middle" class="ax">{ti}</text></a>'
            )
    lx = left
    for key, label, colour in series:
        fill = f"url(#{hatch})" if key == "action" else colour
        p.append(f'<rect x="{lx}" y="{height - 12}" width="10" height="10" fill="{fill}"/>')
        p.append(f'<text x="{lx + 14}" y="{height - 3}" class="ax">{esc(label)}</text>')
        lx += 14 + 6 * len(label) + 14
    p.append(f'<text x="{lx}" y="{height - 3}" class="ax">{note}</text></svg>')
    return "".join(p) + _latency_summary(turns, lats, series)


def _latency_summary(
    turns: Sequence[int], lats: dict[int, TurnLatency], series: Sequence[tuple[str, str, str]]
) -> str:
    """The chart in words: median and slowest of each series, and the turns where it is missing."""
    parts = []
    for key, label, _ in series:
        vals = {ti: getattr(lats[ti], f"{key}_ms") for ti in turns if ti in lats}
        got = {ti: v for ti, v in vals.items() if v is not None}
        missing = [ti for ti in turns if got.get(ti) is None]
        if got:
            slowest = max(got, key=lambda ti: got[ti])
            text = (
                f"{label}: median {number(statistics.median(got.values()) / 1000, 3)} s, slowest "
                f"{number(got[slowest] / 1000, 3)} s (turn {slowest})"
            )
        else:
            text = f"{label}: never"
        if missing and got:
            shown = ", ".join(map(str, missing[:12])) + (" …" if len(missing) > 12 else "")
            text += f"; none in {len(missing)} turn{'s' if len(missing) > 1 else ''} ({shown})"
        parts.append(text)
    return '<p class="muted">' + esc("; ".join(parts)) + ".</p>"


def _nice_step(x: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × 10^k at or above ``x`` (a step between axis ticks)."""
    if x <= 0:
        return 1.0
    mag = 10 ** math.floor(math.log10(x))
    return next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= x - 1e-12)


# --------------------------------------------------------------------------- dimensions × turns

HEAT_BLOCK = 26  # turns per row of the heat map: a 52-turn meeting is two rows a page wide


def dimension_heatmap(run: RunView) -> str:
    """The judges' consensus per turn dimension and turn as a table of coloured cells with the value written.

    The turn score heads each block (▲ marks a capped turn); a cell's title gives the exact value and each
    judge's; unscored cells are hatched and show "–" with the reason in their title. Tables of at most
    HEAT_BLOCK turns are stacked so a long meeting stays a page wide.
    """
    turns = run.entry.turns
    if not turns:
        return ""
    out = ['<div class="heat-wrap">']
    for b in range(0, len(turns), HEAT_BLOCK):
        block = turns[b : b + HEAT_BLOCK]
        head = "".join(
            f'<th scope="col"><a href="#{run.anchor}-turn-{t.turn_index}" title="turn {t.turn_index}: '
            f'{esc(nice(run.turn_phase(t.turn_index)[0]))}">{t.turn_index}</a></th>'
            for t in block
        )
        caption = (
            f"turns {block[0].turn_index}–{block[-1].turn_index}" if len(turns) > HEAT_BLOCK else "all turns"
        )
        rows = [
            f'<table class="heat"><caption>Consensus per dimension and turn, {caption}</caption>'
            f'<tr><th scope="col">turn</th>{head}</tr>'
        ]
        cells = []
        for t in block:
            mark = "▲" if t.capped else ""
            if t.score is None:
                cells.append(_unscored_cell(t, "turn score"))
            else:
                tip = f"turn {t.turn_index}: score {t.score:.2f}" + (
                    " (capped at 4.0 by a hard floor)" if t.capped else ""
                )
                cells.append(
                    f'<td class="{score_class(t.score)}" title="{esc(tip)}">{t.score:.1f}{mark}</td>'
                )
        rows.append(f'<tr class="total"><th scope="row">turn score</th>{"".join(cells)}</tr>')
        for d in TURN_DIMENSIONS:
            cells = []
            for t in block:
                v = t.dimensions.get(d) if t.score is not None else None
                if v is None:
                    cells.append(_unscored_cell(t, nice(d)))
                    continue
                tip = f"turn {t.turn_index} · {nice(d)}: {v:.2f}"
                each = [
                    f"{j.judge} {j.dimensions[d]:g}" for j in t.judges if j.dimensions and d in j.dimensions
                ]
                if len(each) > 1:
                    tip += " (" + ", ".join(each) + ")"
                cells.append(f'<td class="{score_class(v)}" title="{esc(tip)}">{v:.1f}</td>')
            rows.append(
                f'<tr><th scope="row">{esc(nice(d))} <small>×{TURN_WEIGHTS[d]:.2f}</small></th>{"".join(cells)}</tr>'
            )
        rows.append("</table>")
        out.append("".join(rows))
    out.append(
        '<p class="muted">Cells: the judges\' consensus 1–10 (red below 4, orange below 6, yellow below 7.5, '
        "green above); – not scored (hover for why); ▲ turn capped at 4.0. Hover a cell for the exact value "
        "and each judge's; a turn number opens the turn.</p></div>"
    )
    return "".join(out)


def _unscored_cell(t: Any, what: str) -> str:
    why = t.unscored_reason or ("not scored" if t.score is None else f"{what} not given by the judges")
    return f'<td class="h-none" title="{esc(f"turn {t.turn_index} · {what}: {why}")}">–</td>'
