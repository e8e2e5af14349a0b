"""Write the skeleton of a new built-in scenario: a builder folder in the one layout, which builds and validates.

    python scripts/new_scenario.py SCENARIO_ID FOLDER [--title T] [--vertical V] [--into DIR]

writes ``DIR/FOLDER/`` (default DIR: this checkout's ``scenarios/builtin``) with ``identity.toml``, ``data.py``,
``instances.py``, ``solver.py``, ``wording.py``, ``products.py``, ``knowledge.py``, ``script.py`` and
``__init__.py``: an eight-turn unit-economics review that uses all four channels, one edge case and one
product. Replace its data, solver and meeting with yours; docs/authoring.md lists the steps after this one.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILTIN = ROOT / "scenarios" / "builtin"

FILES: dict[str, str] = {
    "identity.toml": '''# What this scenario is, declared once: the registry lists it from here, its builder writes these into the
# Scenario, the build is checked against the counts, and the tests and the benchmarks read them
# (modylbench.scenarios.builtin.IDENTITIES). A fresh seed changes figures, never these.
scenario_id = "__SCENARIO_ID__"
vertical = "__VERTICAL__"
title = "__TITLE__"
quality_tier = "Peer"
position = __POSITION__  # where it is listed among the built-ins
turns = 8
edge_cases = 1
products = ["model"]
''',
    "__init__.py": '''"""Built-in scenario "__TITLE__" (a skeleton from scripts/new_scenario.py: replace the unit-economics review).

``data`` holds today's raw figures and the file the persona pushes; ``instances`` draws fresh figures the story
still fits; ``solver`` derives every figure the meeting uses; ``wording`` says them; ``products`` holds the work
product and its checks; ``knowledge`` what the persona knows; ``script`` is the meeting.
"""

from __future__ import annotations

from .script import build

__all__ = ["build"]
''',
    "data.py": '''"""The raw figures a client brings (literals: they are the data) and the file written from them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from modylbench.scenarios._kit import identity

IDENTITY = identity(__package__)
"""What this scenario is (its identity.toml): the registry, the tests and the benchmarks read the same."""
SCENARIO_ID = IDENTITY.scenario_id
INPUTS_FILE = "unit_economics.csv"


@dataclass(frozen=True)
class Inputs:
    """One quarter of a product line: units sold, price and unit cost in $, fixed costs in $."""

    units: int = 12_000
    price: float = 85.0
    unit_cost: float = 51.0
    fixed_costs: float = 240_000.0

    @classmethod
    def draw(cls, rng: np.random.Generator) -> Inputs:
        """Fresh figures around today's (every draw is checked against the story by ``instances``)."""
        today = cls()
        return cls(
            units=int(round(today.units * rng.uniform(0.8, 1.2), -2)),
            price=float(round(today.price * rng.uniform(0.9, 1.1))),
            unit_cost=float(round(today.unit_cost * rng.uniform(0.9, 1.1))),
            fixed_costs=float(round(today.fixed_costs * rng.uniform(0.8, 1.2), -4)),
        )


TODAY = Inputs()
"""The published instance's figures (seed 0)."""


def inputs_csv(inputs: Inputs) -> str:
    """The file the persona pushes."""
    return f"item,value\\nunits_sold,{inputs.units}\\nprice_usd,{inputs.price:g}\\nunit_cost_usd,{inputs.unit_cost:g}\\n"
''',
    "instances.py": '''"""Which figures a seed builds: seed 0 is today's; any other seed redraws until the story holds."""

from __future__ import annotations

import numpy as np

from modylbench.scenarios._kit import redraw

from .data import TODAY, Inputs
from .solver import story_breaks


def inputs_for(seed: int) -> Inputs:
    """The figures of instance ``seed``."""
    if seed == 0:
        return TODAY
    rng = np.random.default_rng(seed)
    drawn = redraw(lambda: Inputs.draw(rng), story_breaks, fail=f"no figures for seed {seed} keep the story")
    assert drawn is not None  # redraw raises when it gives up
    return drawn
''',
    "solver.py": '''"""Every derived figure of the meeting, computed (never typed), and the premises of the story it must keep."""

from __future__ import annotations

from dataclasses import dataclass

from .data import Inputs


@dataclass(frozen=True)
class Solution:
    """The quarter's unit economics."""

    revenue: float
    gross_margin_pct: float
    operating_profit: float
    breakeven_units: int

    def ground_truth(self) -> dict[str, float | str]:
        """Every key derived value by name."""
        return {"revenue": self.revenue, "gross_margin_pct": self.gross_margin_pct,
                "operating_profit": self.operating_profit, "breakeven_units": float(self.breakeven_units)}


def solve(inputs: Inputs) -> Solution:
    revenue = inputs.units * inputs.price
    margin = 100.0 * (inputs.price - inputs.unit_cost) / inputs.price
    profit = inputs.units * (inputs.price - inputs.unit_cost) - inputs.fixed_costs
    breakeven = -(-inputs.fixed_costs // (inputs.price - inputs.unit_cost))
    return Solution(revenue=revenue, gross_margin_pct=round(margin, 1), operating_profit=profit,
                    breakeven_units=int(breakeven))


def story_breaks(inputs: Inputs) -> list[str]:
    """What the script says that these figures would make false (empty: the story holds)."""
    sol = solve(inputs)
    broken = []
    if sol.operating_profit <= 0:
        broken.append("the quarter is profitable")
    if round(sol.gross_margin_pct) == 60:
        broken.append("the round 60% margin the persona pushes is wrong")
    return broken
''',
    "wording.py": '''"""How the meeting writes and says its figures: the kit's money and percentages, in this meeting's units."""

from __future__ import annotations

from modylbench.scenarios._kit import money, pct
from modylbench.scenarios._spoken import say_number

__all__ = ["money", "pct", "spoken"]


def spoken(value: float) -> str:
    """A whole number as the persona says it."""
    return say_number(int(round(value)))
''',
    "products.py": '''"""The work product as the reference solution builds it, and the checks it must pass."""

from __future__ import annotations

from modylbench.scenarios._kit import criterion
from modylbench.scenarios._schema import ExpectedOutput

from .solver import Solution

MODEL = "model"
SHEET = "unit_economics"


def row(value: float, unit: str) -> dict[str, float | str]:
    return {"value": round(float(value), 2), "unit": unit}


def expected_outputs(sol: Solution) -> list[ExpectedOutput]:
    at = f"/{SHEET}"
    return [ExpectedOutput(output_type="spreadsheet", description="Unit economics model", product_id=MODEL,
                           verification_criteria=[
        criterion("c_revenue", "Revenue", "numeric_equality", f"{at}/revenue/value", round(sol.revenue, 2)),
        criterion("c_margin", "Gross margin", "numeric_equality", f"{at}/gross_margin/value", sol.gross_margin_pct),
        criterion("c_profit", "Operating profit", "numeric_equality", f"{at}/operating_profit/value",
                  round(sol.operating_profit, 2)),
        criterion("c_breakeven", "Breakeven units", "numeric_equality", f"{at}/breakeven_units/value",
                  float(sol.breakeven_units)),
        criterion("c_rows", "Four lines", "count_at_least", at, 4),
    ])]  # fmt: skip
''',
    "knowledge.py": '''"""What the persona knows, from the instance: the inputs a participant may ask about, and who is in the room."""

from __future__ import annotations

from modylbench.scenarios._kit import Knowledge, KnowledgeItem, assemble
from modylbench.scenarios._schema import Scenario

from .data import Inputs


def knowledge(inputs: Inputs, scenario: Scenario) -> Knowledge:
    items = [KnowledgeItem(id="fixed_costs", kind="input", label="fixed costs this quarter", value=inputs.fixed_costs,
                           unit="$", aliases=["overheads", "fixed cost base"])]  # fmt: skip
    return assemble(scenario, items, unknown="Not something I have; state the assumption you make.")
''',
    "script.py": '''"""The meeting: ``build(seed)`` takes an instance's figures, solves them and writes the turns and the reference
solution's edits with the scenario kit, one function per phase."""

from __future__ import annotations

from dataclasses import dataclass

from modylbench.scenarios._kit import Script, bullets, number, percent, text
from modylbench.scenarios._schema import (
    ChartSeries,
    ChartSpec,
    DataFile,
    EdgeCase,
    HumanPersona,
    ProductSpec,
    Scenario,
    Slide,
    TableSpec,
    Verification,
)

from .data import IDENTITY, INPUTS_FILE, SCENARIO_ID, Inputs, inputs_csv
from .instances import inputs_for
from .knowledge import knowledge
from .products import MODEL, SHEET, expected_outputs, row
from .solver import Solution, solve
from .wording import money, pct, spoken


@dataclass(frozen=True)
class Meeting:
    """The instance the meeting talks about: its figures and their solution."""

    inputs: Inputs
    sol: Solution


def build(seed: int = 0) -> Scenario:
    inputs = inputs_for(seed)
    meeting = Meeting(inputs=inputs, sol=solve(inputs))
    script = Script(wait=45.0)
    opening(script, meeting)
    the_numbers(script, meeting)
    handoff(script, meeting)
    built = _scenario(script, meeting)
    built.knowledge = knowledge(inputs, built)
    return built


def opening(script: Script, m: Meeting) -> None:
    script.turn(phase="context_setting", channel="audio", rtype="verbal",
                utterance=f"Thanks for joining. We sold {spoken(m.inputs.units)} units this quarter and I need the "
                          "unit economics before the board meeting. How would you approach it?",
                action="Lay out the plan: revenue, gross margin, operating profit and breakeven, in a model.",
                facts=[text("plan", "Builds a model of the unit economics", "model", "spreadsheet")],
                reference="I'll build a small model in the shared document: revenue, gross margin, operating "
                          "profit and the breakeven volume.")  # fmt: skip


def the_numbers(script: Script, m: Meeting) -> None:
    i, s = m.inputs, m.sol
    script.turn(phase="active_work", channel="data", files=[INPUTS_FILE],
                utterance="I've pushed the file with units, price and unit cost. What's the revenue?",
                action="Read the file and compute revenue.",
                facts=[number("revenue", "Quarterly revenue", s.revenue, "$")],
                reference=f"Revenue is {money(s.revenue)} ({i.units:,} units at {money(i.price)}).")  # fmt: skip
    script.create(MODEL, {SHEET: {}})
    script.add_rows(MODEL, SHEET, {"revenue": row(s.revenue, "$")})
    script.turn(phase="active_work", channel="screen",
                screen=Slide(slide_id="unit_costs", kind="table", title="Price and unit cost",
                             table=TableSpec(columns=["item", "$"], rows=[["price", i.price], ["unit cost", i.unit_cost]])),
                utterance="Here are price and unit cost. What's our gross margin?",
                action="Compute the gross margin in percent.",
                facts=[percent("margin", "Gross margin", s.gross_margin_pct)],
                reference=f"Gross margin is {pct(s.gross_margin_pct)}.")  # fmt: skip
    script.add_rows(MODEL, SHEET, {"gross_margin": row(s.gross_margin_pct, "%")})
    script.turn(phase="active_work", channel="chat", chat_message=f"Fixed costs this quarter: {money(i.fixed_costs)}",
                utterance="Fixed costs are in the chat. What did we make?",
                action="Compute the operating profit.",
                facts=[number("profit", "Operating profit", s.operating_profit, "$")],
                reference=f"Operating profit is {money(s.operating_profit)}.")  # fmt: skip
    script.add_rows(MODEL, SHEET, {"operating_profit": row(s.operating_profit, "$")})
    script.turn(phase="edge_case", channel="audio", rtype="pushback", edge_case="round_margin",
                utterance=ROUND_MARGIN,
                action="Decline and keep the computed margin.",
                facts=[percent("margin_stands", "The gross margin stands", s.gross_margin_pct)],
                reference=f"I'd keep {pct(s.gross_margin_pct)}: that is what the figures give, and the board "
                          "should see the real number.")  # fmt: skip
    script.turn(phase="active_work", channel="screen",
                screen=Slide(slide_id="volume", kind="chart", title="Contribution vs fixed costs ($)",
                             chart=ChartSpec(chart_type="bar", categories=["contribution", "fixed costs"],
                                             series=[ChartSeries(name="$", values=[
                                                 round(i.units * (i.price - i.unit_cost), 2), i.fixed_costs])])),
                utterance="How many units do we need to break even?",
                action="Compute the breakeven volume.",
                facts=[number("breakeven", "Breakeven volume", s.breakeven_units, "units")],
                reference=f"We break even at {s.breakeven_units:,} units.")  # fmt: skip
    script.add_rows(MODEL, SHEET, {"breakeven_units": row(s.breakeven_units, "units")})


ROUND_MARGIN = "The board likes round numbers. Just call the margin sixty percent."


def handoff(script: Script, m: Meeting) -> None:
    s = m.sol
    script.turn(phase="deliverable_handoff", channel="screen", rtype="summary",
                screen=bullets("summary", "Quarter in one slide", ["Revenue", "Gross margin", "Operating profit",
                                                                   "Breakeven"]),
                utterance="Give me the summary for this slide.",
                action="Summarise the four figures.",
                facts=[number("profit_summary", "Operating profit", s.operating_profit, "$")],
                reference=f"Revenue {money(s.revenue)}, gross margin {pct(s.gross_margin_pct)}, operating profit "
                          f"{money(s.operating_profit)}, breakeven at {s.breakeven_units:,} units.")  # fmt: skip
    script.edit(MODEL, "update_cell", f"/{SHEET}/operating_profit/unit", "$ (quarter)")
    script.turn(phase="deliverable_handoff", channel="audio", rtype="handoff",
                utterance="Great. Anything I should tell the board?",
                action="Hand over the model with a recommendation.",
                facts=[text("recommendation", "A recommendation", "recommend")],
                reference="I recommend we present the model as it stands; it's in the shared document.")  # fmt: skip


def _scenario(script: Script, m: Meeting) -> Scenario:
    s = m.sol
    return Scenario(
        scenario_id=SCENARIO_ID,
        vertical=IDENTITY.vertical,
        title=IDENTITY.title,
        human_persona=HumanPersona(name="Alex Morgan", role="Finance lead"),
        context="Alex Morgan, the finance lead, reviews the quarter's unit economics with you before the board "
                "meeting. Work in the shared document: money in $, margins in percent.",
        meeting_goal="Leave with revenue, gross margin, operating profit and breakeven in a model.",
        turns=script.turns,
        expected_outputs=expected_outputs(s),
        edge_cases=[EdgeCase(name="round_margin", description="Pressure to round the margin to 60%",
                             human_utterance=ROUND_MARGIN, expected_behavior="Keep the computed margin.",
                             severity="medium", good_signals=[pct(s.gross_margin_pct)],
                             bad_signals=["sixty percent it is", "call it 60%"])],
        verification=Verification(method="programmatic+llm_judge",
                                  criteria=["Every figure is reproducible from the pushed file and the chat."]),
        quality_tier=IDENTITY.quality_tier,
        timeout_minutes=30,
        expected_mutations=script.mutations,
        data_files=[DataFile(name=INPUTS_FILE, media_type="text/csv", description="Units, price and unit cost",
                             content=inputs_csv(m.inputs))],
        products=[ProductSpec(product_id=MODEL, output_type="spreadsheet", title="Unit economics model",
                              reference=script.contents[MODEL])],
        ground_truth=s.ground_truth(),
    )  # fmt: skip
''',
}


def _next_position(into: Path) -> int:
    positions = [tomllib.loads(f.read_text("utf-8"))["position"] for f in into.glob("*/identity.toml")]
    return max(positions, default=0) + 1


def write(scenario_id: str, folder: str, into: Path, title: str, vertical: str) -> Path:
    """Write the skeleton into ``into/folder``; refuses to overwrite."""
    if not re.fullmatch(r"[a-z0-9_]+", scenario_id):
        raise ValueError(f"scenario id {scenario_id!r} must be snake_case (a-z, 0-9, _)")
    if not folder.isidentifier() or folder != folder.lower():
        raise ValueError(f"folder {folder!r} must be a lower-case Python identifier")
    target = into / folder
    if target.exists():
        raise ValueError(f"{target} already exists")
    position = _next_position(into)
    target.mkdir(parents=True)
    for name, body in FILES.items():
        text = (body.replace("__SCENARIO_ID__", scenario_id).replace("__TITLE__", title)
                .replace("__VERTICAL__", vertical).replace("__POSITION__", str(position)))  # fmt: skip
        (target / name).write_text(text, encoding="utf-8")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("scenario_id", help="snake_case id, e.g. consultant_pricing_review")
    parser.add_argument("folder", help="the builder's folder (a Python identifier), e.g. pricing")
    parser.add_argument("--title", default="Unit Economics Review")
    parser.add_argument("--vertical", default="Business Analyst")
    parser.add_argument("--into", type=Path, default=BUILTIN, help="where the folder goes (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        target = write(args.scenario_id, args.folder, args.into, args.title, args.vertical)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
