"""What a judge is given (one turn or one product) and the judge interface; ``make_judges`` builds a panel."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from modylbench.record import Mutation, TurnResponse, WorkProduct
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


class Judge:
    """A scorer of items. Subclasses give ``judge_now`` (synchronous) and/or ``judge_items`` (async)."""

    name: str = "judge"

    def judge_now(self, item: Item) -> Verdict | None:
        """Score one item synchronously, or None when this judge needs the async path."""
        return None

    async def judge_items(self, items: list[Item]) -> list[Verdict]:
        """Score many items; the default runs ``judge_now`` on each."""
        out = []
        for item in items:
            v = self.judge_now(item)
            if v is None:
                raise NotImplementedError(f"{self.name} has neither a synchronous nor an async path")
            out.append(v)
        return out

    @property
    def synchronous(self) -> bool:
        """True when ``judge_now`` scores every item (no event loop needed)."""
        return False

    def close(self) -> None:
        """Release resources (HTTP clients); the panel calls it after scoring."""


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
        elif s.startswith("openai/") and len(s) > len("openai/"):
            from modylbench.scoring._llm import OpenAIJudge

            rest = s[len("openai/") :]
            model, _, base = rest.partition("@")
            if not model:
                raise JudgeSpecError(f"judge {spec!r}: no model name after openai/")
            if "@" in s and not base:
                raise JudgeSpecError(f"judge {spec!r}: no base URL after @")
            out.append(OpenAIJudge(model, base_url=base or None, spec=s, **llm_options))
        else:
            raise JudgeSpecError(
                f"unknown judge {spec!r}; use offline, openai/MODEL or openai/MODEL@BASE_URL"
            )
    return out
