"""What every built-in claims about its fresh instances, tested once over all of them: a fresh seed plays the same
meeting (turns, channels, payload kinds, facts, edge cases, products, checks, files), draws new figures (most
measured facts move), and is deterministic (the same seed builds the same scenario, caches or not). That seed 0
is the committed data file is tests/scenarios/test_invariants.py's; what a fresh instance must not say (a
figure of seed 0 left in its text) is each scenario's own file's, since it knows how its figures are written."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from modylbench.scenarios import Scenario, VerificationCriterion
from modylbench.scenarios.builtin import BUILDERS, BUILTIN_IDS, generate, instance_of

from .instances import instance

FRESH = (1, 2, 3)
CASES = [(sid, seed) for sid in BUILTIN_IDS for seed in FRESH]
IDS = [f"{sid}-seed{seed}" for sid, seed in CASES]


def _shape(s: Scenario) -> dict[str, Any]:
    """Everything about the meeting except its figures."""
    return {
        "turns": [(t.phase, t.channel, t.expected_response_type, t.edge_case, tuple(t.files), t.chat_message is not None,
                   t.screen.kind if t.screen else None, t.barge_in_after_sec, t.wait_for_agent_sec) for t in s.turns],
        "facts": [tuple((f.id, type(f.value).__name__) for f in t.expected_facts) for t in s.turns],
        "edge_cases": [(e.name, e.severity) for e in s.edge_cases],
        "products": [(p.product_id, p.output_type, p.title) for p in s.products],
        # A check's target may name a drawn figure (a sensitivity cell); its id and kind do not change.
        "checks": [(o.product_id, [(c.id, c.check_type) for c in o.verification_criteria
                                   if isinstance(c, VerificationCriterion)]) for o in s.expected_outputs],
        "files": [f.name for f in s.data_files],
        # The persona's goals may quote figures; who they are does not change.
        "who": (s.title, s.vertical, s.quality_tier, s.human_persona.name, s.human_persona.role),
    }  # fmt: skip


def _measured(s: Scenario) -> dict[str, float]:
    """Numeric facts that are measurements: not exact counts (tolerance 0: the rows and arms a script fixes) and
    not calendar years."""
    return {f.id: float(f.value) for t in s.turns for f in t.expected_facts
            if not isinstance(f.value, str) and f.tolerance_pct > 0 and not (f.unit == "" and 2000 <= f.value <= 2100)}  # fmt: skip


@pytest.mark.parametrize(("scenario_id", "seed"), CASES, ids=IDS)
def test_a_fresh_seed_plays_the_same_meeting(scenario_id: str, seed: int) -> None:
    published, fresh = instance(scenario_id, 0), instance(scenario_id, seed)
    assert _shape(fresh) == _shape(published)
    assert fresh.seed == seed and instance_of(fresh) == seed and instance_of(published) == 0
    assert fresh.ground_truth != published.ground_truth


@pytest.mark.parametrize(("scenario_id", "seed"), CASES, ids=IDS)
def test_a_fresh_seed_draws_new_figures(scenario_id: str, seed: int) -> None:
    old, new = _measured(instance(scenario_id, 0)), _measured(instance(scenario_id, seed))
    assert old.keys() == new.keys() and len(old) >= 50
    moved = [k for k in old if abs(new[k] - old[k]) > 0.02 * max(abs(old[k]), 1e-9)]
    assert len(moved) >= 0.8 * len(old), sorted(old.keys() - set(moved))


def _clear_caches(scenario_id: str) -> int:
    """Empty every functools cache in the scenario's builder, so that a build draws and solves again."""
    package = f"modylbench.scenarios.builtin.{BUILDERS[scenario_id]}"
    cleared = 0
    for name, module in list(sys.modules.items()):
        if name == package or name.startswith(package + "."):
            for value in vars(module).values():
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()
                    cleared += 1
    return cleared


@pytest.mark.parametrize("scenario_id", BUILTIN_IDS)
def test_fresh_instances_are_deterministic(scenario_id: str) -> None:
    first = generate(scenario_id, 5)
    _clear_caches(scenario_id)
    again = generate(scenario_id, 5)
    assert again.model_dump() == first.model_dump()
    assert first.model_dump() != instance(scenario_id, 1).model_dump()
