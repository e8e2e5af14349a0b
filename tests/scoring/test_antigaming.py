"""Anti-gaming, shown: fixtures derived fresh from each scenario, scored by the offline judge.

The correct agent (reference solutions) must reach Consultant (>= 9.0) and every gaming agent
must stay below Peer (< 6.0), on the synthetic scenario and on every built-in scenario present.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from modylbench.record import ScenarioResponses
from modylbench.scenarios import Scenario, load_builtin
from modylbench.scoring import make_judges, score

from .scoring_helpers import ROOT, load_fixture_maker, synthetic_scenario

MAKER = load_fixture_maker()
SCENARIOS: list[Scenario] = [synthetic_scenario(), *load_builtin()]


def _score(line: dict[str, object], sc: Scenario) -> float:
    card = score([ScenarioResponses.model_validate(line)], {sc.scenario_id: sc}, make_judges(["offline"]))
    value = card.scenarios[0].modylbench_score
    assert value is not None
    return value


@pytest.mark.parametrize("sc", SCENARIOS, ids=lambda s: s.scenario_id)
def test_correct_reaches_consultant(sc: Scenario) -> None:
    assert _score(MAKER.correct(sc), sc) >= 9.0


@pytest.mark.parametrize("agent", MAKER.GAMING)
@pytest.mark.parametrize("sc", SCENARIOS, ids=lambda s: s.scenario_id)
def test_gaming_stays_below_peer(sc: Scenario, agent: str) -> None:
    assert _score(MAKER.AGENTS[agent](sc), sc) < 6.0


def test_gaming_agents_cover_the_issue_list() -> None:
    assert set(MAKER.GAMING) >= {
        "polite_only",
        "verbose_formatted",
        "confident_wrong",
        "prompt_injection",
        "final_state_dump",
        "scenario_echo",
    }


def test_committed_fixtures_are_current() -> None:
    """The committed fixture files equal what make_fixtures.py derives from the built-in scenarios."""
    builtin = load_builtin()
    folder = ROOT / "fixtures" / "responses"
    if not builtin:
        pytest.skip("no built-in scenario data yet")
    for name, lines in MAKER.make_all(builtin).items():
        path: Path = folder / f"{name}.jsonl"
        assert path.is_file(), f"{path} missing: run python tests/support/modylbench_testsupport/make_fixtures.py"
        stored = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
        assert stored == json.loads(json.dumps(lines)), f"{path.name} is stale: rerun make_fixtures.py"
