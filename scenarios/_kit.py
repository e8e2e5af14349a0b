"""The scenario authoring kit: what every built-in meeting script is written with.

A scenario module computes its data and solution as code; its meeting script uses this kit to say
what happens turn by turn (``Script.turn``), which edits the reference solution makes (``Script.edit``
and friends), which facts a good answer states (``number``, ``percent``, ``count``, ``year``, ``text``)
and what the slides show. One home for these, so that defaults (tolerances, waits) cannot drift
between scenarios.
"""

from __future__ import annotations

import copy
import logging
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal, TypeVar

from modylbench.scenarios._knowledge import Knowledge, KnowledgeItem, assemble
from modylbench.scenarios._pointer import make_pointer
from modylbench.scenarios._products import apply_mutations
from modylbench.scenarios._schema import (
    Channel,
    CheckType,
    ExpectedFact,
    ExpectedMutation,
    MutationType,
    Phase,
    Slide,
    Turn,
    VerificationCriterion,
)

logger = logging.getLogger(__name__)

__all__ = ["IDENTITY_FILE", "MAX_DRAWS", "Identity", "Knowledge", "KnowledgeItem", "Script", "assemble", "bullets",
           "count", "criterion", "fewest_decimals", "identity", "money", "number", "pct", "percent", "redraw", "text",
           "year"]

T = TypeVar("T")

NUMBER_TOLERANCE_PCT = 0.5
"""Default relative tolerance of a numeric fact, in %: a figure said to three significant digits."""


# --------------------------------------------------------------------------- identity

IDENTITY_FILE = "identity.toml"
"""The file in a builder's folder that says what the scenario is."""


@dataclass(frozen=True)
class Identity:
    """What a built-in scenario is, the same on every instance: declared once in its builder's
    ``identity.toml``, listed by the registry, written into the Scenario by the builder, checked against
    every build, and read by the tests and the benchmarks."""

    scenario_id: str
    vertical: str
    title: str
    quality_tier: Literal["Consultant", "Mentor", "Peer"]
    position: int
    """Where the scenario is listed among the built-ins (1 first)."""
    turns: int
    edge_cases: int
    products: tuple[str, ...]

    def breaks(self, scenario: Any) -> list[str]:
        """How a built ``scenario`` differs from this identity (empty: it is this scenario)."""
        got = {
            "scenario_id": scenario.scenario_id, "vertical": scenario.vertical, "title": scenario.title,
            "quality_tier": scenario.quality_tier, "turns": len(scenario.turns),
            "edge_cases": len(scenario.edge_cases), "products": tuple(p.product_id for p in scenario.products),
        }  # fmt: skip
        return [f"{k} is {v!r}, its identity.toml says {getattr(self, k)!r}"
                for k, v in got.items() if v != getattr(self, k)]  # fmt: skip


def identity(package: str | None) -> Identity:
    """The identity a builder package (``modylbench.scenarios.builtin.<name>``, a builder module's ``__package__``)
    declares in its ``identity.toml``, read without importing the package. Raises ``ValueError`` (one line) when
    the file is missing or wrong."""
    if not package:
        raise ValueError("identity() takes a builder package's name (its modules' __package__)")
    parent, _, name = package.rpartition(".")
    f = resources.files(parent) / name / IDENTITY_FILE
    if not f.is_file():
        raise ValueError(f"{package} has no {IDENTITY_FILE}: a built-in scenario's builder declares what it is there")
    where = f"{package.replace('.', '/')}/{IDENTITY_FILE}"
    try:
        raw = tomllib.loads(f.read_text("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{where}: not TOML ({exc})") from None
    fields = set(Identity.__dataclass_fields__)
    if set(raw) != fields:
        raise ValueError(f"{where}: needs exactly {sorted(fields)}; missing {sorted(fields - set(raw))}, "
                         f"unknown {sorted(set(raw) - fields)}")  # fmt: skip
    if raw["quality_tier"] not in ("Consultant", "Mentor", "Peer"):
        raise ValueError(f"{where}: quality_tier {raw['quality_tier']!r} is not Consultant, Mentor or Peer")
    return Identity(**{**raw, "products": tuple(raw["products"])})


# --------------------------------------------------------------------------- fresh instances

MAX_DRAWS = 500
"""How many candidates a fresh instance draws before its seed is declared unbuildable (a builder whose story
rejects most draws says so and passes more)."""


def redraw(draw: Callable[[], T | None], breaks: Callable[[T], Sequence[str]] | None = None, *,
           tries: int = MAX_DRAWS, fail: str | None = None) -> T | None:  # fmt: skip
    """Draw candidates until one keeps the meeting's story: ``draw()`` makes one (None: rejected on the way, by a
    cheap check), ``breaks(candidate)`` lists the premises of the script it breaks (none: it holds).

    After ``tries`` candidates: None, or, when ``fail`` names what was wanted, ``RuntimeError`` saying so with
    what the last candidate broke. Deterministic when ``draw`` draws from a seeded generator."""
    broken: Sequence[str] = ()
    for _ in range(tries):
        candidate = draw()
        if candidate is None:
            continue
        broken = breaks(candidate) if breaks is not None else ()
        if not broken:
            return candidate
        logger.debug("draw rejected: %s", "; ".join(broken))
    if fail is None:
        return None
    last = f"; the last broke: {'; '.join(broken)}" if broken else ""
    raise RuntimeError(f"{fail} in {tries} draws{last}")


# --------------------------------------------------------------------------- figures as written


def fewest_decimals(v: float, suffix: str = "", prefix: str = "", min_dp: int = 1, max_dp: int = 3,
                    rel: float = 0.0025) -> str:  # fmt: skip
    """Fewest decimals (at least ``min_dp``) that keep the figure within ``rel`` of the value; a negative figure
    with a prefix puts the sign's magnitude after it ($57.5M, 24.6%, 3.00x)."""
    for dp in range(min_dp, max_dp + 1):
        if abs(round(v, dp) - v) <= rel * abs(v) or dp == max_dp:
            return f"{prefix}{abs(v):,.{dp}f}{suffix}" if v < 0 and prefix else f"{prefix}{v:,.{dp}f}{suffix}"
    raise AssertionError("unreachable")


def money(value: float, unit: str = "", decimals: int | None = 0, symbol: str = "$") -> str:
    """Money as written in the room, in the unit the caller names: ``money(1250)`` $1,250,
    ``money(57.5, "M", None)`` $57.5M (None: the fewest decimals within 0.25%, at least one),
    ``money(4.1234, "M", 2)`` $4.12M, ``money(150, "M", symbol="€")`` €150M."""
    if decimals is None:
        return fewest_decimals(value, unit, symbol)
    return f"{symbol}{value:,.{decimals}f}{unit}"


def pct(value: float, digits: int | None = 1) -> str:
    """A figure already in percent, written: ``pct(24.63)`` 24.6% (None: the fewest decimals within 0.25%,
    at least one)."""
    return fewest_decimals(value, "%") if digits is None else f"{value:.{digits}f}%"


# --------------------------------------------------------------------------- facts


def number(fid: str, description: str, value: float, unit: str = "", tol: float = NUMBER_TOLERANCE_PCT, *,
           digits: int | None = None, keywords: Sequence[str] = ()) -> ExpectedFact:  # fmt: skip
    """A figure a good answer states, within ``tol`` % of ``value`` (rounded to ``digits`` decimals when given:
    the precision it is said in). ``keywords`` are other ways of saying it that also count."""
    v = float(value) if digits is None else float(round(float(value), digits))
    return ExpectedFact(id=fid, description=description, value=v, unit=unit, tolerance_pct=tol,
                        keywords=list(keywords))  # fmt: skip


def percent(
    fid: str, description: str, value: float, points: float = 0.15, min_tol: float = 0.5
) -> ExpectedFact:
    """A percentage said to one decimal: the tolerance allows ±``points`` percentage points however small
    the value is (never tighter than ``min_tol`` %)."""
    v = round(float(value), 1)
    return ExpectedFact(id=fid, description=description, value=v, unit="%",
                        tolerance_pct=max(min_tol, 100.0 * points / abs(v)) if v else min_tol)  # fmt: skip


def count(fid: str, description: str, value: float, unit: str = "") -> ExpectedFact:
    """A whole number said exactly."""
    return ExpectedFact(id=fid, description=description, value=float(value), unit=unit, tolerance_pct=0.0)


def year(fid: str, description: str, value: float, tol: float = 0.03) -> ExpectedFact:
    """A calendar year: 0.03 % of a year number is ±0.6 years, the year itself and nothing either side."""
    return ExpectedFact(id=fid, description=description, value=float(value), unit="", tolerance_pct=tol)


def text(fid: str, description: str, *keywords: str) -> ExpectedFact:
    """A point made in words; any of ``keywords`` counts (the first is the canonical one)."""
    if not keywords:
        raise ValueError(f"text fact {fid!r} needs at least one keyword")
    return ExpectedFact(id=fid, description=description, value=keywords[0], keywords=list(keywords))


# --------------------------------------------------------------------------- product checks


def criterion(cid: str, description: str, check: CheckType, target: str, expected: Any = None,
              tol: float = NUMBER_TOLERANCE_PCT, required: bool = True) -> VerificationCriterion:  # fmt: skip
    """One programmatic check of a product: ``check`` of the value at ``target`` (a JSON pointer) against
    ``expected``, numbers within ``tol`` %."""
    return VerificationCriterion(id=cid, description=description, check_type=check, target_field=target,
                                 expected_value=expected, tolerance_pct=tol, required=required)  # fmt: skip


# --------------------------------------------------------------------------- slides


def bullets(slide_id: str, title: str, items: Sequence[str], footnote: str = "") -> Slide:
    """A bullet-point slide."""
    return Slide(slide_id=slide_id, kind="bullets", title=title, bullets=list(items), footnote=footnote)


# --------------------------------------------------------------------------- the script


class Script:
    """The meeting in order: turns, and the reference solution's edits to the products.

    ``wait`` is how long the persona waits for the agent when a turn does not say: one number, or one
    per expected response type. Edits go to the latest turn unless ``turn=`` names another. The products'
    contents after the edits so far are kept (``contents``) so that a script can write "the cells that
    changed" (``recalc``, ``add_columns``, ``diff``).
    """

    def __init__(self, wait: float | Mapping[str, float] = 45.0, rtype: str = "analysis") -> None:
        self.turns: list[Turn] = []
        self.mutations: list[ExpectedMutation] = []
        self._wait = wait
        self._rtype = rtype
        self._contents: dict[str, Any] = {}
        self._applied = 0

    # ----- turns

    @property
    def next(self) -> int:
        """Index the next turn will get."""
        return len(self.turns)

    @property
    def current(self) -> int:
        """Index of the latest turn."""
        if not self.turns:
            raise ValueError("no turn yet")
        return len(self.turns) - 1

    def turn(
        self,
        *,
        phase: Phase,
        channel: Channel,
        utterance: str,
        action: str,
        facts: Sequence[ExpectedFact] = (),
        reference: str = "",
        rtype: str | None = None,
        wait: float | None = None,
        **extra: Any,
    ) -> int:
        """Add the next turn; ``extra`` are further ``Turn`` fields (chat_message, screen, files, edge_case,
        barge_in_after_sec, reference_chat). Returns its index."""
        rtype = rtype or self._rtype
        if wait is None:
            wait = self._wait[rtype] if isinstance(self._wait, Mapping) else self._wait
        i = len(self.turns)
        self.turns.append(
            Turn(
                turn_index=i,
                human_utterance=utterance,
                expected_agent_action=action,
                phase=phase,
                channel=channel,
                expected_response_type=rtype,
                wait_for_agent_sec=wait,
                expected_facts=list(facts),
                reference_response=reference,
                **extra,
            )
        )
        return i

    # ----- edits

    def _at(self, turn: int | None) -> int:
        return self.current if turn is None else turn

    def edit(self, product: str, kind: MutationType, path: str | Sequence[str | int] = "", value: Any = None, *,
             turn: int | None = None) -> None:  # fmt: skip
        """One edit at ``path`` (a JSON pointer, or its tokens): a scalar goes to ``expected_value``, a structure
        (and any create) to ``value``."""
        if not isinstance(path, str):
            path = make_pointer(list(path)) if path else ""
        scalar = (
            kind != "create"
            and (value is None or isinstance(value, int | float | str))
            and not isinstance(value, bool)
        )
        self.mutations.append(
            ExpectedMutation(
                turn_index=self._at(turn),
                product_id=product,
                mutation_type=kind,
                path=path,
                expected_value=value if scalar else None,
                value=None if scalar else copy.deepcopy(value),
            )
        )

    def create(self, product: str, content: Any, *, turn: int | None = None) -> None:
        """The product comes into being with ``content``."""
        self.edit(product, "create", "", content, turn=turn)

    def add_rows(self, product: str, sheet: str, rows: Mapping[str, Mapping[str, Any]], *,
                 turn: int | None = None) -> None:  # fmt: skip
        """One ``add_row`` per row, in order."""
        for name, cells in rows.items():
            self.edit(product, "add_row", f"/{sheet}/{name}", dict(cells), turn=turn)

    def delete_row(self, product: str, sheet: str, row: str, *, turn: int | None = None) -> None:
        self.edit(product, "delete_row", f"/{sheet}/{row}", turn=turn)

    @property
    def contents(self) -> dict[str, Any]:
        """Every product as the edits so far leave it."""
        if self._applied < len(self.mutations):
            self._contents = apply_mutations(self.mutations[self._applied :], self._contents)
            self._applied = len(self.mutations)
        return self._contents

    def add_columns(self, product: str, sheet: str, rows: Mapping[str, Mapping[str, Any]], *,
                    turn: int | None = None) -> None:  # fmt: skip
        """``add_column`` for the cells of ``rows`` that are new columns of existing rows."""
        have = self.contents[product][sheet]
        for name, cells in rows.items():
            for col, v in cells.items():
                if col not in have[name]:
                    self.edit(product, "add_column", f"/{sheet}/{name}/{col}", v, turn=turn)

    def recalc(self, product: str, sheet: str, rows: Mapping[str, Mapping[str, Any]], *,
               turn: int | None = None) -> None:  # fmt: skip
        """``update_cell`` for every cell whose value changed (the model recalculating after an input moved)."""
        have = self.contents[product][sheet]
        for name, cells in rows.items():
            for col, v in cells.items():
                if have[name][col] != v:
                    self.edit(product, "update_cell", f"/{sheet}/{name}/{col}", v, turn=turn)

    def diff(self, product: str, prefix: str, before: Mapping[str, Any], after: Mapping[str, Any], *,
             turn: int | None = None) -> None:  # fmt: skip
        """``update_cell`` for every key of ``after`` whose value differs from ``before``."""
        for k, new in after.items():
            if before.get(k) != new:
                self.edit(product, "update_cell", f"{prefix}/{k}", new, turn=turn)
