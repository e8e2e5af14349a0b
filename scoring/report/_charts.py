"""The report's charts as inline SVG: the 11 dimensions, score per turn, edits per turn, and chart products."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from typing import Any

from modylbench.scoring._formula import (
    HARD_FLOOR,
    PRODUCT_DIMENSIONS,
    PRODUCT_WEIGHTS,
    TURN_DIMENSIONS,
    TURN_WEIGHTS,
)
from modylbench.scoring.report._format import as_number, esc, nice, score_color
from modylbench.scoring.report._view import RunView

logger = logging.getLogger(__name__)

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
            parts.append(
                f'<rect x="{lx}" y="{ly - 10}" width="12" height="12" fill="{PALETTE[i % len(PALETTE)]}"/>'
            )
            parts.append(f'<text x="{lx + 18}" y="{ly}" class="lg">{esc(name)}</text>')
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
    step = max(6.0, min(22.0, 900 / n))
    left, top, h = 34, 10, 150
    width = left + step * n + 10
    phases = run.phases()
    height = top + h + 46
    p = [
        f'<svg class="chart timeline" role="img" aria-label="Score per turn" viewBox="0 0 {width:.0f} {height}" '
        f'width="{width:.0f}" height="{height}" xmlns="http://www.w3.org/2000/svg">'
    ]
    for v in (1, 4, 6, 7.5, 10):
        y = top + h - h * v / 10
        p.append(
            f'<line x1="{left}" x2="{width - 6:.0f}" y1="{y:.1f}" y2="{y:.1f}" '
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
