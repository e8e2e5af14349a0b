"""Scenario schema, loaders, programmatic checks and the built-in scenarios (the dependency leaf)."""

from modylbench.scenarios._align import MISSING, Aligner, leaves, text_credit, value_credit
from modylbench.scenarios._briefing import briefing, deliverables
from modylbench.scenarios._checks import CheckResult, as_number, cell_value, numbers_close, run_check, text_of
from modylbench.scenarios._jsonl import (
    MAX_RECOGNITION_LINE,
    MAX_RECORD_LINE,
    MAX_RESPONSES_LINE,
    MAX_SCENARIO_LINE,
    bounded_lines,
)
from modylbench.scenarios._knowledge import (
    KNOWLEDGE_KINDS,
    WITHHELD_FACT_PREFIX,
    Knowledge,
    KnowledgeItem,
    designate_pushback,
    expected_values,
    knowledge_leaks,
    link_withheld,
    said_value,
    shown_text,
    withheld_fact_turn,
    wrong_figure,
)
from modylbench.scenarios._loader import (
    ScenarioLoadError,
    builtin_ids,
    load_builtin,
    load_file,
    load_path,
    parse_scenario,
    resolve_scenarios,
)
from modylbench.scenarios._playscript import play_script
from modylbench.scenarios._pointer import (
    PointerError,
    delete_at,
    make_pointer,
    parse_pointer,
    resolve,
    set_at,
)
from modylbench.scenarios._products import apply_mutation, apply_mutations, mutation_value
from modylbench.scenarios._public import merge_extensions, persona_text, to_public
from modylbench.scenarios._schema import (
    CHANNELS,
    MAX_ID_CHARS,
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
    IdStr,
    MutationType,
    PersonaVoice,
    ProductSpec,
    Scenario,
    Slide,
    TableSpec,
    Turn,
    Verification,
    VerificationCriterion,
)
from modylbench.scenarios._templates import Part, ProductTemplate, SheetTemplate, humanise
from modylbench.scenarios._values import (
    Quantity,
    close,
    has_term,
    label_similarity,
    label_tokens,
    normal_text,
    number_matches,
    parse_signal_number,
    quantities,
    quantity_spans,
    read_quantity,
    same_number,
    spoken_to_digits,
    text_words,
    unit_family,
)

__all__ = [
    "MAX_RECOGNITION_LINE", "MAX_RECORD_LINE", "MAX_RESPONSES_LINE", "MAX_SCENARIO_LINE", "bounded_lines",
    "KNOWLEDGE_KINDS", "Knowledge", "KnowledgeItem", "expected_values", "knowledge_leaks", "shown_text",
    "WITHHELD_FACT_PREFIX", "designate_pushback", "link_withheld", "said_value", "withheld_fact_turn", "wrong_figure",
    "CHANNELS", "MAX_ID_CHARS", "MUTATION_TYPES", "IdStr", "MutationType", "PHASES", "PRODUCT_TYPES",
    "ChartSeries", "ChartSpec", "CheckResult", "DataFile", "EdgeCase", "ExpectedFact", "ExpectedMutation",
    "ExpectedOutput", "HumanPersona", "PersonaVoice", "PointerError", "ProductSpec", "Scenario",
    "ScenarioLoadError", "Slide", "TableSpec", "Turn", "Verification", "VerificationCriterion",
    "MISSING", "Aligner", "Quantity", "close", "has_term", "label_tokens", "label_similarity", "leaves", "normal_text", "number_matches",
    "parse_signal_number", "quantities", "quantity_spans", "read_quantity", "same_number", "spoken_to_digits",
    "text_credit", "text_of", "text_words", "unit_family", "value_credit",
    "Part", "ProductTemplate", "SheetTemplate", "briefing", "deliverables", "humanise",
    "apply_mutation", "apply_mutations", "delete_at", "as_number", "builtin_ids", "cell_value", "load_builtin",
    "load_file", "load_path", "make_pointer", "mutation_value", "merge_extensions", "numbers_close", "parse_pointer",
    "parse_scenario", "persona_text", "play_script", "resolve", "resolve_scenarios", "run_check", "set_at", "to_public",
]
