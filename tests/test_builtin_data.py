"""Built-in scenarios: committed data files are current, and the counts the benchmark publishes hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from modylbench.scenarios import apply_mutations, load_builtin, run_check
from modylbench.scenarios.builtin import BUILTIN_IDS
from modylbench.scenarios.builtin.__main__ import dump

DATA = Path(__file__).resolve().parent.parent / "scenarios" / "data"

EXPECTED_COUNTS = {
    "financial_analyst_lbo_model": (52, 5, "Consultant"),
    "deep_researcher_battery_briefing": (48, 5, "Mentor"),
    "business_strategist_telehealth_entry": (50, 5, "Consultant"),
    "optimization_solver_supply_chain": (48, 4, "Peer"),
    "business_analyst_pipeline_diagnosis": (50, 5, "Peer"),
    "scientist_hypertension_trial": (52, 5, "Consultant"),
    "financial_analyst_lbo_room": (60, 5, "Consultant"),
    "optimization_solver_supply_chain_room": (56, 4, "Peer"),
}


@pytest.mark.parametrize("scenario_id", BUILTIN_IDS)
def test_committed_data_file_is_current(scenario_id: str) -> None:
    committed = (DATA / f"{scenario_id}.json").read_text(encoding="utf-8")
    assert committed == dump(scenario_id), f"run: python -m modylbench.scenarios.builtin {scenario_id}"


def test_every_shipped_builtin_has_its_counts_and_passes_its_own_criteria() -> None:
    scenarios = load_builtin()
    for s in scenarios:
        turns, edges, tier = EXPECTED_COUNTS[s.scenario_id]
        assert (len(s.turns), len(s.edge_cases), s.quality_tier) == (turns, edges, tier), s.scenario_id
        assert s.channels_used == ["audio", "chat", "screen", "data"], s.scenario_id
        contents = apply_mutations(s.expected_mutations)
        for p in s.products:
            assert contents.get(p.product_id) == p.reference, f"{s.scenario_id}/{p.product_id}: reference != mutations"
        for o in s.expected_outputs:
            for c in o.verification_criteria:
                if isinstance(c, str) or c.check_type == "judge":
                    continue
                assert o.product_id is not None
                assert run_check(c, contents[o.product_id]).passed, f"{s.scenario_id}: {c.id}"


def test_all_six_builtins_are_registered() -> None:
    assert list(BUILTIN_IDS) == list(EXPECTED_COUNTS)


def test_a_missing_builder_is_an_error_that_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # A wheel without a builder once made every --seed N run say "unknown scenario …; known: " (the loader
    # skipped the import error at debug level): a missing builder must stop the command and say so.
    from modylbench.scenarios import ScenarioLoadError, resolve_scenarios
    from modylbench.scenarios.builtin import BUILDERS

    monkeypatch.setitem(BUILDERS, "financial_analyst_lbo_model", "no_such_builder")
    with pytest.raises(ScenarioLoadError) as err:
        resolve_scenarios(seed=3, only=["financial_analyst_lbo_model"])
    assert "modylbench.scenarios.builtin.no_such_builder is missing from this installation" in err.value.problems[0]
    assert len(err.value.problems) == 1 and "\n" not in err.value.problems[0]
