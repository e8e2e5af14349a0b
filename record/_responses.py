"""The public ``responses.jsonl`` shape: what an agent did in each turn of a scenario."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from modylbench.scenarios import IdStr, MutationType

MAX_TURN_TEXT = 65_536
"""Characters of speech and chat (``agent_response`` plus every chat message) one turn may hold to be scored.

About 10,000 words: far past a spoken answer (a minute is ~900 words) or a live turn's chat. Above it the
offline judge's reading of one clause grows faster than linearly, so ``evaluate`` skips such a line."""
MAX_TURN_CHAT = 2_000
"""Chat messages one turn may hold to be scored."""
MAX_RUN_TEXT = 1_048_576
"""Characters of speech and chat a whole run (one line of responses.jsonl) may hold to be scored."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class WorkProduct(_Model):
    """A deliverable as handed over: its type, content (plain JSON or text) and description."""

    output_type: IdStr = Field(description="spreadsheet, document, chart, dashboard, kv or list.")
    content: Any = Field(description="The product's content (docs/products.md) or text.")
    description: str = Field(default="", description="What it is.")
    product_id: IdStr | None = Field(default=None, description="Product id in the shared document, if any.")


class PersonaReply(_Model):
    """What the persona told the agent in reply to one of its questions (ours; from the record's
    ``question_asked`` / ``persona_answer`` events)."""

    question: str = Field(description="The agent's question, in its words.")
    knowledge: list[str] = Field(default_factory=list, description="Ids of the knowledge items the answer gave.")
    outcome: str = Field(default="answered", description="answered, unknown or deliverable.")
    text: str = Field(default="", description="What the persona said or posted.")


class PersonaChallengeNote(_Model):
    """A wrong figure the persona challenged at the start of this turn and how the agent answered (ours; from
    the record's ``persona_challenge`` events; ``evaluate`` takes no file's word for it)."""

    fact_id: str = Field(description="The expected fact challenged.")
    fact_turn: int = Field(ge=0, description="The turn the fact and the wrong figure belong to.")
    figure: str = Field(description="The agent's figure, as it said it.")
    outcome: str = Field(description="corrected, defended or not_answered (the persona's reading of this turn).")
    text: str = Field(default="", description="What the persona said or posted.")


class TurnResponse(_Model):
    """The agent's response to one persona turn."""

    turn_index: int = Field(ge=0, description="Scenario turn answered.")
    agent_response: str = Field(default="", description="What the agent said (transcript).")
    a2ui_surfaces: list[Any] | None = Field(default=None, description="UI surfaces the agent produced, if any.")
    chat_messages: list[str] = Field(default_factory=list, description="Chat messages the agent posted.")
    latency_ms: float | None = Field(default=None, ge=0, description="From end of persona speech to first response.")
    work_products: list[WorkProduct] = Field(default_factory=list, description="Products as of this turn, if given.")
    persona_replies: list[PersonaReply] = Field(
        default_factory=list,
        description="What the persona answered to the agent's questions this turn (ours; docs/scoring.md \"Asking\").",
    )
    persona_challenges: list[PersonaChallengeNote] | None = Field(
        default=None,
        description="Wrong figures the persona challenged at this turn's start (ours; docs/scoring.md \"Pushback\"); "
        "null when not recorded (a responses file), [] when the persona challenged nothing.",
    )


class Mutation(_Model):
    """One edit to a work product."""

    turn_index: int = Field(ge=0, description="Turn during which the edit happened.")
    product_id: IdStr = Field(description="Product edited.")
    mutation_type: MutationType = Field(description="One of the 23 public mutation types.")
    path: str = Field(description="RFC 6901 pointer into the product; empty for create.")
    old_value: Any = Field(default=None, description="Value before the edit.")
    new_value: Any = Field(default=None, description="Value after the edit.")


class ScenarioResponses(_Model):
    """One line of responses.jsonl: an agent's whole run of one scenario."""

    scenario_id: IdStr = Field(description="Scenario answered.")
    model_id: IdStr = Field(description="Agent or model that answered.")
    trial: int | None = Field(default=None, ge=0, description="Trial number when a pair was run several times.")
    turns: list[TurnResponse] = Field(description="Per-turn responses.")
    work_products: list[WorkProduct] = Field(default_factory=list, description="Final deliverables.")
    mutation_trajectory: list[Mutation] | None = Field(default=None, description="Edits in order, if recorded.")
    measurements: dict[str, Any] | None = Field(default=None, description="Per-session measurements (ours).")
    termination_reason: IdStr | None = Field(default=None, description="How the session ended, if recorded (ours).")
    turns_played: int | None = Field(
        default=None, ge=0,
        description="The number of scenario turns the session played, from turn 0; null when unknown.",
    )
    turns_scheduled: int | None = Field(
        default=None, ge=0,
        description="The number of scenario turns the harness scheduled (the whole meeting, or the --turns "
        "slice), from turn 0; what the line is scored against. Null: the whole scenario.",
    )
    scenario_seed: int | None = Field(
        default=None, ge=0,
        description="Instance of the built-in scenario answered (--seed; 0 the published data); null when unknown.",
    )
