"""Render a scenario ``Slide`` (bullets, table or chart from the scenario's data) to a Pillow image."""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from modylbench.scenarios import Slide

logger = logging.getLogger(__name__)

BG = (250, 250, 247)
INK = (28, 32, 40)
MUTED = (110, 116, 128)
ACCENT = (31, 94, 168)
GRID = (222, 224, 228)
PALETTE = [(31, 94, 168), (214, 118, 40), (62, 150, 81), (170, 60, 70), (120, 90, 170), (60, 150, 160)]


@lru_cache(maxsize=16)
def _font(size: int) -> Any:
    return ImageFont.load_default(size=size)


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        return f"{v:,.2f}".rstrip("0").rstrip(".") if v != int(v) else f"{v:,.0f}"
    return "" if v is None else str(v)


def _wrap(draw: ImageDraw.ImageDraw, text: str, font: Any, width: int) -> list[str]:
    words, lines, line = text.split(), [], ""
    for w in words:
        trial = f"{line} {w}".strip()
        if draw.textlength(trial, font=font) <= width or not line:
            line = trial
        else:
            lines.append(line)
            line = w
    if line:
        lines.append(line)
    return lines


def render_slide(slide: Slide, size: tuple[int, int] = (1280, 720)) -> Image.Image:
    """Draw ``slide`` at ``size`` (RGB). Deterministic: the same slide gives the same pixels."""
    w, h = size
    s = w / 1280
    img = Image.new("RGB", size, BG)
    d = ImageDraw.Draw(img)
    d.rectangle([0, 0, w, int(8 * s)], fill=ACCENT)
    d.text((int(56 * s), int(40 * s)), slide.title, fill=INK, font=_font(int(40 * s)))
    top = int(100 * s)
    if slide.subtitle:
        d.text((int(56 * s), top), slide.subtitle, fill=MUTED, font=_font(int(24 * s)))
        top += int(40 * s)
    box = (int(56 * s), top + int(16 * s), w - int(56 * s), h - int(60 * s))
    if slide.kind == "bullets":
        _bullets(d, slide.bullets, box, s)
    elif slide.kind == "table" and slide.table is not None:
        _table(d, slide.table.columns, slide.table.rows, box, s)
    elif slide.kind == "chart" and slide.chart is not None:
        _chart(d, slide.chart, box, s)
    if slide.footnote:
        d.text((int(56 * s), h - int(40 * s)), slide.footnote, fill=MUTED, font=_font(int(16 * s)))
    return img


def _bullets(d: ImageDraw.ImageDraw, bullets: list[str], box: tuple[int, int, int, int], s: float) -> None:
    font = _font(int(28 * s))
    y = box[1]
    for b in bullets:
        lines = _wrap(d, b, font, box[2] - box[0] - int(40 * s))
        d.ellipse([box[0], y + int(12 * s), box[0] + int(10 * s), y + int(22 * s)], fill=ACCENT)
        for line in lines:
            d.text((box[0] + int(30 * s), y), line, fill=INK, font=font)
            y += int(38 * s)
        y += int(14 * s)
        if y > box[3]:
            break


def _table(d: ImageDraw.ImageDraw, columns: list[str], rows: list[list[Any]], box: tuple[int, int, int, int], s: float) -> None:
    n_rows = min(len(rows), 14)
    font = _font(int(20 * s if n_rows > 8 else 24 * s))
    head = _font(int(20 * s if n_rows > 8 else 24 * s))
    col_w = (box[2] - box[0]) / max(1, len(columns))
    row_h = min(int(46 * s), (box[3] - box[1]) // (n_rows + 1))
    d.rectangle([box[0], box[1], box[2], box[1] + row_h], fill=(232, 238, 247))
    for j, c in enumerate(columns):
        d.text((box[0] + j * col_w + 10 * s, box[1] + row_h * 0.25), str(c), fill=INK, font=head)
    for i, row in enumerate(rows[:n_rows]):
        y = box[1] + (i + 1) * row_h
        d.line([box[0], y, box[2], y], fill=GRID, width=1)
        for j, cell in enumerate(row):
            text = _fmt(cell)
            x = box[0] + j * col_w + 10 * s
            if isinstance(cell, int | float) and not isinstance(cell, bool):
                x = box[0] + (j + 1) * col_w - 10 * s - d.textlength(text, font=font)
            d.text((x, y + row_h * 0.25), text, fill=INK, font=font)
    if len(rows) > n_rows:
        d.text((box[0], box[1] + (n_rows + 1) * row_h + 4), f"… {len(rows) - n_rows} more rows", fill=MUTED, font=font)


def _chart(d: ImageDraw.ImageDraw, chart: Any, box: tuple[int, int, int, int], s: float) -> None:
    font = _font(int(18 * s))
    cats: list[str] = chart.categories
    series = chart.series
    legend_h = int(34 * s)
    x0, y0, x1, y1 = box[0] + int(70 * s), box[1] + legend_h, box[2], box[3] - int(40 * s)
    for k, ser in enumerate(series):
        lx = box[0] + k * int(220 * s)
        d.rectangle([lx, box[1] + 6, lx + int(16 * s), box[1] + 6 + int(16 * s)], fill=PALETTE[k % len(PALETTE)])
        d.text((lx + int(24 * s), box[1] + 2), ser.name[:22], fill=INK, font=font)
    if chart.chart_type == "pie":
        total = sum(max(0.0, v) for v in series[0].values) or 1.0
        cx, cy, r = (x0 + x1) // 2, (y0 + y1) // 2, min(x1 - x0, y1 - y0) // 2 - 10
        start = -90.0
        for i, v in enumerate(series[0].values):
            ext = 360.0 * max(0.0, v) / total
            d.pieslice([cx - r, cy - r, cx + r, cy + r], start, start + ext, fill=PALETTE[i % len(PALETTE)])
            start += ext
        return
    stacked = chart.chart_type == "stacked_bar"
    values = [v for ser in series for v in ser.values]
    if stacked:
        values = [sum(ser.values[i] for ser in series) for i in range(len(cats))] + [0.0]
    if chart.chart_type == "waterfall":
        running, values = 0.0, [0.0]
        for v in series[0].values:
            running += v
            values.append(running)
    lo, hi = min(0.0, min(values, default=0.0)), max(values, default=1.0)
    if hi == lo:
        hi = lo + 1.0

    def y_of(v: float) -> float:
        return y1 - (v - lo) / (hi - lo) * (y1 - y0)

    for t in range(5):
        v = lo + (hi - lo) * t / 4
        yy = y_of(v)
        d.line([x0, yy, x1, yy], fill=GRID)
        label = _fmt(round(v, 2))
        d.text((x0 - 10 * s - d.textlength(label, font=font), yy - 9 * s), label, fill=MUTED, font=font)
    n = max(1, len(cats))
    slot = (x1 - x0) / n
    for i, c in enumerate(cats):
        label = c[:14]
        d.text((x0 + slot * (i + 0.5) - d.textlength(label, font=font) / 2, y1 + 8 * s), label, fill=MUTED, font=font)
    if chart.chart_type in ("line", "scatter"):
        for k, ser in enumerate(series):
            pts = [(x0 + slot * (i + 0.5), y_of(v)) for i, v in enumerate(ser.values)]
            color = PALETTE[k % len(PALETTE)]
            if chart.chart_type == "line" and len(pts) > 1:
                d.line(pts, fill=color, width=max(2, int(3 * s)))
            for px, py in pts:
                d.ellipse([px - 5 * s, py - 5 * s, px + 5 * s, py + 5 * s], fill=color)
        return
    if chart.chart_type == "waterfall":
        running = 0.0
        for i, v in enumerate(series[0].values):
            a, b = y_of(running), y_of(running + v)
            color = PALETTE[2] if v >= 0 else PALETTE[3]
            d.rectangle([x0 + slot * i + slot * 0.2, min(a, b), x0 + slot * (i + 0.8), max(a, b)], fill=color)
            running += v
        return
    k_n = len(series)
    for i in range(len(cats)):
        base = 0.0
        for k, ser in enumerate(series):
            v = ser.values[i]
            color = PALETTE[k % len(PALETTE)]
            if stacked:
                d.rectangle([x0 + slot * (i + 0.2), y_of(base + v), x0 + slot * (i + 0.8), y_of(base)], fill=color)
                base += v
            else:
                bw = slot * 0.7 / k_n
                bx = x0 + slot * i + slot * 0.15 + k * bw
                top, bottom = sorted((y_of(v), y_of(0.0)))
                d.rectangle([bx, top, bx + bw - 2, bottom], fill=color)
