"""Text for the report's HTML: escaping, numbers, times, score colours and cell values."""

from __future__ import annotations

import html
import json
import logging
import math
import re
from typing import Any

from modylbench.scoring._formula import HARD_FLOOR

logger = logging.getLogger(__name__)


def esc(x: Any) -> str:
    """``x`` as text safe inside HTML and attribute values."""
    return html.escape(str(x), quote=True)


def fmt(x: float | None, digits: int = 2) -> str:
    """A score for display (scores are stored unrounded); "—" when not scored."""
    return "—" if x is None else f"{x:.{digits}f}"


def number(x: float | int | None, sig: int = 4, unit: str = "") -> str:
    """A number as a person writes it: ``sig`` significant digits (never fewer than the integer part has),
    no trailing zeros, thousands separated from 10,000 up, the unit attached ("%" and currency symbols
    without a space).

    57.49999999999 -> "57.5"; 8450000.0 -> "8,450,000"; 0.000123456 -> "0.0001235"; -3.0 -> "-3"; 2024 -> "2024".
    """
    if x is None or isinstance(x, bool) or not math.isfinite(x):
        return "—" if x is None or isinstance(x, bool) else str(x)
    if x == 0:
        text = "0"
    else:
        decimals = max(0, sig - 1 - math.floor(math.log10(abs(x))))
        # Four-digit numbers keep no separator: a year (2024) reads wrong as "2,024".
        text = f"{x:,.{decimals}f}" if abs(round(x, decimals)) >= 10_000 else f"{x:.{decimals}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        if text in ("-0", ""):
            text = "0"
    if not unit:
        return text
    if unit in ("$", "€", "£", "¥"):
        return f"-{unit}{text[1:]}" if text.startswith("-") else f"{unit}{text}"
    return f"{text}{unit}" if unit in ("%", "x", "×") else f"{text} {unit}"


# A decimal with a long tail (float noise such as 57.49999999999 or 0.30000000000000004), or an integer
# part of five digits or more, standing alone (not inside an id such as exit_10x or a date 2024-01-05).
_RAW_NUMBER = re.compile(r"(?<![\w.\-])-?(?:\d{5,}(?:\.\d+)?|\d+\.\d{5,})(?![\w.\-])")


def numbers_in(text: str, sig: int = 6) -> str:
    """Free text (a check's reason) with its raw floats written for people: ``sig`` significant digits."""
    return _RAW_NUMBER.sub(lambda m: number(float(m.group(0)), sig), text)


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
        return esc(number(x))
    if isinstance(x, int):
        return esc(number(x))
    if isinstance(x, dict | list):
        return f"<code>{esc(json.dumps(x, ensure_ascii=False)[:200])}</code>"
    return esc(x)
