"""When two runs may be compared as equals: the same scenario instance, the same turns played, the same judges.

A 2-turn slice of a meeting and the whole 52-turn meeting measure different things; so do two instances
(seeds) of a scenario, two panels of judges, or a scenario that changed between runs (its hash). The
report and ``modylbench view`` show such runs side by side only labelled, never with a difference.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from modylbench.record import RunBasis

Basis = RunBasis
"""What a run's score is a score of (``modylbench.record.RunBasis``, the one definition)."""


def basis_of(run: Any, judges: Iterable[str] = ()) -> RunBasis:
    """A report RunView's basis: turns from its scorecard entry, the rest from its session or responses."""
    e = run.entry
    if run.session is not None:
        manifest = run.session.manifest
        seed = manifest.seed if "seed" in manifest.model_fields_set else run.session.start.scenario_seed
        found = RunBasis.of_session(manifest, turns=e.turns_scheduled, scenario_id=e.scenario_id, judges=judges)
        return replace(found, seed=seed, scenario_hash=run.session.start.scenario_hash or found.scenario_hash)
    seed = e.scenario_seed
    if seed is None and run.responses is not None:
        seed = getattr(run.responses, "scenario_seed", None)
    return RunBasis(e.scenario_id, seed=seed, turns=e.turns_scheduled, judges=tuple(judges))


def unequal(bases_by_label: Mapping[str, Sequence[RunBasis]]) -> list[str]:
    """Sentences saying how the labels' runs differ, per scenario they share; empty when all compare as equals.

    Labels compare as equals when each played the same scenarios with the same basis.
    """
    labels = list(bases_by_label)
    if len(labels) < 2:
        return []
    base = labels[0]
    notes = []
    for lb in labels:
        # Several runs of one label on one scenario with different slices: the label's own mean mixes them.
        for sid in dict.fromkeys(b.scenario_id for b in bases_by_label[lb]):
            turns = {b.turns for b in bases_by_label[lb] if b.scenario_id == sid}
            if len(turns) > 1:
                told = sorted(turns, key=lambda t: (t is None, t or 0))
                notes.append(f"{sid}: {lb}'s runs played different numbers of turns "
                             f"({', '.join('whole meeting' if t is None else str(t) for t in told)})")
    theirs = {b.scenario_id: b for b in bases_by_label[base]}
    for lb in labels[1:]:
        mine = {b.scenario_id: b for b in bases_by_label[lb]}
        if set(mine) != set(theirs):
            only = sorted(set(mine) ^ set(theirs))
            notes.append(f"{lb} and {base} played different scenarios ({', '.join(only)} in one only)")
        for sid in [s for s in theirs if s in mine]:
            diff = theirs[sid].differs_from(mine[sid])
            if diff:
                notes.append(f"{sid}: {lb} vs {base} differ in {'; '.join(diff)}")
    return notes
