"""Trajectory evidence: was each expected edit made, by meaning, within its window after the turn that asked?

The agent's edits are replayed onto the products as the persona created them. An expected edit of
turn t is ``on_time`` when, at the end of turn t + EVIDENCE_WINDOW, the product holds its value
(found by labels, compared by meaning) and the agent touched that part during turns t..t+window;
``kept`` when it already held the value from an earlier on-time edit of the same part and nobody
needed to write it again; ``late`` when the value only arrives afterwards; ``missing`` otherwise.
How finely a late dump is split changes nothing: only when the work was done counts.
"""

from __future__ import annotations

import copy
import logging
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from modylbench.record import Mutation, ScenarioResponses
from modylbench.scenarios import (
    MISSING,
    Aligner,
    ExpectedMutation,
    PointerError,
    Scenario,
    apply_mutations,
    delete_at,
    label_similarity,
    leaves,
    make_pointer,
    parse_pointer,
    resolve,
    set_at,
    value_credit,
)
from modylbench.scoring._mutations import expected_value

logger = logging.getLogger(__name__)

EVIDENCE_WINDOW = 2  # turns after the asking turn by whose end an expected edit must be made
MATCH_CREDIT = 0.8  # share of a composite value (a row, a section) that must be right for the edit to count
_REMOVALS = {"delete_row", "delete_column", "delete_section", "remove_chart_series", "remove_widget", "delete",
             "remove_key", "remove_list_item"}  # fmt: skip
MAX_SNAPSHOT_LEAVES = 50_000


@dataclass(frozen=True)
class EditEvidence:
    """What became of one expected edit."""

    status: str  # on_time, kept, late, missing
    turn: int | None  # turn by whose end the value was there (None when never)

    @property
    def counts(self) -> bool:
        return self.status in ("on_time", "kept")


def references(scenario: Scenario) -> dict[str, Any]:
    """Per product: the reference content (the spec's, else the expected edits applied)."""
    out: dict[str, Any] = dict(apply_mutations(scenario.expected_mutations))
    for p in scenario.products:
        out[p.product_id] = p.reference
    return out


def _apply(contents: dict[str, Any], m: Mutation) -> bool:
    """Replay one edit; False when it cannot be replayed (the caller counts and flags it)."""
    try:
        if m.path == "":
            if m.mutation_type in _REMOVALS:
                contents.pop(m.product_id, None)
            else:
                contents[m.product_id] = copy.deepcopy(m.new_value)
            return True
        base = contents.get(m.product_id)
        if base is None:
            base = {}
        if m.mutation_type in _REMOVALS:
            contents[m.product_id] = delete_at(base, m.path)
        else:
            contents[m.product_id] = set_at(base, m.path, copy.deepcopy(m.new_value))
        return True
    except (PointerError, IndexError, ValueError, TypeError, KeyError) as exc:
        logger.debug("edit %s %s not replayable: %s", m.product_id, m.path, exc)
        return False


def _is_prefix(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return len(a) <= len(b) and b[: len(a)] == a


class _Check:
    """Evaluates expected edits against the replayed products."""

    def __init__(self, scenario: Scenario):
        self.refs = references(scenario)
        # The truth at the end of each turn: what the meeting's expected edits make of every part by
        # then. An expected edit superseded within its own turn (a row added, then one of its cells
        # changed) is judged by what the part must hold at the turn's end.
        self._truth: dict[int, dict[str, Any]] = {}
        self._expected = scenario.expected_mutations
        self.templates = {p.product_id: p.template for p in scenario.products}
        # What the persona's template already holds at each path (headings, labels): given, not work.
        self.given = {p.product_id: dict(leaves(p.initial_content)) for p in scenario.products}
        self._aligners: dict[str, Aligner] = {}
        # Verdicts per product, kept while the product is unchanged (an edit waiting for its window is
        # asked about again every turn).
        self._verdicts: dict[str, dict[int, tuple[bool, list[tuple[str, ...]]]]] = {}

    def fresh(self) -> _Check:
        """A check for another line of the same scenario: the truth and the references shared (read only),
        the label pairings its own."""
        other = copy.copy(self)
        other._aligners = {}
        other._verdicts = {}
        return other

    def truth_of(self, e: ExpectedMutation) -> Any:
        """The value the part of ``e`` must hold at the end of ``e``'s turn."""
        state = self._truth.get(e.turn_index)
        if state is None:
            try:
                state = apply_mutations([m for m in self._expected if m.turn_index <= e.turn_index])
            except (PointerError, IndexError, ValueError, TypeError, KeyError):
                state = {}
            self._truth[e.turn_index] = state
        got = resolve(state.get(e.product_id), e.path, MISSING) if e.product_id in state else MISSING
        return expected_value(e) if got is MISSING or got is None else got

    def changed(self, products: set[str] | None = None) -> None:
        """The products changed (these ``products``, or any): label pairings must be worked out afresh."""
        if products is None:
            self._aligners.clear()
            self._verdicts.clear()
            return
        for pid in products:
            self._aligners.pop(pid, None)
            self._verdicts.pop(pid, None)

    def judge(self, e: ExpectedMutation, contents: dict[str, Any]) -> tuple[bool, list[tuple[str, ...]]]:
        """(the value is there, the agent paths it occupies)."""
        kept = self._verdicts.setdefault(e.product_id, {})
        hit = kept.get(id(e))
        if hit is None:
            hit = kept[id(e)] = self._judge(e, contents)
        return hit

    def _judge(self, e: ExpectedMutation, contents: dict[str, Any]) -> tuple[bool, list[tuple[str, ...]]]:
        content = contents.get(e.product_id, MISSING)
        if content is MISSING:
            return False, []
        aligner = self._aligners.get(e.product_id)
        if aligner is None or aligner.content is not content:
            aligner = Aligner(self.refs.get(e.product_id, content), content, self.templates.get(e.product_id))
            self._aligners[e.product_id] = aligner
        tokens = tuple(parse_pointer(e.path))
        if e.mutation_type in _REMOVALS:
            got, path = aligner.locate(tokens)
            return got is MISSING, [tokens]
        want = self.truth_of(e)
        ls = leaves(want, tokens)
        # A composite value (a section, a row) is judged by the leaves the agent has to write: a heading or
        # label the template already holds at that path is no evidence (as in the product comparison).
        given = self.given.get(e.product_id, {})
        work = [(p, w) for p, w in ls if not (p in given and given[p] == w and w not in (None, ""))]
        ls = work or ls
        if not ls:
            got, path = aligner.locate(tokens)
            ok = got is not MISSING and (want in ({}, []) or value_credit(want, got) >= 1.0)
            return ok, [path] if path is not None else []
        total = 0.0
        paths: list[tuple[str, ...]] = []
        for p, w in ls:
            got, path = aligner.locate(p)
            if path is not None:
                paths.append(path)
            total += value_credit(w, got, aligner.unit_at(p))
        credit = total / len(ls)
        exact = len(ls) == 1 and not isinstance(ls[0][1], str)
        return credit >= (1.0 if exact else MATCH_CREDIT), paths


def _has_figures(value: Any) -> bool:
    return any(isinstance(w, int | float) and not isinstance(w, bool) for _p, w in leaves(value))


def _given(e: ExpectedMutation, check: _Check, contents: dict[str, Any]) -> bool:
    """The persona's template already holds this value (a heading, a category list): nothing to do."""
    if e.mutation_type in _REMOVALS:
        return False
    want = expected_value(e)
    if any(isinstance(w, int | float) and not isinstance(w, bool) for _p, w in leaves(want)):
        return False  # templates hold no figures
    return check.judge(e, contents)[0]


def _removed(e: ExpectedMutation, removals: list[tuple[int, tuple[str, ...]]], turn: int) -> bool:
    """An expected removal is made when the agent removed that part (or one named like it) in the window."""
    want = tuple(parse_pointer(e.path))
    for t, path in removals:
        if not e.turn_index <= t <= turn or len(path) != len(want):
            continue
        if path == want or (path[:-1] == want[:-1] and label_similarity(path[-1], want[-1]) >= 0.8):
            return True
    return False


@dataclass
class Evidence:
    """Per expected mutation (scenario order) its evidence, and how many of the agent's edits could not be
    replayed (an edit at a path its product does not have: flagged ``trajectory_replay_error``)."""

    edits: list[EditEvidence | None]
    replay_errors: int = 0


def _same_truth(a: ExpectedMutation, b: ExpectedMutation) -> bool:
    """Two expected edits ask for the same value at the same part (the meeting asked for it before)."""
    if a.product_id != b.product_id or a.path != b.path or a.mutation_type in _REMOVALS:
        return False
    va, vb = expected_value(a), expected_value(b)
    return va == vb or value_credit(va, vb) >= 1.0


@dataclass
class _Plan:
    """What a scenario's expected edits make of every line: the edits that are the agent's work, from which
    turn each value was asked for, and the truth (shared by every line scored against the scenario)."""

    check: _Check
    work: list[int]
    asked_from: dict[int, int]


# Working out the plan compares every expected edit with every other and replays the expected edits per
# turn; it is kept per scenario object for the process (scenarios are not changed once built).
_PLANS: dict[int, tuple[Scenario, _Plan]] = {}
_PLANS_KEPT = 64


def _plan(scenario: Scenario, work: list[int]) -> _Plan:
    hit = _PLANS.get(id(scenario))
    if hit is not None and hit[0] is scenario:
        return hit[1]
    expected = scenario.expected_mutations
    initial: dict[str, Any] = {p.product_id: copy.deepcopy(p.initial_content) for p in scenario.products}
    check = _Check(scenario)
    # Expected edits whose value the persona's template already holds (headings, categories) are given.
    work = [i for i in work if not _given(expected[i], check, initial)]
    # A removal the same turn writes again (a row deleted and added anew) is a replacement: the part's
    # new value is the evidence, whether the agent deleted first or rewrote it in place.
    work = [i for i in work if not (expected[i].mutation_type in _REMOVALS and any(
        j > i and expected[j].turn_index == expected[i].turn_index and expected[j].product_id == expected[i].product_id
        and expected[j].path == expected[i].path and expected[j].mutation_type not in _REMOVALS
        for j in range(len(expected))))]
    # From which turn the meeting had asked for each expected edit's value at its part.
    asked_from = {
        i: min(expected[j].turn_index for j in range(len(expected)) if _same_truth(expected[j], expected[i]))
        if expected[i].mutation_type not in _REMOVALS else expected[i].turn_index
        for i in work
    }
    plan = _Plan(check, work, asked_from)
    if len(_PLANS) >= _PLANS_KEPT:
        _PLANS.pop(next(iter(_PLANS)))
    _PLANS[id(scenario)] = (scenario, plan)
    return plan


def edit_evidence(trajectory: list[Mutation] | None, scenario: Scenario) -> Evidence:
    """Per expected mutation (same order): its evidence, or None when it is not the agent's to make (a
    ``create`` without figures: the persona sets products up; a value the template already holds).

    Evidence is a change toward the truth made in the window (docs/scoring.md, "What counts as
    evidence"): an expected edit of turn t is on time when, at the end of a turn u of t .. t +
    EVIDENCE_WINDOW, the product holds its value and the agent touched that part during t .. u, and
    the part never held that value before t without the meeting having asked for it (a value written
    before it was asked for, then rewritten, overwritten and restored, or blanked and refilled, is the
    same value, not new work). It is kept when it held the value since an earlier edit the meeting
    asked for, on time, at the same part.
    """
    expected = scenario.expected_mutations
    out: list[EditEvidence | None] = [None] * len(expected)
    # A create that only sets a product up is the persona's job; one that writes figures is work.
    work = [i for i, e in enumerate(expected) if e.mutation_type != "create" or _has_figures(expected_value(e))]
    if not work:
        return Evidence(out)
    traj = sorted(trajectory or [], key=lambda m: m.turn_index)  # stable: keeps the order within a turn
    contents: dict[str, Any] = {p.product_id: copy.deepcopy(p.initial_content) for p in scenario.products}
    plan = _plan(scenario, work)
    check = plan.check.fresh()
    work, asked_from = plan.work, plan.asked_from
    touched: dict[str, list[tuple[int, tuple[str, ...]]]] = defaultdict(list)
    removals: dict[str, list[tuple[int, tuple[str, ...]]]] = defaultdict(list)
    for m in traj:
        try:
            tokens = tuple(parse_pointer(m.path))
        except PointerError:
            continue
        touched[m.product_id].append((m.turn_index, tokens))
        if m.mutation_type in _REMOVALS:
            removals[m.product_id].append((m.turn_index, tokens))
    stale: set[int] = set()  # held its value before it was asked for: rewriting it is no evidence
    on_time_paths: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    pending = sorted(work, key=lambda i: expected[i].turn_index)
    last_turn = max([expected[i].turn_index + EVIDENCE_WINDOW for i in work] + [m.turn_index for m in traj])
    pos = 0
    errors = 0
    for turn in range(last_turn + 1):
        changed: set[str] = set()
        while pos < len(traj) and traj[pos].turn_index <= turn:
            errors += not _apply(contents, traj[pos])
            changed.add(traj[pos].product_id)
            pos += 1
        if changed:
            check.changed(changed)
        for i in pending:
            e = expected[i]
            if e.turn_index > turn:
                # Not asked yet: a part that comes to hold the value now was not asked for (unless the
                # meeting asked for the same value there before).
                if e.product_id in changed and i not in stale and asked_from[i] > turn \
                        and e.mutation_type not in _REMOVALS and check.judge(e, contents)[0]:
                    stale.add(i)
                continue
            if turn > e.turn_index + EVIDENCE_WINDOW or (out[i] is not None and out[i].status == "on_time"):  # type: ignore[union-attr]
                continue
            if e.mutation_type in _REMOVALS:
                if _removed(e, removals[e.product_id], turn):
                    out[i] = EditEvidence("on_time", turn)
                continue
            ok, paths = check.judge(e, contents)
            if not ok:
                continue
            edits = [p for t, p in touched[e.product_id] if e.turn_index <= t <= turn]
            mine = any(_is_prefix(ep, ap) or _is_prefix(ap, ep) for ep in edits for ap in paths)
            if mine and i not in stale:
                out[i] = EditEvidence("on_time", turn)
                on_time_paths[e.product_id].extend(paths)
            elif out[i] is None and paths and all(
                any(_is_prefix(prev, ap) or _is_prefix(ap, prev) for prev in on_time_paths[e.product_id])
                for ap in paths
            ):
                out[i] = EditEvidence("kept", turn)
        pending = [
            i for i in pending
            if not (out[i] is not None and out[i].status == "on_time")  # type: ignore[union-attr]
            and turn <= expected[i].turn_index + EVIDENCE_WINDOW
        ]
    while pos < len(traj):
        errors += not _apply(contents, traj[pos])
        pos += 1
    check.changed()
    last = traj[-1].turn_index if traj else None
    for i in work:
        if out[i] is None:
            if expected[i].mutation_type in _REMOVALS:
                late = _removed(expected[i], removals[expected[i].product_id], 10**9)
                out[i] = EditEvidence("late", last) if late else EditEvidence("missing", None)
                continue
            ok, _ = check.judge(expected[i], contents)
            out[i] = EditEvidence("late", last) if ok else EditEvidence("missing", None)
    return Evidence(out, errors)


def _diff(pid: str, turn: int, before: Any, after: Any, path: list[str], out: list[Mutation], budget: list[int]) -> None:
    """The edits that take ``before`` to ``after`` part by part: changed leaves updated, new keys and list
    items added whole (a chart's new series is one edit), removed ones deleted (list items from the end)."""
    if before == after:
        return
    budget[0] -= 1
    if budget[0] < 0:
        return
    ptr = make_pointer(path)
    if isinstance(before, dict) and isinstance(after, dict) and path:
        for k, v in after.items():
            if k in before:
                _diff(pid, turn, before[k], v, [*path, str(k)], out, budget)
            else:
                out.append(Mutation(turn_index=turn, product_id=pid, mutation_type="add_key",
                                    path=make_pointer([*path, str(k)]), old_value=None, new_value=copy.deepcopy(v)))
        for k, v in before.items():
            if k not in after:
                out.append(Mutation(turn_index=turn, product_id=pid, mutation_type="remove_key",
                                    path=make_pointer([*path, str(k)]), old_value=v, new_value=None))
        return
    if isinstance(before, list) and isinstance(after, list):
        common = min(len(before), len(after))
        for i in range(common):
            _diff(pid, turn, before[i], after[i], [*path, str(i)], out, budget)
        for i in range(common, len(after)):
            out.append(Mutation(turn_index=turn, product_id=pid, mutation_type="add_list_item",
                                path=make_pointer([*path, str(i)]), old_value=None, new_value=copy.deepcopy(after[i])))
        for i in range(len(before) - 1, common - 1, -1):
            out.append(Mutation(turn_index=turn, product_id=pid, mutation_type="remove_list_item",
                                path=make_pointer([*path, str(i)]), old_value=before[i], new_value=None))
        return
    if isinstance(before, dict) and isinstance(after, dict):  # the product's root
        for k, v in after.items():
            if k in before:
                _diff(pid, turn, before[k], v, [str(k)], out, budget)
            else:
                out.append(Mutation(turn_index=turn, product_id=pid, mutation_type="add_key",
                                    path=make_pointer([str(k)]), old_value=None, new_value=copy.deepcopy(v)))
        for k, v in before.items():
            if k not in after:
                out.append(Mutation(turn_index=turn, product_id=pid, mutation_type="remove_key",
                                    path=make_pointer([str(k)]), old_value=v, new_value=None))
        return
    out.append(Mutation(turn_index=turn, product_id=pid, mutation_type="update_value", path=ptr,
                        old_value=before, new_value=copy.deepcopy(after)))


def snapshot_trajectory(responses: ScenarioResponses) -> list[Mutation] | None:
    """A trajectory from per-turn product snapshots: a product's first appearance is a ``create``, then
    each turn's changes, part by part, are edits in the turn whose snapshot shows them (a product whose
    changes are too many to list, past MAX_SNAPSHOT_LEAVES, is one whole-product write). None when no turn
    carries products."""
    turns = sorted(responses.turns, key=lambda t: t.turn_index)
    if not any(t.work_products for t in turns):
        return None
    previous: dict[str, Any] = {}
    out: list[Mutation] = []
    for t in turns:
        for wp in t.work_products:
            pid = wp.product_id
            if not pid:
                continue
            before = previous.get(pid, MISSING)
            if before is MISSING:
                out.append(Mutation(turn_index=t.turn_index, product_id=pid, mutation_type="create", path="",
                                    old_value=None, new_value=wp.content))
            else:
                diff: list[Mutation] = []
                budget = [MAX_SNAPSHOT_LEAVES]
                _diff(pid, t.turn_index, before, wp.content, [], diff, budget)
                if budget[0] < 0:
                    diff = [Mutation(turn_index=t.turn_index, product_id=pid, mutation_type="update_value",
                                     path="", old_value=before, new_value=wp.content)]
                out += diff
            previous[pid] = wp.content
    return out
