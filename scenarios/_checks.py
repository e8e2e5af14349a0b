"""Programmatic verification: evaluate a scenario's criteria against a product's content, by meaning.

A criterion's ``target_field`` is a pointer into the reference's layout; it is found in the agent's
product by its exact path or, failing that, by labels (``_align``). Numbers compare in any usual
notation and scale, words in any usual spelling (docs/scoring.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from modylbench.scenarios._align import MISSING, Aligner, has_work
from modylbench.scenarios._pointer import parse_pointer
from modylbench.scenarios._schema import VerificationCriterion
from modylbench.scenarios._templates import ProductTemplate
from modylbench.scenarios._values import (
    as_number,
    cell_value,
    committed_quantities,
    figure_stated,
    has_term,
    label_similarity,
    normal_text,
    numbers_close,
    parse_signal_number,
    read_quantity,
    same_number,
    unit_family,
)

__all__ = ["CheckResult", "as_number", "cell_value", "numbers_close", "run_check", "text_of"]

@dataclass(frozen=True)
class CheckResult:
    """Outcome of one criterion on one product."""

    criterion_id: str
    passed: bool
    required: bool
    actual: Any
    reason: str


def text_of(v: Any) -> str:
    """All the text and figures of a value, as one string (iterative: agent content can be deep)."""
    parts: list[str] = []
    stack = [v]
    while stack and len(parts) < 100_000:
        x = cell_value(stack.pop())
        if isinstance(x, str):
            parts.append(x)
        elif isinstance(x, dict):
            stack.extend(reversed(list(x.values())))
        elif isinstance(x, list):
            stack.extend(reversed(x))
        elif x is not None:
            parts.append(str(x))
    return " ".join(parts)


def _states(term: str, text: str) -> bool:
    q = parse_signal_number(term)
    if q is not None:
        return figure_stated(q, committed_quantities(text))
    return has_term(term, normal_text(text))


def run_check(
    criterion: VerificationCriterion,
    content: Any,
    reference: Any = None,
    template: ProductTemplate | None = None,
) -> CheckResult:
    """Evaluate one criterion against a product's content (plain JSON), finding its target by meaning."""
    c = criterion
    if c.check_type == "judge":
        return CheckResult(c.id, False, False, None, "judged by the panel, not programmatically")
    aligner = Aligner(reference if reference is not None else content, content, template)
    tokens = tuple(parse_pointer(c.target_field))
    actual = aligner.resolve(tokens)
    if actual is MISSING:
        if c.check_type == "not_contains":
            return CheckResult(c.id, True, c.required, None, f"{c.target_field or '/'} is absent")
        if c.check_type == "contains" and tokens[:1] == ("sections",) and _states(c.expected_value, text_of(content)):
            return CheckResult(c.id, True, c.required, None, f"document states {c.expected_value!r}")
        return CheckResult(c.id, False, c.required, None, f"{c.target_field or '/'} is missing")
    value = cell_value(actual)
    unit = aligner.unit_at(tokens)
    ok: bool
    reason: str
    if c.check_type == "numeric_equality":
        ok = same_number(value, float(c.expected_value), unit, c.tolerance_pct)
        reason = f"{value!r} vs expected {c.expected_value} ±{c.tolerance_pct}%"
    elif c.check_type == "numeric_range":
        q = read_quantity(value)
        lo, hi = c.expected_value
        ok = False
        if q is not None:
            n = q.scaled if q.scaled is not None and not lo <= q.value <= hi else q.value
            ok = lo <= n <= hi
            if not ok and unit_family(unit)[0] == "pct" and abs(q.value) <= 1.5:
                ok = lo <= q.value * 100 <= hi
        reason = f"{value!r} in [{lo}, {hi}]"
    elif c.check_type == "contains":
        ok = _states(c.expected_value, text_of(value))
        reason = f"text states {c.expected_value!r}"
    elif c.check_type == "not_contains":
        ok = not _states(c.expected_value, text_of(value))
        reason = f"text does not state {c.expected_value!r}"
    elif c.check_type == "one_of":
        options = c.expected_value
        if isinstance(value, str):
            ok = any(
                isinstance(o, str) and (o.strip().lower() == value.strip().lower() or label_similarity(o, value) >= 0.8)
                for o in options
            ) or any(isinstance(o, int | float) and same_number(value, float(o)) for o in options)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            ok = any(isinstance(o, int | float) and not isinstance(o, bool) and same_number(value, float(o)) for o in options)
        else:
            ok = value in options
        reason = f"{value!r} is one of {options!r}"
    elif c.check_type == "present":
        ok = has_work(value)
        reason = "present and non-empty"
    elif c.check_type == "count_at_least":
        entries = list(value.values()) if isinstance(value, dict) else value if isinstance(value, list) else []
        n_filled = sum(1 for e in entries if has_work(e))
        ok = n_filled >= int(c.expected_value)
        reason = f"has at least {c.expected_value} filled entries ({n_filled})"
    else:  # pragma: no cover - CheckType is closed
        ok, reason = False, f"unknown check type {c.check_type}"
    return CheckResult(c.id, ok, c.required, value if not isinstance(value, dict | list) else None, reason)
