"""Error bars on the scorecard: a seeded bootstrap over seeds, trials and turns, paired comparisons of two
agents, and how often a turn's verdict flips between trials. The method is in docs/scoring.md "Error bars".

Nothing here changes a score: the point estimates are the formula's own (``_formula``); this module only
says how far they could move if the same agent played the same scenarios again.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from modylbench.record import RunBasis
from modylbench.scoring import _formula as F
from modylbench.scoring._models import (
    Comparison,
    ConfidenceInterval,
    Flakiness,
    ScenarioScore,
    TurnFlakiness,
)

logger = logging.getLogger(__name__)

CONFIDENCE = 0.95
"""Level of every interval (two-sided, percentile bootstrap)."""
RESAMPLES = 2000
"""Bootstrap replicates per interval: enough for the 2.5 and 97.5 percentiles to settle to ~0.01."""
SEED_SALT = "modylbench-bootstrap-v1"
"""Mixed into every bootstrap's seed (with what it is an interval of), so a card's intervals are reproducible."""
MAX_PAIRED_MODELS = 16
"""Above this many models only rank neighbours are compared (all pairs would be n² bootstraps)."""
FLAKIEST_SHOWN = 5
"""Turns listed by name in a model's flakiness (the rest are counted)."""


@dataclass(frozen=True)
class _Trial:
    """One complete run, with what the bootstrap resamples inside it."""

    score: float
    turns: np.ndarray
    """Scored turns' scores (the journey is their mean)."""
    destination: float | None


Cell = tuple[str, int | None, int | None]
"""(scenario, seed, turns scheduled): the part of a run's ``RunBasis`` its scorecard entry carries. Runs in one
cell are trials of the same thing; the rest of the basis (transport, network, panel, version) the model id
keeps apart (``modylbench.record.labels``)."""


def basis_of_entry(e: ScenarioScore) -> RunBasis:
    """What a scorecard entry says of its run's basis."""
    return RunBasis(e.scenario_id, seed=e.scenario_seed, turns=e.turns_scheduled)


def cell_of(e: ScenarioScore) -> Cell:
    """The cell a run is a trial of; two agents' runs pair when their cells are equal."""
    b = basis_of_entry(e)
    return (b.scenario_id, b.seed, b.turns)


def _complete(e: ScenarioScore) -> bool:
    return e.modylbench_score is not None and not e.missing_verdicts


def _trial(e: ScenarioScore) -> _Trial:
    assert e.modylbench_score is not None
    turns = np.array([t.score for t in e.turns if t.score is not None], dtype=float)
    return _Trial(e.modylbench_score, turns, e.destination)


def _rng(*what: object) -> np.random.Generator:
    digest = hashlib.sha256("\x1f".join([SEED_SALT, *map(str, what)]).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "big"))


def _replicates(trial: _Trial, rng: np.random.Generator, b: int) -> np.ndarray:
    """``b`` bootstrap values of one run's score: its turns resampled, the journey re-averaged, the formula
    applied again (products are not resampled: a meeting's expected outputs are few and fixed)."""
    m = len(trial.turns)
    if m < 2:
        return np.full(b, trial.score)
    journeys = trial.turns[rng.integers(0, m, size=(b, m))].mean(axis=1)
    return np.asarray(F.combine(journeys, trial.destination))  # type: ignore[arg-type]


def _cells(entries: Iterable[ScenarioScore]) -> dict[str, dict[tuple[int | None, int | None], list[_Trial]]]:
    """Complete runs by scenario (the fixed strata), then by (seed, turns) (the resampled clusters)."""
    out: dict[str, dict[tuple[int | None, int | None], list[_Trial]]] = defaultdict(lambda: defaultdict(list))
    for e in entries:
        if _complete(e):
            sid, seed, turns = cell_of(e)
            out[sid][(seed, turns)].append(_trial(e))
    # Runs in content order: the interval depends on the runs, not on the order they were listed in.
    for clusters in out.values():
        for trials in clusters.values():
            trials.sort(key=lambda t: (t.score, tuple(t.turns), t.destination is None, t.destination or 0.0))
    return out


def _draw(
    cells: dict[str, dict[tuple[int | None, int | None], list[_Trial]]], rng: np.random.Generator, b: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per replicate, the sum and count of resampled run scores (three levels: seeds within each scenario,
    trials within each seed, turns within each trial); their ratio is the replicate's mean."""
    total, count = np.zeros(b), np.zeros(b)
    for sid in sorted(cells, key=str):
        clusters = [cells[sid][k] for k in sorted(cells[sid], key=str)]
        reps = [np.stack([_replicates(t, rng, b) for t in c]) for c in clusters]  # each: trials x b
        pick = rng.integers(0, len(clusters), size=(b, len(clusters)))
        for col in range(len(clusters)):
            for ci in range(len(clusters)):
                rows = pick[:, col] == ci
                if not rows.any():
                    continue
                n = len(clusters[ci])
                trials = rng.integers(0, n, size=(int(rows.sum()), n))
                cols = np.nonzero(rows)[0]
                total[cols] += reps[ci][trials, cols[:, None]].sum(axis=1)
                count[cols] += n
    return total, count


def _interval(values: np.ndarray, estimate: float, resamples: int, seed_of: str) -> ConfidenceInterval:
    tail = (1.0 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    # The point estimate is the formula's; float error in the replicates never puts it outside its interval.
    return ConfidenceInterval(
        low=float(min(low, estimate)),
        high=float(max(high, estimate)),
        level=CONFIDENCE,
        resamples=resamples,
        seed_of=seed_of,
    )


def mean_interval(
    entries: Sequence[ScenarioScore], what: str, resamples: int = RESAMPLES
) -> ConfidenceInterval | None:
    """The interval of the mean ``modylbench_score`` over ``entries``' complete runs (None without any).

    ``what`` names the aggregate (e.g. the model id, or model and scenario); it seeds the bootstrap, so the
    same runs under the same name always give the same interval.
    """
    cells = _cells(entries)
    scores = [e.modylbench_score for e in entries if _complete(e) and e.modylbench_score is not None]
    if not scores:
        return None
    total, count = _draw(cells, _rng(what), resamples)
    return _interval(total / count, sum(scores) / len(scores), resamples, what)


def compare(
    a: str, b: str, entries: Sequence[ScenarioScore], resamples: int = RESAMPLES
) -> Comparison:
    """Model ``a`` against model ``b``, paired over the cells (scenario, seed, turns) both played.

    The difference is the mean over shared cells of (a's mean − b's mean); its interval resamples the shared
    cells within each scenario, then each side's trials and turns independently.
    """
    mine: dict[str, dict[tuple[int | None, int | None], list[_Trial]]] = _cells(e for e in entries if e.model_id == a)
    theirs = _cells(e for e in entries if e.model_id == b)
    shared = {
        sid: sorted(set(mine[sid]) & set(theirs.get(sid, {})), key=str) for sid in mine if sid in theirs
    }
    shared = {sid: ks for sid, ks in shared.items() if ks}
    n_cells = sum(len(ks) for ks in shared.values())
    what = f"{a} vs {b}"
    if not n_cells:
        return Comparison(model_a=a, model_b=b, cells=0, difference=None, interval=None, distinguishable=None,
                          trials_needed=None, note="no comparable runs: they share no (scenario, seed, turns)")
    diffs = [
        float(np.mean([t.score for t in mine[sid][k]]) - np.mean([t.score for t in theirs[sid][k]]))
        for sid, ks in shared.items()
        for k in ks
    ]
    d = sum(diffs) / len(diffs)
    rng = _rng(what)
    total = np.zeros(resamples)
    for sid in sorted(shared, key=str):
        ks = shared[sid]
        side_means = []
        for side in (mine, theirs):
            per_cell = []
            for k in ks:
                trials = side[sid][k]
                reps = np.stack([_replicates(t, rng, resamples) for t in trials])
                pick = rng.integers(0, len(trials), size=(resamples, len(trials)))
                per_cell.append(reps[pick, np.arange(resamples)[:, None]].mean(axis=1))
            side_means.append(np.stack(per_cell))  # cells x b
        cell_pick = rng.integers(0, len(ks), size=(resamples, len(ks)))
        cols = np.arange(resamples)[:, None]
        total += (side_means[0][cell_pick, cols] - side_means[1][cell_pick, cols]).sum(axis=1)
    ci = _interval(total / n_cells, d, resamples, what)
    distinguishable = ci.low > 0 or ci.high < 0
    n = min(len(side[sid][k]) for side in (mine, theirs) for sid, ks in shared.items() for k in ks)
    half = (ci.high - ci.low) / 2
    if distinguishable:
        needed: int | None = n
        note = f"{a} {'above' if d > 0 else 'below'} {b} beyond noise at {n} trial(s) per cell"
    elif abs(d) < 1e-9:
        needed = None
        note = "no difference at all: no number of trials separates them"
    else:
        # The interval narrows as 1/sqrt(trials): it clears zero when its half-width falls below |d|.
        needed = max(n + 1, math.ceil(n * (half / abs(d)) ** 2))
        note = f"within noise; roughly {needed} trials per (scenario, seed) would separate a gap this size"
    return Comparison(
        model_a=a, model_b=b, cells=n_cells, difference=d, interval=ci, distinguishable=distinguishable,
        trials_needed=needed, note=note,
    )


def comparisons(entries: Sequence[ScenarioScore], ranked: Sequence[str]) -> list[Comparison]:
    """Every pair of ``ranked`` models (best first) compared, or rank neighbours only past ``MAX_PAIRED_MODELS``."""
    if len(ranked) > MAX_PAIRED_MODELS:
        pairs: Iterable[tuple[str, str]] = zip(ranked, ranked[1:], strict=False)
    else:
        pairs = itertools.combinations(ranked, 2)
    return [compare(a, b, entries) for a, b in pairs]


def ties(ranked: Sequence[str], found: Sequence[Comparison]) -> dict[str, int]:
    """Each model's shared rank (1-based): a model ties the leader of the group above it when their difference
    is not distinguishable from noise (or cannot be measured), else it starts a new group at its own place."""
    by_pair = {(c.model_a, c.model_b): c for c in found}
    out: dict[str, int] = {}
    leader: str | None = None
    for place, m in enumerate(ranked, 1):
        c = by_pair.get((leader, m)) if leader is not None else None
        if leader is not None and (c is None or not c.distinguishable):
            out[m] = out[leader]
        else:
            leader, out[m] = m, place
    return out


def flakiness(entries: Sequence[ScenarioScore]) -> Flakiness:
    """How often one turn's verdict differs between trials of the same cell (scenario, seed, turns).

    A turn's verdict is whether its score reaches the scenario's quality-tier threshold; its tier is reported
    beside. Only turns scored in at least two trials count.
    """
    by_turn: dict[tuple[Cell, int], list[tuple[float, str]]] = defaultdict(list)
    run_verdicts: dict[Cell, list[bool]] = defaultdict(list)
    for e in entries:
        if e.missing_verdicts:
            continue
        if e.passed is not None:
            run_verdicts[cell_of(e)].append(e.passed)
        for t in e.turns:
            if t.score is not None:
                by_turn[(cell_of(e), t.turn_index)].append((t.score, e.quality_tier))
    turns: list[TurnFlakiness] = []
    for (cell, ti), seen in sorted(by_turn.items(), key=lambda kv: str(kv[0])):
        if len(seen) < 2:
            continue
        threshold = F.tier_threshold(seen[0][1])
        verdicts = [s >= threshold for s, _ in seen]
        n, c = len(verdicts), sum(verdicts)
        turns.append(
            TurnFlakiness(
                scenario_id=cell[0], scenario_seed=cell[1], turn_index=ti, trials=n, reached=c,
                flip_rate=2 * c * (n - c) / (n * (n - 1)),
                tiers=sorted({F.tier_of(s) for s, _ in seen}),
            )
        )
    compared = len(turns)
    flaky = [t for t in turns if 0 < t.reached < t.trials]
    runs = [v for v in run_verdicts.values() if len(v) > 1]
    return Flakiness(
        turns_compared=compared,
        verdict_flaky=len(flaky),
        tier_flaky=sum(1 for t in turns if len(t.tiers) > 1),
        rate=len(flaky) / compared if compared else None,
        mean_flip_rate=sum(t.flip_rate for t in turns) / compared if compared else None,
        cells_compared=len(runs),
        cells_pass_flaky=sum(1 for v in runs if len(set(v)) > 1),
        flakiest=sorted(flaky, key=lambda t: (-t.flip_rate, t.scenario_id, t.turn_index))[:FLAKIEST_SHOWN],
    )


def format_interval(ci: ConfidenceInterval | None) -> str:
    """``[low, high]`` rounded for display, or an em dash."""
    return "—" if ci is None else f"[{ci.low:.2f}, {ci.high:.2f}]"
