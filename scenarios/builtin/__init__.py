"""The six built-in scenarios: each module generates its data, solves it and builds the Scenario.

``python -m modylbench.scenarios.builtin`` rebuilds the committed data files in
``scenarios/data/``; a test checks they are current.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from modylbench.scenarios._schema import Scenario

# scenario_id -> module (in this package) with a ``build() -> Scenario`` function.
BUILDERS: dict[str, str] = {
    "financial_analyst_lbo_model": "lbo",
    "deep_researcher_battery_briefing": "battery",
    "business_strategist_telehealth_entry": "telehealth",
    "optimization_solver_supply_chain": "supply_chain",
    "business_analyst_pipeline_diagnosis": "pipeline",
    "scientist_hypertension_trial": "hypertension",
}
BUILTIN_IDS: tuple[str, ...] = tuple(BUILDERS)


def available() -> list[str]:
    """Ids whose builder module exists in this checkout."""
    out = []
    for sid, mod in BUILDERS.items():
        try:
            importlib.import_module(f"{__name__}.{mod}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{mod}":
                raise
            continue
        out.append(sid)
    return out


def build(scenario_id: str) -> Scenario:
    """Build one built-in scenario from its generator and reference solution."""
    module = importlib.import_module(f"{__name__}.{BUILDERS[scenario_id]}")
    scenario: Scenario = module.build()
    if scenario.scenario_id != scenario_id:
        raise ValueError(f"builder {BUILDERS[scenario_id]} built {scenario.scenario_id!r}, not {scenario_id!r}")
    return scenario
