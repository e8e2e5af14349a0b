"""What every built-in scenario must hold, checked once for all six on the published instance (seed 0) and on
fresh ones: its shape, the turn script (phases, edge cases, channel payloads, facts), products built step by
step from the expected mutations and passing their criteria, and the committed data file being current.
Each scenario's own file checks what is particular to it (its solver, its figures, stricter bounds)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from modylbench.scenarios import PHASES, Scenario, apply_mutations, parse_scenario, run_check, to_public
from modylbench.scenarios.builtin import BUILTIN_IDS, IDENTITIES, committed, data_text

from .instances import SEEDS, instance

DATA = Path(__file__).resolve().parents[2] / "scenarios" / "data"
CHANNELS = ["audio", "chat", "screen", "data"]



@pytest.fixture(
    scope="module",
    params=[(sid, seed) for sid in BUILTIN_IDS for seed in SEEDS],
    ids=[f"{sid}-seed{seed}" for sid in BUILTIN_IDS for seed in SEEDS],
)
def scenario(request: pytest.FixtureRequest) -> Scenario:
    sid, seed = request.param
    return instance(sid, seed)


def test_every_builtin_is_covered() -> None:
    assert set(IDENTITIES) == set(BUILTIN_IDS) and BUILTIN_IDS


# --------------------------------------------------------------------------- shape


def test_identity_counts_and_channels(scenario: Scenario) -> None:
    # What each scenario is, the same on every instance (a fresh seed changes figures, not the meeting).
    declared = IDENTITIES[scenario.scenario_id]
    assert not declared.breaks(scenario), declared.breaks(scenario)
    assert {o.product_id for o in scenario.expected_outputs} == set(declared.products)
    assert scenario.channels_used == CHANNELS
    assert {t.channel for t in scenario.turns} == set(CHANNELS)
    assert [t.turn_index for t in scenario.turns] == list(range(len(scenario.turns)))


def test_phases_in_order_with_edge_cases_inside_the_work(scenario: Scenario) -> None:
    phases = [t.phase for t in scenario.turns]
    assert set(phases) == set(PHASES)
    assert phases[0] == "context_setting" and phases[-1] == "deliverable_handoff"
    main = [PHASES.index(p) for p in phases if p != "edge_case"]
    assert main == sorted(main), "context setting -> active work -> hand-off must not go backwards"
    first_work, first_handoff = phases.index("active_work"), phases.index("deliverable_handoff")
    edge_turns = [i for i, p in enumerate(phases) if p == "edge_case"]
    assert edge_turns and all(first_work < i < first_handoff for i in edge_turns)


def test_each_edge_case_is_played_once_by_an_edge_turn(scenario: Scenario) -> None:
    played = Counter(t.edge_case for t in scenario.turns if t.edge_case)
    assert played == Counter({e.name: 1 for e in scenario.edge_cases})
    for t in scenario.turns:
        assert (t.phase == "edge_case") == (t.edge_case is not None), t.turn_index
    for e in scenario.edge_cases:
        turn = next(t for t in scenario.turns if t.edge_case == e.name)
        assert turn.human_utterance == e.human_utterance, e.name
        assert e.good_signals and e.bad_signals, e.name


def test_channel_payloads_waits_and_files(scenario: Scenario) -> None:
    for t in scenario.turns:
        if scenario.expects_quiet(t):  # a line for someone else (multi-party): a short window, to stay quiet in
            assert 5 <= t.wait_for_agent_sec <= 30, t.turn_index
        else:
            assert 15 <= t.wait_for_agent_sec <= 120, t.turn_index
        if t.channel == "chat":
            assert t.chat_message, t.turn_index
        if t.channel == "screen":
            assert t.screen is not None, t.turn_index
        if t.channel == "data":
            assert t.files and all(scenario.data_file(f) for f in t.files), t.turn_index
    assert {"table", "chart", "bullets"} <= {t.screen.kind for t in scenario.turns if t.screen}
    # Every data file is pushed, once.
    pushed = [f for t in scenario.turns for f in t.files]
    assert sorted(pushed) == sorted(f.name for f in scenario.data_files)


def test_every_turn_has_facts_and_a_reference(scenario: Scenario) -> None:
    for t in scenario.turns:
        if scenario.expects_quiet(t):  # a line for someone else (multi-party): the right answer is none
            assert not t.expected_facts and not t.reference_response.strip(), t.turn_index
            continue
        assert t.expected_facts, f"turn {t.turn_index} has no expected fact"
        assert t.reference_response.strip(), t.turn_index
    ids = [f.id for t in scenario.turns for f in t.expected_facts]
    assert len(ids) == len(set(ids))


def test_edge_case_references_show_a_good_signal_and_no_bad_one(scenario: Scenario) -> None:
    for e in scenario.edge_cases:
        turn = next(t for t in scenario.turns if t.edge_case == e.name)
        said = turn.reference_response.lower()
        assert any(s.lower() in said for s in e.good_signals), e.name
        assert not [s for s in e.bad_signals if s.lower() in said], e.name


# --------------------------------------------------------------------------- products


def test_references_are_the_mutations_and_pass_every_criterion(scenario: Scenario) -> None:
    contents = apply_mutations(scenario.expected_mutations)
    assert set(contents) == {p.product_id for p in scenario.products}
    for p in scenario.products:
        assert p.reference == contents[p.product_id], p.product_id
    failed: dict[str, str] = {}
    for o in scenario.expected_outputs:
        checks = [c for c in o.verification_criteria if not isinstance(c, str)]
        assert len(checks) >= 5 and all(c.required for c in checks), o.product_id
        assert len({c.check_type for c in checks}) >= 2, o.product_id
        for c in checks:
            result = run_check(c, contents[o.product_id or ""])
            if not result.passed:
                failed[c.id] = result.reason
    assert not failed, failed


def test_products_are_built_step_by_step(scenario: Scenario) -> None:
    muts = scenario.expected_mutations
    assert [m.turn_index for m in muts] == sorted(m.turn_index for m in muts)
    phase = {t.turn_index: t.phase for t in scenario.turns}
    assert not [m for m in muts if phase[m.turn_index] == "context_setting"], "edits before the work starts"
    for p in scenario.products:
        mine = [m for m in muts if m.product_id == p.product_id]
        assert mine[0].mutation_type == "create", p.product_id
        assert sum(m.mutation_type == "create" for m in mine) == 1, p.product_id
        assert len({m.turn_index for m in mine}) >= 2, p.product_id
    assert len({m.turn_index for m in muts}) >= 20


# --------------------------------------------------------------------------- instances


@pytest.mark.parametrize("scenario_id", BUILTIN_IDS)
def test_the_committed_data_file_is_the_published_instance(scenario_id: str) -> None:
    built = instance(scenario_id, 0)
    path = DATA / f"{scenario_id}.json"
    assert path.read_text(encoding="utf-8") == data_text(built), (
        f"stale: run python -m modylbench.scenarios.builtin {scenario_id}"
    )
    assert committed(scenario_id) == built


def test_an_instance_round_trips_the_public_format(scenario: Scenario) -> None:
    assert parse_scenario(to_public(scenario), scenario.scenario_id) == scenario
