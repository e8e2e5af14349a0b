"""Programmatic verification: evaluate a scenario's criteria against a product's content."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from modylbench.scenarios._pointer import PointerError, resolve
from modylbench.scenarios._schema import VerificationCriterion


@dataclass(frozen=True)
class CheckResult:
    """Outcome of one criterion on one product."""

    criterion_id: str
    passed: bool
    required: bool
    actual: Any
    reason: str


def cell_value(v: Any) -> Any:
    """A spreadsheet cell may be a scalar or ``{"value": ..., "formula": ...}``; give the value."""
    if isinstance(v, dict) and "value" in v and set(v) <= {"value", "formula", "format", "note"}:
        return v["value"]
    return v


def as_number(v: Any) -> float | None:
    """Read a number from a cell: numbers, and strings like '$82.5M', '12.0x', '21.3%', '1,234'."""
    v = cell_value(v)
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return float(v) if math.isfinite(v) else None
    if isinstance(v, str):
        s = v.strip().replace(",", "").replace("$", "").replace("€", "").replace("£", "")
        for suffix in ("%", "x", "X", "M", "m", "bn", "B", "K", "k", "pp", "bps"):
            if s.endswith(suffix):
                s = s[: -len(suffix)].strip()
                break
        try:
            f = float(s)
        except ValueError:
            return None
        return f if math.isfinite(f) else None
    return None


def numbers_close(actual: float, expected: float, tolerance_pct: float) -> bool:
    """Relative comparison; an expected zero needs |actual| within tolerance_pct/100 absolute."""
    if expected == 0:
        return abs(actual) <= tolerance_pct / 100.0
    return abs(actual - expected) <= abs(expected) * tolerance_pct / 100.0


def _text_of(v: Any) -> str:
    v = cell_value(v)
    if isinstance(v, str):
        return v
    if isinstance(v, dict):
        return " ".join(_text_of(x) for x in v.values())
    if isinstance(v, list):
        return " ".join(_text_of(x) for x in v)
    return "" if v is None else str(v)


def run_check(criterion: VerificationCriterion, content: Any) -> CheckResult:
    """Evaluate one criterion against a product's content (plain JSON)."""
    c = criterion
    if c.check_type == "judge":
        return CheckResult(c.id, False, False, None, "judged by the panel, not programmatically")
    try:
        actual = resolve(content, c.target_field)
    except PointerError:
        return CheckResult(c.id, False, c.required, None, f"{c.target_field or '/'} is missing")
    value = cell_value(actual)
    ok: bool
    reason: str
    if c.check_type == "numeric_equality":
        n = as_number(value)
        ok = n is not None and numbers_close(n, float(c.expected_value), c.tolerance_pct)
        reason = f"{value!r} vs expected {c.expected_value} ±{c.tolerance_pct}%"
    elif c.check_type == "numeric_range":
        n = as_number(value)
        lo, hi = c.expected_value
        ok = n is not None and lo <= n <= hi
        reason = f"{value!r} in [{lo}, {hi}]"
    elif c.check_type == "contains":
        ok = c.expected_value.lower() in _text_of(value).lower()
        reason = f"text contains {c.expected_value!r}"
    elif c.check_type == "not_contains":
        ok = c.expected_value.lower() not in _text_of(value).lower()
        reason = f"text does not contain {c.expected_value!r}"
    elif c.check_type == "one_of":
        options = c.expected_value
        if isinstance(value, str):
            ok = value.strip().lower() in {str(o).strip().lower() for o in options}
        else:
            ok = value in options
        reason = f"{value!r} is one of {options!r}"
    elif c.check_type == "present":
        ok = value not in (None, "", [], {})
        reason = "present and non-empty"
    elif c.check_type == "count_at_least":
        ok = isinstance(value, list | dict) and len(value) >= int(c.expected_value)
        reason = f"has at least {c.expected_value} entries"
    else:  # pragma: no cover - CheckType is closed
        ok, reason = False, f"unknown check type {c.check_type}"
    return CheckResult(c.id, ok, c.required, value if not isinstance(value, dict | list) else None, reason)
