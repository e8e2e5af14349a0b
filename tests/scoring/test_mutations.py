"""Mutation metrics, each rule on a hand-made trajectory."""

from __future__ import annotations

from typing import Any

import pytest

from modylbench.record import Mutation
from modylbench.scenarios import Scenario, parse_scenario
from modylbench.scoring import MUTATION_TAGS, classify_mutations, compute_metrics, values_equal

from .scoring_helpers import synthetic_raw


def kv_scenario() -> Scenario:
    """Six turns; product k: create (t0), /a=1.0 (t1), /b='x' (t2), /a=2.0 (t3)."""
    raw = synthetic_raw()
    raw["expected_mutations"] = [
        {"turn_index": 0, "product_id": "k", "mutation_type": "create", "path": "", "expected_value": None},
        {"turn_index": 1, "product_id": "k", "mutation_type": "add_key", "path": "/a", "expected_value": 1.0},
        {"turn_index": 2, "product_id": "k", "mutation_type": "add_key", "path": "/b", "expected_value": "x"},
        {
            "turn_index": 3,
            "product_id": "k",
            "mutation_type": "update_value",
            "path": "/a",
            "expected_value": 2.0,
        },
    ]
    raw["products"] = [
        {"product_id": "k", "output_type": "kv", "title": "K", "reference": {"a": 2.0, "b": "x"}}
    ]
    raw["expected_outputs"] = [
        {"output_type": "kv", "description": "K", "product_id": "k", "verification_criteria": []}
    ]
    return parse_scenario(raw, "kv")


def m(turn: int, path: str, old: Any, new: Any, mtype: str = "update_value") -> Mutation:
    if path == "":
        mtype = "create"
    return Mutation(
        turn_index=turn, product_id="k", mutation_type=mtype, path=path, old_value=old, new_value=new
    )


PERFECT = [m(0, "", None, {}), m(1, "/a", None, 1.0), m(2, "/b", None, "x"), m(3, "/a", 1.0, 2.0)]


def test_perfect_trajectory() -> None:
    r = compute_metrics(PERFECT, kv_scenario(), "trajectory")
    assert (r.correct, r.incorrect, r.unnecessary, r.missing, r.destructive, r.backtracks) == (
        4,
        0,
        0,
        0,
        0,
        0,
    )
    assert r.efficiency == 1.0
    assert r.convergence_rate == pytest.approx(2 / 6)  # last change in turn 3 of 0..5: turns 4, 5 after it


def test_value_tolerance_is_half_a_percent_for_numbers_and_exact_otherwise() -> None:
    traj = [m(0, "", None, {}), m(1, "/a", None, 1.004), m(2, "/b", None, "X"), m(3, "/a", 1.004, 2.011)]
    r = compute_metrics(traj, kv_scenario(), "trajectory")
    assert r.correct == 2 and r.incorrect == 2 and r.missing == 2
    assert r.efficiency == 0.5
    assert values_equal(100.0, 100.5) and not values_equal(100.0, 100.6)
    assert not values_equal(True, 1) and values_equal({"value": 3.0, "formula": "=A1"}, 3.0)


def test_unnecessary_is_a_change_reverted_within_two_turns() -> None:
    traj = [*PERFECT[:2], m(1, "/c", None, 5), m(3, "/c", 5, None, "remove_key"), *PERFECT[2:]]
    r = compute_metrics(traj, kv_scenario(), "trajectory")
    assert r.unnecessary == 2 and r.incorrect == 0 and r.correct == 4
    late = [*PERFECT[:2], m(1, "/c", None, 5), m(4, "/c", 5, None, "remove_key"), *PERFECT[2:]]
    r = compute_metrics(late, kv_scenario(), "trajectory")
    assert r.unnecessary == 0 and r.incorrect == 2  # reverted after 3 turns: just wrong twice


def test_destructive_breaks_a_correct_value_and_backtrack_returns_to_an_old_one() -> None:
    traj = [*PERFECT, m(5, "/a", 2.0, 1.0)]
    r = compute_metrics(traj, kv_scenario(), "trajectory")
    assert r.destructive == 1  # 2.0 was the right final value
    assert r.backtracks == 1  # back to 1.0, which /a held before
    assert r.incorrect == 1 and r.correct == 4
    assert r.convergence_rate == 0.0


def test_missing_and_no_trajectory() -> None:
    r = compute_metrics(PERFECT[:2], kv_scenario(), "trajectory")
    assert r.missing == 2 and r.correct == 2
    none = compute_metrics(None, kv_scenario(), "none")
    assert (
        none.source == "none"
        and none.missing == 4
        and none.efficiency is None
        and none.convergence_rate is None
    )
    empty = compute_metrics([], kv_scenario(), "trajectory")
    assert empty.efficiency is None and empty.missing == 4


def test_whole_product_burst_matches_only_nothing() -> None:
    burst = [m(5, "", None, {"a": 2.0, "b": "x"})]
    r = compute_metrics(burst, kv_scenario(), "trajectory")
    assert r.correct == 0 and r.missing == 4 and r.efficiency == 0.0


def test_each_edit_is_tagged_and_the_metrics_count_the_tags() -> None:
    # One reading of a trajectory: the report shows these tags, the scorecard counts them.
    traj = [
        *PERFECT[:2],
        m(1, "/c", None, 5),  # reverted at turn 3: both wasted
        m(3, "/c", 5, None, "remove_key"),  # and back to absent, what /c held before
        *PERFECT[2:],
        m(5, "/a", 2.0, 1.0),  # breaks the right final value, and goes back to an old one
        m(5, "/b", "x", "y"),  # breaks /b too, but is new: destructive only
    ]
    tags = classify_mutations(traj, kv_scenario())
    assert tags == [
        {"expected"},
        {"expected"},
        {"reverted"},
        {"reverted", "backtrack"},
        {"expected"},
        {"expected"},
        {"unexpected", "destructive", "backtrack"},
        {"unexpected", "destructive"},
    ]
    assert all(t <= set(MUTATION_TAGS) for t in tags)
    r = compute_metrics(traj, kv_scenario(), "trajectory")
    assert (r.correct, r.unnecessary, r.incorrect, r.destructive, r.backtracks) == (4, 2, 2, 2, 2)
