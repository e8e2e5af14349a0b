"""CloudSync: which deal a seed builds. Seed 0 is the committed deal; any other seed draws fresh inputs until the
story the meeting tells holds (the first structure clears the hurdle, the lender cut pushes it under, ...)."""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np

from modylbench.scenarios._kit import redraw

from .data import BASE_INPUTS, YEARS, DealInputs, deal_terms, draw_candidate, operating_case, pick, steps
from .solver import _with_growth, breakeven_exit_for, max_entry_for, run_case

logger = logging.getLogger(__name__)


def draw_inputs(seed: int) -> DealInputs:
    """Fresh deal inputs around the committed ones; seed 0 is the committed instance.

    Draws are rejected until the story the meeting tells holds: the first capital structure clears the
    IRR hurdle, the lender cut pushes it under, the fudge exit would clear it, and so on.
    """
    if seed == 0:
        return BASE_INPUTS
    rng = np.random.default_rng(seed)
    drawn = redraw(lambda: _with_story_hurdles(draw_candidate(rng), rng),
                   fail=f"no LBO instance satisfies the meeting's story for seed {seed}")  # fmt: skip
    assert drawn is not None  # redraw raises when it gives up
    return drawn


def _with_story_hurdles(deal: DealInputs, rng: np.random.Generator) -> DealInputs | None:
    """Set the fund's hurdles so the story holds for ``x``, or None if no round hurdle makes it hold."""
    operating = operating_case(deal)
    first = deal_terms(deal, deal.senior_multiple, deal.exit_multiple_policy)
    cut = replace(first, senior_multiple=deal.senior_multiple_after_lender_call)
    if first.senior_multiple + first.junior_multiple >= 0.6 * deal.entry_multiple:
        return None
    initial, final = run_case(operating, first), run_case(operating, cut)
    fudge = run_case(operating, replace(cut, exit_multiple=deal.fudge_exit_multiple))
    year4 = run_case(operating, replace(cut, exit_year=4))
    downside = run_case(
        _with_growth(operating, deal.downside_growth_pct),
        replace(cut, exit_multiple=deal.downside_exit_multiple),
    )
    # The IRR hurdle: a whole percent the first structure clears and the cut case misses, by a margin
    # the dialogue can state in bps, and that half a turn more exit would clear.
    hurdles = [
        h
        for h in steps(20.0, 30.0, 1.0)
        if final.irr_pct + 0.15 < h < min(initial.irr_pct, fudge.irr_pct) - 0.1
    ]
    moic_hurdles = [
        m
        for m in steps(1.75, 3.25, 0.25)
        if max(year4.moic, downside.moic) + 0.05 < m < min(final.moic, initial.moic) - 0.05
    ]
    if not hurdles or not moic_hurdles:
        return None
    hurdle = pick(rng, hurdles)
    hurdle_moic = pick(rng, [m for m in moic_hurdles if m < (1 + hurdle / 100.0) ** YEARS] or [0.0])
    # The returns section must be checkable for the fudge exit without tripping on the break-evens it states.
    break_evens = (breakeven_exit_for(operating, cut, hurdle), max_entry_for(operating, cut, hurdle))
    if any(abs(b / deal.fudge_exit_multiple - 1.0) < 0.015 for b in break_evens):
        return None
    lev = [final.total_debt(y) / final.ebitda[y] for y in range(YEARS)]
    story = (
        hurdle_moic > 0.0
        and downside.moic > 1.2
        and all(c.sweep[0] > 0.25 and abs(c.cash[-1]) < 1e-9 for c in (initial, final))
        and initial.senior_close[-1] > 1.0
        and final.senior_close[-1] > 1.0
        and any(v < deal.leverage_watch for v in lev)
        and lev[0] >= deal.leverage_watch
        and any(final.junior_close[y] > final.senior_close[y] for y in range(YEARS))
        and final.junior_close[0] < final.senior_close[0]
        and initial.equity / initial.ev * 100.0 > deal.min_equity_pct + 1.0
        and initial.ebitda[0] / initial.senior_interest[0] > deal.min_coverage + 0.1
        and deal.recap_leverage * final.ebitda[2] > final.net_debt(2) + 5.0
    )
    return replace(deal, hurdle_irr_pct=hurdle, hurdle_moic=hurdle_moic) if story else None
