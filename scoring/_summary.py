"""The console summary: the per-model table a person wants first, then one row per scored run."""

from __future__ import annotations

import logging
from collections import Counter

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from modylbench.scoring._models import Scorecard
from modylbench.scoring._uncertainty import format_interval

logger = logging.getLogger(__name__)


def _f(x: float | None, digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


INCOMPLETE_EXIT = 3
"""Exit code of evaluate, run and replay when judges left items unscored (incomplete, resumable)."""


def incomplete_note(scorecard: Scorecard) -> str | None:
    """One line on what the judges left unscored and how to finish it; None when the card is complete."""
    if not scorecard.incomplete:
        return None
    total = missing = 0
    reasons: dict[str, Counter[str]] = {}
    for s in scorecard.scenarios:
        verdicts = [v for t in s.turns for v in t.judges] + [v for p in s.products for v in p.judges]
        for v in verdicts:
            total += 1
            if v.dimensions is None:
                missing += 1
                reasons.setdefault(v.judge, Counter())[v.unscored_reason or "no reason given"] += 1
    runs = sum(1 for s in scorecard.scenarios if s.missing_verdicts)
    why = "; ".join(
        f"{judge}: " + ", ".join(f"{n} x {reason}" for reason, n in c.most_common(2))
        + (", ..." if len(c) > 2 else "")
        for judge, c in reasons.items()
    )
    return (
        f"incomplete: {missing} of {total} judge verdicts missing in {runs} of {len(scorecard.scenarios)} "
        f"run(s) ({why}); no tier or pass is given for them. Score again with the same judges to resume: "
        "answers already given are cached, only the missing ones are asked."
    )


PIPED_WIDTH = 160
"""Columns of the summary when it is piped or redirected: rich's 80 would cut ids and numbers."""


def summary_console(stderr: bool = False) -> Console:
    """The console every command prints its summary on: the terminal's width, or ``PIPED_WIDTH`` when piped."""
    tty = Console(stderr=stderr).is_terminal
    return Console(stderr=stderr, width=None if tty else PIPED_WIDTH)


def print_summary(scorecard: Scorecard, console: Console | None = None) -> None:
    """Print the models table (mean score, tier, pass^k) and a per-run table, rounded for display."""
    console = console or summary_console()
    models = Table(title=f"ModylBench — judges: {', '.join(scorecard.judges)}", title_justify="left")
    for col, just in (
        ("#", "right"),
        ("model", "left"),
        ("runs", "right"),
        ("score", "right"),
        ("95% CI", "left"),
        ("tier", "left"),
        ("pass^k", "left"),
        ("flaky turns", "right"),
    ):
        models.add_column(col, justify=just)  # type: ignore[arg-type]
    aggs = sorted(scorecard.aggregate.values(), key=lambda a: (a.rank is None, a.rank or 0, a.model_id))
    ranks = Counter(a.rank for a in aggs)
    for agg in aggs:
        pk = "  ".join(f"k={k}: {v:.2f}" for k, v in agg.pass_k.items())
        tier = "incomplete" if agg.incomplete_runs else agg.tier or "—"
        rank = "—" if agg.rank is None else (f"={agg.rank}" if ranks[agg.rank] > 1 else str(agg.rank))
        fl = agg.flakiness
        flaky = "—" if fl is None or not fl.turns_compared else f"{fl.verdict_flaky}/{fl.turns_compared}"
        models.add_row(rank, agg.model_id, str(agg.runs), _f(agg.mean_score), format_interval(agg.interval), tier,
                       pk or "—", flaky)
    console.print(models)
    for c in scorecard.comparisons:
        if aggs and len(aggs) <= 4:
            console.print(f"  {escape(c.model_a)} vs {escape(c.model_b)}: {escape(c.note)}")
    runs = Table(title_justify="left")
    # Numbers never wrap; long ids give way first on a narrow terminal.
    runs.add_column("scenario", no_wrap=True, overflow="ellipsis", max_width=36)
    runs.add_column("model", no_wrap=True, overflow="ellipsis", max_width=20)
    runs.add_column("score", justify="right", no_wrap=True, min_width=5)
    runs.add_column("tier", no_wrap=True)
    for col in ("journey", "dest.", "trial"):
        runs.add_column(col, justify="right", no_wrap=True, min_width=len(col))
    runs.add_column("flags")
    for s in scorecard.scenarios:
        capped = sum(1 for t in s.turns if t.capped) + sum(1 for p in s.products if p.capped)
        flags = list(s.flags) + ([f"{capped} capped"] if capped else [])
        runs.add_row(
            s.scenario_id,
            s.model_id,
            _f(s.modylbench_score),
            "incomplete" if s.missing_verdicts else s.tier or "—",
            _f(s.journey),
            _f(s.destination),
            str(s.trial),
            ", ".join(flags),
        )
    console.print(runs)
    for sk in scorecard.skipped:
        line = f"{sk.get('scenario_id')} / {sk.get('model_id')}: {sk.get('reason')}"
        console.print(f"[yellow]skipped[/] {escape(line)}")
    note = incomplete_note(scorecard)
    if note is not None:
        console.print(f"[bold red]{escape(note)}[/]")
