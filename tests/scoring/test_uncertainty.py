"""Error bars: the bootstrap intervals, paired comparisons, ties and per-turn flakiness (docs/scoring.md)."""

from __future__ import annotations

import random

from modylbench.scoring import (
    MutationMetrics,
    ScenarioScore,
    TurnScore,
    aggregate,
    compare,
    mean_interval,
    summarise,
    tier_of,
)
from modylbench.scoring._formula import combine

_MM = MutationMetrics(source="none", total=0, expected=0, correct=0, incorrect=0, unnecessary=0, missing=0,
                      destructive=0, backtracks=0, efficiency=None, convergence_rate=None)


def run(model: str, scenario: str, seed: int, trial: int, turns: list[float], destination: float = 7.0,
        quality_tier: str = "Peer") -> ScenarioScore:
    journey = sum(turns) / len(turns)
    score = combine(journey, destination)
    assert score is not None
    return ScenarioScore(
        scenario_id=scenario, model_id=model, trial=trial, scenario_seed=seed, turns_scheduled=None,
        journey=journey, destination=destination, modylbench_score=score, tier=tier_of(score),
        quality_tier=quality_tier, passed=score >= 6.0,
        turns=[TurnScore(turn_index=i, score=s, capped=False, dimensions={}, judges=[], flags=[])
               for i, s in enumerate(turns)],
        products=[], mutation_metrics=_MM, flags=[],
    )


def noisy(model: str, centre: float, spread: float, scenarios: int = 3, seeds: int = 2, trials: int = 3,
          rng_seed: int = 0) -> list[ScenarioScore]:
    rng = random.Random(f"{model}{rng_seed}")
    return [
        run(model, f"sc{s}", seed, t, [min(10.0, max(1.0, rng.gauss(centre, spread))) for _ in range(8)], centre)
        for s in range(scenarios) for seed in range(seeds) for t in range(trials)
    ]


def test_interval_holds_the_mean_and_is_seeded() -> None:
    entries = noisy("a", 6.5, 1.5)
    agg = aggregate(entries)["a"]
    assert agg.interval is not None and agg.mean_score is not None
    assert agg.interval.low < agg.mean_score < agg.interval.high
    assert agg.interval.level == 0.95
    # Deterministic: the same runs give the same interval, in any order.
    again = aggregate(list(reversed(entries)))["a"].interval
    assert again == agg.interval
    # Per scenario too, each holding its own mean.
    for pk in agg.per_scenario:
        assert pk.interval is not None and pk.mean_score is not None
        assert pk.interval.low <= pk.mean_score <= pk.interval.high


def test_interval_narrows_with_more_trials_and_is_zero_without_noise() -> None:
    few = mean_interval(noisy("a", 6.5, 1.5, trials=2), "a")
    many = mean_interval(noisy("a", 6.5, 1.5, trials=20), "a")
    assert few is not None and many is not None
    assert many.high - many.low < (few.high - few.low) * 0.7
    flat = mean_interval([run("a", "sc", 0, t, [7.0] * 5) for t in range(4)], "a")
    assert flat is not None and flat.high - flat.low < 1e-9


def test_turns_alone_give_an_interval_to_a_single_run() -> None:
    # One trial, one seed: the turns are the only noise the runs show, and the interval says so.
    ci = mean_interval([run("a", "sc", 0, 0, [3.0, 9.0, 4.0, 8.0, 5.0, 7.0])], "a")
    assert ci is not None and ci.high - ci.low > 0.5


def test_a_real_gap_is_distinguishable_and_noise_is_not() -> None:
    strong, weak = noisy("strong", 8.0, 0.5), noisy("weak", 5.0, 0.5)
    c = compare("strong", "weak", strong + weak)
    assert c.distinguishable is True and c.difference is not None and c.difference > 2.5
    assert c.interval is not None and c.interval.low > 0
    assert c.cells == 6  # 3 scenarios x 2 seeds, paired
    near = noisy("b", 6.55, 2.0, trials=2, rng_seed=1)
    c2 = compare("a", "b", noisy("a", 6.5, 2.0, trials=2) + near)
    assert c2.distinguishable is False
    assert c2.trials_needed is None or c2.trials_needed > 2
    assert "noise" in c2.note or "no difference" in c2.note


def test_pairing_is_over_scenario_and_seed() -> None:
    # b played other seeds than a: nothing pairs, nothing is claimed.
    a = [run("a", "sc", 0, t, [8.0] * 4) for t in range(3)]
    b = [run("b", "sc", 1, t, [4.0] * 4) for t in range(3)]
    c = compare("a", "b", a + b)
    assert c.cells == 0 and c.distinguishable is None and c.difference is None
    # Same seed: paired, and the gap with no noise at all is real.
    b0 = [e.model_copy(update={"scenario_seed": 0}) for e in b]
    assert compare("a", "b", a + b0).distinguishable is True


def test_leaderboard_ranks_tie_what_cannot_be_separated() -> None:
    entries = noisy("a", 6.6, 2.0, trials=2) + noisy("b", 6.5, 2.0, trials=2, rng_seed=1) + noisy("c", 9.0, 0.2)
    agg, found = summarise(entries)
    assert agg["c"].rank == 1
    assert {agg["a"].rank, agg["b"].rank} == {2}
    assert len(found) == 3 and all(x.model_a != x.model_b for x in found)


def test_flakiness_counts_turns_whose_verdict_changes() -> None:
    # Turn 0 always passes, turn 1 passes in one trial of three, turn 2 never: one flaky turn of three.
    entries = [run("a", "sc", 0, t, [8.0, 7.0 if t == 0 else 5.0, 2.0]) for t in range(3)]
    f = aggregate(entries)["a"].flakiness
    assert f is not None
    assert f.turns_compared == 3 and f.verdict_flaky == 1 and f.rate is not None and abs(f.rate - 1 / 3) < 1e-9
    (t,) = f.flakiest
    assert t.turn_index == 1 and t.trials == 3 and t.reached == 1
    assert abs(t.flip_rate - 2 / 3) < 1e-9  # 2 * 1 * 2 / (3 * 2)
    assert t.tiers == ["Below Peer", "Peer"]
    # Trials of another seed are another cell: no turn is in two trials, nothing is compared.
    single = [run("a", "sc", seed, 0, [8.0, 5.0]) for seed in range(3)]
    g = aggregate(single)["a"].flakiness
    assert g is not None and g.turns_compared == 0 and g.rate is None


def test_the_published_means_are_unchanged() -> None:
    entries = noisy("a", 6.5, 1.5)
    agg = aggregate(entries)["a"]
    scores = [e.modylbench_score for e in entries if e.modylbench_score is not None]
    assert agg.mean_score == sum(scores) / len(scores)
