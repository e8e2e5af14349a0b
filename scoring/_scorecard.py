"""Score responses: build journey and destination items, run the panel, apply the formula, aggregate."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from modylbench.record import (
    Mutation,
    ScenarioResponses,
    TurnResponse,
    TurnTaking,
    WorkProduct,
    package_version,
)
from modylbench.scenarios import (
    CheckResult,
    ExpectedOutput,
    Scenario,
    VerificationCriterion,
    label_similarity,
    run_check,
    withheld_edits,
)
from modylbench.scenarios.builtin import instance_of, published_counterpart
from modylbench.scoring import _formula as F
from modylbench.scoring import _room as R
from modylbench.scoring import _uncertainty as U
from modylbench.scoring._evidence import EditEvidence, edit_evidence, snapshot_trajectory
from modylbench.scoring._judges import CachingJudge, Item, Judge, ProductItem, TurnItem
from modylbench.scoring._models import (
    CheckOutcome,
    Comparison,
    ModelAggregate,
    MutationMetrics,
    PassK,
    ProductScore,
    ScenarioScore,
    Scorecard,
    SpeechAccount,
    TurnScore,
    Verdict,
)
from modylbench.scoring._mutations import compute_metrics, expected_value
from modylbench.scoring._network import NETWORK_EXCUSED_FLAG, network_excused, network_flags
from modylbench.scoring._offline import is_lookup, own_fact_share, shown_numbers

logger = logging.getLogger(__name__)

AGENT_ERROR_FLAG = "agent_error"
"""Scenario flag: the record holds ``agent_error`` events (responses ``measurements.agent_errors``)."""


REPLAY_ERROR_FLAG = "trajectory_replay_error"
"""Scenario flag: some of the agent's edits could not be replayed onto its products (docs/scoring.md)."""


@dataclass
class _Run:
    """One responses line prepared for judging."""

    responses: ScenarioResponses
    scenario: Scenario
    trial: int
    trajectory: list[Mutation] | None
    metrics: MutationMetrics
    turn_items: list[TurnItem]
    product_items: list[ProductItem]
    product_evidence: list[tuple[int, int, float, float] | None]  # (matched, expected, and weighted) per product
    full_turns: int  # turns of the whole scenario (the scheduled one may be a slice)
    replay_errors: int  # the agent's edits that could not be replayed onto its products


def _public_edits(scenario: Scenario) -> set[int]:
    """Indices of the expected edits that count half: those a fresh built-in instance shares with the published
    one (same turn, part and value: public through seed 0's export), and lookups (every figure of the value is
    one the meeting showed the agent: an input read off, not derived work; any scenario and instance)."""
    key = (scenario.scenario_id, scenario.seed, id(scenario))
    cached = _PUBLIC_EDITS.get(key)
    # The object is kept with its answer: an id is reused once a scenario is gone (a slice, a copy).
    hit = cached[1] if cached is not None and cached[0] is scenario else None
    if hit is None:
        def sig(m: Any) -> tuple[int, str, str, str, str]:
            return (m.turn_index, m.product_id, m.path, m.mutation_type,
                    json.dumps(m.value if m.value is not None else m.expected_value, sort_keys=True, default=str))

        published = published_counterpart(scenario)
        seen = {sig(m) for m in published.expected_mutations} if published is not None else set()
        shown = shown_numbers(scenario)
        hit = {i for i, m in enumerate(scenario.expected_mutations)
               if sig(m) in seen or is_lookup(expected_value(m), shown)}
        if len(_PUBLIC_EDITS) > 32:
            _PUBLIC_EDITS.clear()
        _PUBLIC_EDITS[key] = (scenario, hit)
    return hit


_PUBLIC_EDITS: dict[tuple[str, int, int], tuple[Scenario, set[int]]] = {}


def line_problem(resp: ScenarioResponses, scenarios: dict[str, Scenario]) -> str | None:
    """Why a parsed responses line cannot be scored against the scenarios, or None."""
    sc = scenarios.get(resp.scenario_id)
    if sc is None:
        known = ", ".join(sorted(scenarios)) or "none"
        return f"unknown scenario {resp.scenario_id!r} (known: {known})"
    if resp.scenario_seed is not None and instance_of(sc) not in (None, resp.scenario_seed):
        return (f"the line answers instance {resp.scenario_seed} (scenario_seed), not instance {instance_of(sc)} "
                "it would be scored against")
    seen: set[int] = set()
    for t in resp.turns:
        if t.turn_index in seen:
            return f"turn_index {t.turn_index} appears twice"
        seen.add(t.turn_index)
        if t.turn_index >= len(sc.turns):
            return f"turn_index {t.turn_index} is not a turn of {sc.scenario_id} (0..{len(sc.turns) - 1})"
    for m in resp.mutation_trajectory or ():
        if m.turn_index >= len(sc.turns):
            return f"mutation_trajectory turn_index {m.turn_index} is not a turn of {sc.scenario_id}"
    return None


def _product_names(scenario: Scenario) -> dict[str, list[str]]:
    described: dict[str, list[str]] = defaultdict(list)
    for o in scenario.expected_outputs:
        if o.product_id:
            described[o.product_id].append(o.description)
    return {p.product_id: [p.title, p.product_id, *described[p.product_id]] for p in scenario.products}


def _name_products(products: list[WorkProduct], scenario: Scenario, names: dict[str, list[str]]) -> list[WorkProduct]:
    """Give products handed over without a ``product_id`` the id of the scenario product they are.

    Public-format responses name a product only by ``output_type`` and ``description``: each is
    paired, one to one, with the scenario product of the same type whose title or description is
    most similar (the only one of its type needs no words in common).
    """
    if all(wp.product_id for wp in products) or not scenario.products:
        return products
    taken = {wp.product_id for wp in products if wp.product_id}
    types = {p.product_id: p.output_type for p in scenario.products}
    scored: list[tuple[float, int, str]] = []
    for i, wp in enumerate(products):
        if wp.product_id:
            continue
        same = [pid for pid, t in types.items() if t == wp.output_type and pid not in taken]
        for pid in same:
            sim = max((label_similarity(wp.description, n) for n in names.get(pid, [])), default=0.0)
            scored.append((sim + (1.0 if len(same) == 1 else 0.0), i, pid))
    scored.sort(key=lambda x: -x[0])
    assigned: dict[int, str] = {}
    for _sim, i, pid in scored:
        if i in assigned or pid in taken:
            continue
        assigned[i] = pid
        taken.add(pid)
    return [wp.model_copy(update={"product_id": assigned[i]}) if i in assigned else wp for i, wp in enumerate(products)]


def named_responses(resp: ScenarioResponses, scenario: Scenario) -> ScenarioResponses:
    """The responses with every product handed over without an id paired to a scenario product."""
    names = _product_names(scenario)
    turns = [
        t.model_copy(update={"work_products": _name_products(t.work_products, scenario, names)})
        if t.work_products and not all(wp.product_id for wp in t.work_products)
        else t
        for t in resp.turns
    ]
    return resp.model_copy(update={"turns": turns, "work_products": _name_products(resp.work_products, scenario, names)})


def _match_outputs(
    expected: list[ExpectedOutput], final: list[WorkProduct], turns: list[TurnResponse]
) -> list[WorkProduct | None]:
    """Pair each expected output with a delivered product: by product_id, else by type and description."""
    latest: dict[str, WorkProduct] = {}
    for t in sorted(turns, key=lambda t: t.turn_index):
        for wp in t.work_products:
            if wp.product_id:
                latest[wp.product_id] = wp
    by_id = {wp.product_id: wp for wp in final if wp.product_id}
    used: set[int] = set()
    out: list[WorkProduct | None] = []
    for e in expected:
        hit: WorkProduct | None = None
        if e.product_id:
            hit = by_id.get(e.product_id) or latest.get(e.product_id)
            if hit is not None:
                used.add(id(hit))
        out.append(hit)
    for i, e in enumerate(expected):
        if out[i] is not None or e.product_id:
            continue
        best, best_sim = None, -1.0
        for wp in final:
            if id(wp) in used or wp.output_type != e.output_type:
                continue
            sim = label_similarity(e.description, wp.description)
            if sim > best_sim:
                best, best_sim = wp, sim
        if best is not None:
            used.add(id(best))
        out[i] = best
    return out


def _checks(expected: ExpectedOutput, content: Any, scenario: Scenario) -> list[CheckResult]:
    spec = scenario.product(expected.product_id) if expected.product_id else None
    reference = spec.reference if spec is not None else None
    template = spec.template if spec is not None else None
    out = []
    for c in expected.verification_criteria:
        if isinstance(c, VerificationCriterion) and c.check_type != "judge":
            try:
                out.append(run_check(c, content, reference, template))
            except (TypeError, ValueError, IndexError, KeyError, RecursionError) as exc:
                out.append(CheckResult(c.id, False, c.required, None, f"could not check: {exc}"))
    return out


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2}


def told_withheld(resp: ScenarioResponses, scenario: Scenario) -> dict[str, int]:
    """The withheld knowledge the persona gave the agent, item id -> the first turn it was given in
    (docs/scoring.md "Asking"): a reply counts when its question is in the agent's own words of that turn
    (speech or chat), so a line cannot claim an answer to a question it never asked."""
    withheld = {i.id for i in scenario.knowledge.withheld} if scenario.knowledge is not None else set()
    out: dict[str, int] = {}
    for t in sorted(resp.turns, key=lambda t: t.turn_index):
        said = _words(" ".join([t.agent_response, *t.chat_messages]))
        for r in t.persona_replies:
            q = _words(r.question)
            if r.outcome != "answered" or not q or len(q & said) < ASKED_SHARE * len(q):
                continue
            for k in r.knowledge:
                if k in withheld:
                    out.setdefault(k, t.turn_index)
    return out


ASKED_SHARE = 0.8
"""Share of a reply's question words that must be in the agent's words of its turn."""


def scheduled_scenario(resp: ScenarioResponses, scenario: Scenario) -> Scenario:
    """The scenario as the harness scheduled it for this line (``turns_scheduled``: the whole meeting, or
    the ``--turns`` slice; the whole scenario when unknown). Never the turns the agent stayed for: a
    meeting left early is scored against what was scheduled, its unplayed turns unanswered."""
    n = resp.turns_scheduled
    if isinstance(n, int) and 0 < n < len(scenario.turns):
        return scenario.first_turns(n)
    return scenario


def prepare(resp: ScenarioResponses, scenario: Scenario, trial: int) -> _Run:
    """Items to judge for one responses line (the scenario must be the line's own)."""
    full_turns = len(scenario.turns)
    scenario = scheduled_scenario(resp, scenario)
    resp = named_responses(resp, scenario)
    if resp.mutation_trajectory is not None:
        trajectory: list[Mutation] | None = list(resp.mutation_trajectory)
        source = "trajectory"
    else:
        trajectory = snapshot_trajectory(resp)
        source = "snapshots" if trajectory is not None else "none"
    found = edit_evidence(trajectory, scenario)
    told = told_withheld(resp, scenario)
    # An edit whose value depends on a withheld item counts only once the persona gave it (docs/scoring.md
    # "Asking"), by the end of the turn the value was there: written before, it was a guess.
    linked = withheld_edits(scenario)
    evidence = [EditEvidence("unasked", ev.turn) if ev is not None and ev.counts and i in linked
                and told.get(linked[i], len(scenario.turns)) > (ev.turn if ev.turn is not None else -1) else ev
                for i, ev in enumerate(found.edits)]
    metrics = compute_metrics(trajectory, scenario, source)
    metrics.on_time = sum(1 for ev in evidence if ev is not None and ev.counts)
    metrics.late = sum(1 for ev in evidence if ev is not None and ev.status == "late")
    by_turn = {t.turn_index: t for t in resp.turns}
    edits_by_turn: dict[int, list[Mutation]] = defaultdict(list)
    for m in trajectory or ():
        edits_by_turn[m.turn_index].append(m)
    expected_by_turn: dict[int, list[tuple[Any, EditEvidence | None]]] = defaultdict(list)
    for em, ev in zip(scenario.expected_mutations, evidence, strict=True):
        if ev is not None:
            expected_by_turn[em.turn_index].append((em, ev))
    own_share = own_fact_share(scenario, by_turn)
    turn_items = [
        TurnItem(
            scenario=scenario,
            turn=t,
            response=by_turn.get(t.turn_index),
            edits=edits_by_turn.get(t.turn_index, []),
            expected_edits=[e for e, _ in expected_by_turn.get(t.turn_index, [])],
            edits_matched=sum(1 for _, ev in expected_by_turn.get(t.turn_index, []) if ev is not None and ev.counts),
            trajectory_source=source,
            # The agent's next line: the next turn, or after a side conversation the next one that is its to answer.
            next_response=by_turn.get(R.next_agent_turn(scenario, t.turn_index)),  # type: ignore[arg-type]
            later={i: r for i, r in by_turn.items() if t.turn_index < i < len(scenario.turns)},
            prev_response=by_turn.get(t.turn_index - 1),
            told=told,
            own_share=own_share,
        )
        for t in scenario.turns
    ]
    delivered = _match_outputs(scenario.expected_outputs, resp.work_products, resp.turns)
    product_items = []
    product_evidence: list[tuple[int, int, float, float] | None] = []
    for e, wp in zip(scenario.expected_outputs, delivered, strict=True):
        spec = scenario.product(e.product_id) if e.product_id else None
        checks = _checks(e, wp.content, scenario) if wp is not None else []
        product_items.append(
            ProductItem(scenario=scenario, expected=e, delivered=wp, spec=spec, checks=checks)
        )
        evs = [
            ev
            for m, ev in zip(scenario.expected_mutations, evidence, strict=True)
            if e.product_id and m.product_id == e.product_id and ev is not None
        ]
        # Expected edits a fresh instance shares with the published one (seed 0's export), and lookups of an
        # input the meeting showed, count half: they are public already, like the facts of those kinds
        # (docs/scoring.md, "What counts as evidence").
        public = _public_edits(scenario)
        wevs = [
            (0.5 if i in public else 1.0, ev)
            for i, (m, ev) in enumerate(zip(scenario.expected_mutations, evidence, strict=True))
            if e.product_id and m.product_id == e.product_id and ev is not None
        ]
        product_evidence.append(
            (sum(1 for ev in evs if ev.counts), len(evs), float(sum(w for w, ev in wevs if ev.counts)),
             float(sum(w for w, _ in wevs)))
            if evs else None
        )
    return _Run(resp, scenario, trial, trajectory, metrics, turn_items, product_items, product_evidence, full_turns,
                found.replay_errors)


def _assemble_item(item: Item, verdicts: list[Verdict]) -> tuple[dict[str, float], list[str], str | None]:
    """Consensus dimensions, flags and (when no judge scored) the reason."""
    scored = [v for v in verdicts if v.dimensions is not None]
    flags: list[str] = []
    for v in verdicts:
        for f in v.flags:
            if f not in flags:
                flags.append(f)
    if not scored:
        reasons = "; ".join(f"{v.judge}: {v.unscored_reason}" for v in verdicts) or "no judges"
        return {}, flags, reasons
    if len(scored) < len(verdicts):
        flags.append("partial_panel")
    dims, disagree = F.panel_consensus([v.dimensions or {} for v in scored], item.dimensions)
    if disagree:
        flags.append("judge_disagreement")
    return dims, flags, None


def _score_turn(item: TurnItem, verdicts: list[Verdict]) -> TurnScore:
    if item.scenario.expects_quiet(item.turn):
        return _score_quiet_turn(item, verdicts)
    dims, flags, reason = _assemble_item(item, verdicts)
    score: float | None = None
    capped = False
    if reason is None:
        score, capped = F.turn_score(dims)
        if "edge_case_conceded" in flags and score > F.HARD_FLOOR:
            # Giving in to a curveball floors the turn whatever else it said.
            score, capped = F.HARD_FLOOR, True
        if capped:
            flags.append("hard_floor")
    return TurnScore(
        turn_index=item.turn.turn_index,
        score=score,
        capped=capped,
        dimensions=dims,
        judges=verdicts,
        flags=flags,
        unscored_reason=reason,
    )


def _score_quiet_turn(item: TurnItem, verdicts: list[Verdict]) -> TurnScore:
    """A line meant for someone else (docs/scoring.md "Several people"): staying quiet is the answer, scored from
    the agent's words alone (10 held back, 1 took the floor), whatever a judge made of it."""
    quiet = R.kept_quiet(R.said(item.response))
    value = 10.0 if quiet else 1.0
    dims = dict.fromkeys(item.dimensions, value)
    score, capped = F.turn_score(dims)
    return TurnScore(turn_index=item.turn.turn_index, score=score, capped=capped, dimensions=dims, judges=verdicts,
                     flags=[R.HELD_BACK if quiet else R.SPOKE_OUT_OF_TURN], unscored_reason=None)


def _room_cap(run: _Run, turns: list[TurnScore], total: float) -> tuple[float, list[str]]:
    """Several people (docs/scoring.md): the mean of the multi-party checks takes the ceiling from 10 down to the
    floor, as curveballs do; each turn's failed checks are flagged on it."""
    checks = [c for it in run.turn_items for c in R.turn_checks(run.scenario, it.turn, it.response, it.next_response)]
    share = R.room_share(checks)
    if share is None:
        return total, []
    by_turn = {t.turn_index: t for t in turns}
    for c in checks:
        flag = R.ROOM_FLAGS[c.kind]
        t = by_turn.get(c.turn_index)
        if t is not None and c.credit < 1.0 and flag not in t.flags:
            t.flags.append(flag)
    cap = F.SCENARIO_FLOOR + (10.0 - F.SCENARIO_FLOOR) * share
    return (cap, [R.ROOM_CAP_FLAG]) if total > cap else (total, [])


def _score_product(
    item: ProductItem, verdicts: list[Verdict], evidence: tuple[int, int, float, float] | None
) -> ProductScore:
    e = item.expected
    checks = [
        CheckOutcome(criterion_id=c.criterion_id, passed=c.passed, required=c.required, reason=c.reason)
        for c in item.checks
    ]
    required = [c for c in item.checks if c.required]
    bound = F.correctness_bound(sum(c.passed for c in required), len(required))
    pid = e.product_id or (item.delivered.product_id if item.delivered else None)
    matched, total = (evidence[0], evidence[1]) if evidence is not None else (None, None)
    common: dict[str, Any] = {
        "product_id": pid,
        "output_type": e.output_type,
        "checks": checks,
        "correctness_bound": bound,
        "expected_mutations_matched": matched,
        "expected_mutations_total": total,
    }
    if item.delivered is None:
        dims = dict.fromkeys(item.dimensions, 1.0)
        return ProductScore(
            score=1.0, capped=True, dimensions=dims, judges=[], flags=["not_delivered"], **common
        )
    dims, flags, reason = _assemble_item(item, verdicts)
    if reason is not None:
        return ProductScore(
            score=None,
            capped=False,
            dimensions={},
            judges=verdicts,
            flags=flags,
            unscored_reason=reason,
            **common,
        )
    if bound is not None and dims["correctness"] > bound:
        dims["correctness"] = bound
        flags.append("correctness_bounded")
    score, capped = F.product_score(dims)
    if capped:
        flags.append("hard_floor")
    cap = F.evidence_cap(evidence[2], evidence[3]) if evidence is not None and evidence[3] else None
    if cap is not None:
        score = min(score, cap)
        capped = True
        flags.append("no_trajectory_evidence")
    return ProductScore(score=score, capped=capped, dimensions=dims, judges=verdicts, flags=flags, **common)


def _scenario_floors(
    run: _Run, turns: list[TurnScore], journey: float | None, destination: float | None, total: float
) -> tuple[float, list[str]]:
    """Scenario-level caps (docs/scoring.md), slopes rather than cliffs: both halves are needed (the score
    is at most the weaker half plus BALANCE_MARGIN), and every curveball must be handled (each edge case's
    handling, none when conceded, takes its share of the way from 10 down to the floor)."""
    flags: list[str] = []
    # The journey's substance: turns with something to be right about (facts, expected edits, a curveball).
    truth = [t.score for t, it in zip(turns, run.turn_items, strict=True)
             if t.score is not None and NETWORK_EXCUSED_FLAG not in t.flags
             and (it.turn.expected_facts or it.expected_edits or it.turn.edge_case)]
    substance = sum(truth) / len(truth) if truth else journey
    if substance is not None and destination is not None:
        cap = min(substance, destination) + F.BALANCE_MARGIN
        if total > cap:
            total = cap
            flags.append("silent_journey" if substance <= destination else "no_deliverables")
    elif journey is not None and journey < F.HARD_FLOOR and total > F.SCENARIO_FLOOR:
        total = F.SCENARIO_FLOOR
        flags.append("silent_journey")
    edge = [(t, it) for t, it in zip(turns, run.turn_items, strict=True) if it.turn.edge_case]
    if edge:
        handled = []
        for t, _it in edge:
            a = t.dimensions.get("adaptability")
            # Addressing the curveball's substance (one of the two signals it needs) is handling it;
            # a neutral reply is not, and giving in is worse than not handling.
            h = 0.0 if a is None or "edge_case_conceded" in t.flags else max(0.0, min(1.0, 2 * (a - 1.0) / 9.0))
            handled.append(h)
        share = sum(handled) / len(handled)
        cap = F.SCENARIO_FLOOR + (10.0 - F.SCENARIO_FLOOR) * share
        if any("edge_case_conceded" in t.flags for t, _ in edge):
            flags.append("edge_cases_conceded")
        if total > cap:
            total = cap
            if "edge_cases_conceded" not in flags:
                flags.append("edge_cases_unhandled")
    total, room_flags = _room_cap(run, turns, total)
    return total, flags + room_flags


def _speech(resp: ScenarioResponses, turns: list[TurnScore]) -> SpeechAccount | None:
    """The session's speech account, and each turn's speech flags (transcript_unsupported, transcript_mismatch)
    added to its item; both as ``derive_responses`` measured them (docs/scoring.md "What the agent said")."""
    m = resp.measurements if isinstance(resp.measurements, dict) else {}
    per_turn = {t.get("turn_index"): t.get("speech_flags") for t in m.get("turns") or () if isinstance(t, dict)}
    for t in turns:
        for f in per_turn.get(t.turn_index) or ():
            if isinstance(f, str) and f not in t.flags:
                t.flags.append(f)
    try:
        return SpeechAccount.model_validate(m["speech"]) if isinstance(m.get("speech"), dict) else None
    except ValueError:  # a hand-written responses line: the account is ours, not part of the public shape
        return None


def _turn_taking(measured: dict[str, Any]) -> TurnTaking | None:
    """The record's turn-taking panel as derived (``record.turn_taking``), or None for a line without one."""
    tt = measured.get("turn_taking")
    try:
        return TurnTaking.model_validate(tt) if isinstance(tt, dict) else None
    except ValueError:
        return None


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _finish(
    run: _Run, turn_verdicts: list[list[Verdict]], product_verdicts: list[list[Verdict]]
) -> ScenarioScore:
    sc = run.scenario
    turns = [_score_turn(it, vs) for it, vs in zip(run.turn_items, turn_verdicts, strict=True)]
    products = [
        _score_product(it, vs, ev)
        for it, vs, ev in zip(run.product_items, product_verdicts, run.product_evidence, strict=True)
    ]
    unscored = [f"turn {t.turn_index}: {t.unscored_reason}" for t in turns if t.score is None]
    unscored += [
        f"product {p.product_id or p.output_type}: {p.unscored_reason}" for p in products if p.score is None
    ]
    # What the network destroyed is not charged to the agent: a turn the network impaired that scored below
    # the agent's other turns is left out of the journey (flag network_excused); it can excuse, never lift.
    excused = network_excused(run.responses.measurements or {}, turns)
    for t in turns:
        if t.turn_index in excused:
            t.flags.append(NETWORK_EXCUSED_FLAG)
    journey = _mean([t.score for t in turns if t.score is not None and t.turn_index not in excused])
    destination = _mean([p.score for p in products if p.score is not None])
    total = F.combine(journey, destination)
    flags: list[str] = []
    if total is not None:
        total, floor_flags = _scenario_floors(run, turns, journey, destination, total)
        flags += floor_flags
    reason = run.responses.termination_reason
    if reason is not None and reason != "completed":
        # The reason itself (agent_disconnected, timeout, infrastructure_error ...) is the specific flag; a
        # slice played to its scheduled end (max_turns) did not end early.
        flags += [reason] if reason == "max_turns" else ["ended_early", reason]
    measured = run.responses.measurements or {}
    if measured.get("agent_errors") and AGENT_ERROR_FLAG not in flags:
        # The agent failed (its model unreachable, a crash, no join): the score measures that failure.
        flags.append(AGENT_ERROR_FLAG)
    if run.replay_errors:
        # Edits at parts their product does not have: the trajectory is not what the products show.
        flags.append(REPLAY_ERROR_FLAG)
    flags += network_flags(measured)
    if sc.expected_mutations and run.metrics.source == "none":
        flags.append("no_trajectory")
    speech = _speech(run.responses, turns)
    if speech is not None and speech.unrecognised_s > 0:
        flags.append("speech_unrecognised")
    answered = {t.turn_index for t in run.responses.turns}
    if len(answered) < len(sc.turns):
        flags.append("turns_unanswered")
    # A judge that could not answer (outage, bad answers) leaves a score that is not the panel's: no
    # tier or pass is shown for it until a re-run fills the gap from the cache.
    missing = sum(1 for t in turns for v in t.judges if v.dimensions is None) + sum(
        1 for p in products for v in p.judges if v.dimensions is None
    )
    if missing:
        flags.append("incomplete")
    graded = total is not None and not missing
    passed = total >= F.tier_threshold(sc.quality_tier) if graded and total is not None else None
    return ScenarioScore(
        scenario_id=sc.scenario_id,
        model_id=run.responses.model_id,
        trial=run.trial,
        scenario_seed=instance_of(sc),
        turns_scheduled=len(sc.turns) if len(sc.turns) < run.full_turns else None,
        journey=journey,
        destination=destination,
        modylbench_score=total,
        tier=F.tier_of(total) if graded and total is not None else None,
        quality_tier=sc.quality_tier,
        passed=passed,
        turns=turns,
        products=products,
        mutation_metrics=run.metrics,
        flags=flags,
        termination_reason=reason,
        unscored=unscored,
        speech=speech,
        turn_taking=_turn_taking(measured),
        missing_verdicts=missing,
    )


def aggregate(entries: list[ScenarioScore], k: int | None = None) -> dict[str, ModelAggregate]:
    """Per model: mean score and its interval, tier, rank, flakiness and pass^k (per scenario and mean over
    scenarios). ``summarise`` gives the pairwise comparisons the ranks come from as well."""
    return summarise(entries, k)[0]


def summarise(
    entries: list[ScenarioScore], k: int | None = None
) -> tuple[dict[str, ModelAggregate], list[Comparison]]:
    """The card's aggregate and its comparisons (docs/scoring.md "Error bars").

    Incomplete runs are counted but left out of the means; a model with one has no tier.
    """
    by_model: dict[str, list[ScenarioScore]] = defaultdict(list)
    for e in entries:
        by_model[e.model_id].append(e)
    out: dict[str, ModelAggregate] = {}
    for model in sorted(by_model):
        runs = by_model[model]
        incomplete = sum(1 for r in runs if r.missing_verdicts)
        scores = [r.modylbench_score for r in runs if r.modylbench_score is not None and not r.missing_verdicts]
        mean = _mean(scores)
        per_sc: dict[str, list[ScenarioScore]] = defaultdict(list)
        for r in runs:
            if r.passed is not None:
                per_sc[r.scenario_id].append(r)
        per_scenario = []
        for sid in sorted(per_sc):
            trials = per_sc[sid]
            n, c = len(trials), sum(1 for t in trials if t.passed)
            top = n if k is None else min(k, n)
            per_scenario.append(
                PassK(
                    scenario_id=sid,
                    trials=n,
                    passes=c,
                    pass_k={str(j): F.pass_hat_k(n, c, j) for j in range(1, top + 1)},
                    mean_score=_mean([t.modylbench_score for t in trials if t.modylbench_score is not None]),
                    interval=U.mean_interval(trials, f"{model} / {sid}"),
                )
            )
        pass_k: dict[str, float] = {}
        top_k = max((len(p.pass_k) for p in per_scenario), default=0)
        for j in range(1, top_k + 1):
            vals = [p.pass_k[str(j)] for p in per_scenario if str(j) in p.pass_k]
            pass_k[str(j)] = sum(vals) / len(vals)
        out[model] = ModelAggregate(
            model_id=model,
            runs=len(runs),
            mean_score=mean,
            tier=F.tier_of(mean) if mean is not None and not incomplete else None,
            pass_k=pass_k,
            per_scenario=per_scenario,
            incomplete_runs=incomplete,
            interval=U.mean_interval(runs, model),
            flakiness=U.flakiness(runs),
        )
    ranked = [a.model_id for a in sorted(out.values(), key=lambda a: (a.mean_score is None, -(a.mean_score or 0.0), a.model_id))]
    found = U.comparisons(entries, ranked)
    for m, place in U.ties(ranked, found).items():
        out[m].rank = place
    return out, found


def _plan(
    responses: list[ScenarioResponses], scenarios: dict[str, Scenario]
) -> tuple[list[_Run], list[dict[str, Any]]]:
    runs: list[_Run] = []
    skipped: list[dict[str, Any]] = []
    trials_seen: dict[tuple[str, str], set[int]] = defaultdict(set)
    for resp in responses:
        problem = line_problem(resp, scenarios)
        pair = (resp.scenario_id, resp.model_id)
        if problem is None and resp.trial is not None and resp.trial in trials_seen[pair]:
            problem = f"trial {resp.trial} of ({resp.scenario_id}, {resp.model_id}) appears twice"
        if problem is not None:
            skipped.append(
                {
                    "scenario_id": resp.scenario_id,
                    "model_id": resp.model_id,
                    "trial": resp.trial,
                    "reason": problem,
                }
            )
            continue
        trial = resp.trial
        if trial is None:
            trial = 0
            while trial in trials_seen[pair]:
                trial += 1
        trials_seen[pair].add(trial)
        runs.append(prepare(resp, scenarios[resp.scenario_id], trial))
    return runs, skipped


def _configure(judges: list[Judge], cache_dir: Path | None) -> None:
    if cache_dir is None:
        return
    for j in judges:
        if isinstance(j, CachingJudge):
            j.set_cache_dir(cache_dir)


def _card(
    judges: list[Judge],
    runs: list[_Run],
    verdicts: dict[int, list[list[Verdict]]],
    skipped: list[dict[str, Any]],
    k: int | None,
) -> Scorecard:
    entries = []
    for ri, run in enumerate(runs):
        per_item = verdicts[ri]
        nt = len(run.turn_items)
        entries.append(_finish(run, per_item[:nt], per_item[nt:]))
    agg, found = summarise(entries, k)
    return Scorecard(
        modylbench_version=package_version(),
        judges=[j.name for j in judges],
        scenarios=entries,
        aggregate=agg,
        comparisons=found,
        skipped=skipped,
        incomplete=any(e.missing_verdicts for e in entries),
    )


async def score_async(
    responses: list[ScenarioResponses],
    scenarios: dict[str, Scenario],
    judges: list[Judge],
    *,
    k: int | None = None,
    cache_dir: Path | None = None,
) -> Scorecard:
    """Score responses with the panel (async judges run concurrently within their own bounds)."""
    if not judges:
        raise ValueError("the judge panel is empty")
    _configure(judges, cache_dir)
    runs, skipped = _plan(responses, scenarios)
    items = _items(runs)
    per_judge: list[list[Verdict]] = []
    for j in judges:
        verdicts = await j.judge_items(items)
        if len(verdicts) != len(items):
            raise RuntimeError(f"judge {j.name} gave {len(verdicts)} verdicts for {len(items)} items")
        per_judge.append(verdicts)
    return _card(judges, runs, _split(runs, items, per_judge), skipped, k)


def _items(runs: list[_Run]) -> list[Item]:
    """Every item to judge, run by run: its turns, then its products (``_split`` relies on this order)."""
    out: list[Item] = []
    for run in runs:
        out.extend(run.turn_items)
        out.extend(run.product_items)
    return out


def _split(
    runs: list[_Run], items: list[Item], per_judge: list[list[Verdict]]
) -> dict[int, list[list[Verdict]]]:
    out: dict[int, list[list[Verdict]]] = {}
    pos = 0
    for ri, run in enumerate(runs):
        n = len(run.turn_items) + len(run.product_items)
        out[ri] = [[pj[pos + i] for pj in per_judge] for i in range(n)]
        pos += n
    return out


def score(
    responses: list[ScenarioResponses],
    scenarios: dict[str, Scenario],
    judges: list[Judge],
    *,
    k: int | None = None,
    cache_dir: Path | None = None,
) -> Scorecard:
    """``score_async`` for plain code (and from inside a running event loop, via a thread)."""
    if not judges:
        raise ValueError("the judge panel is empty")
    coro = score_async(responses, scenarios, judges, k=k, cache_dir=cache_dir)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    # Called from inside an event loop: run the scoring loop in a worker thread.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
