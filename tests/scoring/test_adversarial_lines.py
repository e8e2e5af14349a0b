"""The adversarial suite's lines themselves (issue 13, item 9): valid, deterministic, and each style changing
what it claims and editing as the reference does. What the lines must score: test_adversarial.py (offline
judge) and test_adversarial_panel.py (with a lenient LLM judge)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from modylbench.record import ScenarioResponses
from modylbench_testsupport import adversarial as ADV

from .adversarial_cases import IDS, SCENARIOS

# --------------------------------------------------------------------------- the suite itself


def test_suite_covers_the_issue() -> None:
    assert len(ADV.CORRECT_STYLES) >= 12
    assert len(ADV.GAMING) >= 15
    assert ADV.PARTIAL == ["partial_25", "partial_50", "partial_75"]
    groups = [set(ADV.CORRECT_STYLES), set(ADV.GAMING), set(ADV.PARTIAL)]
    assert sum(len(g) for g in groups) == len(set().union(*groups)) == len(ADV.STRATEGIES)
    assert set(ADV.GAMING) >= {
        "polite_only", "verbose_formatted", "confident_wrong", "prompt_injection", "final_state_dump",
        "final_state_burst", "scenario_echo", "late_split_dump", "late_per_turn_dump", "snapshot_only",
        "silent_journey", "number_spray", "candidate_spray", "hedging", "concede_edge_cases",
        "keyword_stuffing", "template_echo", "next_turn_echo", "products_only",
    }
    assert all(ADV.describe(n) for n in ADV.STRATEGIES)


@pytest.mark.parametrize("sid", IDS)
def test_lines_are_valid_and_deterministic(sid: str) -> None:
    sc = SCENARIOS[sid]
    for name, fn in ADV.STRATEGIES.items():
        a, b = fn(sc), fn(sc)
        assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True), name
        r = ScenarioResponses.model_validate(a)
        assert r.scenario_id == sid and r.model_id == name
        assert [t.turn_index for t in r.turns] == list(range(len(sc.turns)))


def _replayed(line: dict[str, Any]) -> dict[str, Any]:
    """Apply the recorded trajectory, checking each edit's old value against the state before it."""
    edits = []
    for m in line["mutation_trajectory"]:
        edits.append(ADV.Edit(m["turn_index"], m["product_id"], m["mutation_type"], m["path"], m["new_value"]))
    traj, contents = ADV.replay(edits)
    for got, want in zip(traj, line["mutation_trajectory"], strict=True):
        assert got["old_value"] == want["old_value"], (want["product_id"], want["path"])
    return contents


@pytest.mark.parametrize("sid", IDS)
def test_correct_styles_edit_consistently(sid: str) -> None:
    """Each correct style's trajectory, replayed, gives exactly its final products, in time order."""
    sc = SCENARIOS[sid]
    for name in [*ADV.CORRECT_STYLES, *ADV.PARTIAL]:
        line = ADV.STRATEGIES[name](sc)
        turns = [m["turn_index"] for m in line["mutation_trajectory"]]
        assert turns == sorted(turns), name
        contents = _replayed(line)
        delivered = {p["product_id"]: p["content"] for p in line["work_products"]}
        assert delivered == {pid: contents[pid] for pid in delivered}, name
        assert set(delivered) == {o.product_id for o in sc.expected_outputs if o.product_id}, name


@pytest.mark.parametrize("sid", IDS)
def test_correct_styles_make_edits_when_the_reference_does(sid: str) -> None:
    """Every style except the two-turns-late one edits each product in exactly the reference's turns."""
    sc = SCENARIOS[sid]
    ref_turns = {(m.product_id, m.turn_index) for m in sc.expected_mutations}
    for name in ADV.CORRECT_STYLES:
        turns = {(m["product_id"], m["turn_index"]) for m in ADV.STRATEGIES[name](sc)["mutation_trajectory"]}
        if name == "edits_two_turns_late":
            last = len(sc.turns) - 1
            assert turns == {(p, min(t + 2, last)) for p, t in ref_turns}
        else:
            assert turns == ref_turns, name


@pytest.mark.parametrize("sid", IDS)
def test_styles_change_what_they_claim(sid: str) -> None:
    """A style that leaves the reference untouched tests nothing: each must differ from it somewhere."""
    sc = SCENARIOS[sid]
    ref = json.dumps(ADV.STRATEGIES["reference"](sc) | {"model_id": ""}, sort_keys=True)
    scaled_money = any(f.unit in ("$M", "$K", "$B") for t in sc.turns for f in t.expected_facts)
    for name in ADV.CORRECT_STYLES:
        if name == "full_digits" and not scaled_money:
            continue  # every amount is already in full dollars (or there is no money at all)
        if name != "reference":
            line = ADV.STRATEGIES[name](sc) | {"model_id": ""}
            assert json.dumps(line, sort_keys=True) != ref, name
