"""When two runs may be compared as equals: the same scenario instance, the same turns played, the same judges.

A 2-turn slice of a meeting and the whole 52-turn meeting measure different things; so do two instances
(seeds) of a scenario, two panels of judges, or a scenario that changed between runs (its hash). The
report and ``modylbench view`` show such runs side by side only labelled, never with a difference.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Basis:
    """What a run's score is a score of; runs compare as equals only when theirs are equal."""

    scenario_id: str
    turns: int
    """Turns played (a ``--turns`` slice plays fewer than the meeting has)."""
    seed: int | None = None
    """Instance of the scenario (None when the run does not say)."""
    judges: tuple[str, ...] = ()
    scenario_hash: str | None = None

    def differs_from(self, other: Basis) -> list[str]:
        """What differs, in words (empty when the two runs compare as equals). Unknowns never differ."""
        out = []
        if self.scenario_id != other.scenario_id:
            out.append("scenario")
        if self.turns != other.turns:
            out.append(f"turns played ({other.turns} vs {self.turns})")
        if self.seed is not None and other.seed is not None and self.seed != other.seed:
            out.append(f"seed ({other.seed} vs {self.seed})")
        if self.judges and other.judges and sorted(self.judges) != sorted(other.judges):
            out.append(f"judges ({', '.join(other.judges)} vs {', '.join(self.judges)})")
        if self.scenario_hash and other.scenario_hash and self.scenario_hash != other.scenario_hash:
            out.append("scenario version (hash)")
        return out


def basis_of(run: Any, judges: Iterable[str] = ()) -> Basis:
    """A report RunView's basis: turns from its scorecard entry, seed and hash from its session or responses."""
    seed = None
    scenario_hash = None
    if run.session is not None:
        seed = run.session.manifest.seed if "seed" in run.session.manifest.model_fields_set else run.session.start.scenario_seed
        scenario_hash = run.session.start.scenario_hash
    elif run.responses is not None and getattr(run.responses, "scenario_seed", None) is not None:
        seed = run.responses.scenario_seed
    return Basis(run.entry.scenario_id, len(run.entry.turns), seed, tuple(judges), scenario_hash)


def unequal(bases_by_label: Mapping[str, Sequence[Basis]]) -> list[str]:
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
            turns = sorted({b.turns for b in bases_by_label[lb] if b.scenario_id == sid})
            if len(turns) > 1:
                notes.append(
                    f"{sid}: {lb}'s runs played different numbers of turns ({', '.join(map(str, turns))})"
                )
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
