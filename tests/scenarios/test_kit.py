"""The authoring kit's shared parts: the redraw loop, money and percent wording, and a builder's identity."""

from __future__ import annotations

import random

import pytest

from modylbench.scenarios._kit import MAX_DRAWS, identity, money, pct, redraw


def test_redraw_returns_the_first_candidate_that_keeps_the_story() -> None:
    rng = random.Random(3)
    seen: list[int] = []

    def draw() -> int | None:
        x = rng.randrange(100)
        seen.append(x)
        return None if x % 2 else x  # odd: rejected by a cheap check

    got = redraw(draw, lambda x: [] if x > 80 else [f"{x} is too small"])
    assert got is not None and got > 80 and got % 2 == 0 and seen[-1] == got
    assert all(x % 2 or x <= 80 for x in seen[:-1])


def test_redraw_gives_up_after_its_bound_and_says_what_broke() -> None:
    calls: list[int] = []
    assert redraw(lambda: calls.append(1) or 5, lambda _: ["never"], tries=7) is None
    assert len(calls) == 7
    calls.clear()
    with pytest.raises(RuntimeError, match=r"no draw for seed 9 fits in 500 draws; the last broke: never$"):
        redraw(lambda: calls.append(1) or 5, lambda _: ["never"], fail="no draw for seed 9 fits")
    assert len(calls) == MAX_DRAWS == 500


def test_money_says_its_unit_and_precision() -> None:
    assert money(1_234_567) == "$1,234,567"
    assert money(57.5, "M", None) == "$57.5M" and money(3.1416, "M", None) == "$3.14M" and money(0.1234, "M", None) == "$0.123M"
    # Fewest decimals: a negative figure is written as its magnitude (the sentence says "down", "less").
    assert money(-12.25, "M", None) == "$12.25M"
    assert money(4.1234, "M", 2) == "$4.12M" and money(38.46, "K", 1) == "$38.5K"
    assert money(150, "M", symbol="€") == "€150M" and money(0.94, decimals=2) == "$0.94"


def test_pct_is_written_in_percent_units() -> None:
    assert pct(24.63) == "24.6%" and pct(7.0, 0) == "7%" and pct(2.125, 2) == "2.12%"
    assert pct(24.6, None) == "24.6%" and pct(1.0625, None) == "1.06%" and pct(12.5, None) == "12.5%"


def test_every_builder_declares_a_well_formed_identity() -> None:
    got = identity("modylbench.scenarios.builtin.lbo")
    assert (got.scenario_id, got.turns, got.products[0]) == ("financial_analyst_lbo_model", 52, "lbo_model")
    with pytest.raises(ValueError, match="has no identity.toml"):
        identity("modylbench.scenarios.builtin.no_such_builder")
