"""Built-in scenario: a strategist sizes six Southeast Asian telehealth markets, ranks them and values entry.

The client's research pack is a literal input table (``data``); ``solve()`` derives TAM/SAM/SOM, the weighted
country scores (and their sensitivity to the weights), a 5-year projection and NPV (``solver``); ``build()``
writes the meeting around those figures (``script``, with the products' contents in ``products`` and the
wording of figures in ``wording``). ``inputs(seed)`` draws fresh instances the script fits (``instances``).
"""

from __future__ import annotations

from modylbench.scenarios.builtin.telehealth.data import (
    COMPETITOR_FILE,
    COST_FILE,
    CRITERIA,
    HORIZON,
    MARKET_COLUMNS,
    MARKET_FILE,
    REGULATORY_FILE,
    TODAY,
    Costs,
    Inputs,
    Market,
    MarketData,
    data_files,
    generate,
    key,
    parse_files,
)
from modylbench.scenarios.builtin.telehealth.instances import inputs, story_breaks
from modylbench.scenarios.builtin.telehealth.script import SCENARIO_ID, build
from modylbench.scenarios.builtin.telehealth.solver import Projection, Solution, ground_truth, project, solve
from modylbench.scenarios.builtin.telehealth.wording import CRITERION_LABELS, billions, weights_said, words

__all__ = [
    "COMPETITOR_FILE",
    "COST_FILE",
    "CRITERIA",
    "CRITERION_LABELS",
    "HORIZON",
    "MARKET_COLUMNS",
    "MARKET_FILE",
    "REGULATORY_FILE",
    "SCENARIO_ID",
    "TODAY",
    "Costs",
    "Inputs",
    "Market",
    "MarketData",
    "Projection",
    "Solution",
    "billions",
    "build",
    "data_files",
    "generate",
    "ground_truth",
    "inputs",
    "key",
    "parse_files",
    "project",
    "solve",
    "story_breaks",
    "weights_said",
    "words",
]
