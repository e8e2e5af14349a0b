"""The console summary: the per-model table a person wants first, then one row per scored run."""

from __future__ import annotations

import logging

from rich.console import Console
from rich.table import Table

from modylbench.scoring._models import Scorecard

logger = logging.getLogger(__name__)


def _f(x: float | None, digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def print_summary(scorecard: Scorecard, console: Console | None = None) -> None:
    """Print the models table (mean score, tier, pass^k) and a per-run table, rounded for display."""
    console = console or Console()
    models = Table(title=f"ModylBench — judges: {', '.join(scorecard.judges)}", title_justify="left")
    for col, just in (
        ("model", "left"),
        ("runs", "right"),
        ("score", "right"),
        ("tier", "left"),
        ("pass^k", "left"),
    ):
        models.add_column(col, justify=just)  # type: ignore[arg-type]
    for agg in scorecard.aggregate.values():
        pk = "  ".join(f"k={k}: {v:.2f}" for k, v in agg.pass_k.items())
        models.add_row(agg.model_id, str(agg.runs), _f(agg.mean_score), agg.tier or "—", pk or "—")
    console.print(models)
    runs = Table(title_justify="left")
    for col, just in (
        ("scenario", "left"),
        ("model", "left"),
        ("trial", "right"),
        ("journey", "right"),
        ("destination", "right"),
        ("score", "right"),
        ("tier", "left"),
        ("flags", "left"),
    ):
        runs.add_column(col, justify=just)  # type: ignore[arg-type]
    for s in scorecard.scenarios:
        capped = sum(1 for t in s.turns if t.capped) + sum(1 for p in s.products if p.capped)
        flags = list(s.flags) + ([f"{capped} capped"] if capped else [])
        runs.add_row(
            s.scenario_id,
            s.model_id,
            str(s.trial),
            _f(s.journey),
            _f(s.destination),
            _f(s.modylbench_score),
            s.tier or "—",
            ", ".join(flags),
        )
    console.print(runs)
    for sk in scorecard.skipped:
        console.print(
            f"[yellow]skipped[/] {sk.get('scenario_id')} / {sk.get('model_id')}: {sk.get('reason')}"
        )
