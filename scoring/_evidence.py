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


def _apply(contents: dict[str, Any], m: Mutation) -> None:
    try:
        if m.path == "":
            if m.mutation_type in _REMOVALS:
                contents.pop(m.product_id, None)
            else:
                contents[m.product_id] = copy.deepcopy(m.new_value)
            return
        base = contents.get(m.product_id)
        if base is None:
            base = {}
        if m.mutation_type in _REMOVALS:
            contents[m.product_id] = delete_at(base, m.path)
        else:
            contents[m.product_id] = set_at(base, m.path, copy.deepcopy(m.new_value))
    except (PointerError, IndexError, ValueError, TypeError, KeyError) as exc:
        logger.debug("edit %s %s not replayable: %s", m.product_id, m.path, exc)


def _is_prefix(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return len(a) <= len(b) and b[: len(a)] == a


class _Check:
    """Evaluates expected edits against the replayed products."""

    def __init__(self, scenario: Scenario):
        self.refs = references(scenario)
        self.templates = {p.product_id: p.template for p in scenario.products}
        self._aligners: dict[str, Aligner] = {}

    def changed(self) -> None:
        """The products changed: label pairings must be worked out afresh."""
        self._aligners.clear()

    def judge(self, e: ExpectedMutation, contents: dict[str, Any]) -> tuple[bool, list[tuple[str, ...]]]:
        """(the value is there, the agent paths it occupies)."""
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
        want = expected_value(e)
        ls = leaves(want, tokens)
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


def edit_evidence(trajectory: list[Mutation] | None, scenario: Scenario) -> list[EditEvidence | None]:
    """Per expected mutation (same order): its evidence, or None when it is not the agent's to make (a
    ``create`` without figures: the persona sets products up; a value the template already holds)."""
    expected = scenario.expected_mutations
    out: list[EditEvidence | None] = [None] * len(expected)
    # A create that only sets a product up is the persona's job; one that writes figures is work.
    work = [i for i, e in enumerate(expected) if e.mutation_type != "create" or _has_figures(expected_value(e))]
    if not work:
        return out
    traj = sorted(trajectory or [], key=lambda m: m.turn_index)  # stable: keeps the order within a turn
    contents: dict[str, Any] = {p.product_id: copy.deepcopy(p.initial_content) for p in scenario.products}
    check = _Check(scenario)
    # Expected edits whose value the persona's template already holds (headings, categories) are given.
    work = [i for i in work if not _given(expected[i], check, contents)]
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
    # Each expected edit is looked for at the end of every turn of its window, first hit wins: a value
    # the meeting itself changes again a turn later (a correction) still counts for the turn it answered.
    pending = sorted(work, key=lambda i: expected[i].turn_index)
    on_time_paths: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    turns = sorted({expected[i].turn_index + d for i in work for d in range(EVIDENCE_WINDOW + 1)})
    pos = 0
    for turn in turns:
        applied = False
        while pos < len(traj) and traj[pos].turn_index <= turn:
            _apply(contents, traj[pos])
            pos += 1
            applied = True
        if applied:
            check.changed()
        for i in pending:
            e = expected[i]
            if e.turn_index > turn:
                break
            if out[i] is not None and out[i].status == "on_time" or turn > e.turn_index + EVIDENCE_WINDOW:  # type: ignore[union-attr]
                continue
            if e.mutation_type in _REMOVALS:
                if _removed(e, removals[e.product_id], turn):
                    out[i] = EditEvidence("on_time", turn)
                continue
            ok, paths = check.judge(e, contents)
            if not ok:
                continue
            edits = [p for t, p in touched[e.product_id] if e.turn_index <= t <= turn]
            if any(_is_prefix(ep, ap) or _is_prefix(ap, ep) for ep in edits for ap in paths):
                out[i] = EditEvidence("on_time", turn)
                on_time_paths[e.product_id].extend(paths)
            elif out[i] is None and paths and all(
                any(_is_prefix(prev, ap) or _is_prefix(ap, prev) for prev in on_time_paths[e.product_id])
                for ap in paths
            ):
                out[i] = EditEvidence("kept", turn)
        pending = [i for i in pending if not (out[i] is not None and out[i].status == "on_time")]  # type: ignore[union-attr]
    while pos < len(traj):
        _apply(contents, traj[pos])
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
    return out


def snapshot_trajectory(responses: ScenarioResponses) -> list[Mutation] | None:
    """A trajectory from per-turn product snapshots: a product's first appearance is a ``create``, then
    every changed leaf an edit in the turn whose snapshot shows it. None when no turn carries products."""
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
                old = dict(leaves(before)[:MAX_SNAPSHOT_LEAVES])
                new = dict(leaves(wp.content)[:MAX_SNAPSHOT_LEAVES])
                for path, v in new.items():
                    if path not in old or old[path] != v:
                        out.append(Mutation(turn_index=t.turn_index, product_id=pid, mutation_type="update_value",
                                            path=make_pointer(list(path)), old_value=old.get(path), new_value=v))
                for path, v in old.items():
                    if path not in new:
                        out.append(Mutation(turn_index=t.turn_index, product_id=pid, mutation_type="delete",
                                            path=make_pointer(list(path)), old_value=v, new_value=None))
            previous[pid] = wp.content
    return out
