"""Every seed builds every built-in scenario (issue 25, item 7): seed 108 once failed in a wording helper
(scientist_hypertension_trial). A spread of seeds by default; many more with ``--run-slow``."""

from __future__ import annotations

import pytest

from modylbench.scenarios.builtin import BUILDERS, generate

SPREAD = (1, 37, 108, 250, 1009)
"""Seed 108 is the one that failed; the others spread over the range."""
WIDE = tuple(s for s in range(1, 201) if s not in SPREAD)


@pytest.mark.parametrize("seed", SPREAD)
@pytest.mark.parametrize("scenario_id", list(BUILDERS))
def test_a_spread_of_seeds_builds(scenario_id: str, seed: int) -> None:
    scenario = generate(scenario_id, seed)
    assert scenario.scenario_id == scenario_id and scenario.seed == seed and scenario.turns


@pytest.mark.slow
@pytest.mark.parametrize("seed", WIDE)
@pytest.mark.parametrize("scenario_id", list(BUILDERS))
def test_a_wide_range_of_seeds_builds(scenario_id: str, seed: int) -> None:
    scenario = generate(scenario_id, seed)
    assert scenario.scenario_id == scenario_id and scenario.seed == seed and scenario.turns
