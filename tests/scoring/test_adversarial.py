"""The adversarial suite (issue 13, item 9): what the scores must be, for every built-in scenario.

tests/support/modylbench_testsupport/adversarial.py derives, from each scenario, correct agents in many styles,
gaming agents and partial agents. A fair benchmark that cannot be gamed rates every
correct style at Consultant (>= 9.0), every gaming strategy below Peer (< 6.0) and the partial
agents in between, rising with how much is right; with the offline judge alone (here) and with a panel
that adds a lenient LLM judge (test_adversarial_panel.py). The reference agent's
responses for seed 0 scored against the scenario built with seed 1 must fall below Peer. The lines
themselves are checked in test_adversarial_lines.py.

Each scenario's lines are scored once per test process (one ``score`` call, adversarial_cases.py) and
shared by the tests.
"""

from __future__ import annotations

import copy
import inspect
import json

import pytest

from modylbench.record import ScenarioResponses
from modylbench.scenarios import Scenario
from modylbench.scoring import make_judges, score
from modylbench_testsupport import adversarial as ADV

from .adversarial_cases import CORRECT_MIN, GAMING_MAX, IDS, SCENARIOS, check_partial, offline_scores

# --------------------------------------------------------------------------- offline judge


@pytest.mark.parametrize("sid", IDS)
@pytest.mark.parametrize("style", ADV.CORRECT_STYLES)
def test_correct_style_reaches_consultant(sid: str, style: str) -> None:
    assert offline_scores(sid)[style] >= CORRECT_MIN


@pytest.mark.parametrize("sid", IDS)
@pytest.mark.parametrize("strategy", ADV.GAMING)
def test_gaming_stays_below_peer(sid: str, strategy: str) -> None:
    assert offline_scores(sid)[strategy] < GAMING_MAX


@pytest.mark.parametrize("sid", IDS)
def test_partial_agents_rise_with_how_much_is_right(sid: str) -> None:
    check_partial(offline_scores(sid))


# --------------------------------------------------------------------------- fresh instances


def _build_with_seed(sid: str, seed: int) -> Scenario:
    from modylbench.scenarios.builtin import build

    if "seed" not in inspect.signature(build).parameters:
        pytest.skip("modylbench.scenarios.builtin.build has no seed parameter yet (issue 13, item 8)")
    try:
        return build(sid, seed=seed)  # type: ignore[call-arg]
    except TypeError as exc:
        pytest.skip(f"{sid}: its builder takes no seed yet ({exc})")


@pytest.mark.parametrize("sid", IDS)
def test_memorised_answers_fail_a_fresh_instance(sid: str) -> None:
    """The oracle's responses for seed 0, scored against the scenario built with seed 1: below Peer."""
    fresh = _build_with_seed(sid, 1)
    assert fresh.scenario_id == sid
    old = ADV.STRATEGIES["reference"](SCENARIOS[sid])
    assert json.dumps(ADV.STRATEGIES["reference"](fresh)) != json.dumps(old), "seed 1 changed nothing"
    card = score([ScenarioResponses.model_validate(copy.deepcopy(old))], {sid: fresh}, make_judges(["offline"]))
    (entry,) = card.scenarios
    assert entry.modylbench_score is not None and entry.modylbench_score < GAMING_MAX
