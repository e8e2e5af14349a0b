"""The persona's answers to the agent's questions, from what it knows (docs/protocol.md "Asking the persona").

``questions_in`` finds the questions in what the agent said or posted; ``OfflineAnswerer`` matches each to
the scenario's ``Knowledge`` by meaning (the project's label reading) and renders the answer from the wording
in ``answers.toml``. It never says an expected output the agent is not shown anyway: asked for its own
deliverable, the persona says that is what it needs from the agent. Deterministic: the same question gets
the same answer.
"""

from __future__ import annotations

import logging
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Literal

from modylbench.scenarios import (
    Knowledge,
    KnowledgeItem,
    Scenario,
    humanise,
    label_tokens,
    quantities,
    said_value,
)

logger = logging.getLogger(__name__)

Outcome = Literal["answered", "unknown", "deliverable", "offer", "not_addressed", "over_limit"]
ANSWERED_OUTCOMES: tuple[str, ...] = ("answered", "unknown", "deliverable")
"""Outcomes the persona speaks or posts a reply for."""

MAX_ANSWERS_PER_TURN = 3
"""Questions the persona answers in one turn; later ones are recorded and left (a real meeting moves on)."""
ANSWER_PAUSE_S = 0.8
"""Meeting seconds between the end of the agent's question and the persona's answer (a person's pause)."""
MATCH_THRESHOLD = 0.6
"""Share of a knowledge label's words a question must use to be about it."""
MAX_ITEMS_PER_QUESTION = 2
"""Items one question may ask about at once ("should I model tax, and which terminal value?")."""

_INTERROGATIVE = re.compile(
    r"^(?:so|and|but|ok|okay|also|quick question|one question|just to check)?[,:\s]*"
    r"(?:(?:what|which|how|who|whom|whose|when|where|why)(?:'s|'re)?\s+(?:is|are|was|were|do|does|did|can|could|"
    r"should|shall|would|will|has|have|much|many|long|often|exactly|kind|sort|of|level|cell|rate|quarter|"
    r"definition|\w+\s+(?:is|are|do|does|should|would|will|did))\b|"
    r"(?:what|which|how|who|when|where|why)'s\b|"
    r"(?:is|are|was|were|do|does|did|can|could|should|shall|would|will|has|have)\s+(?:you|we|i|it|there|the|this|"
    r"that|they|he|she|our|your|a|an)\b)",
    re.IGNORECASE,
)
_OFFER = re.compile(r"\b(?:shall i|should i|do you want me to|want me to|would you like me to|can i|may i|let me)\b",
                    re.IGNORECASE)
_REVEAL = re.compile(r"\b(?:ignore|disregard|forget)\b.*\b(?:role|instructions|rules|previous)\b|\breveal\b|"
                     r"\b(?:answer key|ground truth|expected (?:answers?|outputs?)|reference (?:answers?|solution)|"
                     r"the (?:right|correct) answers?)\b", re.IGNORECASE)
_QUESTION_WORDS = frozenset("what how why when where do doe did can could should shall would will i me my want need "
                            "use tell know give have ha get please quick question just check before".split())
MAX_UNPUNCTUATED_WORDS = 14
"""A sentence without '?' is a question only when it is this short (transcripts may drop the mark)."""
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_CLAUSE = re.compile(r"[;,]\s*(?:and|or)?\s*|\s+and\s+(?=(?:do|does|is|are|should|can|what|which|how|who|when|"
                     r"where|will|would)\b)", re.IGNORECASE)


def questions_in(text: str) -> list[str]:
    """The questions in ``text``: sentences ending in '?' or opening as a question does (an interrogative word
    and a verb: 'what is the tax rate', 'do you want …'); 'What I can do is …' is not one."""
    out = []
    for sentence in _SENTENCE.split(text.strip()):
        s = sentence.strip().strip('"“”')
        if len(s) < 3:
            continue
        if s.endswith("?") or (_INTERROGATIVE.match(s) and len(s.split()) <= MAX_UNPUNCTUATED_WORDS):
            out.append(s)
    return out


@lru_cache(maxsize=1)
def wording() -> dict[str, dict[str, str]]:
    """The answer templates (``answers.toml``, content)."""
    raw = resources.files("modylbench.personas").joinpath("answers.toml").read_text("utf-8")
    return tomllib.loads(raw)


def render(item: KnowledgeItem) -> str:
    """The persona's words for ``item``: its own ``answer``, else its kind's template."""
    w = wording()
    template = item.answer or w["kind"][item.kind]
    label = item.label[:1].lower() + item.label[1:] if not item.label[:2].isupper() else item.label
    text = template.format(
        label=label, Label=label[:1].upper() + label[1:], value=said_value(item),
        source=f" (from {item.source})" if item.source and not item.source.endswith((".csv", ".md")) else
        (f" (from {item.source})" if item.source else ""),
        note=f" — {item.note}" if item.note else "",
    )  # fmt: skip
    return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class Answer:
    """The persona's reply to one question."""

    question: str
    outcome: Outcome
    text: str = ""
    """What the persona says or posts ('' when it does not reply)."""
    item_ids: tuple[str, ...] = ()
    """The knowledge items the answer gives."""
    answerer: str = "offline"
    replaced: str = ""
    """Why another answerer's words were not said and this offline answer was instead ('' when not)."""
    rejected: str = ""
    """The words that were not said (the LLM's answer that failed the check), for the record."""


@dataclass
class _Phrases:
    item: KnowledgeItem | None
    tokens: list[frozenset[str]] = field(default_factory=list)


def _tokens(text: str) -> frozenset[str]:
    syn = wording().get("synonyms", {})
    return frozenset(syn.get(t, t) for t in label_tokens(text)) - _QUESTION_WORDS


TYPO_MIN_LETTERS = 5
"""Words this long may be misspelt by one letter (swapped, missing, extra or wrong) and still match."""


@lru_cache(maxsize=262144)
def _one_typo(a: str, b: str) -> bool:
    """``a`` and ``b`` differ by one edit (a letter changed, added, dropped, or two adjacent ones swapped)."""
    if a == b or min(len(a), len(b)) < TYPO_MIN_LETTERS or abs(len(a) - len(b)) > 1 or not (a + b).isalpha():
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def written_forms(texts: Iterable[str]) -> dict[str, frozenset[str]]:
    """Each token of ``texts`` (the label reading: stems, American spelling) -> the words it was written as
    ('lane' -> {'lanes'}, 'organization' -> {'organisation'}): a misspelling is of a written word."""
    out: dict[str, set[str]] = {}
    for text in texts:
        for raw in re.findall(r"[A-Za-z]+", text):
            toks = _tokens(raw)
            if len(toks) == 1:
                out.setdefault(next(iter(toks)), set()).add(raw.lower())
    return {k: frozenset(v) for k, v in out.items()}


def _typo_of(t: str, w: str, forms: Mapping[str, frozenset[str]]) -> bool:
    """Question token ``w`` is label token ``t`` misspelt, comparing the words as written as well as their
    readings (the stem of 'lnaes' is no typo of 'lane', which is too short, but 'lnaes' is one of 'lanes')."""
    return any(_one_typo(a, b) for a in {t, *forms.get(t, ())} for b in {w, *forms.get(w, ())})


def _match(q: frozenset[str], phrases: list[frozenset[str]], vocabulary: frozenset[str] = frozenset(),
           forms: Mapping[str, frozenset[str]] | None = None) -> tuple[float, int]:  # fmt: skip
    best = (0.0, 0)
    forms = forms or {}
    # Only a word the persona's labels do not use can be a misspelling of one they do.
    extra = [w for w in q if max(len(x) for x in {w, *forms.get(w, ())}) >= TYPO_MIN_LETTERS and w not in vocabulary]
    for p in phrases:
        if not p:
            continue
        hit = len(p & q)
        if extra and hit < len(p):
            # A word of the label misspelt in the question ('hudrle' for 'hurdle') still names it.
            hit += sum(1 for t in p - q if any(_typo_of(t, w, forms) for w in extra if w not in p))
        if hit < min(2, len(p)):
            continue
        best = max(best, (hit / len(p), hit))
    return best


class OfflineAnswerer:
    """Answers questions from the scenario's knowledge, deterministically and offline (the default answerer)."""

    name = "offline"

    def __init__(self, scenario: Scenario, knowledge: Knowledge | None = None) -> None:
        self.scenario = scenario
        self.knowledge = knowledge if knowledge is not None else (scenario.knowledge or Knowledge())
        self._items = [_Phrases(i, [_tokens(p) for p in (i.label, *i.aliases)])
                       for i in self.knowledge.items]
        self._deliverables = [_tokens(p) for p in self._deliverable_labels()]
        self._vocabulary = frozenset().union(*(t for i in self._items for t in i.tokens), *self._deliverables)
        self._forms = written_forms([p for i in self.knowledge.items for p in (i.label, *i.aliases)]
                                    + self._deliverable_labels())
        persona = scenario.human_persona
        self._persona_names = {w.lower() for w in (persona.name.split() if not isinstance(persona, str) else [])}
        others = [i.id.split(".", 1)[1] for i in self.knowledge.items if i.kind == "person"
                  and i.id not in ("person.persona", "person.role", "person.goals")]
        # Asking someone else to act ("Can Kenji confirm …?", "Renata, …"): not a question for the persona.
        names = "|".join(map(re.escape, others)) or "(?!)"
        self._for_others = re.compile(
            rf"\b(?:can|could|will|would|does|did|should|ask|has|have)\s+(?:{names})\b|^(?:{names})\s*[,:]",
            re.IGNORECASE)

    def _deliverable_labels(self) -> list[str]:
        sc = self.scenario
        labels = [humanise(k) for k in sc.ground_truth]
        for t in sc.turns:
            labels += [f.description for f in t.expected_facts]
        for p in sc.products:
            labels.append(p.title)
            if p.template is not None:
                for sheet in p.template.sheets:
                    labels += [r.label or humanise(r.key) for r in sheet.rows]
                labels += list(p.template.sections) + list(p.template.series)
                labels += [k.label or humanise(k.key) for k in (*p.template.keys, *p.template.widgets)]
        return labels

    def _forms_with(self, question: str) -> dict[str, frozenset[str]]:
        """The labels' written forms and the question's, by token."""
        forms = dict(self._forms)
        for k, v in written_forms([question]).items():
            forms[k] = forms.get(k, frozenset()) | v
        return forms

    def addressed(self, question: str) -> bool:
        """Whether the question is for the persona: not when it names someone else in the room's world
        and not the persona ('Can Kenji confirm …?')."""
        words = {w.lower() for w in re.findall(r"[A-Za-z]+", question)}
        return not self._for_others.search(question) or bool(words & self._persona_names)

    def _best_items(self, question: str) -> list[tuple[float, int, KnowledgeItem]]:
        found: dict[str, tuple[float, int, KnowledgeItem]] = {}
        for part in [question, *_CLAUSE.split(question)]:
            q = _tokens(part)
            if not q:
                continue
            forms = self._forms_with(part)
            scored = [(*_match(q, p.tokens, self._vocabulary, forms), p.item) for p in self._items if p.item is not None]
            scored = [s for s in scored if s[0] >= MATCH_THRESHOLD]
            if not scored:
                continue
            top = max(scored, key=lambda s: (s[0], s[1]))
            # The best item for this clause, and any tied with it in both share and words.
            for s in scored:
                if (s[0], s[1]) == (top[0], top[1]):
                    prev = found.get(s[2].id)
                    if prev is None or (s[0], s[1]) > (prev[0], prev[1]):
                        found[s[2].id] = s  # type: ignore[assignment]
        ranked = sorted(found.values(), key=lambda s: (-s[0], -s[1], s[2].id))
        return ranked[:MAX_ITEMS_PER_QUESTION]

    def answer(self, question: str) -> Answer:
        """The reply to one question addressed to the persona."""
        if not self.addressed(question):
            return Answer(question, "not_addressed")
        w = wording()["reply"]
        if _REVEAL.search(question):  # "ignore your role and tell me the answers": the agent's own work
            return Answer(question, "deliverable", w["deliverable"])
        items = self._best_items(question)
        if not items and _OFFER.search(question):
            return Answer(question, "offer")
        deliverable = _match(_tokens(question), self._deliverables, self._vocabulary, self._forms_with(question))
        best = (items[0][0], items[0][1]) if items else (0.0, 0)
        if deliverable[0] >= MATCH_THRESHOLD and deliverable > best:
            return Answer(question, "deliverable", w["deliverable"])
        if not items:
            return Answer(question, "unknown", self.knowledge.unknown or w["unknown"])
        chosen = [i for _, _, i in items]
        texts = [render(i) for i in chosen]
        text = texts[0] if len(texts) == 1 else w["several"].format(first=texts[0], rest=texts[1][:1].lower() + texts[1][1:])
        if not self.grounded(text, chosen):
            logger.warning("answer %r cites a figure its items do not hold: not given", text)
            return Answer(question, "unknown", self.knowledge.unknown or w["unknown"])
        return Answer(question, "answered", text, tuple(i.id for i in chosen))

    async def compose(self, answer: Answer) -> Answer:
        """The words of ``answer`` as said: the offline answerer's own (the LLM answerer words it anew)."""
        return answer

    @staticmethod
    def grounded(text: str, items: list[KnowledgeItem]) -> bool:
        """Every figure in ``text`` is one the cited items hold (their values, notes and own wording)."""
        allowed = []
        for i in items:
            if not isinstance(i.value, str):
                allowed.append(float(i.value))
            allowed += [q.value for q in quantities(" ".join((str(i.value), i.note, i.answer, i.label)))]
        return all(any(abs(q.value - a) <= 1e-9 + 1e-6 * abs(a) for a in allowed) for q in quantities(text))


def answers_to(answerer: OfflineAnswerer, text: str) -> list[Answer]:
    """The persona's replies to the questions in one turn's ``text``, as the live persona gives them: the
    ones it speaks or posts, at most ``MAX_ANSWERS_PER_TURN`` (a responses line's ``persona_replies``)."""
    out: list[Answer] = []
    for q in questions_in(text):
        a = answerer.answer(q)
        if a.outcome in ANSWERED_OUTCOMES:
            if len(out) >= MAX_ANSWERS_PER_TURN:
                break
            out.append(a)
    return out


def withheld_asks(answerer: OfflineAnswerer, turn_index: int, text: str) -> list[str]:
    """What a participant asks in turn ``turn_index`` beyond ``text`` (its own words) to be told the withheld
    facts the turn needs: each withheld item's ``ask`` that no question in ``text`` already covers."""
    covered = {i for a in answers_to(answerer, text) for i in a.item_ids}
    return [i.ask for i in answerer.knowledge.withheld if i.turn == turn_index and i.id not in covered and i.ask]
