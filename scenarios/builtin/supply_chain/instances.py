"""Fresh instances of the supply-chain meeting: the figures redrawn for a seed, sized against a first solve,
and kept only when the solution still tells the script's story."""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from modylbench.scenarios._kit import redraw
from modylbench.scenarios.builtin.supply_chain.data import (
    DALLAS_FILE_HANDLING,
    OVERTIME_PLANT,
    PEAK_OVERTIME_PLANT,
    Inputs,
    Network,
    generate,
)
from modylbench.scenarios.builtin.supply_chain.solver import solve, story_breaks

logger = logging.getLogger(__name__)


def _level(rng: np.random.Generator, low: float, high: float) -> float:
    """A factor in [low, high], at least 5% away from 1 so the instance's figures really move."""
    x = float(rng.uniform(low, high - 0.1))
    return x if x < 0.95 else x + 0.1


def _step(x: float, step: float) -> float:
    """Rounded to a multiple of step, the way the persona would say it."""
    return float(round(round(x / step) * step, 6))


def _fresh(x: float, today: float, step: float, up: bool = True) -> float:
    """x, moved one step if it rounded onto today's figure (a new instance should not repeat the persona's numbers)."""
    return x if abs(x - today) > step / 2 else _step(x + (step if up else -step), step)


def _draw(rng: np.random.Generator) -> Inputs:
    """The network and the persona's free figures: company size and cost levels move together, each figure a little.

    The lane-noise seed stays: with a fresh one, the plan's shape (which plant feeds which DC, what
    binds) changes, and the script's walk through it no longer holds.
    """
    today = Inputs()
    volume, cost_level, freight_level = 1.0, 1.0, 1.0
    # Dollar totals scale with volume x cost: keep those products away from 1 as well.
    while min(abs(volume * cost_level - 1), abs(volume * freight_level - 1)) < 0.05:
        volume = _level(rng, 0.8, 1.2)  # a bigger or smaller company: all volumes move together
        cost_level = _level(rng, 0.85, 1.15)
        freight_level = _level(rng, 0.8, 1.2)

    def each(values: Mapping[str, float], level: float, spread: float, digits: int) -> dict[str, float]:
        return {
            k: float(round(v * level * rng.uniform(1 - spread, 1 + spread), digits))
            for k, v in values.items()
        }

    def near(value: float, spread: float, step: float) -> float:
        return _step(value * rng.uniform(1 - spread, 1 + spread), step)

    return replace(
        today,
        plant_capacity=each(today.plant_capacity, volume, 0.03, -3),
        production_cost=each(today.production_cost, cost_level, 0.03, 2),
        dc_capacity=each(today.dc_capacity, volume, 0.05, -3),
        handling_cost=each(today.handling_cost, cost_level, 0.03, 2),
        fixed_cost=each(today.fixed_cost, cost_level, 0.15, -4),
        demand=each(today.demand, volume, 0.03, -3),
        inbound_base=round(today.inbound_base * freight_level * rng.uniform(0.95, 1.05), 2),
        inbound_per_mile=round(today.inbound_per_mile * freight_level * rng.uniform(0.95, 1.05), 6),
        outbound_base=round(today.outbound_base * freight_level * rng.uniform(0.95, 1.05), 2),
        outbound_per_mile=round(today.outbound_per_mile * freight_level * rng.uniform(0.95, 1.05), 6),
        gross_margin=_fresh(near(today.gross_margin * cost_level, 0.1, 0.1), today.gross_margin, 0.1),
        short_ship_fine=_fresh(
            near(today.short_ship_fine * cost_level, 0.2, 0.1), today.short_ship_fine, 0.1
        ),
        cut_capacity=_fresh(near(today.cut_capacity * volume, 0.03, 5_000), today.cut_capacity, 5_000),
        peak_overtime_premium=_fresh(
            near(today.peak_overtime_premium * cost_level, 0.2, 0.05), today.peak_overtime_premium, 0.05
        ),
        intermodal_discount=_fresh(
            near(today.intermodal_discount, 0.3, 0.01), today.intermodal_discount, 0.01
        ),
        uplift={k: near(v, 0.15, 0.01) for k, v in today.uplift.items()},
    )


def _fit(rng: np.random.Generator, inputs: Inputs, net: Network, s: dict[str, Any]) -> Inputs:
    """The figures the persona hears from others, sized the way the story has them against the first solve.

    Dallas' new contract is a rise on the file rate; Reno's overtime offer is more than the plan can
    use, at a premium under Reno's shadow price; the promo overshoots plant capacity a little, and
    Joliet's weekend shifts are more than that gap.
    """
    today = Inputs()
    today_rise = today.dallas_contract_handling - 0.94  # seed 0's file rate
    rno_dual = s["base"].plant_dual[OVERTIME_PLANT]
    usable = s["base"].flows[(PEAK_OVERTIME_PLANT, "STK")]  # the Joliet volume Reno overtime would displace
    # Sales' uplift, scaled as a whole so the promo overshoots plant capacity by about what it does today.
    plant_capacity = s["total_plant_capacity"]
    target = plant_capacity * rng.uniform(1.008, 1.016) - s["total_demand"]
    lifted = sum(r.demand * inputs.uplift.get(r.code, 0.0) for r in net.regions)
    uplift = {k: _step(v * target / lifted, 0.01) for k, v in inputs.uplift.items()}
    gap = sum(r.demand * (1 + uplift.get(r.code, 0.0)) for r in net.regions) - plant_capacity
    return replace(
        inputs,
        uplift=uplift,
        dallas_contract_handling=_fresh(
            _step(net.dc(DALLAS_FILE_HANDLING).handling_cost + today_rise * rng.uniform(0.7, 1.3), 0.01),
            today.dallas_contract_handling,
            0.01,
        ),
        overtime_cases=_fresh(
            math.ceil(usable * rng.uniform(1.3, 1.8) / 5_000) * 5_000.0, today.overtime_cases, 5_000
        ),
        overtime_premium=_fresh(
            _step(rno_dual * rng.uniform(0.75, 0.92), 0.05), today.overtime_premium, 0.05, up=False
        ),
        peak_overtime_cases=_fresh(
            math.ceil(gap * rng.uniform(1.1, 1.45) / 5_000) * 5_000.0, today.peak_overtime_cases, 5_000
        ),
    )


def instance(seed: int = 0) -> tuple[Inputs, Network, dict[str, Any]]:
    """The inputs, network and solution of one instance; seed 0 is the scenario as first written.

    Other seeds draw inputs from ``numpy.random.default_rng(seed)`` until the script's story holds.
    """
    if not seed:
        inputs = Inputs()
        net = generate(inputs)
        s = solve(net, inputs)
        if broken := story_breaks(net, inputs, s):
            raise AssertionError(f"the scenario as written breaks its own story: {broken}")
        return inputs, net, s
    rng = np.random.default_rng(seed)

    def candidate() -> tuple[Inputs, Network, dict[str, Any]] | None:
        inputs = _draw(rng)
        net = generate(inputs)
        try:
            inputs = _fit(rng, inputs, net, solve(net, inputs))
            return inputs, net, solve(net, inputs)
        except RuntimeError as exc:  # e.g. the protected region cannot be served at all
            logger.debug("seed %d: draw rejected (%s)", seed, exc)
            return None

    drawn = redraw(candidate, lambda c: story_breaks(c[1], c[0], c[2]), fail=f"no inputs for seed {seed} keep the story true")
    assert drawn is not None  # redraw raises when it gives up
    return drawn
