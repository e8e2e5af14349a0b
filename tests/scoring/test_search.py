"""The searching adversaries of issue 23 (items 10 and 11): the gates the scoring must hold against them.

tests/support/modylbench_testsupport/search.py holds a blind adversary (it knows only the public view of an instance),
a partial-knowledge one (it also knows a share p of the instance's truth) and a fairness search
(substance-preserving transforms of the reference). Per scenario: the best blind line stays below
Peer; the best partial line stays at or under 1.5 + 9p and below Consultant at p = 0.8; the worst
fair line stays Consultant, on seed 0 and on a fresh instance. The default run uses a small budget
on a slice of the scenarios; --run-slow adds the rest; benchmarks/adversary_search.py runs the
large budget.
"""

from __future__ import annotations

import json
import math
import random
from functools import cache
from typing import Any

import pytest

from modylbench.scenarios import Scenario, withheld_edits
from modylbench.scenarios.builtin import BUILTIN_IDS, build
from modylbench_testsupport import search as S

IDS = sorted(BUILTIN_IDS)
DEFAULT = ["deep_researcher_battery_briefing", "financial_analyst_lbo_model"]
SLOW = [s for s in IDS if s not in DEFAULT]
FRESH = 1
"""The fresh instance the adversaries are scored on (seed 0's export is public, so never seed 0)."""
BLIND_BUDGET, PARTIAL_BUDGET, FAIR_BUDGET = 14, 8, 6
LEVELS = (0.2, 0.5, 0.8)
PEER, CONSULTANT = 6.0, 9.0


def _ids(slow: list[str]) -> list[Any]:
    return [*DEFAULT, *(pytest.param(s, marks=pytest.mark.slow) for s in slow)]


@cache
def instance(sid: str, seed: int) -> Scenario:
    return build(sid, seed)


@cache
def blind(sid: str) -> Any:
    return S.search(instance(sid, FRESH), budget=BLIND_BUDGET, seed=0)


@cache
def partial(sid: str, p: float) -> Any:
    return S.search(instance(sid, FRESH), budget=PARTIAL_BUDGET, seed=0, p=p)


@cache
def fairness(sid: str, seed: int) -> Any:
    return S.fairness_search(instance(sid, seed), budget=FAIR_BUDGET, seed=0)


# --------------------------------------------------------------------------- the knowledge boundary


def _figures(text: str) -> set[float]:
    return {round(f.value, 3) for f in S.figures_in(text, "")}


def _truth_figures(sc: Scenario) -> set[float]:
    """The instance's truth: expected fact values, ground truth and every reference product figure."""
    out: set[float] = set()
    for t in sc.turns:
        out |= {round(float(f.value), 3) for f in t.expected_facts if isinstance(f.value, int | float)}
    out |= {round(float(v), 3) for v in sc.ground_truth.values() if isinstance(v, int | float)}
    for p in sc.products:
        for tokens in S.ADV._leaf_paths(p.reference):
            v = S.resolve(p.reference, S.make_pointer(list(tokens)), None)
            v = v.get("value") if S.ADV._is_cell_dict(v) else v
            if S.ADV._is_num(v):
                out.add(round(float(v), 3))
            elif isinstance(v, str):
                out |= _figures(v)
    return out


@pytest.mark.parametrize("sid", IDS)
def test_public_view_holds_no_private_truth(sid: str) -> None:
    """No figure of the instance's truth reaches the view unless the agent is shown it anyway (in the
    briefing, the persona's words, slides and files, or seed 0's export)."""
    sc = instance(sid, FRESH)
    view = S.public_view(sc)
    shown = _figures(S.public_material(view))
    private = _truth_figures(sc) - shown
    assert len(private) >= 10, f"{sid}: the test needs private truth to look for ({len(private)} figures)"
    dumped = json.dumps([view.title, view.context, view.goal, view.persona, [t.text for t in view.turns],
                         [(p.template, p.initial) for p in view.products], view.files])
    leaked = private & _figures(dumped)
    assert not leaked, f"{sid}: the view carries private truth {sorted(leaked)[:10]}"
    assert view.seed == FRESH and view.published == S._published(sid)  # seed 0, from its public export


def _scramble(sc: Scenario) -> Scenario:
    """The instance with everything an agent cannot see changed: facts, references, ground truth, edits."""
    def bump(v: Any) -> Any:
        if isinstance(v, bool):
            return v
        if isinstance(v, int | float):
            return v * 1.37 + 1
        if isinstance(v, str):
            return v + " (scrambled)"
        if isinstance(v, list):
            return [bump(x) for x in v]
        if isinstance(v, dict):
            return {k: bump(x) for k, x in v.items()}
        return v

    turns = [
        t.model_copy(update={
            "reference_response": bump(t.reference_response), "reference_chat": bump(t.reference_chat),
            "expected_agent_action": bump(t.expected_agent_action),
            "expected_facts": [f.model_copy(update={"value": bump(f.value), "keywords": bump(f.keywords)})
                               for f in t.expected_facts],
        })
        for t in sc.turns
    ]
    edges = [e.model_copy(update={"good_signals": bump(e.good_signals), "bad_signals": bump(e.bad_signals),
                                  "expected_behavior": bump(e.expected_behavior)}) for e in sc.edge_cases]
    muts = [m.model_copy(update={"expected_value": bump(m.expected_value), "value": bump(m.value)})
            for m in sc.expected_mutations]
    return sc.model_copy(update={
        "turns": turns, "edge_cases": edges, "expected_mutations": muts,
        "ground_truth": {k: bump(v) for k, v in sc.ground_truth.items()},
    })


@pytest.mark.parametrize("sid", DEFAULT)
def test_moves_do_not_depend_on_hidden_fields(sid: str) -> None:
    """Scrambling what an agent cannot see changes neither the view nor any line the blind adversary
    decodes from it: the move generators see the view only."""
    sc = instance(sid, FRESH)
    view, scrambled = S.public_view(sc), S.public_view(_scramble(sc))
    assert view == scrambled
    rng = random.Random(7)
    for _ in range(3):
        g = S.random_genome(rng)
        assert json.dumps(S.decode(g, view), sort_keys=True) == json.dumps(S.decode(g, scrambled), sort_keys=True)


def test_decode_takes_no_scenario() -> None:
    """The blind path's inputs are the view, a genome and the known share; no Scenario goes in."""
    import inspect

    for fn in (S.decode, S.Mover.__init__):
        for p in inspect.signature(fn).parameters.values():
            assert "Scenario" not in str(p.annotation), (fn.__name__, p.name)


# --------------------------------------------------------------------------- the search itself


def test_climb_is_deterministic_and_climbs() -> None:
    """Same seed, same path; the climb finds the optimum of a separable toy score within its budget."""
    genes = {f"g{i}": tuple(range(5)) for i in range(6)}

    def toy(g: dict[str, int]) -> float:
        return float(sum(g.values()))

    a = S.climb(genes, toy, 60, "toy")
    b = S.climb(genes, toy, 60, "toy")
    assert a == b
    restarts = a[2][:15]
    assert a[0] >= 22.0 and a[0] > max(restarts), a  # 30 is the maximum; a random genome averages 12
    assert S.climb(genes, toy, 60, "toy", maximise=False)[0] <= 4.0


def test_grammar_lines_are_valid() -> None:
    """Every genome decodes into a valid responses line, deterministically."""
    from modylbench.record import ScenarioResponses

    sc = instance(DEFAULT[0], FRESH)
    view = S.public_view(sc)
    known = S.knowledge(sc, 0.5)
    rng = random.Random(3)
    for _ in range(12):
        g = S.random_genome(rng)
        a = S.decode(g, view, known)
        assert json.dumps(a) == json.dumps(S.decode(g, view, known))
        r = ScenarioResponses.model_validate(a)
        assert r.scenario_id == sc.scenario_id and r.turns
        assert S.describe_genome(g, known)


def test_knowledge_is_nested() -> None:
    sc = instance(DEFAULT[0], FRESH)
    k2, k5 = S.knowledge(sc, 0.2), S.knowledge(sc, 0.5)
    assert set(k2.facts) < set(k5.facts)
    for pid, leaves in k2.leaves.items():
        assert set(leaves) <= set(k5.leaves[pid])
    assert not S.knowledge(sc, 0.0).facts


# --------------------------------------------------------------------------- the gates (item 10)

# Gates the search still breaks on today's rules (issue 23 stays open for them). Strict: when a rule
# change makes one hold, the test says so and the mark must go.
KNOWN_BREACHES: dict[tuple[str, Any], str] = {}


def _breach(key: tuple[str, Any]) -> None:
    if key in KNOWN_BREACHES:
        pytest.xfail(KNOWN_BREACHES[key])


@pytest.mark.parametrize("sid", _ids(SLOW))
def test_blind_adversary_stays_below_peer(sid: str) -> None:
    r = blind(sid)
    assert r.evaluations == BLIND_BUDGET
    assert r.score < PEER, f"{sid}: blind {r.score:.2f} by: {r.description}"


@pytest.mark.parametrize("p", LEVELS)
@pytest.mark.parametrize("sid", _ids(SLOW))
def test_partial_adversary_is_bounded_by_what_it_knows(sid: str, p: float) -> None:
    r = partial(sid, p)
    bound = 1.5 + 9 * p
    if (sid, p) in KNOWN_BREACHES and r.score > bound:
        _breach((sid, p))
    assert (sid, p) not in KNOWN_BREACHES, f"{sid} p={p} now holds ({r.score:.2f}): remove it from KNOWN_BREACHES"
    assert r.score <= bound, f"{sid} p={p}: {r.score:.2f} > {bound:.2f} by: {r.description}"
    if p < 0.9:
        assert r.score < CONSULTANT, f"{sid} p={p}: Consultant ({r.score:.2f}) by: {r.description}"


# --------------------------------------------------------------------------- fairness (item 11)


@pytest.mark.parametrize("seed", [0, FRESH])
@pytest.mark.parametrize("sid", _ids(SLOW))
def test_fair_transforms_stay_consultant(sid: str, seed: int) -> None:
    r = fairness(sid, seed)
    if (sid, seed) in KNOWN_BREACHES and r.score < CONSULTANT:
        _breach((sid, seed))
    assert (sid, seed) not in KNOWN_BREACHES, f"{sid} seed {seed} now holds: remove it from KNOWN_BREACHES"
    assert r.score >= CONSULTANT, f"{sid} seed {seed}: {r.score:.2f} by: {r.description}"
    assert math.isfinite(r.score)


# --------------------------------------------------------------------------- edits that hold a withheld value


WITHHELD_EDIT_SIDS = [s for s in IDS if withheld_edits(instance(s, 0))]


def _on_time(sc: Scenario, line: Any) -> int:
    from modylbench.record import ScenarioResponses
    from modylbench.scoring import make_judges, score

    (entry,) = score([ScenarioResponses.model_validate(line)], {sc.scenario_id: sc}, make_judges(["offline"])).scenarios
    return entry.mutation_metrics.on_time


@pytest.mark.parametrize("sid", [*DEFAULT, *(pytest.param(s, marks=pytest.mark.slow) for s in WITHHELD_EDIT_SIDS
                                             if s not in DEFAULT)])
def test_an_edit_holding_a_withheld_value_counts_only_after_the_persona_gave_it(sid: str) -> None:
    # The adversary: knowing the whole truth and asking on seed 0's schedule, the edits that hold a withheld value
    # written the turn before they are asked for (a guess) earn less than the same edits written after the answer.
    sc = instance(sid, FRESH)
    view, persona, known = S.public_view(sc), S.persona_of(sc), S.knowledge(sc, 1.0)
    genes = S.ROOM.genes_for(S.BLIND_GENES, view.published)
    after, before = (S.ROOM.complete(g, genes) for g in S.blind_starts(view)[2:4])
    assert (after["write"], before["write"]) == ("schedule", "withheld_early") and after["ask"] == before["ask"] == "withheld"
    told_first, guessed = (S.decode(g, view, known, "x", persona) for g in (after, before))
    assert _on_time(sc, guessed) < _on_time(sc, told_first)
    assert S.score_line(sc, guessed) < S.score_line(sc, told_first)
    # The fairness side: a correct agent that asks in its own words, in chat or a turn early keeps every one.
    ref = _on_time(sc, S.fair_line(sc, {k: v[0] for k, v in S.FAIR_GENES.items()}))
    for gene in ("ask_own_words", "ask_in_chat", "ask_early"):
        g = {**{k: v[0] for k, v in S.FAIR_GENES.items()}, gene: True}
        assert _on_time(sc, S.fair_line(sc, g)) == ref, gene
