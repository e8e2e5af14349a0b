"""Pydantic models of a ModylBench scenario: the public dataset fields plus our typed extensions.

Public fields are read and written exactly as the published JSONL files hold them. Fields that
only ModylBench uses (channel payloads, products, ground truth, judge hints) travel in
``metadata["modylbench"]`` when exported, so a public-format file round-trips losslessly.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from modylbench.scenarios._knowledge import Knowledge
from modylbench.scenarios._pointer import parse_pointer
from modylbench.scenarios._templates import ProductTemplate, derive_template, template_content

Channel = Literal["audio", "chat", "screen", "data"]
CHANNELS: tuple[str, ...] = ("audio", "chat", "screen", "data")

Phase = Literal["context_setting", "active_work", "edge_case", "deliverable_handoff"]
PHASES: tuple[str, ...] = ("context_setting", "active_work", "edge_case", "deliverable_handoff")

QualityTier = Literal["Consultant", "Mentor", "Peer"]
Severity = Literal["low", "medium", "high", "critical"]

MutationType = Literal[
    "create",
    "update_cell",
    "add_row",
    "delete_row",
    "add_column",
    "delete_column",
    "add_section",
    "delete_section",
    "update_section",
    "update_chart",
    "add_chart_series",
    "remove_chart_series",
    "add_widget",
    "remove_widget",
    "update_widget",
    "reformat",
    "reorder",
    "delete",
    "update_value",
    "add_key",
    "remove_key",
    "add_list_item",
    "remove_list_item",
]
MUTATION_TYPES: tuple[str, ...] = MutationType.__args__  # type: ignore[attr-defined]

ProductType = Literal["spreadsheet", "document", "chart", "dashboard", "kv", "list"]
PRODUCT_TYPES: tuple[str, ...] = ProductType.__args__  # type: ignore[attr-defined]

CheckType = Literal[
    "numeric_equality",
    "numeric_range",
    "contains",
    "not_contains",
    "one_of",
    "present",
    "count_at_least",
    "judge",
]

Scalar = float | int | str | bool | None
NonEmptyStr = Annotated[str, Field(min_length=1)]

MAX_ID_CHARS = 200
"""The longest identifier any input may carry (scenario, product, model, criterion, file, judge ...).

An id is repeated in every record line, scorecard item and report row that concerns it, so an
unbounded one multiplies into outputs (a 2 MB model id once made a 262 MB report)."""
IdStr = Annotated[str, Field(max_length=MAX_ID_CHARS)]
NonEmptyId = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False, validate_assignment=False)


# --------------------------------------------------------------------------- channel payloads


class ChartSeries(_Model):
    """One named series of a chart."""

    name: NonEmptyStr = Field(description="Legend name of the series.")
    values: list[float] = Field(description="One value per category, in category order.")


class ChartSpec(_Model):
    """A chart drawn on a slide or stored as a chart product."""

    chart_type: Literal["bar", "line", "stacked_bar", "scatter", "waterfall", "pie"] = Field(
        description="How the series are drawn."
    )
    categories: list[str] = Field(description="X-axis categories (or labels for pie slices).")
    series: list[ChartSeries] = Field(min_length=1, description="The data series.")
    x_label: str = Field(default="", description="X-axis label.")
    y_label: str = Field(default="", description="Y-axis label.")

    @model_validator(mode="after")
    def _lengths_match(self) -> ChartSpec:
        for s in self.series:
            if len(s.values) != len(self.categories):
                raise ValueError(
                    f"series '{s.name}' has {len(s.values)} values for {len(self.categories)} categories"
                )
        return self


class TableSpec(_Model):
    """A table shown on a slide."""

    columns: list[str] = Field(min_length=1, description="Column headings.")
    rows: list[list[Scalar]] = Field(description="Rows of cells, each as long as `columns`.")

    @model_validator(mode="after")
    def _widths_match(self) -> TableSpec:
        for i, row in enumerate(self.rows):
            if len(row) != len(self.columns):
                raise ValueError(f"row {i} has {len(row)} cells for {len(self.columns)} columns")
        return self


class Slide(_Model):
    """What the persona's screen share shows during a turn."""

    slide_id: NonEmptyId = Field(description="Stable id; the same id means the same picture.")
    kind: Literal["title", "bullets", "table", "chart"] = Field(description="Layout of the slide.")
    title: NonEmptyStr = Field(description="Heading drawn at the top.")
    subtitle: str = Field(default="", description="Smaller line under the heading.")
    bullets: list[str] = Field(default_factory=list, description="Bullet points (kind=bullets).")
    table: TableSpec | None = Field(default=None, description="The table (kind=table).")
    chart: ChartSpec | None = Field(default=None, description="The chart (kind=chart).")
    footnote: str = Field(default="", description="Source line at the bottom.")

    @model_validator(mode="after")
    def _payload_matches_kind(self) -> Slide:
        if self.kind == "table" and self.table is None:
            raise ValueError("a table slide needs `table`")
        if self.kind == "chart" and self.chart is None:
            raise ValueError("a chart slide needs `chart`")
        if self.kind == "bullets" and not self.bullets:
            raise ValueError("a bullets slide needs `bullets`")
        return self


class DataFile(_Model):
    """A file the persona can push to the agent over the files data channel."""

    name: NonEmptyId = Field(description="File name as the agent receives it (no folders).")
    media_type: NonEmptyStr = Field(description="IANA media type, e.g. text/csv.")
    description: str = Field(default="", description="What the file holds, for people.")
    content: str = Field(description="The file's text (generated deterministically from the scenario seed).")

    @field_validator("name")
    @classmethod
    def _plain_name(cls, v: str) -> str:
        if "/" in v or "\\" in v or v in (".", "..") or "\x00" in v:
            raise ValueError(f"file name {v!r} must be a plain name without folders")
        return v


class ExpectedFact(_Model):
    """A fact or figure a good answer to the turn states (used by the offline judge)."""

    id: NonEmptyId = Field(description="Stable id, unique within the scenario.")
    description: NonEmptyStr = Field(description="What the fact is.")
    value: float | str = Field(description="The value from the reference solution (number or text).")
    tolerance_pct: float = Field(default=0.5, ge=0, description="Allowed relative error for numbers, in %.")
    unit: str = Field(default="", description="Unit the number is usually said in: $M, %, x, bps, days ...")
    keywords: list[str] = Field(
        default_factory=list, description="Alternative wordings that also count (text facts)."
    )
    withheld: str | None = Field(
        default=None,
        description="Id of the withheld knowledge item only the persona's answer reveals: the fact counts once "
        "the persona gave it to the agent (docs/scoring.md \"Asking\"). Generated from the knowledge.",
    )
    pushback: bool = Field(
        default=False,
        description="The persona challenges a wrong figure for this fact at its next turn (docs/scoring.md "
        "\"Pushback\"). Designated by the generator.",
    )


class PersonaVoice(_Model):
    """How the persona sounds."""

    engine_voice: str = Field(default="en-us", description="eSpeak NG voice name for the embedded engine.")
    openai_voice: str = Field(default="alloy", description="Voice for OpenAI-compatible TTS.")
    words_per_minute: int = Field(default=175, ge=80, le=400, description="Speaking rate.")


class HumanPersona(_Model):
    """Who the agent is meeting with. Public field: a string; ours: the structured form."""

    name: NonEmptyStr = Field(description="Full name.")
    role: NonEmptyStr = Field(description="Job title and organisation.")
    goals: list[str] = Field(default_factory=list, description="What they want out of the meeting.")
    speaking_style: str = Field(default="", description="How they talk.")
    voice: PersonaVoice = Field(default_factory=PersonaVoice, description="Speech synthesis settings.")


AGENT = "agent"
"""``Turn.addressed_to`` for a line said to the agent under test."""
ROOM = "room"
"""``Turn.addressed_to`` for a line said to everyone in the meeting."""
MIN_PARTICIPANTS, MAX_PARTICIPANTS = 2, 4
"""How many people a multi-party meeting has besides the agent (docs/authoring.md "Several people")."""


class Participant(_Model):
    """One person in a multi-party meeting: who they are, what they want, how they sound, what they know."""

    name: NonEmptyId = Field(description="Full name; unique in the meeting; the first word is how people address them.")
    role: NonEmptyStr = Field(description="Job title and organisation.")
    agenda: list[str] = Field(default_factory=list, description="What this person wants out of the meeting.")
    voice: PersonaVoice = Field(default_factory=PersonaVoice, description="Their own voice (distinct in the meeting).")
    knowledge: Knowledge | None = Field(
        default=None, description="What this person knows and answers from (None: the host's knowledge, the scenario's)."
    )
    joins_at_turn: int = Field(default=0, ge=0, description="First turn this person is in the meeting (joins late).")
    leaves_after_turn: int | None = Field(
        default=None, ge=0, description="Last turn this person is in the meeting (leaves early); None: stays to the end."
    )

    @property
    def first_name(self) -> str:
        """How others address this person ('Priya' for 'Priya Raman')."""
        return self.name.split()[0]


class MeetingRoom(_Model):
    """The people in a multi-party meeting (docs/authoring.md "Several people"); absent: a one-to-one meeting."""

    agent_name: NonEmptyId = Field(description="What the people call the agent under test ('Alex').")
    participants: list[Participant] = Field(
        min_length=MIN_PARTICIPANTS, max_length=MAX_PARTICIPANTS,
        description="The human participants, the host first (the host is the scenario's human_persona).",
    )

    @model_validator(mode="after")
    def _distinct(self) -> MeetingRoom:
        names = [p.name for p in self.participants]
        firsts = [p.first_name.lower() for p in self.participants]
        if len(set(firsts)) != len(firsts):
            raise ValueError(f"participants: first names must differ (people address each other by them): {names}")
        if self.agent_name.split()[0].lower() in firsts:
            raise ValueError(f"agent_name {self.agent_name!r} shares a first name with a participant")
        for kind in ("engine_voice", "openai_voice"):
            voices = [getattr(p.voice, kind) for p in self.participants]
            if len(set(voices)) != len(voices):
                raise ValueError(f"participants: each needs a voice of their own ({kind}: {voices})")
        for p in self.participants:
            if p.leaves_after_turn is not None and p.leaves_after_turn < p.joins_at_turn:
                raise ValueError(f"participant {p.name!r} leaves before joining")
        return self

    def participant(self, name: str) -> Participant | None:
        """The participant with this full name, if any."""
        return next((p for p in self.participants if p.name == name), None)

    @property
    def host(self) -> Participant:
        """The person who runs the meeting (the scenario's human_persona)."""
        return self.participants[0]


class Claim(_Model):
    """A figure one participant states (for a contradiction between participants)."""

    said_by: NonEmptyId = Field(description="Participant's full name.")
    value: float = Field(description="The figure they state.")
    unit: str = Field(default="", description="Unit it is said in.")


class Contradiction(_Model):
    """Two participants gave different figures for one thing; a strong participant surfaces it."""

    id: NonEmptyId = Field(description="Stable id, unique within the scenario.")
    description: NonEmptyStr = Field(description="What the figures are of.")
    claims: list[Claim] = Field(min_length=2, description="Who said which figure (different people, different values).")
    tolerance_pct: float = Field(default=0.5, ge=0, description="Allowed relative error when a figure is restated, in %.")

    @model_validator(mode="after")
    def _different(self) -> Contradiction:
        people = [c.said_by for c in self.claims]
        if len(set(people)) != len(people):
            raise ValueError(f"contradiction {self.id!r}: each claim is another participant's")
        if len({round(c.value, 9) for c in self.claims}) != len(self.claims):
            raise ValueError(f"contradiction {self.id!r}: the claims must disagree")
        return self


class Attribution(_Model):
    """An expected fact of the turn that a participant (not the agent) brought: stating it, say who said it."""

    fact_id: NonEmptyId = Field(description="Id of one of the turn's expected_facts.")
    said_by: NonEmptyId = Field(description="Participant's full name who stated it.")


class ProductSpec(_Model):
    """A work product in the shared document: its type, the skeleton the persona creates, the reference."""

    product_id: NonEmptyId = Field(description="Key of the product in the shared document.")
    output_type: ProductType = Field(description="Structure of the product (docs/products.md).")
    title: NonEmptyStr = Field(description="Human title.")
    skeleton: Any = Field(default=None, description="Legacy: initial content a builder once gave; the template supersedes it.")
    reference: Any = Field(description="Final content of the reference solution, as plain JSON.")
    template: ProductTemplate | None = Field(
        default=None,
        description="What the agent is asked to deliver (derived from the reference when not declared).",
    )

    @model_validator(mode="after")
    def _template_filled(self) -> ProductSpec:
        if self.template is None:
            self.template = derive_template(self.output_type, self.reference)
        return self

    @property
    def initial_content(self) -> Any:
        """The product as the persona puts it in the shared document before the meeting."""
        assert self.template is not None
        return template_content(self.output_type, self.title, self.template, self.reference)


# --------------------------------------------------------------------------- public structures


class Backchannel(_Model):
    """A listener's "mm-hm" while the agent talks: not a turn, the agent should go on (docs/scoring.md,
    "Turn-taking")."""

    after_sec: float = Field(gt=0, le=120, description="Said this long after the agent starts speaking in the turn.")
    text: NonEmptyStr = Field(default="Mm-hm.", max_length=40, description="What the persona murmurs.")


class Aside(_Model):
    """Speech not meant for the agent: the persona turns to someone else before the turn proper (audio only, no
    caption); the agent should stay quiet (docs/scoring.md, "Turn-taking")."""

    text: NonEmptyStr = Field(max_length=400, description="What the persona says to the other person.")
    to: NonEmptyStr = Field(max_length=80, description="Who it is said to, for people reading the script.")
    pause_sec: float = Field(default=2.5, ge=0, le=10, description="Silence after it, before the turn proper.")


class Turn(_Model):
    """One persona turn of the meeting and what the agent is expected to do."""

    turn_index: int = Field(ge=0, description="0-based position in the meeting; contiguous.")
    human_utterance: NonEmptyStr = Field(description="What the persona says (spoken on audio, captioned).")
    expected_agent_action: NonEmptyStr = Field(description="What a strong participant does in reply.")
    phase: Phase = Field(description="Meeting phase this turn belongs to.")
    channel: Channel = Field(description="Main channel the persona uses this turn.")
    expected_response_type: NonEmptyStr = Field(
        description="Kind of reply expected: verbal, chat, work_product, clarification, pushback, ..."
    )
    wait_for_agent_sec: float = Field(gt=0, le=600, description="Longest the persona waits for the agent.")
    # ---- ModylBench extensions (exported inside metadata["modylbench"]) ----
    chat_message: str | None = Field(default=None, description="Text the persona posts in chat this turn.")
    screen: Slide | None = Field(default=None, description="What the screen share switches to this turn.")
    files: list[str] = Field(default_factory=list, description="Names of scenario data files pushed this turn.")
    edge_case: IdStr | None = Field(default=None, description="Name of the edge case this turn plays, if any.")
    barge_in_after_sec: float | None = Field(
        default=None, gt=0, description="Persona interrupts the agent this long after it starts speaking."
    )
    backchannel: Backchannel | None = Field(
        default=None, description="A backchannel the persona gives while the agent speaks this turn."
    )
    aside: Aside | None = Field(default=None, description="Non-directed speech before the turn proper.")
    expected_facts: list[ExpectedFact] = Field(
        default_factory=list, description="Facts a good reply states, from the reference solution."
    )
    reference_response: str = Field(default="", description="What the reference (oracle) agent says.")
    reference_chat: str | None = Field(default=None, description="What the oracle posts in chat, if anything.")
    speaker: IdStr | None = Field(
        default=None, description="Participant who speaks this turn (multi-party meetings); None: the human_persona."
    )
    addressed_to: IdStr | None = Field(
        default=None,
        description="Whom the line is for: 'agent', 'room' or a participant's full name; None: the agent (one-to-one).",
    )
    attributions: list[Attribution] = Field(
        default_factory=list, description="Expected facts a participant brought: the agent says who (multi-party)."
    )
    contradiction: Contradiction | None = Field(
        default=None, description="Participants' figures that disagree, to be surfaced this turn (multi-party)."
    )


class VerificationCriterion(_Model):
    """A programmatic check of a work product against ground truth."""

    id: NonEmptyId = Field(description="Stable id, unique within the scenario.")
    description: NonEmptyStr = Field(description="What is checked, for people.")
    check_type: CheckType = Field(description="How the value at target_field is compared.")
    target_field: str = Field(description="RFC 6901 pointer into the product's content ('' = whole product).")
    expected_value: Any = Field(default=None, description="Expected value (number, text, [lo, hi], list ...).")
    tolerance_pct: float = Field(default=0.5, ge=0, description="Relative tolerance for numeric checks, in %.")
    required: bool = Field(default=True, description="Counts toward the correctness bound.")

    @field_validator("target_field")
    @classmethod
    def _pointer_ok(cls, v: str) -> str:
        parse_pointer(v)
        return v

    @model_validator(mode="after")
    def _expected_fits(self) -> VerificationCriterion:
        ev = self.expected_value
        if self.check_type == "numeric_equality" and (isinstance(ev, bool) or not isinstance(ev, int | float)):
            raise ValueError("numeric_equality needs a number as expected_value")
        if self.check_type == "numeric_range" and not (
            isinstance(ev, list) and len(ev) == 2 and all(isinstance(x, int | float) for x in ev) and ev[0] <= ev[1]
        ):
            raise ValueError("numeric_range needs expected_value [low, high] with low <= high")
        if self.check_type in ("contains", "not_contains") and not isinstance(ev, str):
            raise ValueError(f"{self.check_type} needs a string as expected_value")
        if self.check_type == "one_of" and not isinstance(ev, list):
            raise ValueError("one_of needs a list as expected_value")
        if self.check_type == "count_at_least" and (isinstance(ev, bool) or not isinstance(ev, int)):
            raise ValueError("count_at_least needs an integer as expected_value")
        return self


class ExpectedOutput(_Model):
    """A deliverable the agent should hand over."""

    output_type: NonEmptyId = Field(description="spreadsheet, document, chart, dashboard, kv or list.")
    description: NonEmptyStr = Field(description="What the deliverable is.")
    verification_criteria: list[VerificationCriterion | str] = Field(
        default_factory=list, description="Programmatic checks (objects) or criteria for judges (text)."
    )
    product_id: IdStr | None = Field(default=None, description="Product in the shared document it maps to (ours).")


class EdgeCase(_Model):
    """An adversarial curveball and what good behaviour looks like."""

    name: NonEmptyId = Field(description="Unique name within the scenario.")
    description: NonEmptyStr = Field(description="What the curveball is.")
    human_utterance: NonEmptyStr = Field(description="What the persona says.")
    expected_behavior: NonEmptyStr = Field(description="What a professional does.")
    severity: Severity = Field(description="How bad it is to get wrong.")
    good_signals: list[str] = Field(
        default_factory=list, description="Phrases or figures whose presence shows good handling (ours)."
    )
    bad_signals: list[str] = Field(
        default_factory=list, description="Phrases or figures whose presence shows the agent gave in (ours)."
    )


class Verification(_Model):
    """How the scenario is verified overall."""

    method: NonEmptyStr = Field(description="e.g. programmatic+llm_judge.")
    criteria: list[str] = Field(default_factory=list, description="Overall criteria in words.")


class ExpectedMutation(_Model):
    """An edit the reference solution makes to a product at a turn."""

    turn_index: int = Field(ge=0, description="Turn in which the edit is expected.")
    product_id: NonEmptyId = Field(description="Product edited.")
    mutation_type: MutationType = Field(description="One of the 23 public mutation types.")
    path: str = Field(description="RFC 6901 pointer into the product; empty for create.")
    expected_value: float | str | None = Field(default=None, description="Value after the edit (scalar), if any.")
    value: Any = Field(default=None, description="Full JSON value written (for non-scalar edits), ours.")

    @field_validator("path")
    @classmethod
    def _pointer_ok(cls, v: str) -> str:
        parse_pointer(v)
        return v

    @model_validator(mode="after")
    def _create_has_empty_path(self) -> ExpectedMutation:
        if self.mutation_type == "create" and self.path != "":
            raise ValueError("a create mutation has an empty path")
        if self.mutation_type != "create" and self.path == "":
            raise ValueError(f"a {self.mutation_type} mutation needs a non-empty path")
        return self


# Fields of each model that belong to the public dataset format; the rest are ours.
PUBLIC_TURN_FIELDS = (
    "turn_index",
    "human_utterance",
    "expected_agent_action",
    "phase",
    "channel",
    "expected_response_type",
    "wait_for_agent_sec",
)
PUBLIC_EDGE_FIELDS = ("name", "description", "human_utterance", "expected_behavior", "severity")
PUBLIC_OUTPUT_FIELDS = ("output_type", "description", "verification_criteria")
PUBLIC_MUTATION_FIELDS = ("turn_index", "product_id", "mutation_type", "path", "expected_value")
PUBLIC_SCENARIO_FIELDS = (
    "scenario_id",
    "vertical",
    "title",
    "human_persona",
    "context",
    "meeting_goal",
    "turns",
    "expected_outputs",
    "edge_cases",
    "verification",
    "quality_tier",
    "timeout_minutes",
    "expected_mutations",
    "metadata",
)


class Scenario(_Model):
    """A complete meeting scenario."""

    scenario_id: NonEmptyId = Field(pattern=r"^[a-z0-9_]+$", description="Unique id, snake_case.")
    vertical: NonEmptyStr = Field(description="Professional vertical, e.g. Financial Analyst.")
    title: NonEmptyStr = Field(description="Human title.")
    human_persona: HumanPersona | str = Field(description="Who the agent meets (text in public files).")
    context: NonEmptyStr = Field(description="Background brief given to the agent before the meeting.")
    meeting_goal: NonEmptyStr = Field(description="What the meeting must produce.")
    turns: list[Turn] = Field(min_length=1, description="The persona's turns, in order.")
    expected_outputs: list[ExpectedOutput] = Field(default_factory=list, description="Deliverables.")
    edge_cases: list[EdgeCase] = Field(default_factory=list, description="Adversarial curveballs.")
    verification: Verification = Field(description="Overall verification method.")
    quality_tier: QualityTier = Field(description="Tier a passing agent must reach in this scenario.")
    timeout_minutes: float = Field(gt=0, le=600, description="Upper bound on meeting time.")
    expected_mutations: list[ExpectedMutation] = Field(
        default_factory=list, description="Edits the reference solution makes, in order."
    )
    metadata: dict[str, Any] = Field(default_factory=dict, description="Free-form metadata (a JSON string in public files).")
    # ---- ModylBench extensions ----
    seed: int = Field(default=0, description="Seed the scenario's data was generated from.")
    data_files: list[DataFile] = Field(default_factory=list, description="Files the persona can push.")
    products: list[ProductSpec] = Field(default_factory=list, description="Work products in the shared document.")
    ground_truth: dict[str, float | str] = Field(
        default_factory=dict, description="Named values computed by the reference solution."
    )
    knowledge: Knowledge | None = Field(
        default=None, description="What the persona knows and can be asked (never what the agent must produce)."
    )
    room: MeetingRoom | None = Field(
        default=None, description="The people of a multi-party meeting (None: the agent meets the human_persona alone)."
    )

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata_from_string(cls, v: Any) -> Any:
        if isinstance(v, str):
            if not v.strip():
                return {}
            try:
                decoded = json.loads(v)
            except json.JSONDecodeError as exc:
                raise ValueError(f"metadata string is not JSON ({exc.msg} at char {exc.pos})") from None
            if not isinstance(decoded, dict):
                raise ValueError("metadata string must hold a JSON object")
            return decoded
        return v

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        problems: list[str] = []
        for i, t in enumerate(self.turns):
            if t.turn_index != i:
                problems.append(f"turns[{i}].turn_index: expected {i} (indexes must be contiguous from 0), got {t.turn_index}")
                break
        names = [e.name for e in self.edge_cases]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            problems.append(f"edge_cases: duplicate name {dupes[0]!r}")
        played = {t.edge_case for t in self.turns if t.edge_case}
        utterances = {t.human_utterance.strip() for t in self.turns}
        for i, e in enumerate(self.edge_cases):
            if e.name not in played and e.human_utterance.strip() not in utterances:
                problems.append(f"edge_cases[{i}]: edge case {e.name!r} is not played by any turn")
        for i, t in enumerate(self.turns):
            if t.edge_case and t.edge_case not in names:
                problems.append(f"turns[{i}].edge_case: {t.edge_case!r} is not a declared edge case")
        file_names = {f.name for f in self.data_files}
        for i, t in enumerate(self.turns):
            for f in t.files:
                if f not in file_names:
                    problems.append(f"turns[{i}].files: {f!r} is not one of the scenario's data_files")
        product_ids = [p.product_id for p in self.products]
        known_products = set(product_ids) | {o.product_id for o in self.expected_outputs if o.product_id}
        for i, m in enumerate(self.expected_mutations):
            if m.turn_index >= len(self.turns):
                problems.append(
                    f"expected_mutations[{i}].turn_index: {m.turn_index} is not a turn (0..{len(self.turns) - 1})"
                )
            if known_products and m.product_id not in known_products:
                problems.append(f"expected_mutations[{i}].product_id: {m.product_id!r} is not a declared product")
        for i, o in enumerate(self.expected_outputs):
            if o.product_id is not None and self.products and o.product_id not in product_ids:
                problems.append(f"expected_outputs[{i}].product_id: {o.product_id!r} is not a declared product")
        crit_ids: list[str] = []
        for o in self.expected_outputs:
            crit_ids += [c.id for c in o.verification_criteria if isinstance(c, VerificationCriterion)]
        cdupes = sorted({c for c in crit_ids if crit_ids.count(c) > 1})
        if cdupes:
            problems.append(f"expected_outputs: duplicate criterion id {cdupes[0]!r}")
        problems += self._room_problems()
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def _room_problems(self) -> list[str]:
        """Who speaks to whom must name people of the meeting (docs/authoring.md "Several people")."""
        problems: list[str] = []
        room = self.room
        if room is None:
            for i, t in enumerate(self.turns):
                if t.speaker is not None or t.addressed_to not in (None, AGENT) or t.attributions or t.contradiction:
                    problems.append(f"turns[{i}]: speaker, addressed_to, attributions and contradiction need a `room`")
                    break
            return problems
        host = self.human_persona.name if isinstance(self.human_persona, HumanPersona) else self.human_persona
        if room.host.name != host:
            problems.append(f"room.participants[0]: the host {room.host.name!r} must be the human_persona ({host!r})")
        names = {p.name for p in room.participants}
        for i, t in enumerate(self.turns):
            speaker = t.speaker or room.host.name
            who = room.participant(speaker)
            if who is None:
                problems.append(f"turns[{i}].speaker: {speaker!r} is not a participant")
                continue
            if t.turn_index < who.joins_at_turn or (who.leaves_after_turn is not None and t.turn_index > who.leaves_after_turn):
                problems.append(f"turns[{i}].speaker: {speaker!r} is not in the meeting at this turn")
            if t.addressed_to not in (None, AGENT, ROOM) and t.addressed_to not in names:
                problems.append(f"turns[{i}].addressed_to: {t.addressed_to!r} is not 'agent', 'room' or a participant")
            if t.addressed_to == speaker:
                problems.append(f"turns[{i}].addressed_to: {speaker!r} talks to themselves")
            if t.addressed_to in names and (t.expected_facts or t.reference_response.strip() or t.edge_case):
                problems.append(f"turns[{i}]: a line for {t.addressed_to!r} expects no reply from the agent "
                                "(no expected_facts, reference_response or edge_case)")
            fact_ids = {f.id for f in t.expected_facts}
            for a in t.attributions:
                if a.fact_id not in fact_ids:
                    problems.append(f"turns[{i}].attributions: {a.fact_id!r} is not one of the turn's expected_facts")
                if a.said_by not in names:
                    problems.append(f"turns[{i}].attributions: {a.said_by!r} is not a participant")
            if t.contradiction is not None:
                for c in t.contradiction.claims:
                    if c.said_by not in names:
                        problems.append(f"turns[{i}].contradiction: {c.said_by!r} is not a participant")
        return problems

    # ------------------------------------------------------------------ helpers

    def speaker_of(self, turn: Turn) -> str:
        """Who says ``turn``'s line: a participant's name, or the human_persona's in a one-to-one meeting."""
        if turn.speaker:
            return turn.speaker
        return self.human_persona.name if isinstance(self.human_persona, HumanPersona) else "persona"

    def expects_quiet(self, turn: Turn) -> bool:
        """The agent is expected to stay quiet (multi-party meetings): the line is for another person, or for the
        room with nothing to answer (no facts, no reference reply, no curveball)."""
        if self.room is None or turn.addressed_to in (None, AGENT):
            return False
        return not turn.expected_facts and not turn.reference_response.strip() and turn.edge_case is None

    @property
    def channels_used(self) -> list[str]:
        """Channels the persona uses, in canonical order."""
        used = {t.channel for t in self.turns}
        for t in self.turns:
            if t.chat_message:
                used.add("chat")
            if t.screen is not None:
                used.add("screen")
            if t.files:
                used.add("data")
        return [c for c in CHANNELS if c in used]

    def product(self, product_id: str) -> ProductSpec | None:
        """The product spec with this id, if any."""
        for p in self.products:
            if p.product_id == product_id:
                return p
        return None

    def edge_case(self, name: str) -> EdgeCase | None:
        """The edge case with this name, if any."""
        for e in self.edge_cases:
            if e.name == name:
                return e
        return None

    def first_turns(self, n: int) -> Scenario:
        """The meeting cut after its first ``n`` turns: what a ``--turns N`` slice is scored against.

        Edge cases and expected edits outside the slice are dropped, and so are the deliverables,
        which are not due before the hand-off: a slice is scored on its journey alone.
        """
        if n >= len(self.turns):
            return self
        turns = self.turns[:n]
        played = {t.edge_case for t in turns if t.edge_case} | {t.human_utterance.strip() for t in turns}
        return self.model_copy(update={
            "turns": turns,
            "edge_cases": [e for e in self.edge_cases if e.name in played or e.human_utterance.strip() in played],
            "expected_mutations": [m for m in self.expected_mutations if m.turn_index < n],
            "expected_outputs": [],
        })

    def data_file(self, name: str) -> DataFile | None:
        """The data file with this name, if any."""
        for f in self.data_files:
            if f.name == name:
                return f
        return None
