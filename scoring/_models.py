"""Pydantic models of the scorecard (``scorecard.json``) and of one judge's verdict on one item."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from modylbench.record import TurnTaking
from modylbench.scenarios import IdStr


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Verdict(_Model):
    """One judge's scores for one turn or product, or the reason it could not score it."""

    judge: IdStr = Field(description="Judge spec, e.g. offline or openai/gpt-4o-mini.")
    dimensions: dict[str, float] | None = Field(description="Dimension -> score 1..10; null when unscored.")
    rationale: str = Field(default="", description="The judge's short explanation.")
    unscored_reason: str | None = Field(
        default=None, description="Why the judge gave no scores, if it did not."
    )
    flags: list[str] = Field(
        default_factory=list, description="Observations the judge raises (e.g. prompt_injection)."
    )


class CheckOutcome(_Model):
    """One programmatic verification criterion run on a delivered product."""

    criterion_id: IdStr = Field(description="Criterion id from the scenario.")
    passed: bool = Field(description="Whether the check passed.")
    required: bool = Field(description="Whether it counts toward the correctness bound.")
    reason: str = Field(description="What was compared.")


class TurnScore(_Model):
    """A journey item: the agent's handling of one persona turn."""

    turn_index: int = Field(description="Scenario turn.")
    score: float | None = Field(description="Weighted, capped score 1..10 (unrounded); null when unscored.")
    capped: bool = Field(description="The hard floor applied (context_accuracy or task_progress < 4).")
    dimensions: dict[str, float] = Field(description="Consensus score per dimension.")
    judges: list[Verdict] = Field(description="Each judge's verdict.")
    flags: list[str] = Field(description="hard_floor, judge_disagreement, no_response, ...")
    unscored_reason: str | None = Field(
        default=None, description="Why the item has no score, if it has none."
    )


class ProductScore(_Model):
    """A destination item: one expected output and the delivered product matched to it."""

    product_id: IdStr | None = Field(description="Product id (expected or delivered).")
    output_type: IdStr = Field(description="Expected output type.")
    score: float | None = Field(description="Weighted, capped score 1..10 (unrounded); null when unscored.")
    capped: bool = Field(description="A cap applied (hard floor, trajectory rule or not delivered).")
    dimensions: dict[str, float] = Field(description="Consensus score per dimension (after the check bound).")
    judges: list[Verdict] = Field(description="Each judge's verdict.")
    flags: list[str] = Field(description="hard_floor, not_delivered, no_trajectory_evidence, ...")
    checks: list[CheckOutcome] = Field(description="Programmatic checks run on the delivered content.")
    correctness_bound: float | None = Field(default=None, description="1 + 9 x required passed / required.")
    expected_mutations_matched: int | None = Field(
        default=None, description="Expected mutations seen in the trajectory."
    )
    expected_mutations_total: int | None = Field(
        default=None, description="Expected mutations of this product."
    )
    unscored_reason: str | None = Field(
        default=None, description="Why the item has no score, if it has none."
    )


class MutationMetrics(_Model):
    """Trajectory metrics against the scenario's expected mutations (docs/scoring.md gives the rules)."""

    source: str = Field(
        description="trajectory (as given), snapshots (derived from per-turn products) or none."
    )
    total: int = Field(description="Mutations in the trajectory.")
    expected: int = Field(description="Expected mutations in the scenario.")
    correct: int = Field(description="Trajectory mutations matching an expected one (product, path, value).")
    incorrect: int = Field(description="Unmatched mutations that were not reverted within 2 turns.")
    unnecessary: int = Field(description="Unmatched mutations reverted within 2 turns.")
    missing: int = Field(description="Expected mutations never matched.")
    destructive: int = Field(description="Changes that replaced a correct value with an incorrect one.")
    backtracks: int = Field(description="Changes that set a value back to one the path held before.")
    efficiency: float | None = Field(description="correct / total; null when there are no mutations.")
    convergence_rate: float | None = Field(
        description="Fraction of turns after the last change; null with none."
    )
    per_product_convergence: dict[str, float] = Field(default_factory=dict, description="Same, per product.")
    on_time: int = Field(
        default=0, description="Expected edits (creates aside) whose value was there, by meaning, within the window."
    )
    late: int = Field(default=0, description="Expected edits whose value only arrived after their window.")


class SpeechAccount(_Model):
    """How the agent's speech was taken (docs/scoring.md "What the agent said"), from the record."""

    recognition: bool = Field(description="Speech recognition (--asr) was used for this session.")
    voiced_s: float = Field(description="Seconds of agent speech (voice-activity detection).")
    recognised_s: float = Field(description="Of those, seconds recognition heard.")
    unrecognised_s: float = Field(description="Seconds recognition was asked about and could not hear (reasons in the record).")
    not_recognised_s: float = Field(description="Seconds nobody recognised (no --asr): declared words capped by voiced time.")
    words_per_voiced_second: float = Field(description="The cap on declared words without recognition.")


class ScenarioScore(_Model):
    """One scored line of responses.jsonl: a (scenario, model, trial)."""

    scenario_id: IdStr = Field(description="Scenario scored.")
    model_id: IdStr = Field(description="Agent or model scored.")
    trial: int = Field(description="Trial number of this (scenario, model) pair.")
    scenario_seed: int | None = Field(default=None, description="Instance of the built-in scenario the line "
                                      "was scored against (0: the published data); null for a scenario file.")
    turns_scheduled: int | None = Field(default=None, description="Turns the line was scored against (the "
                                        "scheduled slice); null: the whole scenario.")
    journey: float | None = Field(description="Mean turn score over scored turns.")
    destination: float | None = Field(description="Mean product score over scored products.")
    modylbench_score: float | None = Field(description="0.4 x journey + 0.6 x destination (unrounded).")
    tier: str | None = Field(
        description="Consultant, Mentor, Peer or Below Peer; null when unscored or incomplete."
    )
    quality_tier: str = Field(description="Tier the scenario requires to pass.")
    passed: bool | None = Field(
        description="Score reached the scenario's quality_tier threshold; null when unscored or incomplete."
    )
    turns: list[TurnScore] = Field(description="Journey items, one per scenario turn.")
    products: list[ProductScore] = Field(description="Destination items, one per expected output.")
    mutation_metrics: MutationMetrics = Field(description="Trajectory metrics.")
    flags: list[str] = Field(description="Scenario-level flags: agent_disconnected, no_trajectory, ...")
    termination_reason: str | None = Field(default=None, description="How the session ended, if recorded.")
    unscored: list[str] = Field(
        default_factory=list, description="Items left out of the means, with reasons."
    )
    speech: SpeechAccount | None = Field(
        default=None, description="How the agent's speech was taken: recognised, or declared and capped; null "
        "for responses without a record (evaluate).",
    )
    turn_taking: TurnTaking | None = Field(
        default=None, description="Responding, yielding, interrupting, backchannels and side speech, measured "
        "from the record (docs/scoring.md \"Turn-taking\"); shown beside the score, not part of it; null for "
        "responses without a record (evaluate).",
    )
    missing_verdicts: int = Field(
        default=0,
        description="Verdicts a judge of the panel could not give (outage, bad answers); any makes the run "
        "incomplete (flag incomplete): tier and passed are null until a re-run fills them from the cache.",
    )


class ConfidenceInterval(_Model):
    """Where a mean (or a difference) would likely fall if the same runs were played again
    (docs/scoring.md "Error bars": a seeded percentile bootstrap over seeds, trials and turns)."""

    low: float = Field(description="Lower bound (unrounded).")
    high: float = Field(description="Upper bound (unrounded).")
    level: float = Field(description="Confidence level, e.g. 0.95.")
    resamples: int = Field(description="Bootstrap replicates drawn.")
    seed_of: str = Field(description="What the bootstrap was seeded with (with a fixed salt): the same runs "
                         "under the same name always give the same interval.")


class TurnFlakiness(_Model):
    """One turn played in several trials of the same (scenario, seed, turns), and how its verdict varied."""

    scenario_id: IdStr = Field(description="Scenario.")
    scenario_seed: int | None = Field(description="Instance played (null when the runs do not say).")
    turn_index: int = Field(description="Scenario turn.")
    trials: int = Field(description="Trials in which the turn was scored.")
    reached: int = Field(description="Of those, trials whose turn score reached the scenario's quality-tier "
                         "threshold.")
    flip_rate: float = Field(description="Chance two of the trials, drawn without replacement, disagree on "
                             "reaching the threshold: 2c(n-c) / (n(n-1)).")
    tiers: list[str] = Field(description="Tiers the turn's score fell in across the trials.")


class Flakiness(_Model):
    """How often a model's verdicts change between trials of the same thing (docs/scoring.md "Error bars")."""

    turns_compared: int = Field(description="Turns scored in at least two trials of one (scenario, seed, turns).")
    verdict_flaky: int = Field(description="Of those, turns that reached the quality threshold in some trials "
                               "and not in others.")
    tier_flaky: int = Field(description="Turns whose tier differed between trials.")
    rate: float | None = Field(description="verdict_flaky / turns_compared; null with no turn in two trials.")
    mean_flip_rate: float | None = Field(description="Mean of the turns' flip_rate: the chance a turn's "
                                         "verdict differs between two trials.")
    cells_compared: int = Field(default=0, description="(scenario, seed, turns) cells with at least two "
                                "complete trials.")
    cells_pass_flaky: int = Field(default=0, description="Of those, cells whose run passed in some trials "
                                  "and failed in others.")
    flakiest: list[TurnFlakiness] = Field(default_factory=list, description="The turns flipping most, "
                                          "at most five.")


class Comparison(_Model):
    """Model a against model b, paired over the (scenario, seed, turns) cells both played."""

    model_a: IdStr = Field(description="The higher-ranked model.")
    model_b: IdStr = Field(description="The model it is compared with.")
    cells: int = Field(description="Shared cells the pairing is over (0: nothing comparable).")
    difference: float | None = Field(description="Mean over shared cells of (a's mean - b's mean); null "
                                     "without shared cells.")
    interval: ConfidenceInterval | None = Field(description="Interval of the difference.")
    distinguishable: bool | None = Field(description="The interval excludes 0: the gap is not noise at the "
                                         "runs given; null without shared cells.")
    trials_needed: int | None = Field(description="Roughly how many trials per cell would make a gap this "
                                      "size distinguishable (the interval narrows as 1/sqrt(trials)); the "
                                      "current count when it already is; null when the gap is 0 or unmeasured.")
    note: str = Field(description="The comparison in one sentence.")


class PassK(_Model):
    """pass^k of one (scenario, model) pair with n trials and c passes, and its mean score."""

    scenario_id: IdStr = Field(description="Scenario.")
    trials: int = Field(description="n: trials scored.")
    passes: int = Field(description="c: trials reaching the scenario's quality tier.")
    pass_k: dict[str, float] = Field(description="k -> C(c, k) / C(n, k), for k = 1..n.")
    mean_score: float | None = Field(default=None, description="Mean modylbench_score over the scenario's "
                                     "complete runs.")
    interval: ConfidenceInterval | None = Field(default=None, description="Confidence interval of mean_score.")


class ModelAggregate(_Model):
    """Aggregate over all scored lines of one model."""

    model_id: IdStr = Field(description="Agent or model.")
    runs: int = Field(description="Scored (scenario, trial) lines.")
    mean_score: float | None = Field(description="Mean modylbench_score over its complete runs.")
    tier: str | None = Field(description="Tier of the mean score; null when a run is incomplete.")
    pass_k: dict[str, float] = Field(
        description="k -> mean pass^k over scenarios with at least k complete trials."
    )
    per_scenario: list[PassK] = Field(description="pass^k per scenario.")
    incomplete_runs: int = Field(default=0, description="Runs left incomplete by a judge (not in the means).")
    interval: ConfidenceInterval | None = Field(default=None, description="Confidence interval of mean_score.")
    rank: int | None = Field(default=None, description="Place on the card (1 best) shared with every model "
                             "above it that it cannot be told apart from (see comparisons).")
    flakiness: Flakiness | None = Field(default=None, description="How often its turns' verdicts change "
                                        "between trials.")


class Scorecard(_Model):
    """``scorecard.json``: a pure function of (responses, scenarios, judges' outputs)."""

    modylbench_version: str = Field(description="Version of the package that scored.")
    judges: list[IdStr] = Field(description="The panel, as given.")
    scenarios: list[ScenarioScore] = Field(description="One entry per scored responses line.")
    aggregate: dict[str, ModelAggregate] = Field(description="Per model: mean score and interval, tier, pass^k.")
    comparisons: list[Comparison] = Field(
        default_factory=list, description="Models compared pairwise (best first), paired over scenarios and seeds."
    )
    skipped: list[dict[str, Any]] = Field(default_factory=list, description="Lines not scored, with reasons.")
    incomplete: bool = Field(
        default=False,
        description="Some judge could not score some item: scoring again with the same panel resumes it.",
    )
