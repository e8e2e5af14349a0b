"""Built-in scenario "CloudSync LBO Model": a PE vice president and the agent build a five-year LBO and IC memo.

``data`` holds the deal inputs, their draws and the files the VP pushes; ``solver`` runs the model (debt schedule
with sweep, PIK mezzanine, exit returns, IRR by root-finding, sensitivities); ``products`` turns a solved case into
the model's sheets, the chart and the product checks; ``script`` is the meeting. ``build(seed)`` draws fresh deal
inputs for the same meeting; seed 0 is the committed instance.
"""

from __future__ import annotations

from .data import (
    BASE_INPUTS,
    FINANCIALS_FILE,
    QUARTERLY_FILE,
    SCENARIO_ID,
    SEED,
    TERM_SHEET_FILE,
    YEARS,
    DealInputs,
    DealTerms,
    LboData,
    OperatingCase,
    generate_data,
)
from .instances import draw_inputs
from .products import _sens_key
from .script import build
from .solver import CaseResult, LboSolution, irr_pct, run_case, solve
from .wording import spoken_pct

__all__ = [
    "BASE_INPUTS",
    "FINANCIALS_FILE",
    "QUARTERLY_FILE",
    "SCENARIO_ID",
    "SEED",
    "TERM_SHEET_FILE",
    "YEARS",
    "CaseResult",
    "DealInputs",
    "DealTerms",
    "LboData",
    "LboSolution",
    "OperatingCase",
    "_sens_key",
    "build",
    "draw_inputs",
    "generate_data",
    "irr_pct",
    "run_case",
    "solve",
    "spoken_pct",
]
