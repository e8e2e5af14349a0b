"""Built-in scenario instances for the scenario tests, each built once per test session (a build re-solves
its scenario and takes up to seconds): seed 0 is the published instance, other seeds fresh ones."""

from __future__ import annotations

from functools import cache

from modylbench.scenarios import Scenario
from modylbench.scenarios.builtin import generate

SEEDS = (0, 1, 2, 3)
"""The published instance and three fresh ones: what every scenario's checks run on."""


@cache
def instance(scenario_id: str, seed: int) -> Scenario:
    """``scenario_id`` built by its generator and solver for ``seed`` (shared: do not mutate it)."""
    return generate(scenario_id, seed)
