"""What the persona knows (docs/authoring.md "What the persona knows"), kept apart from what the agent must produce.

A ``Knowledge`` holds the inputs, constraints and preferences of the meeting, the contents of its files,
and the people and organisation in it: each a ``KnowledgeItem`` with a label the persona can be asked by
and a value taken from the builder's data. Some items are ``withheld``: the persona gives them only when
asked. Nothing here is an answer the agent is scored on unless the agent is shown it anyway
(``knowledge_leaks`` says which are not).
"""

from __future__ import annotations

import csv
import io
import logging
import math
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from modylbench.scenarios._templates import humanise
from modylbench.scenarios._values import (
    as_number,
    label_tokens,
    number_matches,
    quantities,
    quantity_spans,
    spoken_to_digits,
    stated_tolerance_pct,
    unit_family,
)

if TYPE_CHECKING:
    from modylbench.scenarios._schema import DataFile, ExpectedFact, HumanPersona, Scenario

logger = logging.getLogger(__name__)

KnowledgeKind = Literal["input", "constraint", "preference", "file", "person", "organisation"]
KNOWLEDGE_KINDS: tuple[str, ...] = KnowledgeKind.__args__  # type: ignore[attr-defined]

MAX_FILE_ROWS = 40
"""A data file with more rows than this is known by its shape (columns, rows), not cell by cell: the agent
has the file, and the persona does not recite a CRM export."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class KnowledgeItem(_Model):
    """One thing the persona knows and can be asked about."""

    id: str = Field(min_length=1, max_length=200, description="Stable id, unique within the scenario's knowledge.")
    kind: KnowledgeKind = Field(description="input, constraint, preference, file (a file's contents), person or organisation.")
    label: str = Field(min_length=1, description="What the item is, as a person would name it ('senior interest rate').")
    value: float | str = Field(description="The value, from the builder's data (never typed by hand).")
    unit: str = Field(default="", description="Unit the value is said in: %, $M, x, days ... ('' for text and counts).")
    aliases: list[str] = Field(default_factory=list, description="Other ways of naming it that the persona recognises.")
    source: str = Field(default="", description="Where it comes from: a file name, 'the term sheet', 'fund policy'.")
    note: str = Field(default="", description="What the persona adds when giving it ('cash, all-in').")
    withheld: bool = Field(default=False, description="Given only when asked; the script never volunteers it.")
    turn: int | None = Field(default=None, ge=0, description="Withheld items: the turn from which the agent needs it.")
    ask: str = Field(default="", description="Withheld items: how a participant would ask for it (the oracle asks this).")
    answer: str = Field(default="", description="The persona's own words for it; '' renders the kind's template.")
    keywords: list[str] = Field(
        default_factory=list,
        description="Withheld text items: words that show the agent used the answer ('cell level'); '' the value.",
    )


class Knowledge(_Model):
    """Everything the persona of one scenario knows; exported with the scenario, never an answer."""

    items: list[KnowledgeItem] = Field(default_factory=list, description="What the persona can be asked about.")
    unknown: str = Field(
        default="",
        description="What the persona says when it does not know: the assumption a person in its role would give "
        "('' uses the default wording).",
    )

    def item(self, item_id: str) -> KnowledgeItem | None:
        """The item with this id, if any."""
        return next((i for i in self.items if i.id == item_id), None)

    @property
    def withheld(self) -> list[KnowledgeItem]:
        """The items given only when asked."""
        return [i for i in self.items if i.withheld]


# --------------------------------------------------------------------------- generic parts, from the scenario


def _cell(v: str) -> float | str:
    n = as_number(v)
    return float(n) if n is not None else v.strip()


def file_items(f: DataFile) -> list[KnowledgeItem]:
    """What the persona knows of a data file: its shape, and for a small CSV its rows (labelled by the first
    column) cell by cell; a Markdown or text file by its description."""
    stem = f.name.rsplit(".", 1)[0]
    base = [KnowledgeItem(id=f"file.{stem}", kind="file", label=f"{humanise(stem)} file",
                          value=f.description or f.name, source=f.name,
                          aliases=[f.name, humanise(stem)])]  # fmt: skip
    if f.media_type != "text/csv" and not f.name.endswith(".csv"):
        return base
    rows = list(csv.reader(io.StringIO(f.content)))
    if not rows:
        return base
    header, body = rows[0], [r for r in rows[1:] if r]
    base.append(KnowledgeItem(id=f"file.{stem}.columns", kind="file", label=f"columns of {humanise(stem)}",
                              value=", ".join(header), source=f.name,
                              aliases=[f"what is in {f.name}", f"{humanise(stem)} fields"]))  # fmt: skip
    # No row count: counting a file's rows is often what the agent is asked to do.
    if len(body) > MAX_FILE_ROWS or len(header) < 2:
        return base
    units = [i for i, h in enumerate(header) if h.strip().lower() == "unit"]
    seen: set[str] = set()
    for r in body:
        name = r[0].strip()
        if not name:
            continue
        values = [(i, header[i], r[i]) for i in range(1, min(len(r), len(header))) if i not in units and r[i].strip()]
        unit = r[units[0]].strip() if units and units[0] < len(r) else ""
        numeric = [(i, h, v) for i, h, v in values if as_number(v) is not None]
        for _, h, v in values:
            one = len(numeric) <= 1 and as_number(v) is not None
            label = humanise(name) if one else f"{humanise(name)} {humanise(h)}"
            iid = f"file.{stem}.{name}" if one else f"file.{stem}.{name}.{h}"
            if iid in seen:
                continue
            seen.add(iid)
            base.append(KnowledgeItem(id=iid[:200], kind="file", label=label, value=_cell(v),
                                      unit=unit if as_number(v) is not None else "", source=f.name))  # fmt: skip
    return base


def people_items(persona: HumanPersona | str, organisation: str = "",
                 others: Sequence[tuple[str, str]] = ()) -> list[KnowledgeItem]:  # fmt: skip
    """The persona, its organisation and the other people the meeting names (name, who they are)."""
    if isinstance(persona, str):
        return [KnowledgeItem(id="person.persona", kind="person", label="who you are", value=persona)]
    out = [
        KnowledgeItem(id="person.persona", kind="person", label="your name", value=persona.name,
                      aliases=["your full name", "name of the person I am speaking with"]),
        KnowledgeItem(id="person.role", kind="person", label="your role", value=persona.role,
                      aliases=["your job title", "your position"]),
    ]
    if persona.goals:
        out.append(KnowledgeItem(id="person.goals", kind="preference", label="what you want from this meeting",
                                 value="; ".join(persona.goals), aliases=["your goal", "your priorities"]))
    org = organisation or (persona.role.split(",", 1)[1].split("(")[0].strip() if "," in persona.role else "")
    if org:
        out.append(KnowledgeItem(id="organisation", kind="organisation", label="your organisation", value=org,
                                 aliases=["your company", "your firm", "company you work for"]))
    for name, who in others:
        out.append(KnowledgeItem(id=f"person.{name.split()[0].lower()}", kind="person", label=f"{name}'s role",
                                 value=f"{name} is {who}", aliases=[f"who {name} is", f"{name}'s job"]))
    return out


def assemble(scenario: Scenario, inputs: Iterable[KnowledgeItem], *, organisation: str = "",
             others: Sequence[tuple[str, str]] = (), unknown: str = "") -> Knowledge:  # fmt: skip
    """The persona's knowledge: the builder's ``inputs`` (inputs, constraints, preferences, withheld facts),
    then the people and organisation, then the contents of the scenario's files."""
    items = list(inputs)
    items += people_items(scenario.human_persona, organisation, others)
    for f in scenario.data_files:
        items += file_items(f)
    ids = [i.id for i in items]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ValueError(f"knowledge of {scenario.scenario_id}: duplicate item id {dupes[0]!r}")
    return Knowledge(items=items, unknown=unknown)


# --------------------------------------------------------------------------- what the agent is shown, produces


def shown_text(scenario: Scenario, upto_turn: int | None = None) -> str:
    """Everything the agent is shown (briefing, what the persona says and posts, slides, files), up to and
    including turn ``upto_turn`` (all turns when None)."""
    import json

    from modylbench.scenarios._briefing import briefing

    parts = [json.dumps(briefing(scenario), ensure_ascii=False)]
    pushed: set[str] = set()
    for t in scenario.turns:
        if upto_turn is not None and t.turn_index > upto_turn:
            break
        parts += [t.human_utterance, t.chat_message or ""]
        if t.screen is not None:
            parts.append(t.screen.model_dump_json())
        pushed |= set(t.files)
    parts += [f.content for f in scenario.data_files if f.name in pushed]
    return "\n".join(parts)


def _leaves(v: Any) -> Iterable[Any]:
    if isinstance(v, dict):
        for x in v.values():
            yield from _leaves(x)
    elif isinstance(v, list):
        for x in v:
            yield from _leaves(x)
    else:
        yield v


def expected_values(scenario: Scenario) -> list[tuple[str, float | str]]:
    """What the agent must produce, as (where, value): the ground truth, the turns' expected facts and the
    reference products' figures."""
    out: list[tuple[str, float | str]] = [(f"ground_truth.{k}", v) for k, v in scenario.ground_truth.items()]
    for t in scenario.turns:
        out += [(f"turns[{t.turn_index}].{f.id}", f.value) for f in t.expected_facts]
    for p in scenario.products:
        for v in _leaves(p.reference):
            n = as_number(v) if not isinstance(v, bool) else None
            if n is not None:
                out.append((f"product.{p.product_id}", float(n)))
    return out


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= max(1e-9, 0.005 * abs(b))


def knowledge_leaks(scenario: Scenario, knowledge: Knowledge | None = None) -> list[str]:
    """Knowledge items holding an expected output's value that the agent is not shown anyway (one line each).

    A figure counts as shown when it is said, posted, drawn or in a pushed file anywhere in the meeting; a
    withheld item is shown when asked, so it may hold an input the products echo. Text values count when the
    same text is an expected fact's value."""
    k = knowledge if knowledge is not None else scenario.knowledge
    if k is None:
        return []
    text = shown_text(scenario)
    shown = [q.value for q in quantities(text) + quantities(spoken_to_digits(text))]
    for f in scenario.data_files:
        for row in csv.reader(io.StringIO(f.content)):
            shown += [float(n) for n in map(as_number, row) if n is not None]
    expected = expected_values(scenario)
    out = []
    for item in k.items:
        if item.withheld:
            continue
        if isinstance(item.value, str):
            for where, v in expected:
                if isinstance(v, str) and v.strip().lower() == item.value.strip().lower() and where.startswith("turns"):
                    if item.value.lower() not in shown_text(scenario).lower():
                        out.append(f"{item.id}: holds {where} ({v!r}), never shown to the agent")
            continue
        val = float(item.value)
        hits = [where for where, v in expected if not isinstance(v, str) and _same(val, float(v))]
        if hits and not any(_same(val, s) or _same(val * 100.0, s) or _same(val / 100.0, s) for s in shown):
            out.append(f"{item.id}: holds {hits[0]} ({val:g}), never shown to the agent")
    return out


# --------------------------------------------------------------------------- withheld facts and pushback, linked


def said_value(item: KnowledgeItem) -> str:
    """An item's value as the persona says it: '25%', '6.5x', '$0.7M', '1,400', '2029', 'pre-tax'."""
    v = item.value
    if isinstance(v, str):
        return v
    figure = format(v, ",.10g") if abs(v) >= 10_000 else format(v, ".10g")
    unit = item.unit.strip()
    if unit in ("%", "x"):
        return f"{figure}{unit}"
    if unit.startswith("$") or unit.startswith("€"):
        rest = unit[1:]
        return f"{unit[0]}{figure}{rest}"
    if unit.startswith("%") or unit.startswith("x "):
        return f"{figure}{unit[0]} {unit[1:].strip()}"
    return f"{figure} {unit}" if unit else figure


WITHHELD_FACT_PREFIX = "withheld."
"""Id prefix of the expected fact generated for each withheld knowledge item."""


def withheld_fact_turn(scenario: Scenario, item: KnowledgeItem) -> int | None:
    """The turn whose expected facts carry a withheld item's value: the one after it is needed (the agent
    asks in ``item.turn``, the persona answers there, and the next turn is where the answer is used)."""
    if item.turn is None:
        return None
    t = item.turn + 1
    return t if t < len(scenario.turns) else item.turn


def link_withheld(scenario: Scenario) -> Scenario:
    """Each withheld knowledge item becomes an expected fact (id ``withheld.<item>``, ``withheld`` naming the
    item) on the turn where the answer is used, so an agent that assumed without asking is wrong there;
    the reference response of that turn says the value (a clause is added when its words do not).

    Idempotent; generated from the knowledge, never typed per scenario."""
    from modylbench.scenarios._schema import ExpectedFact

    k = scenario.knowledge
    if k is None:
        return scenario
    for item in k.withheld:
        ti = withheld_fact_turn(scenario, item)
        if ti is None:
            continue
        turn = scenario.turns[ti]
        fid = f"{WITHHELD_FACT_PREFIX}{item.id}"
        if any(f.id == fid for f in turn.expected_facts):
            continue
        if isinstance(item.value, str):
            words = item.keywords or [item.value]
            fact = ExpectedFact(id=fid, description=item.label, value=words[0], keywords=words[1:], withheld=item.id)
            said = any(w.lower() in turn.reference_response.lower() for w in words)
        else:
            fact = ExpectedFact(id=fid, description=item.label, value=float(item.value), unit=item.unit,
                                withheld=item.id)
            said = any(_same(q.value, float(item.value)) for q in quantities(turn.reference_response))
        turn.expected_facts.append(fact)
        if not said:
            # The oracle acts on what it was told, and says so.
            label = item.label[:1].lower() + item.label[1:]
            noted = f"Noted: {words[0]}." if isinstance(item.value, str) else f"Noted: {label} at {said_value(item)}."
            turn.reference_response = f"{noted} {turn.reference_response}".strip()
    return scenario


def withheld_edits(scenario: Scenario) -> dict[int, str]:
    """The expected edits whose value depends on a withheld item: index in ``expected_mutations`` -> the item's
    id. An edit from the turn the item is needed on whose value holds it: its figure (a number leaf equal to a
    numeric item's value) or its words (a text leaf holding one of a text item's keywords, else its value).
    Generated from the knowledge, never typed; an edit before the item is needed cannot depend on it."""
    k = scenario.knowledge
    if k is None:
        return {}
    out: dict[int, str] = {}
    for item in k.withheld:
        if item.turn is None:
            continue
        words = [w.lower() for w in (item.keywords or [str(item.value)])] if isinstance(item.value, str) else []
        for i, m in enumerate(scenario.expected_mutations):
            if m.turn_index < item.turn or i in out:
                continue
            for leaf in _leaves([m.expected_value, m.value]):
                if isinstance(leaf, str) and words and any(w in leaf.lower() for w in words):
                    out[i] = item.id
                    break
                n = as_number(leaf) if not isinstance(leaf, bool | str) else None
                if n is not None and not isinstance(item.value, str) and _same(float(n), float(item.value)):
                    out[i] = item.id
                    break
    return out


PUSHBACK_FACTS = 3
"""Facts per scenario whose wrong figure the persona challenges."""
PUSHBACK_UNITS = ("%", "x", "$M", "$B", "€M", "$")


def designate_pushback(scenario: Scenario, n: int = PUSHBACK_FACTS) -> Scenario:
    """Mark ``n`` numeric facts, spread over the meeting, whose wrong figure the persona challenges: figures
    a reviewer checks (money, percents, multiples), not on curveball turns, not withheld, not one the
    persona said itself that turn, and not on the last turn (the challenge comes at the next one)."""
    if any(f.pushback for t in scenario.turns for f in t.expected_facts):
        return scenario
    cands = []
    for t in scenario.turns[:-1]:
        if t.edge_case:
            continue
        persona = [q.value for q in quantities(spoken_to_digits(f"{t.human_utterance} {t.chat_message or ''}"))]
        for f in t.expected_facts:
            if f.withheld or isinstance(f.value, str) or not f.unit.startswith(PUSHBACK_UNITS) or f.value == 0:
                continue
            if any(_same(abs(float(f.value)), abs(p)) for p in persona):
                continue
            cands.append(f)
            break  # one a turn
    if not cands:
        return scenario
    step = len(cands) / min(n, len(cands))
    for i in range(min(n, len(cands))):
        cands[int(i * step + step / 2)].pushback = True
    return scenario


_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")


def _fact_words(description: str) -> set[str]:
    return {t for t in label_tokens(description) if not any(c.isdigit() for c in t) and len(t) > 2}


def states_value(fact: ExpectedFact, text: str) -> bool:
    """Whether ``text`` states a numeric ``fact``'s value in any usual notation, within the fact's tolerance or
    the precision the figure was stated with ('25%' for 24.6 %, '0.246', 'twenty-four point six percent')."""
    if isinstance(fact.value, str):
        return False
    value, unit = float(fact.value), fact.unit
    return any(number_matches(q, value, unit, max(fact.tolerance_pct, stated_tolerance_pct(q.value)))
               for q in quantities(spoken_to_digits(text)))


def wrong_figure(fact: ExpectedFact, text: str, known: Sequence[ExpectedFact] = ()) -> str | None:
    """The wrong figure ``text`` gives for a numeric ``fact``, if any (as said, '27%'): a figure of the fact's
    kind and about its size (a third to three times it) in a sentence that names the fact (a third of the words
    of its description), when nothing in the text states the fact's value (within its tolerance or the
    figure's stated precision, any usual notation) and the figure states none of the ``known`` facts (the
    turn's others). What the persona challenges and the scorer reads as a wrong claim (docs/scoring.md
    "Pushback"); a correct figure is never one."""
    if isinstance(fact.value, str) or not text.strip() or states_value(fact, text):
        return None
    value, unit = float(fact.value), fact.unit
    digits = spoken_to_digits(text)
    family, scale = unit_family(unit)
    terms = _fact_words(fact.description)
    if not terms:
        return None
    best: tuple[float, str] | None = None
    for sentence in _SENTENCES.split(digits):
        if len(terms & set(label_tokens(sentence))) * 3 < len(terms):
            continue
        for start, end, q in quantity_spans(sentence):
            if family in ("pct", "mult", "bps") and q.family != family:
                continue
            if family in ("money", "count") and q.family in ("pct", "mult", "bps"):
                continue
            if any(not isinstance(k.value, str) and number_matches(q, float(k.value), k.unit, max(k.tolerance_pct, 1.0))
                   for k in known):
                continue
            got = abs(q.value)
            if q.scaled is not None and scale not in (0, 1.0):
                got = abs(q.scaled) / scale
            want = abs(value)
            if want and got and 1 / 3 <= got / want <= 3:
                off = abs(math.log(got / want))
                if best is None or off < best[0]:
                    best = (off, sentence[start:end].strip())
    return best[1] if best is not None else None


ChallengeOutcome = Literal["corrected", "defended", "not_answered"]
CHALLENGE_OUTCOMES: tuple[str, ...] = ChallengeOutcome.__args__  # type: ignore[attr-defined]


def challenge_outcome(fact: ExpectedFact, said: str, known: Sequence[ExpectedFact] = ()) -> ChallengeOutcome:
    """How the agent answered the persona's challenge of its figure for ``fact``, from its words ``said`` in the
    turn the challenge was raised: ``corrected`` (it states the value), ``defended`` (it gives a wrong figure
    for it again) or ``not_answered``."""
    if states_value(fact, said):
        return "corrected"
    return "defended" if wrong_figure(fact, said, known) is not None else "not_answered"


def pushback_wrong_figures(scenario: Scenario, turn_index: int, said: str) -> list[tuple[ExpectedFact, str]]:
    """The designated facts of turn ``turn_index`` that the agent's words ``said`` give a wrong figure for, with
    the figure as said: what the persona challenges at the next turn's start."""
    turn = scenario.turns[turn_index]
    out = []
    for f in turn.expected_facts:
        if f.pushback:
            fig = wrong_figure(f, said, [x for x in turn.expected_facts if x is not f])
            if fig is not None:
                out.append((f, fig))
    return out


def challenge_answer(scenario: Scenario, fact_turn: int, fact: ExpectedFact, said: str) -> ChallengeOutcome:
    """How the agent's words ``said`` in the turn after ``fact_turn`` answer the challenge of its figure for
    ``fact`` (``challenge_outcome``; the figures of both turns' other facts are no wrong figure for it)."""
    known = [x for x in scenario.turns[fact_turn].expected_facts if x is not fact]
    if fact_turn + 1 < len(scenario.turns):
        known += scenario.turns[fact_turn + 1].expected_facts
    return challenge_outcome(fact, said, known)
