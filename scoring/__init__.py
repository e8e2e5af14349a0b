"""Scoring: judges, the substance-weighted scorecard, mutation metrics, pass^k and ``modylbench evaluate``."""

from modylbench.scoring._asr import AsrSpecError, Heard, SpeechRecogniser
from modylbench.scoring._formula import (
    PRODUCT_DIMENSIONS,
    PRODUCT_WEIGHTS,
    TURN_DIMENSIONS,
    TURN_WEIGHTS,
    consensus,
    pass_hat_k,
    tier_of,
)
from modylbench.scoring._judges import Judge, JudgeSpecError, ProductItem, TurnItem, make_judges
from modylbench.scoring._models import (
    CheckOutcome,
    Comparison,
    ConfidenceInterval,
    Flakiness,
    ModelAggregate,
    MutationMetrics,
    PassK,
    ProductScore,
    ScenarioScore,
    Scorecard,
    SpeechAccount,
    TurnFlakiness,
    TurnScore,
    Verdict,
)
from modylbench.scoring._mutations import MUTATION_TAGS, classify_mutations, compute_metrics, values_equal
from modylbench.scoring._network import NETWORK_IMPAIRED_FLAG, network_flags
from modylbench.scoring._offline import FactEvidence, OfflineJudge, facts_stated
from modylbench.scoring._responses_io import read_responses, read_scorecard, write_scorecard
from modylbench.scoring._scorecard import AGENT_ERROR_FLAG, aggregate, score, score_async, summarise
from modylbench.scoring._summary import INCOMPLETE_EXIT, print_summary, summary_console
from modylbench.scoring._uncertainty import compare, comparisons, format_interval, mean_interval, ties
from modylbench.scoring.report import build_report, write_report

__all__ = [
    "AsrSpecError",
    "Heard",
    "SpeechRecogniser",
    "AGENT_ERROR_FLAG",
    "NETWORK_IMPAIRED_FLAG",
    "network_flags",
    "INCOMPLETE_EXIT",
    "MUTATION_TAGS",
    "PRODUCT_DIMENSIONS",
    "PRODUCT_WEIGHTS",
    "TURN_DIMENSIONS",
    "TURN_WEIGHTS",
    "CheckOutcome",
    "Comparison",
    "ConfidenceInterval",
    "Flakiness",
    "TurnFlakiness",
    "compare",
    "comparisons",
    "format_interval",
    "mean_interval",
    "summarise",
    "ties",
    "FactEvidence",
    "Judge",
    "JudgeSpecError",
    "ModelAggregate",
    "MutationMetrics",
    "OfflineJudge",
    "PassK",
    "ProductItem",
    "ProductScore",
    "ScenarioScore",
    "Scorecard",
    "SpeechAccount",
    "TurnItem",
    "TurnScore",
    "Verdict",
    "aggregate",
    "build_report",
    "classify_mutations",
    "compute_metrics",
    "facts_stated",
    "consensus",
    "make_judges",
    "pass_hat_k",
    "print_summary",
    "summary_console",
    "read_responses",
    "read_scorecard",
    "score",
    "score_async",
    "tier_of",
    "values_equal",
    "write_report",
    "write_scorecard",
]
