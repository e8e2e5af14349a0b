"""Built-in scenario: top-line statistics of a three-arm Phase II hypertension trial for a go/no-go call.

``data`` generates patient-level blood-pressure exports from seeded inputs (build(0) is the committed trial, any
other seed a fresh one that keeps the story); ``solver`` solves the pre-specified analyses (ANCOVA, Hochberg,
responders, LOCF and multiple-imputation sensitivity, subgroups); ``instances`` picks the trial a seed builds;
``script`` writes the meeting, with the products from ``products`` and the phrasing from ``wording``.
"""

from __future__ import annotations

from modylbench.scenarios.builtin.hypertension.data import (
    SEED,
    Exports,
    Patient,
    TrialInputs,
    parse_csv,
    repair_units,
    to_csv,
)
from modylbench.scenarios.builtin.hypertension.instances import SENSITIVITY_AGREES, instance, story_breaks
from modylbench.scenarios.builtin.hypertension.script import SCENARIO_ID, build
from modylbench.scenarios.builtin.hypertension.solver import Comparison, Instance, multiple_imputation, solve
from modylbench.scenarios.builtin.hypertension.wording import words

__all__ = [
    "SCENARIO_ID",
    "SEED",
    "SENSITIVITY_AGREES",
    "Comparison",
    "Exports",
    "Instance",
    "Patient",
    "TrialInputs",
    "build",
    "instance",
    "multiple_imputation",
    "parse_csv",
    "repair_units",
    "solve",
    "story_breaks",
    "to_csv",
    "words",
]
