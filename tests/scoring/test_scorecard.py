"""The scorecard: pure, re-scorable, with consensus, caps, unscored items, trials and pass^k."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from modylbench.record import ScenarioResponses
from modylbench.scenarios import Scenario
from modylbench.scoring import (
    Judge,
    OfflineJudge,
    Scorecard,
    Verdict,
    make_judges,
    read_scorecard,
    score,
    score_async,
    write_scorecard,
)
from modylbench.scoring._judges import Item

from .scoring_helpers import load_fixture_maker

MAKER = load_fixture_maker()


class FixedJudge(Judge):
    """A judge that gives every dimension the same number (or refuses), through the real panel code."""

    def __init__(self, name: str, value: float | None):
        self.name = name
        self.value = value

    async def judge_items(self, items: list[Item]) -> list[Verdict]:
        return [self._one(item) for item in items]

    def _one(self, item: Item) -> Verdict:
        if self.value is None:
            return Verdict(judge=self.name, dimensions=None, unscored_reason="refused")
        return Verdict(judge=self.name, dimensions=dict.fromkeys(item.dimensions, self.value))


def _resp(line: dict[str, Any]) -> ScenarioResponses:
    return ScenarioResponses.model_validate(line)


def test_rescoring_a_saved_scorecard_is_identical(tmp_path: Path, scenario: Scenario) -> None:
    lines = [_resp(MAKER.correct(scenario)), _resp(MAKER.confident_wrong(scenario))]
    a = score(lines, {scenario.scenario_id: scenario}, make_judges([]))
    b = score(copy.deepcopy(lines), {scenario.scenario_id: scenario}, make_judges([]))
    assert a.model_dump_json() == b.model_dump_json()
    write_scorecard(a, tmp_path / "card.json")
    assert read_scorecard(tmp_path / "card.json") == a
    data = json.loads((tmp_path / "card.json").read_text())
    assert set(data) == {"modylbench_version", "judges", "scenarios", "aggregate", "comparisons", "skipped", "incomplete"}
    entry = data["scenarios"][0]
    assert {
        "scenario_id",
        "model_id",
        "trial",
        "journey",
        "destination",
        "modylbench_score",
        "tier",
        "turns",
        "products",
        "mutation_metrics",
        "flags",
    } <= set(entry)
    assert {"turn_index", "score", "capped", "dimensions", "judges", "flags"} <= set(entry["turns"][0])
    assert {"product_id", "output_type", "score", "capped", "dimensions", "judges", "flags", "checks"} <= set(
        entry["products"][0]
    )


def test_formula_end_to_end(scenario: Scenario) -> None:
    card = score([_resp(MAKER.correct(scenario))], {scenario.scenario_id: scenario}, make_judges([]))
    e = card.scenarios[0]
    turns = [t.score for t in e.turns]
    products = [p.score for p in e.products]
    assert e.journey == pytest.approx(sum(turns) / len(turns))
    assert e.destination == pytest.approx(sum(products) / len(products))
    assert e.modylbench_score == pytest.approx(0.4 * e.journey + 0.6 * e.destination)
    assert (
        e.mutation_metrics.correct == len(scenario.expected_mutations)
        and e.mutation_metrics.efficiency == 1.0
    )


def test_panel_consensus_and_disagreement_flag(scenario: Scenario) -> None:
    line = [_resp(MAKER.correct(scenario))]
    card = score(line, {scenario.scenario_id: scenario}, [FixedJudge("a", 9.0), FixedJudge("b", 4.0)])
    t = card.scenarios[0].turns[0]
    assert t.dimensions["context_accuracy"] == 4.0  # range 5 > 3: minimum
    assert "judge_disagreement" in t.flags  # std 2.5 > 2
    card = score(line, {scenario.scenario_id: scenario}, [FixedJudge("a", 8.0), FixedJudge("b", 6.0)])
    t = card.scenarios[0].turns[0]
    assert t.dimensions["context_accuracy"] == 7.0 and "judge_disagreement" not in t.flags
    assert card.judges == ["a", "b"]


def test_unscored_items_are_excluded_and_listed(scenario: Scenario) -> None:
    line = [_resp(MAKER.correct(scenario))]
    card = score(line, {scenario.scenario_id: scenario}, [FixedJudge("r", None)])
    e = card.scenarios[0]
    assert all(t.score is None and t.unscored_reason == "r: refused" for t in e.turns)
    assert e.journey is None and e.modylbench_score is None and e.tier is None
    assert len(e.unscored) == len(scenario.turns) + len(scenario.expected_outputs)
    card = score(line, {scenario.scenario_id: scenario}, [FixedJudge("r", None), FixedJudge("ok", 8.0)])
    t = card.scenarios[0].turns[0]
    assert t.score == pytest.approx(8.0) and "partial_panel" in t.flags


def test_check_bound_and_not_delivered(scenario: Scenario) -> None:
    line = MAKER.correct(scenario)
    model = next(p for p in line["work_products"] if p["product_id"] == "model")
    model["content"]["lbo"]["entry"]["ev"] = 1.0  # one of six required checks fails
    line["work_products"] = [model]  # memo never delivered
    card = score([_resp(line)], {scenario.scenario_id: scenario}, [FixedJudge("generous", 10.0)])
    p_model, p_memo = card.scenarios[0].products
    assert p_model.correctness_bound == pytest.approx(1 + 9 * 5 / 6)
    assert (
        p_model.dimensions["correctness"] == pytest.approx(1 + 9 * 5 / 6)
        and "correctness_bounded" in p_model.flags
    )
    assert (
        p_memo.score == 1.0 and "not_delivered" in p_memo.flags and set(p_memo.dimensions.values()) == {1.0}
    )


def test_trajectory_rule_and_snapshots(scenario: Scenario) -> None:
    sid = {scenario.scenario_id: scenario}
    dump = MAKER.final_state_dump(scenario)
    e = score([_resp(dump)], sid, make_judges([])).scenarios[0]
    assert all("no_trajectory_evidence" in p.flags and p.score <= 4.0 for p in e.products)
    assert "no_trajectory" in e.flags and e.mutation_metrics.source == "none"
    # The same final products with per-turn snapshots showing the work: evidence derived from them.
    correct = MAKER.correct(scenario)
    traj = correct.pop("mutation_trajectory")
    from modylbench.scenarios import ExpectedMutation, apply_mutations

    muts = [
        ExpectedMutation(
            turn_index=m["turn_index"],
            product_id=m["product_id"],
            mutation_type=m["mutation_type"],
            path=m["path"],
            value=m["new_value"] if isinstance(m["new_value"], dict | list) else None,
            expected_value=None if isinstance(m["new_value"], dict | list) else m["new_value"],
        )
        for m in traj
    ]
    for t in correct["turns"]:
        state = apply_mutations([m for m in muts if m.turn_index <= t["turn_index"]])
        t["work_products"] = [
            {"output_type": "kv", "content": c, "product_id": pid} for pid, c in state.items()
        ]
    e = score([_resp(correct)], sid, make_judges([])).scenarios[0]
    assert e.mutation_metrics.source == "snapshots"
    assert not any("no_trajectory_evidence" in p.flags for p in e.products)
    assert e.modylbench_score is not None and e.modylbench_score >= 9.0


def test_termination_reason_is_carried(scenario: Scenario) -> None:
    line = MAKER.correct(scenario)
    line["turns"] = line["turns"][:3]
    line["mutation_trajectory"] = [m for m in line["mutation_trajectory"] if m["turn_index"] < 3]
    line["termination_reason"] = "agent_disconnected"
    e = score([_resp(line)], {scenario.scenario_id: scenario}, make_judges([])).scenarios[0]
    assert e.termination_reason == "agent_disconnected"
    assert {"ended_early", "agent_disconnected", "turns_unanswered"} <= set(e.flags)
    assert [t.score for t in e.turns[3:]] == [1.0] * (len(scenario.turns) - 3)


def test_trials_and_pass_k(scenario: Scenario) -> None:
    good, bad = MAKER.correct(scenario), MAKER.polite_only(scenario)
    bad["model_id"] = "reference"
    lines = [_resp(good), _resp(good), _resp(bad)]
    card = score(lines, {scenario.scenario_id: scenario}, make_judges([]))
    assert [e.trial for e in card.scenarios] == [0, 1, 2]
    agg = card.aggregate["reference"]
    (pk,) = agg.per_scenario
    assert (pk.trials, pk.passes) == (3, 2)
    assert pk.pass_k == {"1": pytest.approx(2 / 3), "2": pytest.approx(1 / 3), "3": 0.0}
    assert agg.pass_k == pk.pass_k and agg.runs == 3
    limited = score(lines, {scenario.scenario_id: scenario}, make_judges([]), k=2)
    assert set(limited.aggregate["reference"].pass_k) == {"1", "2"}


def test_unknown_scenario_and_duplicate_trial_are_skipped(scenario: Scenario) -> None:
    good = MAKER.correct(scenario)
    other = dict(good, scenario_id="nope")
    t1 = dict(good, trial=1)
    card = score([_resp(other), _resp(t1), _resp(t1)], {scenario.scenario_id: scenario}, make_judges([]))
    assert len(card.scenarios) == 1 and len(card.skipped) == 2
    assert "unknown scenario" in card.skipped[0]["reason"] and "appears twice" in card.skipped[1]["reason"]


def test_match_by_output_type_and_description(scenario: Scenario) -> None:
    line = MAKER.correct(scenario)
    for p in line["work_products"]:
        p["product_id"] = None
    for o in scenario.expected_outputs:
        o.product_id = None
    e = score([_resp(line)], {scenario.scenario_id: scenario}, [OfflineJudge()]).scenarios[0]
    assert not any("not_delivered" in p.flags for p in e.products)
    assert [p.dimensions["correctness"] for p in e.products] == [10.0, 10.0]


async def test_sync_score_works_inside_a_running_loop(scenario: Scenario) -> None:
    line = [_resp(MAKER.correct(scenario))]
    a = score(line, {scenario.scenario_id: scenario}, make_judges([]))
    b = await score_async(line, {scenario.scenario_id: scenario}, make_judges([]))
    assert a == b
    assert asyncio.get_running_loop() is not None


def test_scorecard_schema_is_served_by_the_cli() -> None:
    from click.testing import CliRunner

    from modylbench.simulator.cli import cli

    res = CliRunner().invoke(cli, ["schema", "scorecard"])
    assert res.exit_code == 0
    schema = json.loads(res.output)
    assert schema["properties"].keys() == Scorecard.model_json_schema()["properties"].keys()
