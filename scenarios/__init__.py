"""Scenario schema, loaders, programmatic checks and the built-in scenarios (the dependency leaf)."""

from modylbench.scenarios._briefing import briefing, deliverables
from modylbench.scenarios._checks import CheckResult, as_number, cell_value, numbers_close, run_check
from modylbench.scenarios._loader import (
    ScenarioLoadError,
    builtin_ids,
    load_builtin,
    load_file,
    load_path,
    parse_scenario,
    resolve_scenarios,
)
from modylbench.scenarios._pointer import PointerError, make_pointer, parse_pointer, resolve, set_at
from modylbench.scenarios._products import apply_mutation, apply_mutations
from modylbench.scenarios._public import merge_extensions, persona_text, to_public
from modylbench.scenarios._templates import Part, ProductTemplate, SheetTemplate, humanise
from modylbench.scenarios._schema import (
    CHANNELS,
    MUTATION_TYPES,
    PHASES,
    PRODUCT_TYPES,
    ChartSeries,
    ChartSpec,
    DataFile,
    EdgeCase,
    ExpectedFact,
    ExpectedMutation,
    ExpectedOutput,
    HumanPersona,
    PersonaVoice,
    ProductSpec,
    Scenario,
    Slide,
    TableSpec,
    Turn,
    Verification,
    VerificationCriterion,
)

__all__ = [
    "CHANNELS", "MUTATION_TYPES", "PHASES", "PRODUCT_TYPES",
    "ChartSeries", "ChartSpec", "CheckResult", "DataFile", "EdgeCase", "ExpectedFact", "ExpectedMutation",
    "ExpectedOutput", "HumanPersona", "PersonaVoice", "PointerError", "ProductSpec", "Scenario",
    "ScenarioLoadError", "Slide", "TableSpec", "Turn", "Verification", "VerificationCriterion",
    "Part", "ProductTemplate", "SheetTemplate", "briefing", "deliverables", "humanise",
    "apply_mutation", "apply_mutations", "as_number", "builtin_ids", "cell_value", "load_builtin",
    "load_file", "load_path", "make_pointer", "merge_extensions", "numbers_close", "parse_pointer",
    "parse_scenario", "persona_text", "resolve", "resolve_scenarios", "run_check", "set_at", "to_public",
]
