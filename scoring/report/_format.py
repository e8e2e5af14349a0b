"""Text for the report's HTML: escaping, numbers, times, score colours and cell values."""

from __future__ import annotations

import html
import json
import logging
import math
from typing import Any

from modylbench.scoring._formula import HARD_FLOOR

logger = logging.getLogger(__name__)


def esc(x: Any) -> str:
    """``x`` as text safe inside HTML and attribute values."""
    return html.escape(str(x), quote=True)


def fmt(x: float | None, digits: int = 2) -> str:
    """A score for display (scores are stored unrounded); "—" when not scored."""
    return "—" if x is None else f"{x:.{digits}f}"


def mmss(t: float) -> str:
    """Meeting time in seconds as m:ss."""
    t = max(0.0, t)
    return f"{int(t // 60)}:{int(t % 60):02d}"


def score_class(x: float | None) -> str:
    """The CSS class of a score's band: below the hard floor, below Peer, below Mentor, or above."""
    if x is None:
        return "s-none"
    if x < HARD_FLOOR:
        return "s-bad"
    if x < 6.0:
        return "s-low"
    if x < 7.5:
        return "s-mid"
    return "s-good"


def score_color(x: float | None) -> str:
    """The colour of a score's band, for SVG (the same colours as the CSS classes)."""
    return {
        "s-none": "#9aa0a6",
        "s-bad": "#c62828",
        "s-low": "#ef6c00",
        "s-mid": "#f9a825",
        "s-good": "#2e7d32",
    }[score_class(x)]


def nice(d: str) -> str:
    """An identifier (dimension, phase) in words."""
    return d.replace("_", " ")


def as_number(x: Any) -> float | None:
    """A finite number, or a cell's (``{"value": ...}``); None for anything else, booleans included."""
    if isinstance(x, bool):
        return None
    if isinstance(x, int | float) and math.isfinite(x):
        return float(x)
    if isinstance(x, dict) and "value" in x:
        return as_number(x["value"])
    return None


def cell(x: Any) -> str:
    """A product value as table-cell HTML: grouped digits, a formula as a tooltip, objects as short JSON."""
    if isinstance(x, dict) and "value" in x:
        inner = cell(x["value"])
        formula = x.get("formula")
        return f'<span title="{esc(formula)}">{inner}</span>' if formula else inner
    if isinstance(x, bool) or x is None:
        return esc("" if x is None else str(x).lower())
    if isinstance(x, float):
        return esc(f"{x:,.4g}" if abs(x) < 1e6 else f"{x:,.0f}")
    if isinstance(x, int):
        return esc(f"{x:,}")
    if isinstance(x, dict | list):
        return f"<code>{esc(json.dumps(x, ensure_ascii=False)[:200])}</code>"
    return esc(x)
