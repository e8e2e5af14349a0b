"""What a judge is given (one turn or one product) and the judge interface; ``make_judges`` builds a panel."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from modylbench.record import ModelSpec, ModelSpecError, Mutation, TurnResponse, WorkProduct
from modylbench.scenarios import (
    MAX_ID_CHARS,
    CheckResult,
    ExpectedMutation,
    ExpectedOutput,
    ProductSpec,
    Scenario,
    Turn,
)
from modylbench.scoring._formula import PRODUCT_DIMENSIONS, TURN_DIMENSIONS
from modylbench.scoring._models import Verdict

logger = logging.getLogger(__name__)


class JudgeSpecError(ValueError):
    """A ``--judge`` spec that names no known judge."""


@dataclass
class TurnItem:
    """A journey item: one persona turn and what the agent did in it."""

    scenario: Scenario
    turn: Turn
    response: TurnResponse | None
    edits: list[Mutation] = field(default_factory=list)
    expected_edits: list[ExpectedMutation] = field(default_factory=list)
    edits_matched: int = 0
    trajectory_source: str = "none"
    next_response: TurnResponse | None = None
    """What the agent said in the next turn: a turn's facts stated there count, a little less (docs/scoring.md)."""
    later: dict[int, TurnResponse] = field(default_factory=dict)
    """What it said in every later turn: a fact restated there with another value weakens both."""
    prev_response: TurnResponse | None = None
    """What it said in the previous turn: a wrong figure the persona challenged there and restated here costs."""
    told: dict[str, int] = field(default_factory=dict)
    """Withheld knowledge the persona gave the agent in answer to its questions: item id -> first turn."""
    own_share: float | None = None
    """The share of the meeting's own facts (not public, given or looked up) the line states anywhere: what a
    fact counted half is worth scales with it (offline judge; docs/scoring.md)."""
    kind: str = "turn"

    @property
    def dimensions(self) -> tuple[str, ...]:
        return TURN_DIMENSIONS

    @property
    def key(self) -> str:
        return f"turn {self.turn.turn_index}"


@dataclass
class ProductItem:
    """A destination item: one expected output and the delivered product matched to it (or none)."""

    scenario: Scenario
    expected: ExpectedOutput
    delivered: WorkProduct | None
    spec: ProductSpec | None
    checks: list[CheckResult] = field(default_factory=list)
    kind: str = "product"

    @property
    def dimensions(self) -> tuple[str, ...]:
        return PRODUCT_DIMENSIONS

    @property
    def key(self) -> str:
        return f"product {self.expected.product_id or self.expected.output_type}"


Item = TurnItem | ProductItem


@runtime_checkable
class Judge(Protocol):
    """The one judge interface: score a batch of items, asynchronously, one verdict per item in order.

    A judge that works synchronously (the offline one) still answers through ``judge_items``; the panel
    runs every judge the same way. Optional abilities are protocols of their own (``CachingJudge``,
    ``ProgressJudge``), checked with ``isinstance``.
    """

    name: str

    async def judge_items(self, items: list[Item]) -> list[Verdict]:
        """One verdict per item, in the items' order (an item it could not score gets an unscored verdict)."""
        ...

    def close(self) -> None:
        """Release resources (HTTP clients); the panel calls it after scoring."""
        return None  # a default for judges that hold nothing


@runtime_checkable
class CachingJudge(Protocol):
    """A judge that keeps its answers in a folder, so scoring again asks only for what is missing."""

    def set_cache_dir(self, path: Path) -> None:
        """Use ``path`` for the answer cache unless the judge was given one."""
        ...


@runtime_checkable
class ProgressJudge(Protocol):
    """A judge that reports its progress: called as (judge name, items done, items in total)."""

    on_progress: Callable[[str, int, int], None] | None


def make_judges(specs: list[str], **llm_options: Any) -> list[Judge]:
    """The panel named by ``--judge`` specs: ``offline``, ``openai/MODEL`` or ``openai/MODEL@BASE_URL``.

    An empty list gives the default panel, the offline judge alone. ``llm_options`` go to each LLM
    judge (``cache_dir``, ``concurrency``, ``timeout_s``, ``max_attempts``, ``api_key``).
    """
    from modylbench.scoring._offline import OfflineJudge

    if not specs:
        return [OfflineJudge()]
    out: list[Judge] = []
    for spec in specs:
        s = spec.strip()
        if len(s) > MAX_ID_CHARS:
            # The spec names the judge in every verdict of the scorecard and report.
            raise JudgeSpecError(f"judge spec of {len(s)} characters; at most {MAX_ID_CHARS}")
        if s == "offline":
            out.append(OfflineJudge())
            continue
        try:
            parsed = ModelSpec.parse(s)
        except ModelSpecError as exc:
            raise JudgeSpecError(f"judge {exc}") from None
        if parsed.provider != "openai" or parsed.model is None:
            raise JudgeSpecError(
                f"unknown judge {spec!r}; use offline, openai/MODEL or openai/MODEL@BASE_URL"
            )
        from modylbench.scoring._llm import OpenAIJudge

        out.append(OpenAIJudge(parsed.model, base_url=parsed.base_url, spec=s, **llm_options))
    return out
