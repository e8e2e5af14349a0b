"""The offline judge: deterministic, no network; scores all 11 dimensions from substance only.

Rules (docs/scoring.md): a turn scores from the expected facts its own words state (copied spans
and judge-directed text removed), its edge-case signals and the expected edits it made; a product
from the programmatic checks and the reference content. Clarity and courtesy only scale what
substance earned, so they can never lift an empty turn.
"""

from __future__ import annotations

import bisect
import logging
import re
from dataclasses import dataclass
from typing import Any

from modylbench.record import TurnResponse
from modylbench.scenarios import (
    MISSING,
    Aligner,
    ExpectedFact,
    Scenario,
    apply_mutations,
    challenge_answer,
    close,
    label_tokens,
    leaves,
    normal_text,
    parse_signal_number,
    pushback_wrong_figures,
    quantity_spans,
    spoken_to_digits,
    stated_tolerance_pct,
    unit_family,
    value_credit,
)
from modylbench.scenarios.builtin import published_counterpart
from modylbench.scoring._judges import Item, Judge, ProductItem, TurnItem
from modylbench.scoring._models import Verdict
from modylbench.scoring._text import (
    HIDDEN_SHINGLE,
    SHINGLE,
    Quantity,
    fact_stated,
    mask_copied,
    normalise,
    number_matches,
    quantities,
    shingles,
    signal_present,
    strip_injection,
    words,
)

logger = logging.getLogger(__name__)

GIVEN_FACT_WEIGHT = 0.5  # a figure the persona or the brief already said is worth half
BAD_SIGNAL_FACTOR = 0.25  # giving in on an edge case keeps a quarter of the credit
VERBOSE_WORDS = 220
_COURTESY = re.compile(r"\b(thanks|thank you|happy to|glad|appreciate|good (question|point)|sure)\b", re.I)
_MARKUP = re.compile(r"(^|\n)\s*(#{1,6} |[-*•] |\d+\. |\|)|\*\*|__|```", re.M)
# Uncertainty about which value is meant ("24.6% or maybe 29.5%"): the figure is not a claim.
# Uncertainty about a figure ("maybe 24.6%", "somewhere between 20 and 30%"): said just before it,
# the figure is hedged; said between two figures of the same kind, they are alternatives.
_HEDGE = re.compile(
    r"\b(or maybe|maybe|perhaps|possibly|might be|not sure|unsure|somewhere between|or possibly|or perhaps|"
    r"hard to say|anywhere from|give or take|ballpark)\b",
    re.I,
)
_ALTERNATIVE = re.compile(r"(?<![\w-])or(?![\w-])", re.I)  # 'SQL-or-later' offers no alternative
HEDGE_REACH = 40  # characters before a figure in which a hedge word hedges it
_CLAUSE = re.compile(r"(?<=[.!?;])\s+|\n+")
KNOWN_TOLERANCE_PCT = 0.5
PRECISION_FREE = 0.25  # share of figures that may match nothing known before the turn's substance drops
PRECISION_ZERO = 0.7  # share at which nothing is left
FLOOD_MIN = 30  # figures a turn may state before extra figures dilute it (or 8 per expected fact)
HEDGED_FACT_CREDIT = 0.5
# A turn that states more than half of all the meeting's text facts (talking points, names, terms)
# is reciting a list; its text facts lose credit, down to nothing at 80 %. Measured on the six
# built-ins: a correct answer states at most 42 % of them in one turn.
BREADTH_FREE = 0.5
BREADTH_ZERO = 0.8
BREADTH_MIN_FACTS = 8
DERIVE_FROM = 24  # figures of a turn (its facts, the persona's figures) whose one-step results count as known
EDIT_WEIGHT = 0.65  # share of task progress that the turn's expected edits carry, when it has any
LATE_TALK_CREDIT = 0.85  # a turn's fact stated in the next turn (after a question, or once the work was done)
READINGS_KEPT = 512  # turn readings kept per scenario (a meeting's turns, several lines at once)
RESTATED_FACTOR = 0.5  # a fact restated later with another value, without a stated correction: both weaken
# A fact counted half (public, given, a lookup) is evidence of work on this meeting only as far as the line shows
# it works on this meeting: its credit scales from this share (no own fact stated) to 1 (all of them).
OPEN_FACT_FLOOR = 0.5
# A sentence that withdraws what was just said, or corrects it.
_RETRACT = re.compile(
    r"\b(disregard (that|this|those|what i (just )?said|my (last|previous|earlier))|scratch that|strike that|"
    r"ignore (that|this|what i (just )?said|my (last|previous|earlier))|i take (that|it|those) back|"
    r"retract|withdraw (that|those|my))\b",
    re.I,
)
_CORRECT = re.compile(
    r"\b(correction|misspoke|misspoken|let me correct|to correct|i meant|i mean|make that|should (be|read|have been)|"
    r"my mistake|my error|corrected|typo)\b",
    re.I,
)
# Asking or deferring in the turn the curveball came ("let me check that and come back to you").
_DEFERRAL = re.compile(
    r"\b(let me (check|confirm|look|verify|find out)|come back (to you |on (that|this|it) )?|get back to you|"
    r"follow up|circle back|before i (answer|change|commit))",
    re.I,
)
_NOT_BEFORE = re.compile(r"\b(not|rather than|instead of|as opposed to)\s*$", re.I)


def _s(x: float) -> float:
    """Map a substance fraction 0..1 to a 1..10 score."""
    return 1.0 + 9.0 * max(0.0, min(1.0, x))


def _mean(xs: list[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return sum(vals) / len(vals) if vals else None


def _slide_text(turn: Any) -> str:
    s = turn.screen
    if s is None:
        return ""
    parts = [s.title, s.subtitle, s.footnote, *s.bullets]
    if s.table is not None:
        parts += s.table.columns + [str(c) for row in s.table.rows for c in row if c is not None]
    if s.chart is not None:
        parts += s.chart.categories + [s.chart.x_label, s.chart.y_label]
        parts += [f"{sr.name} " + " ".join(str(v) for v in sr.values) for sr in s.chart.series]
    return "\n".join(p for p in parts if p)


class _ScenarioText:
    """What the agent could copy from: the brief, every persona line, slide and the public turn text."""

    def __init__(self, scenario: Scenario):
        parts = [scenario.title, scenario.context, scenario.meeting_goal]
        hidden = [scenario.verification.method, *scenario.verification.criteria]
        persona = scenario.human_persona
        parts.append(
            persona
            if isinstance(persona, str)
            else f"{persona.name} {persona.role} {' '.join(persona.goals)}"
        )
        self.turn_given: list[list[Quantity]] = []
        context_qs = quantities(scenario.context)
        for t in scenario.turns:
            # The persona's figures said in words are read as the agent's are (spoken_to_digits).
            persona_said = spoken_to_digits("\n".join([t.human_utterance, t.chat_message or "", _slide_text(t)]))
            parts.append(persona_said)
            hidden.append(t.expected_agent_action)
            self.turn_given.append(quantities(persona_said) + context_qs)
        for e in scenario.edge_cases:
            parts.append(spoken_to_digits(e.human_utterance))
            hidden += [e.description, e.expected_behavior]
        self.known = _known_numbers(scenario)
        self.truth = _truth_numbers(scenario)
        self.context_given = context_qs
        self.shown = shown_numbers(scenario)
        self.published = _published_facts(scenario)
        self.text_facts = [
            f for t in scenario.turns for f in t.expected_facts
            if not (isinstance(f.value, int | float) and not isinstance(f.value, bool))
        ]
        self._turn_known: dict[int, list[float]] = {}
        self._readings: dict[tuple[int, str], _Reading] = {}
        self._scenario = scenario
        for o in scenario.expected_outputs:
            hidden.append(o.description)
            hidden += [c if isinstance(c, str) else c.description for c in o.verification_criteria]
        visible: set[tuple[str, ...]] = set()
        for p in parts:
            visible |= shingles(p, SHINGLE)
        unseen: set[tuple[str, ...]] = set()
        for p in hidden:
            unseen |= shingles(p, HIDDEN_SHINGLE)
        self.corpora = [(visible, SHINGLE), (unseen, HIDDEN_SHINGLE)]


    def reading(self, turn_index: int, said: str) -> _Reading:
        """The turn's words read once (a turn is read again as the next turn's late answer and for the
        restatements of earlier turns)."""
        key = (turn_index, said)
        hit = self._readings.get(key)
        if hit is None:
            if len(self._readings) >= READINGS_KEPT:
                self._readings.pop(next(iter(self._readings)))
            hit = self._readings[key] = _Reading(self, turn_index, said)
        return hit

    def known_for(self, turn_index: int) -> list[float]:
        """What this turn's and the previous turn's figures give in one step (beside ``known``)."""
        hit = self._turn_known.get(turn_index)
        if hit is None:
            base: list[float] = []
            for t in self._scenario.turns[max(0, turn_index - 1) : turn_index + 1]:
                base += [float(f.value) for f in t.expected_facts
                         if isinstance(f.value, int | float) and not isinstance(f.value, bool)]
            if turn_index < len(self.turn_given):
                base += [q.value for q in self.turn_given[turn_index]]
            hit = sorted(set(_derived(base)))
            self._turn_known[turn_index] = hit
        return hit


def _published_facts(scenario: Scenario) -> set[tuple[int, str]]:
    """(turn, fact id) of the facts a fresh instance shares with the published one (seed 0's export): on
    such an instance they are public already, like a figure the persona gave, and count half."""
    published = published_counterpart(scenario)
    if published is None:
        return set()
    values = {(t.turn_index, f.id): f.value for t in published.turns for f in t.expected_facts}
    return {(t.turn_index, f.id) for t in scenario.turns for f in t.expected_facts
            if (t.turn_index, f.id) in values and values[(t.turn_index, f.id)] == f.value}


def _solved_figures(scenario: Scenario) -> list[float]:
    """The figures of the scenario's solution: its ground truth and its reference products."""
    vals = [float(v) for v in scenario.ground_truth.values() if isinstance(v, int | float) and not isinstance(v, bool)]
    refs = [p.reference for p in scenario.products] or list(apply_mutations(scenario.expected_mutations).values())
    for ref in refs:
        for _path, leaf in leaves(ref):
            if isinstance(leaf, int | float) and not isinstance(leaf, bool):
                vals.append(float(leaf))
            elif isinstance(leaf, str):
                vals += [q.value for q in quantities(leaf)]
    return vals


def _truth_numbers(scenario: Scenario) -> list[float]:
    """The figures that are true of the scenario's quantities: every fact, the ground truth, the reference
    products and answers. A figure among these, or among the inputs given around a turn, stands for a
    quantity of its own; any other figure near a fact's value is a rival for it."""
    vals: list[float] = []
    for t in scenario.turns:
        for f in t.expected_facts:
            if isinstance(f.value, int | float) and not isinstance(f.value, bool):
                vals.append(float(f.value))
        for text in (t.reference_response, t.reference_chat or ""):
            for q in quantities(spoken_to_digits(text)):
                vals.append(q.value)
                if q.scaled is not None:
                    vals.append(q.scaled)
    vals += _solved_figures(scenario)
    return sorted({abs(v) for v in vals})


def _known_numbers(scenario: Scenario) -> list[float]:
    """Every figure the scenario holds or derives: brief, persona, files, facts, ground truth, references."""
    vals: list[float] = []
    texts = [scenario.context, scenario.meeting_goal]
    for t in scenario.turns:
        texts += [t.human_utterance, t.chat_message or "", _slide_text(t), t.reference_response, t.reference_chat or ""]
        for f in t.expected_facts:
            if isinstance(f.value, int | float) and not isinstance(f.value, bool):
                vals.append(float(f.value))
            else:
                texts.append(str(f.value))
    texts += [e.human_utterance for e in scenario.edge_cases]
    texts = [spoken_to_digits(t) for t in texts]
    texts += [f.content for f in scenario.data_files]
    for q in (q for text in texts for q in quantities(text)):
        vals.append(q.value)
        if q.scaled is not None:
            vals.append(q.scaled)
    vals += _solved_figures(scenario)
    return sorted({abs(v) for v in vals})


def shown_numbers(scenario: Scenario) -> list[float]:
    """Every figure the meeting shows the agent (sorted, magnitudes): the brief, every persona line, chat and
    slide, the edge cases' words and the pushed data files. A fact or an expected edit whose figures are all
    among these is a lookup of an input, not derived work, and counts half (docs/scoring.md)."""
    pushed = {n for t in scenario.turns for n in t.files}
    texts = [scenario.context, scenario.meeting_goal]
    for t in scenario.turns:
        texts += [t.human_utterance, t.chat_message or "", _slide_text(t)]
    texts += [e.human_utterance for e in scenario.edge_cases]
    texts = [spoken_to_digits(t) for t in texts]
    texts += [f.content for f in scenario.data_files if f.name in pushed]
    vals: list[float] = []
    for q in (q for text in texts for q in quantities(text)):
        vals.append(abs(q.value))
        if q.scaled is not None:
            vals.append(abs(q.scaled))
    return sorted(set(vals))


def is_lookup(value: Any, shown: list[float]) -> bool:
    """``value`` (a figure, a text or a composite value) holds figures, and every one of them is a figure the
    meeting showed the agent (within 0.5 %; counts up to 12 and years aside): reading it off is no derivation."""
    figs: list[float] = []
    for _path, leaf in leaves(value):
        if isinstance(leaf, bool):
            continue
        if isinstance(leaf, int | float):
            figs.append(float(leaf))
        elif isinstance(leaf, str):
            figs += [q.value for q in quantities(spoken_to_digits(leaf)) if not _trivial(q)]
    figs = [v for v in figs if not (v == int(v) and (abs(v) <= 12 or 1990 <= v <= 2100))]
    return bool(figs) and all(_is_known(abs(v), shown) for v in figs)


def _stated_tolerance_pct(v: float) -> float:
    """How precisely a figure was stated (``scenarios.stated_tolerance_pct``, at least KNOWN_TOLERANCE_PCT)."""
    return stated_tolerance_pct(v, KNOWN_TOLERANCE_PCT)


def _is_known(v: float, known: list[float], tolerance_pct: float = KNOWN_TOLERANCE_PCT) -> bool:
    if not known:
        return False
    lo = v * (1 - tolerance_pct / 100) if v else -0.005
    hi = v * (1 + tolerance_pct / 100) if v else 0.005
    i = bisect.bisect_left(known, lo)
    return i < len(known) and known[i] <= hi


def _q_known(q: Quantity, known: list[float]) -> bool:
    a = abs(q.value)
    tol = _stated_tolerance_pct(q.value)
    cands = [a]
    if q.scaled is not None:
        cands.append(abs(q.scaled))
    if q.family in ("plain", "money"):
        cands += [a / 1e3, a / 1e6, a / 1e9]
    if q.family == "plain" and a <= 1.5:
        cands.append(a * 100)
    if q.family == "pct" and a > 1.5:
        cands.append(a / 100)
    return any(_is_known(c, known, tol) for c in cands)


def _text_breadth(text_facts: list[Any], text_norm: str) -> float:
    """Share of the whole meeting's text facts one turn states (0 for a scenario with few of them)."""
    if len(text_facts) < BREADTH_MIN_FACTS:
        return 0.0
    return sum(1 for f in text_facts if fact_stated(f, text_norm, [])) / len(text_facts)


def _derived(values: list[float]) -> list[float]:
    """What a person works out from a handful of figures in one step: differences, sums, ratios."""
    out: list[float] = []
    vs = [abs(v) for v in values if v][:DERIVE_FROM]
    for i, a in enumerate(vs):
        for b in vs[i + 1 :]:
            out += [abs(a - b), a + b, a / b, b / a, a / b * 100, b / a * 100, abs(a - b) / b * 100, abs(a - b) / a * 100]
    return out


def _trivial(q: Quantity) -> bool:
    """Counts, ordinals and years carry no claim: 'three products', 'year 3', '2029'."""
    if q.family != "plain" or q.scaled is not None or q.value != int(q.value):
        return False
    return abs(q.value) <= 12 or 1990 <= q.value <= 2100


def _compatible(a: Quantity, b: Quantity) -> bool:
    return a.family == b.family or "plain" in (a.family, b.family)


class _Claims:
    """The figures a turn states, sentence by sentence: what it withdrew or corrected taken out, hedges and
    rivals marked. Several values offered for one quantity anywhere in the turn are no claim."""

    def __init__(self, text: str, known: list[float], derived: list[float] | None = None,
                 accounted: list[float] | None = None, given: list[Quantity] | None = None):
        self.clauses: list[tuple[str, list[tuple[int, int, Quantity]]]] = []
        firm: list[str] = []
        self.retracts_previous = False
        live: list[list[bool]] = []
        for clause in _CLAUSE.split(text):
            spans = quantity_spans(clause)
            if _RETRACT.search(clause) is not None:
                if not self.clauses:
                    self.retracts_previous = True  # "disregard what I said" opening a turn
                else:
                    # Everything said before it in the turn is withdrawn; what comes after stands.
                    live = [[False] * len(flags) for flags in live]
                    firm = []
                # What the retracting sentence says itself stands.
            mine = [True] * len(spans)
            if _CORRECT.search(clause) is not None and spans:
                # A correction replaces what was said before: the figure it negates ("24.6 %, not 27 %")
                # is no claim, here or earlier in the turn; without one, it replaces earlier figures of
                # the same kind and size that stand for no quantity of their own.
                negated = []
                for k, (s0, _e0, q) in enumerate(spans):
                    if _NOT_BEFORE.search(clause[max(0, s0 - 20) : s0]):
                        mine[k] = False
                        negated.append(q)
                stated = [q for k, (_s, _e, q) in enumerate(spans) if mine[k]]
                for (_c, prev), flags in zip(self.clauses, live, strict=True):
                    for k, (_s, _e, pq) in enumerate(prev):
                        if negated:
                            if any(_same_figure(pq, q) for q in negated):
                                flags[k] = False
                        elif any(_compatible(pq, q) and _near(pq, q) for q in stated) and not (
                            _q_known(pq, accounted or []) or any(_same_figure(pq, g) for g in given or [])
                        ):
                            flags[k] = False
            if _HEDGE.search(clause) is None:
                firm.append(clause)
            if spans:
                self.clauses.append((clause, spans))
                live.append(mine)
        # Only the figures still standing are the turn's claims.
        self.clauses = [
            (c, [sp for sp, ok in zip(spans, flags, strict=True) if ok]) for (c, spans), flags in zip(self.clauses, live, strict=True)
        ]
        self.firm_text = normal_text(" ".join(firm))
        self.known = known
        self.derived = derived or []
        self.accounted = accounted or []
        self.given = given or []
        self._tokens: list[set[str] | None] | None = None
        sig = [q for _c, spans in self.clauses for _s, _e, q in spans if not _trivial(q)]
        self.n_significant = len(sig)
        self.n_unknown = sum(1 for q in sig if not self.is_known(q))

    @property
    def quantities(self) -> list[Quantity]:
        return [q for _c, spans in self.clauses for _s, _e, q in spans]

    def is_known(self, q: Quantity) -> bool:
        """The figure is one the scenario holds, or one step from this turn's figures."""
        return _q_known(q, self.known) or _q_known(q, self.derived)

    def is_accounted(self, q: Quantity) -> bool:
        """The figure stands for a quantity of its own: a true figure of the scenario, or one of the
        inputs given in this turn, the previous one or the brief (quoting them is no rival)."""
        return _q_known(q, self.accounted) or any(_same_figure(q, g) for g in self.given)

    def fact_quantities(self, value: float, unit: str, tol: float) -> tuple[list[Quantity], bool, float]:
        """(figures that state the value as a claim, whether it was only said hedged, the share of the claim).

        A figure is no claim when a rival of the same kind and size stands in its sentence that stands for
        no quantity of its own (not a true figure, not an input given), or that is offered as its
        alternative ('or', a hedge word between them); it is hedged when a hedge word comes just before
        it. Rivals elsewhere in the turn share the claim: with n of them, it is worth 1 / (1 + n), so
        offering k values for one quantity in k sentences buys nothing over offering one.
        """
        clean: list[Quantity] = []
        hedged_only: list[Quantity] = []
        matches = [(ci, s, e, h) for ci, (_c, spans) in enumerate(self.clauses) for s, e, h in spans
                   if number_matches(h, value, unit, tol)]
        if not matches:
            return [], False, 0.0
        match_clauses = {ci for ci, _s, _e, _h in matches}
        elsewhere = 0
        for ci, (clause, spans) in enumerate(self.clauses):
            for s2, e2, c in spans:
                if _trivial(c) or number_matches(c, value, unit, tol):
                    continue
                if not any(_compatible(c, h) and _near(c, h) for _ci, _s, _e, h in matches):
                    continue
                if not self.is_accounted(c):
                    if ci in match_clauses:
                        return [], False, 0.0  # another value for the same quantity beside it: no claim
                    elsewhere += 1
                    continue
                for mci, s, e, h in matches:
                    if mci == ci and _compatible(c, h) and _near(c, h):
                        # Offered as alternatives: next to each other, 'or' or a hedge between them.
                        lo, hi = min(e, e2), max(s, s2)
                        between = clause[lo:hi]
                        adjacent = not any(lo <= s3 and e3 <= hi for s3, e3, _q3 in spans)
                        if adjacent and (_ALTERNATIVE.search(between) is not None or _HEDGE.search(between) is not None):
                            return [], False, 0.0
        for ci, s, _e, h in matches:
            clause = self.clauses[ci][0]
            hedged = _HEDGE.search(clause[max(0, s - HEDGE_REACH) : s]) is not None
            (hedged_only if hedged else clean).append(h)
        share = 1.0 / (1 + elsewhere)
        if clean:
            return clean, False, share
        return hedged_only, bool(hedged_only), share

    def values_for(self, value: float, unit: str, tol: float, terms: tuple[str, ...]) -> list[Quantity]:
        """Figures standing in sentences that name the fact (its description's words) with another
        value of the same kind and size that is no true figure: a restatement that contradicts it."""
        out: list[Quantity] = []
        if not terms:
            return out
        probe = Quantity(value, _family_of(unit), None)
        if self._tokens is None:
            self._tokens = [set(label_tokens(c)) if _CORRECT.search(c) is None else None for c, _sp in self.clauses]
        for (_clause, spans), words_here in zip(self.clauses, self._tokens, strict=True):
            if words_here is None:
                continue
            if sum(1 for t in terms if t in words_here) < min(2, len(terms)):
                continue
            for _s, _e, c in spans:
                if _trivial(c) or number_matches(c, value, unit, tol):
                    continue
                if _compatible(c, probe) and _near(c, probe) and not self.is_accounted(c):
                    out.append(c)
        return out

    def precision(self, n_facts: int) -> float:
        """1.0 for a turn whose figures are known or derivable; less as unknown figures or a flood grow."""
        if not self.n_significant:
            return 1.0
        u = self.n_unknown / self.n_significant
        factor = 1.0 if u <= PRECISION_FREE else max(0.0, 1 - (u - PRECISION_FREE) / (PRECISION_ZERO - PRECISION_FREE))
        cap = max(FLOOD_MIN, 8 * n_facts)
        if self.n_significant > cap:
            factor *= (cap / self.n_significant) ** 2
        return factor


def _family_of(unit: str) -> str:
    fam, _scale = unit_family(unit)
    return {"pct": "pct", "mult": "mult", "bps": "bps", "money": "money"}.get(fam, "plain")


def _same_figure(q: Quantity, g: Quantity) -> bool:
    """Two figures read from text are the same (any scale word either side)."""
    a = abs(q.scaled if q.scaled is not None else q.value)
    b = abs(g.scaled if g.scaled is not None else g.value)
    return close(abs(q.value), abs(g.value), KNOWN_TOLERANCE_PCT) or close(a, b, KNOWN_TOLERANCE_PCT)


def _fact_terms(f: ExpectedFact) -> tuple[str, ...]:
    """The words of a fact's description that name it (figures and small words left out)."""
    return tuple(t for t in label_tokens(f.description) if not any(ch.isdigit() for ch in t) and len(t) > 2)


def _near(a: Quantity, b: Quantity) -> bool:
    """Two figures of about the same size (one could be mistaken for the other)."""
    x, y = abs(a.scaled or a.value), abs(b.scaled or b.value)
    if x == 0 or y == 0:
        return x == y
    return 1 / 3 <= x / y <= 3


@dataclass(frozen=True)
class FactEvidence:
    """Whether one turn stated one of its expected facts, by the offline judge's reading."""

    fact: ExpectedFact
    """The expected fact (id, description, value, unit, tolerance, keywords)."""
    stated: bool
    """The agent's own words (speech and chat, copied spans and judge-directed text removed) state it."""
    hedged: bool = False
    """Stated only with a hedge ("maybe 24.6%"): half credit."""
    given: bool = False
    """A figure the persona or the brief had already said in this turn: worth half."""
    share: float = 1.0
    """1 / (1 + rivals elsewhere in the turn): the claim shared with the other values offered for it."""

    @property
    def numeric(self) -> bool:
        """A figure (compared within tolerance) rather than words."""
        return isinstance(self.fact.value, int | float) and not isinstance(self.fact.value, bool)


class _Reading:
    """One turn's words as the offline judge reads them: figures in words made digits, judge-directed
    text and spans copied from the meeting removed, the claims found."""

    def __init__(self, st: _ScenarioText, turn_index: int, said: str):
        self.st, self.turn_index = st, turn_index
        # Figures said in words count as figures ("twenty-four point six percent").
        self.cleaned, self.injected = strip_injection(spoken_to_digits(said))
        self.kept, self.copied = mask_copied(self.cleaned, st.corpora)
        self.tnorm = normal_text(self.kept)
        given: list[Quantity] = []
        for ti in (turn_index - 1, turn_index):
            if 0 <= ti < len(st.turn_given):
                given += st.turn_given[ti]
        self.claims = _Claims(self.kept, st.known, st.known_for(turn_index), st.truth, given)
        # A reading is asked about the same facts again (a turn's facts read for the turn and for the line's
        # own-fact share, a later turn checked for restatements of each earlier one): answers kept, keyed
        # by the facts' identity (the key holds them, so an id is not reused while its answer is kept).
        self._facts: dict[tuple[int, tuple[int, ...]], tuple[tuple[ExpectedFact, ...], list[FactEvidence]]] = {}
        self._contradicts: dict[int, tuple[ExpectedFact, bool]] = {}

    def facts(self, expected: list[ExpectedFact], turn_index: int | None = None) -> list[FactEvidence]:
        """Each expected fact (of this turn, or of ``turn_index`` when read late): stated, hedged, given."""
        ti = self.turn_index if turn_index is None else turn_index
        key = (ti, tuple(map(id, expected)))
        hit = self._facts.get(key)
        if hit is None:
            hit = self._facts[key] = (tuple(expected), self._read_facts(expected, ti))
        return list(hit[1])

    def _read_facts(self, expected: list[ExpectedFact], ti: int) -> list[FactEvidence]:
        st, claims = self.st, self.claims
        given_qs = st.turn_given[ti] if ti < len(st.turn_given) else []
        out = []
        for f in expected:
            numeric = isinstance(f.value, int | float) and not isinstance(f.value, bool)
            given = numeric and (any(number_matches(q, float(f.value), f.unit, f.tolerance_pct) for q in given_qs)
                                 or is_lookup(f.value, st.shown))
            share = 1.0
            if numeric:
                fq, hedged, share = claims.fact_quantities(float(f.value), f.unit, f.tolerance_pct)
                stated = fact_stated(f, self.tnorm, fq)
            elif fact_stated(f, claims.firm_text, []):
                stated, hedged = True, False
            else:
                stated = hedged = fact_stated(f, self.tnorm, [])
            out.append(FactEvidence(fact=f, stated=stated, hedged=stated and hedged, given=given,
                                    share=share if numeric and stated and fq else 1.0))
        return out

    def contradicts(self, f: ExpectedFact) -> bool:
        """This turn restates the fact with another value, without saying it corrects it."""
        if not (isinstance(f.value, int | float) and not isinstance(f.value, bool)):
            return False
        hit = self._contradicts.get(id(f))
        if hit is None:
            said = bool(self.claims.values_for(float(f.value), f.unit, f.tolerance_pct, _fact_terms(f)))
            hit = self._contradicts[id(f)] = (f, said)
        return hit[1]


def _said(r: TurnResponse | None) -> str:
    return "" if r is None else "\n".join([r.agent_response, *r.chat_messages])


def own_fact_share(scenario: Scenario, by_turn: dict[int, TurnResponse]) -> float | None:
    """The share of the meeting's own facts (those not counted half: not public through seed 0's export, not
    given by the persona or the brief, not a lookup of a shown input) the line states, in their turn or at
    LATE_TALK_CREDIT in the next (None when the meeting has none). Read as the offline judge reads turns."""
    st = OfflineJudge()._text(scenario)
    n = 0
    got = 0.0
    for t in scenario.turns:
        said, late_said = _said(by_turn.get(t.turn_index)), _said(by_turn.get(t.turn_index + 1))
        own = st.reading(t.turn_index, said).facts(t.expected_facts)
        late = st.reading(t.turn_index + 1, late_said).facts(t.expected_facts, t.turn_index) if late_said.strip() \
            else None
        for i, f in enumerate(t.expected_facts):
            ev = own[i]
            if ev.given or (t.turn_index, f.id) in st.published:
                continue
            n += 1
            c = _credit(ev, 1.0) if said.strip() else 0.0
            if late is not None:
                c = max(c, LATE_TALK_CREDIT * _credit(late[i], 1.0))
            got += c
    return got / n if n else None


def _credit(ev: FactEvidence, words_factor: float) -> float:
    # Talking points recited with the whole meeting's list lose credit; figures do not.
    if not ev.stated:
        return 0.0
    return (HEDGED_FACT_CREDIT if ev.hedged else 1.0) * (1.0 if ev.numeric else words_factor) * ev.share


def _states_truth(q: Quantity, turn: Any, edge: Any) -> bool:
    """The figure states one of the turn's true values (a fact, a good signal) within its precision."""
    for f in turn.expected_facts:
        if isinstance(f.value, int | float) and not isinstance(f.value, bool) and number_matches(
            q, float(f.value), f.unit, max(f.tolerance_pct, _stated_tolerance_pct(q.value))
        ):
            return True
    for sgn in edge.good_signals:
        sq = parse_signal_number(sgn)
        if sq is not None:
            unit = {"pct": "%", "mult": "x", "bps": "bps"}.get(sq.family, "")
            if number_matches(q, sq.value, unit, max(0.5, _stated_tolerance_pct(q.value))):
                return True
    return False


def facts_stated(scenario: Scenario, turn_index: int, response: TurnResponse | None) -> list[FactEvidence]:
    """Which of a turn's expected facts the agent's response stated, read exactly as the offline judge
    reads them for context_accuracy (its speech and chat together); one entry per expected fact."""
    turn = next((t for t in scenario.turns if t.turn_index == turn_index), None)
    if turn is None:
        raise IndexError(f"scenario {scenario.scenario_id!r} has no turn {turn_index}")
    said = "" if response is None else "\n".join([response.agent_response, *response.chat_messages])
    if not said.strip():
        return [FactEvidence(fact=f, stated=False) for f in turn.expected_facts]
    return _Reading(OfflineJudge()._text(scenario), turn_index, said).facts(turn.expected_facts)


# What the agent could copy and which figures a scenario knows take a while to work out; they are
# kept per scenario object for the process (scenarios are not changed once built).
_TEXTS: dict[int, tuple[Scenario, _ScenarioText]] = {}
_TEXTS_KEPT = 64


class OfflineJudge(Judge):
    """Deterministic substance judge: the default panel and the one the anti-gaming tests use."""

    name = "offline"

    def __init__(self) -> None:
        self._texts = _TEXTS

    def _text(self, scenario: Scenario) -> _ScenarioText:
        hit = self._texts.get(id(scenario))
        if hit is None or hit[0] is not scenario:
            hit = (scenario, _ScenarioText(scenario))
            if len(self._texts) >= _TEXTS_KEPT:
                self._texts.pop(next(iter(self._texts)))
            self._texts[id(scenario)] = hit
        return hit[1]

    async def judge_items(self, items: list[Item]) -> list[Verdict]:
        """Every item judged in turn (deterministic, no I/O: nothing to overlap)."""
        return [self.judge(item) for item in items]

    def close(self) -> None:
        """Nothing to release."""

    def judge(self, item: Item) -> Verdict:
        """One item's verdict."""
        if isinstance(item, TurnItem):
            return self._turn(item)
        return self._product(item)

    # ------------------------------------------------------------------ turns

    def _turn(self, item: TurnItem) -> Verdict:
        turn, r = item.turn, item.response
        said = _said(r)
        late_said = _said(item.next_response)
        progress = item.edits_matched / len(item.expected_edits) if item.expected_edits else None
        if not said.strip() and not item.edits and not late_said.strip():
            dims = dict.fromkeys(item.dimensions, 1.0)
            return Verdict(judge=self.name, dimensions=dims, rationale="no response", flags=["no_response"])
        st = self._text(item.scenario)
        flags: list[str] = []
        rd = st.reading(turn.turn_index, said)
        late = st.reading(turn.turn_index + 1, late_said) if late_said.strip() else None
        cleaned, kept, tnorm, claims = rd.cleaned, rd.kept, rd.tnorm, rd.claims
        if rd.injected:
            flags.append("prompt_injection")
        if rd.copied >= 0.5 and len(words(cleaned)) >= 5:
            flags.append("parroting")
        norm = normalise(kept)
        qs = claims.quantities
        notes = []

        fact_frac: float | None = None
        precision = claims.precision(len(turn.expected_facts))
        breadth = _text_breadth(st.text_facts, tnorm)
        words_factor = 1.0
        if breadth > BREADTH_FREE:
            # Saying most of the meeting's talking points in one turn is a list, not an answer.
            words_factor = max(0.0, 1 - (breadth - BREADTH_FREE) / (BREADTH_ZERO - BREADTH_FREE))
            flags.append("keyword_stuffing")
            notes.append(f"talking points of the whole meeting in one turn: {breadth:.0%}")
        # What this turn said stops counting when the next turn withdraws it ("disregard what I said").
        withdrawn = late is not None and late.claims.retracts_previous
        if withdrawn:
            flags.append("retracted")
        later = [st.reading(ti, _said(resp)) for ti, resp in sorted(item.later.items()) if _said(resp).strip()]
        # A wrong figure the persona challenged at this turn's start, said again here: defended, it costs
        # what a fact of this turn is worth (docs/scoring.md "Pushback").
        defended = []
        prev_turn = item.scenario.turns[turn.turn_index - 1] if turn.turn_index > 0 else None
        prev_said = _said(item.prev_response)
        # A line from a session record says which challenges the persona raised; only those can be defended.
        raised = r.persona_challenges if r is not None else None
        if prev_turn is not None and prev_said.strip():
            for f, _ in pushback_wrong_figures(item.scenario, prev_turn.turn_index, prev_said):
                if raised is not None and not any(c.fact_id == f.id and c.fact_turn == prev_turn.turn_index
                                                  for c in raised):
                    continue
                if challenge_answer(item.scenario, prev_turn.turn_index, f, said) == "defended":
                    defended.append(f.id)
        if defended:
            flags.append("defended_wrong_figure")
            notes.append(f"challenged figure defended: {', '.join(defended)}")
        if turn.expected_facts or defended:
            total = float(len(defended))
            got = 0.0
            n_got = n_hedged = n_late = n_restated = n_unasked = 0
            own = rd.facts(turn.expected_facts)
            late_evs = late.facts(turn.expected_facts, turn.turn_index) if late is not None else [None] * len(own)
            late_precision = late.claims.precision(len(turn.expected_facts)) if late is not None else 0.0
            for ev, lev in zip(own, late_evs, strict=True):
                public = (turn.turn_index, ev.fact.id) in st.published
                w = GIVEN_FACT_WEIGHT if ev.given or public else 1.0
                total += w
                # Counted half, it is evidence as far as the line shows work on this meeting elsewhere.
                open_scale = OPEN_FACT_FLOOR + (1 - OPEN_FACT_FLOOR) * item.own_share \
                    if w < 1.0 and item.own_share is not None else 1.0
                c_own = 0.0 if withdrawn else _credit(ev, words_factor) * precision * open_scale
                told_at = item.told.get(ev.fact.withheld, len(item.scenario.turns)) if ev.fact.withheld else -1
                if told_at > turn.turn_index and c_own:
                    # Only the persona's answer reveals it: said without having been told is a guess.
                    c_own = 0.0
                    n_unasked += 1
                if c_own and any(x.contradicts(ev.fact) for x in later):
                    # Restated later with another value and no correction said: no longer a claim of its own.
                    c_own *= RESTATED_FACTOR
                    n_restated += 1
                c_late = LATE_TALK_CREDIT * _credit(lev, words_factor) * late_precision * open_scale \
                    if lev is not None else 0.0
                if told_at > turn.turn_index + 1:
                    c_late = 0.0
                c = max(c_own, c_late)
                if c:
                    n_got += 1
                    n_hedged += ev.hedged if c == c_own else bool(lev and lev.hedged)
                    n_late += c == c_late and c_late > c_own
                got += w * c
            fact_frac = got / total
            notes.append(f"facts {n_got}/{len(turn.expected_facts)}" + (f" ({n_late} a turn late)" if n_late else ""))
            if n_hedged:
                flags.append("hedged")
            if n_late:
                flags.append("answered_late")
            if n_restated:
                flags.append("restated_differently")
            if n_unasked:
                flags.append("withheld_unasked")
        if precision < 1.0:
            flags.append("imprecise")
            notes.append(
                f"figures {claims.n_significant}, unknown {claims.n_unknown}, precision {precision:.2f}"
            )

        edge_frac: float | None = None
        edge = item.scenario.edge_case(turn.edge_case) if turn.edge_case else None
        if edge is not None:
            good = [s for s in edge.good_signals if signal_present(s, norm, qs, open_end=True)]
            # A curveball is handled when it is raised; after a clarifying question, in the next turn.
            asked = "?" in said or _DEFERRAL.search(said) is not None
            if late is not None and asked and len(good) < min(2, len(edge.good_signals)):
                late_norm = normalise(late.kept)
                late_good = [s for s in edge.good_signals
                             if s not in good and signal_present(s, late_norm, late.claims.quantities, open_end=True)]
            else:
                late_good = []
            # Giving in counts even in the persona's own words ("sure, just put 25% in"), so bad
            # signals are looked for before copied spans are masked; a figure that states the truth
            # within its precision ("21 %" for 21.0 %) is never read as giving in.
            raw_norm = normalise(cleaned)
            raw_qs = [q for q in quantities(cleaned) if not _states_truth(q, turn, edge)]
            bad = [s for s in edge.bad_signals if signal_present(s, raw_norm, raw_qs, skip_negated=True)]
            if edge.good_signals:
                need = min(2, len(edge.good_signals))
                edge_frac = max(min(1.0, len(good) / need),
                                LATE_TALK_CREDIT * min(1.0, (len(good) + len(late_good)) / need) if late_good else 0.0)
            else:
                edge_frac = fact_frac if fact_frac is not None else 0.0
            edge_frac *= precision
            if bad:
                edge_frac *= BAD_SIGNAL_FACTOR
                flags.append("edge_case_conceded")
            elif edge_frac < 0.5:
                flags.append("edge_case_unhandled")
            notes.append(f"edge signals good {len(good)}/{len(edge.good_signals)} bad {len(bad)}")

        if progress is not None:
            notes.append(f"edits {item.edits_matched}/{len(item.expected_edits)}")
        ctx = _mean([fact_frac, edge_frac]) if edge_frac is not None else fact_frac
        # A turn that asked for work is mostly judged by whether the work was done in time.
        tp = ctx if progress is None else progress if ctx is None else EDIT_WEIGHT * progress + (1 - EDIT_WEIGHT) * ctx
        if tp is None:
            # No ground truth for this turn: something of its own said earns half, never more.
            tp = (0.5 if len(words(kept)) >= 5 else 0.0) * precision
            flags.append("no_ground_truth")
        if ctx is None:
            ctx = tp
        n_words = len(said.split())
        clarity = 1.0
        if n_words > VERBOSE_WORDS:
            clarity -= min(0.3, (n_words - VERBOSE_WORDS) / 1000)
        if len(_MARKUP.findall(said)) > max(3, n_words // 25):
            clarity -= 0.1
        courtesy = 1.0 if _COURTESY.search(said) else 0.0
        dims = {
            "context_accuracy": _s(ctx),
            "task_progress": _s(tp),
            "iteration_quality": _s(tp),
            "adaptability": _s(edge_frac if edge_frac is not None else ctx),
            "presentation_quality": _s(tp * clarity),
            "social_quality": _s(tp * (0.9 + 0.1 * courtesy)),
        }
        return Verdict(judge=self.name, dimensions=dims, rationale="; ".join(notes), flags=flags)

    # ------------------------------------------------------------------ products

    def _product(self, item: ProductItem) -> Verdict:
        wp = item.delivered
        if wp is None:
            return Verdict(
                judge=self.name, dimensions=dict.fromkeys(item.dimensions, 1.0), rationale="not delivered"
            )
        content = wp.content
        required = [c for c in item.checks if c.required]
        check_frac = sum(c.passed for c in required) / len(required) if required else None
        ref = item.spec.reference if item.spec is not None else None
        value_frac: float | None = None
        figures_frac: float | None = None
        structure = 0.0
        if ref is not None:
            value_frac, figures_frac, complete, structure = _compare(ref, content, item.spec)
        else:
            targets = [c for c in item.expected.verification_criteria if not isinstance(c, str)]
            complete = (
                (sum(1 for c in item.checks if c.actual is not None or c.passed) / len(targets))
                if targets
                else (1.0 if content not in (None, "", {}, []) else 0.0)
            )
        shape = _shape_ok(item.expected.output_type, content)
        if ref is not None:
            # The scenario's own reference is the authority on structure when it has one.
            shape = max(shape, 1.0 if structure >= 0.9 else 0.4 + 0.6 * structure * 0.5)
        if wp.output_type != item.expected.output_type:
            shape *= 0.7
        flags: list[str] = []
        quality = _mean([check_frac, value_frac])
        if quality is None:
            flags.append("no_ground_truth")
            correct = 0.5 * complete
            quality = correct
        else:
            correct = min(x for x in (check_frac, figures_frac) if x is not None)
        dims = {
            "correctness": _s(correct),
            "completeness": _s(complete),
            "actionability": _s(quality),
            "professional_quality": _s(quality * shape),
            "format_presentation": _s(shape * complete),
        }
        notes = [f"checks {sum(c.passed for c in required)}/{len(required)}" if required else "no checks"]
        if value_frac is not None:
            notes.append(
                f"reference values {value_frac:.2f}, figures {figures_frac:.2f}, complete {complete:.2f}"
            )
        return Verdict(judge=self.name, dimensions=dims, rationale="; ".join(notes), flags=flags)


def _compare(ref: Any, content: Any, spec: Any) -> tuple[float, float, float, float]:
    """(value credit over all leaves, over the leaves holding figures, completeness, structure found).

    Each leaf of the reference is found in the delivered content by its path or, failing that, by
    labels (``Aligner``) and compared by meaning. Leaves the persona's template already held
    (headings, labels, categories) are given, not the agent's work, and are left out. Leaves holding
    figures are where correctness lives; labels and prose count toward the overall credit.
    """
    template = spec.template if spec is not None else None
    given: dict[tuple[str, ...], Any] = dict(leaves(spec.initial_content)) if spec is not None else {}
    ls = [(p, w) for p, w in leaves(ref) if w not in (None, "") and not (p in given and given[p] == w)]
    if not ls:
        same = 1.0 if content == ref else 0.0
        return same, same, (1.0 if content not in (None, "", {}, []) else 0.0), same
    aligner = Aligner(ref, content, template)
    credit = present = num_credit = 0.0
    n_num = 0
    parents: set[tuple[str, ...]] = set()
    found_parents: set[tuple[str, ...]] = set()
    for path, want in ls:
        got = aligner.resolve(path)
        numeric = (isinstance(want, int | float) and not isinstance(want, bool)) or (
            isinstance(want, str) and bool(quantities(want))
        )
        n_num += numeric
        parents.add(path[:-1])
        if got is None or got == "" or got is MISSING:
            continue
        present += 1
        found_parents.add(path[:-1])
        c = value_credit(want, got, aligner.unit_at(path))
        credit += c
        if numeric:
            num_credit += c
    overall = credit / len(ls)
    structure = len(found_parents) / len(parents) if parents else 1.0
    return overall, (num_credit / n_num if n_num else overall), present / len(ls), structure


def _shape_ok(output_type: str, content: Any) -> float:
    c = content
    ok = False
    if output_type == "spreadsheet":
        ok = (
            isinstance(c, dict)
            and bool(c)
            and all(
                isinstance(sheet, dict) and all(isinstance(row, dict) for row in sheet.values())
                for sheet in c.values()
            )
        )
    elif output_type == "document":
        ok = (
            isinstance(c, dict)
            and isinstance(c.get("sections"), list)
            and all(isinstance(s, dict) and isinstance(s.get("text", ""), str) for s in c["sections"])
        )
    elif output_type == "chart":
        ok = (
            isinstance(c, dict)
            and isinstance(c.get("series"), list)
            and isinstance(c.get("categories"), list)
        )
    elif output_type == "dashboard":
        ok = isinstance(c, dict) and isinstance(c.get("widgets"), dict)
    elif output_type == "kv":
        ok = isinstance(c, dict) and bool(c)
    elif output_type == "list":
        ok = isinstance(c, dict) and isinstance(c.get("items"), list)
    else:
        ok = c not in (None, "", {}, [])
    return 1.0 if ok else 0.4
