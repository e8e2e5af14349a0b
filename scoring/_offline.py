"""The offline judge: deterministic, no network; scores all 11 dimensions from substance only.

Rules (docs/scoring.md): a turn scores from the expected facts its own words state (copied spans
and judge-directed text removed), its edge-case signals and the expected edits it made; a product
from the programmatic checks and the reference content. Clarity and courtesy only scale what
substance earned, so they can never lift an empty turn.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from modylbench.scenarios import Scenario, as_number, cell_value
from modylbench.scoring._judges import Item, Judge, ProductItem, TurnItem
from modylbench.scoring._models import Verdict
from modylbench.scoring._mutations import values_equal
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
            persona_said = "\n".join([t.human_utterance, t.chat_message or "", _slide_text(t)])
            parts.append(persona_said)
            hidden.append(t.expected_agent_action)
            self.turn_given.append(quantities(persona_said) + context_qs)
        for e in scenario.edge_cases:
            parts.append(e.human_utterance)
            hidden += [e.description, e.expected_behavior]
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


class OfflineJudge(Judge):
    """Deterministic substance judge: the default panel and the one the anti-gaming tests use."""

    name = "offline"

    def __init__(self) -> None:
        self._texts: dict[int, tuple[Scenario, _ScenarioText]] = {}

    @property
    def synchronous(self) -> bool:
        return True

    def _text(self, scenario: Scenario) -> _ScenarioText:
        hit = self._texts.get(id(scenario))
        if hit is None or hit[0] is not scenario:
            hit = (scenario, _ScenarioText(scenario))
            self._texts[id(scenario)] = hit
        return hit[1]

    def judge_now(self, item: Item) -> Verdict:
        if isinstance(item, TurnItem):
            return self._turn(item)
        return self._product(item)

    # ------------------------------------------------------------------ turns

    def _turn(self, item: TurnItem) -> Verdict:
        turn, r = item.turn, item.response
        said = "" if r is None else "\n".join([r.agent_response, *r.chat_messages])
        progress = item.edits_matched / len(item.expected_edits) if item.expected_edits else None
        if not said.strip() and not item.edits:
            dims = dict.fromkeys(item.dimensions, 1.0)
            return Verdict(judge=self.name, dimensions=dims, rationale="no response", flags=["no_response"])
        st = self._text(item.scenario)
        flags: list[str] = []
        cleaned, injected = strip_injection(said)
        if injected:
            flags.append("prompt_injection")
        kept, copied = mask_copied(cleaned, st.corpora)
        if copied >= 0.5 and len(words(cleaned)) >= 5:
            flags.append("parroting")
        norm = normalise(kept)
        qs = quantities(kept)
        notes = []

        fact_frac: float | None = None
        if turn.expected_facts:
            given_qs = st.turn_given[turn.turn_index] if turn.turn_index < len(st.turn_given) else []
            total = got = 0.0
            n_got = 0
            for f in turn.expected_facts:
                given = isinstance(f.value, int | float) and any(
                    number_matches(q, float(f.value), f.unit, f.tolerance_pct) for q in given_qs
                )
                w = GIVEN_FACT_WEIGHT if given else 1.0
                total += w
                if fact_stated(f, norm, qs):
                    got += w
                    n_got += 1
            fact_frac = got / total
            notes.append(f"facts {n_got}/{len(turn.expected_facts)}")

        edge_frac: float | None = None
        edge = item.scenario.edge_case(turn.edge_case) if turn.edge_case else None
        if edge is not None:
            good = [s for s in edge.good_signals if signal_present(s, norm, qs)]
            # Giving in counts even in the persona's own words ("sure, just put 25% in"), so bad
            # signals are looked for before copied spans are masked.
            raw_norm, raw_qs = normalise(cleaned), quantities(cleaned)
            bad = [s for s in edge.bad_signals if signal_present(s, raw_norm, raw_qs, skip_negated=True)]
            if edge.good_signals:
                edge_frac = min(1.0, len(good) / min(2, len(edge.good_signals)))
            else:
                edge_frac = fact_frac if fact_frac is not None else 0.0
            if bad:
                edge_frac *= BAD_SIGNAL_FACTOR
                flags.append("edge_case_conceded")
            notes.append(f"edge signals good {len(good)}/{len(edge.good_signals)} bad {len(bad)}")

        if progress is not None:
            notes.append(f"edits {item.edits_matched}/{len(item.expected_edits)}")
        ctx = _mean([fact_frac, edge_frac]) if edge_frac is not None else fact_frac
        tp = _mean([ctx, progress])
        if tp is None:
            # No ground truth for this turn: something of its own said earns half, never more.
            tp = 0.5 if len(words(kept)) >= 5 else 0.0
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
        if ref is not None:
            value_frac, figures_frac, complete = _compare(ref, content)
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
            shape = max(shape, _structure_match(ref, content))
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


def _leaves(v: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    v = cell_value(v)
    if isinstance(v, dict):
        out = []
        for k, x in v.items():
            out += _leaves(x, (*path, str(k)))
        return out
    if isinstance(v, list):
        out = []
        for i, x in enumerate(v):
            out += _leaves(x, (*path, str(i)))
        return out
    return [(path, v)]


_MISSING = object()


def _lookup(doc: Any, path: tuple[str, ...]) -> Any:
    cur = doc
    for tok in path:
        cur = cell_value(cur)
        if isinstance(cur, dict):
            if tok not in cur:
                return _MISSING
            cur = cur[tok]
        elif isinstance(cur, list) and tok.isdigit() and int(tok) < len(cur):
            cur = cur[int(tok)]
        else:
            return _MISSING
    return cell_value(cur)


def _text_credit(ref: str, got: str) -> float:
    """Credit for a text leaf: its figures must all be there; then word recall refines it."""
    if normalise(ref) == normalise(got):
        return 1.0
    ref_words = {w for w in words(ref) if len(w) > 3}
    recall = len(ref_words & set(words(got))) / len(ref_words) if ref_words else 0.0
    ref_qs = quantities(ref)
    if not ref_qs:
        return recall
    got_qs = quantities(got)
    unit = {"pct": "%", "mult": "x", "bps": "bps"}
    nums = sum(
        1 for q in ref_qs if any(number_matches(g, q.value, unit.get(q.family, ""), 0.5) for g in got_qs)
    )
    return nums / len(ref_qs) * (0.5 + 0.5 * recall)


def _compare(ref: Any, content: Any) -> tuple[float, float, float]:
    """(value credit over all leaves, over the leaves that hold figures, completeness).

    Each leaf of the reference is looked up at the same path in the delivered content. Leaves
    holding figures (numbers, or text with numbers in it) are where correctness lives; labels and
    prose count toward the overall credit and completeness.
    """
    leaves = _leaves(ref)
    if not leaves:
        same = 1.0 if content == ref else 0.0
        return same, same, (1.0 if content not in (None, "", {}, []) else 0.0)
    credit = present = num_credit = 0.0
    n_num = 0
    for path, want in leaves:
        got = _lookup(content, path)
        numeric = (isinstance(want, int | float) and not isinstance(want, bool)) or (
            isinstance(want, str) and bool(quantities(want))
        )
        n_num += numeric
        if got is _MISSING or got in (None, ""):
            continue
        present += 1
        if isinstance(want, str) and isinstance(got, str):
            c = _text_credit(want, got)
        elif isinstance(want, int | float) and not isinstance(want, bool):
            n = as_number(got)
            c = 1.0 if n is not None and values_equal(n, want) else 0.0
        else:
            c = 1.0 if values_equal(got, want, 0.0) else 0.0
        credit += c
        if numeric:
            num_credit += c
    overall = credit / len(leaves)
    return overall, (num_credit / n_num if n_num else overall), present / len(leaves)


def _containers(v: Any, path: tuple[str, ...] = (), depth: int = 0) -> list[tuple[tuple[str, ...], type]]:
    v = cell_value(v)
    if depth > 3 or not isinstance(v, dict | list):
        return []
    out: list[tuple[tuple[str, ...], type]] = [(path, dict if isinstance(v, dict) else list)]
    items = v.items() if isinstance(v, dict) else enumerate(v)
    for k, x in items:
        out += _containers(x, (*path, str(k)), depth + 1)
    return out


def _structure_match(ref: Any, content: Any) -> float:
    """1.0 when every container of the reference (top 4 levels) is in the content with the same type."""
    want = _containers(ref)
    if not want:
        return 0.0
    hits = 0
    for path, typ in want:
        got = _lookup_raw(content, path)
        hits += isinstance(got, typ)
    return 1.0 if hits == len(want) else 0.4 + 0.6 * hits / len(want) * 0.5


def _lookup_raw(doc: Any, path: tuple[str, ...]) -> Any:
    got = _lookup(doc, path)
    return None if got is _MISSING else got


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
