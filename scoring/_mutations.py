"""Mutation metrics: the agent's edit trajectory against the scenario's expected mutations."""

from __future__ import annotations

import logging
import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from modylbench.record import Mutation
from modylbench.scenarios import (
    ExpectedMutation,
    Scenario,
    apply_mutations,
    cell_value,
    numbers_close,
    resolve,
)
from modylbench.scoring._models import MutationMetrics

logger = logging.getLogger(__name__)

VALUE_TOLERANCE_PCT = 0.5
REVERT_WINDOW = 2  # turns
_ABSENT = object()

# What an edit can be, as ``classify_mutations`` tags it (an edit may carry several):
#   expected     matches an expected mutation of the scenario (one-to-one, in order)
#   reverted     undone within REVERT_WINDOW turns, or the edit that undid it (wasted work)
#   unexpected   neither expected nor reverted
#   destructive  overwrote a value that already equalled the scenario's final one
#   backtrack    went back to a value the path held before its current one
MUTATION_TAGS = ("expected", "reverted", "unexpected", "destructive", "backtrack")


def values_equal(a: Any, b: Any, tolerance_pct: float = VALUE_TOLERANCE_PCT) -> bool:
    """Numbers within ``tolerance_pct`` %, anything else exactly (recursively; cells compare by value)."""
    a, b = cell_value(a), cell_value(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        if not (math.isfinite(a) and math.isfinite(b)):
            return False
        return numbers_close(float(a), float(b), tolerance_pct)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(values_equal(a[k], b[k], tolerance_pct) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(values_equal(x, y, tolerance_pct) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


def expected_value(e: ExpectedMutation) -> Any:
    """The value an expected mutation writes (a create without a value writes an empty object)."""
    if e.mutation_type == "create" and e.value is None:
        return {}
    return e.value if e.value is not None else e.expected_value


def match_trajectory(trajectory: list[Mutation], expected: list[ExpectedMutation]) -> list[int | None]:
    """For each trajectory mutation, the index of the expected mutation it matches (one-to-one, in order)."""
    by_key: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, e in enumerate(expected):
        by_key[(e.product_id, e.path)].append(i)
    used: set[int] = set()
    out: list[int | None] = []
    for m in trajectory:
        hit = None
        for i in by_key.get((m.product_id, m.path), ()):
            if i not in used and values_equal(m.new_value, expected_value(expected[i])):
                hit = i
                break
        if hit is not None:
            used.add(hit)
        out.append(hit)
    return out


def _reverting(trajectory: list[Mutation], i: int) -> int | None:
    """Index of the mutation that puts ``trajectory[i]``'s path back within REVERT_WINDOW turns, if any."""
    m = trajectory[i]
    for j in range(i + 1, len(trajectory)):
        later = trajectory[j]
        if later.turn_index > m.turn_index + REVERT_WINDOW:
            return None
        if later.product_id == m.product_id and later.path == m.path:
            return j if values_equal(later.new_value, m.old_value) else None
    return None


def classify_mutations(trajectory: Sequence[Mutation], scenario: Scenario) -> list[set[str]]:
    """The tags of each edit (``MUTATION_TAGS``): the one reading of a trajectory.

    ``compute_metrics`` counts these tags and the report shows them on each edit, so a count in the
    scorecard can always be pointed at the edits behind it.
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
            # A change undone within REVERT_WINDOW turns and its undo are both wasted work.
            j = _reverting(traj, i)
            if j is not None:
                tags[i].add("reverted")
                if matches[j] is None:
                    tags[j].add("reverted")
    history: dict[tuple[str, str], list[Any]] = defaultdict(list)
    for i, m in enumerate(traj):
        target = resolve(final[m.product_id], m.path, _ABSENT) if m.product_id in final else _ABSENT
        if (
            target is not _ABSENT
            and values_equal(m.old_value, target)
            and not values_equal(m.new_value, target)
        ):
            tags[i].add("destructive")
        past = history[(m.product_id, m.path)]
        if not past:
            past.append(m.old_value)
        # Back to a value the path held before its current one (None stands for "absent").
        if any(values_equal(m.new_value, v, 0.0) for v in past[:-1]):
            tags[i].add("backtrack")
        past.append(m.new_value)
    for t in tags:
        if not t & {"expected", "reverted"}:
            t.add("unexpected")
    return tags


def compute_metrics(trajectory: list[Mutation] | None, scenario: Scenario, source: str) -> MutationMetrics:
    """The mutation metrics of one run (rules in docs/scoring.md): counts of ``classify_mutations``' tags."""
    expected = scenario.expected_mutations
    if trajectory is None:
        return MutationMetrics(
            source="none",
            total=0,
            expected=len(expected),
            correct=0,
            incorrect=0,
            unnecessary=0,
            missing=len(expected),
            destructive=0,
            backtracks=0,
            efficiency=None,
            convergence_rate=None,
        )
    counts = Counter(tag for tags in classify_mutations(trajectory, scenario) for tag in tags)
    correct = counts["expected"]
    n_turns = len(scenario.turns)
    last_by_product: dict[str, int] = {}
    for m in trajectory:
        last_by_product[m.product_id] = max(last_by_product.get(m.product_id, -1), m.turn_index)
    per_product = {pid: max(0, n_turns - 1 - last) / n_turns for pid, last in sorted(last_by_product.items())}
    convergence = max(0, n_turns - 1 - max(last_by_product.values())) / n_turns if last_by_product else None
    return MutationMetrics(
        source=source,
        total=len(trajectory),
        expected=len(expected),
        correct=correct,
        incorrect=counts["unexpected"],
        unnecessary=counts["reverted"],
        missing=len(expected) - correct,
        destructive=counts["destructive"],
        backtracks=counts["backtrack"],
        efficiency=(correct / len(trajectory)) if trajectory else None,
        convergence_rate=convergence,
        per_product_convergence=per_product,
    )
