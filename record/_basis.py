"""Which runs compare: what a run's score is a score of (scenario, instance, slice, transport, network, judges,
scenario version), defined once. The report, ``view``, ``sweep`` and ``run --out`` all decide with it.

Two runs compare as equals only when their bases are equal. An aggregate (a model's mean, a leaderboard row)
may span scenarios and instances, which the error bars stratify and resample (docs/scoring.md "Error bars"),
but never two slices, transports, networks, panels or versions of a scenario: those measure different things.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from modylbench.record._manifest import Manifest

CLEAN_NETWORK = "clean"
"""A session's ``network`` when nothing impairs it (and every in-process session's)."""

POOLED = ("scenario_id", "seed")
"""Fields an aggregate may span: its strata (scenarios) and clusters (instances), paired on in comparisons."""
SEPARATE = ("turns", "transport", "network", "judges", "scenario_hash")
"""Fields an aggregate never spans: runs differing in one are labelled apart (``label``)."""


@dataclass(frozen=True)
class RunBasis:
    """What a run's score is a score of. Any other field that is None (or empty) is unknown, and unknowns never
    differ; the scenario and the turns are always known."""

    scenario_id: str
    seed: int | None = None
    """Instance of the scenario (0: the published data)."""
    turns: int | None = None
    """Turns scheduled: a ``--turns`` slice's N; None: the whole meeting."""
    transport: str | None = None
    network: str | None = None
    """The network profile's key (``clean`` when nothing impaired the packets)."""
    judges: tuple[str, ...] = ()
    """The panel that scored it, in sorted order."""
    scenario_hash: str | None = None
    """The scenario as played (its version)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "judges", tuple(sorted(self.judges)))

    @classmethod
    def of_session(
        cls,
        manifest: Manifest,
        *,
        turns: int | None,
        scenario_id: str | None = None,
        judges: Iterable[str] | None = None,
    ) -> RunBasis:
        """A recorded session's basis from its manifest, with ``turns`` (and the panel, when given) from its
        scorecard entry: ``turns_scheduled`` there is None for the whole meeting even when ``--turns`` asked for
        all of it, where the manifest's key would say N."""
        key = manifest.session if manifest.session is not None else (manifest.sweep_cell or {})
        network = key.get("network")
        if network is None and (key or manifest.network is None):
            network = CLEAN_NETWORK  # keys recorded before networks existed, and in-process runs: nothing impaired
        return cls(
            scenario_id=scenario_id or manifest.scenario_id or key.get("scenario_id") or "?",
            seed=manifest.seed,
            turns=turns,
            transport=manifest.transport,
            network=network,
            judges=tuple(manifest.judges if judges is None else judges),
            scenario_hash=manifest.scenario_hash,
        )

    def differs_from(self, other: RunBasis) -> list[str]:
        """What differs, in words, ``other``'s value first (empty when the two compare as equals)."""
        out = []
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if f.name in ("scenario_id", "turns"):  # always known (turns None: the whole meeting)
                if mine != theirs:
                    out.append("scenario" if f.name == "scenario_id" else _WORDS["turns"](theirs, mine))
            elif mine not in (None, ()) and theirs not in (None, ()) and mine != theirs:
                out.append(_WORDS[f.name](theirs, mine))
        return out

    def compares_with(self, other: RunBasis) -> bool:
        return not self.differs_from(other)

    def slice_text(self, full_turns: int | None = None) -> str:
        """What was played: the whole meeting, or its first N turns."""
        if self.turns is None or (full_turns is not None and self.turns >= full_turns):
            return "whole meeting" + (f" ({full_turns} turns)" if full_turns else "")
        return f"first {self.turns} of {full_turns} turns" if full_turns else f"first {self.turns} turns"


def _turns(t: int | None) -> str:
    return "whole meeting" if t is None else str(t)


_WORDS: dict[str, Any] = {
    "seed": lambda a, b: f"seed ({a} vs {b})",
    "turns": lambda a, b: f"turns played ({_turns(a)} vs {_turns(b)})",
    "transport": lambda a, b: f"transport ({a} vs {b})",
    "network": lambda a, b: f"network ({a} vs {b})",
    "judges": lambda a, b: f"judges ({', '.join(a)} vs {', '.join(b)})",
    "scenario_hash": lambda a, b: "scenario version (hash)",
}


def separating(bases: Sequence[RunBasis]) -> set[str]:
    """The ``SEPARATE`` fields in which some of ``bases`` differ (a scenario's version only within one scenario:
    two scenarios always hash apart)."""
    out = set()
    for name in SEPARATE:
        if name == "scenario_hash":
            seen: dict[str, set[Any]] = {}
            for b in bases:
                if b.scenario_hash is not None:
                    seen.setdefault(b.scenario_id, set()).add(b.scenario_hash)
            if any(len(v) > 1 for v in seen.values()):
                out.add(name)
        elif len({getattr(b, name) for b in bases}) > 1:
            out.add(name)
    return out


def label(name: str, basis: RunBasis, varying: set[str]) -> str:
    """The model id a run aggregates under: the agent's name, and the fields in ``varying`` (``separating``),
    so runs that do not compare never share a mean."""
    parts = []
    if "transport" in varying:
        parts.append(str(basis.transport))
    if "network" in varying:
        parts.append(f"network {basis.network}")
    if "turns" in varying:
        parts.append("all turns" if basis.turns is None else f"{basis.turns} turns")
    if "judges" in varying:
        parts.append(f"judges {'+'.join(basis.judges) or '?'}")
    if "scenario_hash" in varying:
        parts.append(f"scenario {(basis.scenario_hash or '?')[:8]}")
    return name + (f" [{', '.join(parts)}]" if parts else "")


def labels(runs: Sequence[tuple[str, RunBasis]]) -> list[str]:
    """Each ``(agent name, basis)``'s model id in one combined scorecard (``label`` over what varies)."""
    varying = separating([b for _, b in runs])
    return [label(name, b, varying) for name, b in runs]
