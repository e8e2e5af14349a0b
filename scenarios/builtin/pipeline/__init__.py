"""Built-in scenario: a RevOps VP and an analyst diagnose a Q3 drop in pipeline conversion from a CRM export.

The CRM export is generated (``data``) with one planted break (mid-market inbound SQL→opportunity conversion
collapses after a routing change in ISO week 31); ``solver`` recovers it with real statistics; ``products`` holds the
analysis rows and the product checks; ``script`` is the meeting. ``build(seed)`` with a non-zero seed plays the same
meeting on a fresh draw of the numbers.
"""

from __future__ import annotations

from .data import (
    BACKLOG_NAME,
    EXPORT_NAME,
    NEW_REP,
    REFRESH_NAME,
    SCENARIO_ID,
    SEED,
    SEGMENTS,
    CrmData,
    Inputs,
    Records,
    generate,
    parse_export,
)
from .instances import instance
from .script import build
from .solver import Solution, solve, story_breaks, two_proportion_z

__all__ = [
    "BACKLOG_NAME",
    "EXPORT_NAME",
    "NEW_REP",
    "REFRESH_NAME",
    "SCENARIO_ID",
    "SEED",
    "SEGMENTS",
    "CrmData",
    "Inputs",
    "Records",
    "Solution",
    "build",
    "generate",
    "instance",
    "parse_export",
    "solve",
    "story_breaks",
    "two_proportion_z",
]
