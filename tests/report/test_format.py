"""Numbers in the report are written as a person writes them: significant digits, separators, units."""

from __future__ import annotations

import pytest

from modylbench.scoring.report._content import render_content
from modylbench.scoring.report._format import cell, number, numbers_in


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (57.49999999999, "57.5"),
        (0.30000000000000004, "0.3"),
        (8450000.0, "8,450,000"),
        (12345.6, "12,346"),  # %g would write 1.235e+04
        (1234567, "1,234,567"),
        (2024, "2024"),  # a year keeps no separator
        (9999.5, "10,000"),
        (0.000123456, "0.0001235"),
        (-3.0, "-3"),
        (-45000.5, "-45,000"),
        (0.0, "0"),
        (None, "—"),
    ],
)
def test_number(x: float | None, text: str) -> None:
    assert number(x) == text


def test_units() -> None:
    assert number(12.5, unit="%") == "12.5%"
    assert number(-12000, unit="$") == "-$12,000"
    assert number(3.25, unit="x") == "3.25x"
    assert number(3.5, unit="s") == "3.5 s"


def test_raw_floats_in_a_check_reason() -> None:
    assert numbers_in("57.49999999999 vs expected 57.5 ±0.5%") == "57.5 vs expected 57.5 ±0.5%"
    assert numbers_in("8450000.0 in [8400000, 8500000]") == "8,450,000 in [8,400,000, 8,500,000]"
    # ids, dates and short numbers are left as they are
    assert numbers_in("exit_10x on 2024-01-05: 1.5 vs 12.25") == "exit_10x on 2024-01-05: 1.5 vs 12.25"


def test_cells_and_rows_in_the_products_order() -> None:
    assert cell(57.49999999999) == "57.5" and cell({"value": 12345.6, "formula": "=A1"}).endswith(
        ">12,346</span>"
    )
    # Rows follow the reference (P&L order), not the alphabet; keys it lacks follow in natural order.
    reference = {"pnl": {"revenue": {"y1": 1}, "ebitda": {"y1": 1}, "net_income": {"y1": 1}}}
    content = {
        "pnl": {
            "net_income": {"y1": 3.0},
            "exit_9x": {"y1": 1.0},
            "revenue": {"y1": 10.0},
            "exit_10x": {"y1": 2.0},
            "ebitda": {"y1": 4.0},
        }
    }
    html = render_content("spreadsheet", content, reference)
    order = [html.index(f"<th>{k}</th>") for k in ("revenue", "ebitda", "net_income", "exit_9x", "exit_10x")]
    assert order == sorted(order)
    # Without a reference, natural order: exit_9x before exit_10x.
    bare = render_content("spreadsheet", {"s": {"exit_10x": {"v": 1}, "exit_9x": {"v": 2}}})
    assert bare.index("exit_9x") < bare.index("exit_10x")
