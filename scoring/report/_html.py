"""The report's HTML: the page and its sections (headline, losses, turns, products, media, comparison).

One self-contained file that shows how an agent did, where it lost points and why. The page's CSS
and JavaScript are package files (report.css, report.js), inlined: no request may leave the file.
"""

from __future__ import annotations

import logging
import os
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from modylbench.record import Mutation, ScenarioResponses, attachment_path, valid_text
from modylbench.scenarios import Scenario, VerificationCriterion, resolve_scenarios
from modylbench.scoring._formula import (
    DESTINATION_WEIGHT,
    JOURNEY_WEIGHT,
    PRODUCT_DIMENSIONS,
    TURN_DIMENSIONS,
    tier_of,
    tier_threshold,
)
from modylbench.scoring._formula import combine as combine_parts
from modylbench.scoring._models import ProductScore, Scorecard, TurnScore
from modylbench.scoring._mutations import classify_mutations
from modylbench.scoring._uncertainty import compare as compare_models
from modylbench.scoring._uncertainty import format_interval, mean_interval
from modylbench.scoring.report._charts import (
    activity_chart,
    activity_table,
    dimension_chart,
    dimension_heatmap,
    edits_chart,
    latency_chart,
    timeline_chart,
)
from modylbench.scoring.report._compare import basis_of, unequal
from modylbench.scoring.report._content import render_content
from modylbench.scoring.report._format import cell, esc, fmt, mmss, nice, numbers_in, score_class
from modylbench.scoring.report._media import (
    MAX_FILE_EMBED,
    THUMB_WIDTH,
    data_uri,
    encode_recording,
    thumbnail,
)
from modylbench.scoring.report._network import network_line, network_table
from modylbench.scoring.report._turntaking import turn_taking_line, turn_taking_table
from modylbench.scoring.report._view import (
    RunView,
    SessionView,
    build_runs,
    dimension_means,
    link_session_reports,
    load_session,
    mean_dims,
)

logger = logging.getLogger(__name__)

# What a flag means, in words a newcomer reads (docs/scoring.md has the exact rules).
FLAG_TEXT: dict[str, str] = {
    "hard_floor": "capped at 4.0: a key dimension (context accuracy / task progress, or correctness) was below 4",
    "judge_disagreement": "judges disagreed by more than 3 points; the lowest score was taken",
    "partial_panel": "some judges could not score this item",
    "no_response": "the agent said, wrote and edited nothing",
    "not_delivered": "the expected deliverable was never delivered (scores 1)",
    "no_trajectory_evidence": "work not shown in time: fewer than half the expected edits made within two turns of "
    "being asked (capped between 4.0 and 1.0 by how many were)",
    "correctness_bounded": "correctness lowered to match the programmatic checks that failed",
    "no_trajectory": "no edit trajectory recorded: the final state earns no credit",
    "turns_unanswered": "some turns have no response at all",
    "ended_early": "the meeting ended before the last turn",
    "prompt_injection": "the agent tried to instruct the judge",
    "parroting": "the agent copied the persona's or the scenario's words",
    "edge_case_conceded": "the agent gave in to a curveball it should have pushed back on",
    "no_ground_truth": "no ground truth to check the figures against",
    "imprecise": "many figures matched nothing the scenario knows, or a flood of figures: the turn's substance shrank",
    "hedged": "a figure was offered with a rival ('X or maybe Y'): it counts half or not at all",
    "keyword_stuffing": "most of the meeting's talking points recited in one turn: its text facts lost credit",
    "silent_journey": "the journey is below 4: the scenario is capped at 4.0",
    "no_deliverables": "the deliverables score below 4: the scenario is capped at 4.0",
    "edge_cases_conceded": "the agent gave in to curveballs: each one lowers the scenario's ceiling",
    "transcript_unsupported": "the agent declared more words than its voice could carry (speech not recognised): "
    "only as many as its voiced time allows were credited",
    "transcript_mismatch": "the declared transcript disagrees with what speech recognition heard: only what was heard "
    "was credited",
    "speech_unrecognised": "speech recognition could not hear some of the agent's speech (server down, slow or "
    "garbled); those turns fell back to the capped declared transcript",
    "network_impaired": "the network destroyed part of the meeting (speech or a file that did not arrive): "
    "the network's doing, not the agent's; see Network per turn",
}


@cache
def _asset(name: str) -> str:
    """A file shipped in this package (the page's CSS and JavaScript)."""
    package = __name__.rpartition(".")[0]  # modylbench.scoring.report, where the files ship
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


def _flag_chips(flags: Iterable[str]) -> str:
    return "".join(
        f'<span class="flag f-{esc(f)}" title="{esc(FLAG_TEXT.get(f, f))}">{esc(f)}</span>' for f in flags
    )


def _seek(run: RunView, t: float | None, text: str) -> str:
    if run.session is None or run.session.recording is None or t is None:
        return ""
    return (
        f'<a class="seek" href="#{run.anchor}-audio" data-seek="{max(0.0, t):.2f}" '
        f'data-audio="{run.anchor}-audio" title="play the recording from {mmss(t)}">▶ {esc(text)}</a>'
    )


def _headline(run: RunView) -> str:
    e = run.entry
    need = e.quality_tier
    verdict = ("PASSED" if e.passed else "FAILED") if e.passed is not None else "not decided"
    judges = ", ".join(v.judge for v in (e.turns[0].judges if e.turns and e.turns[0].judges else []))
    capped_t = sum(1 for t in e.turns if t.capped)
    capped_p = sum(1 for p in e.products if p.capped)
    flags: Counter[str] = Counter()
    for it_flags in [t.flags for t in e.turns] + [p.flags for p in e.products]:
        flags.update(it_flags)
    chips = [f for f in e.flags]
    chips += [
        f"{f} ×{n}"
        for f, n in flags.items()
        if f
        in (
            "hard_floor",
            "judge_disagreement",
            "not_delivered",
            "no_trajectory_evidence",
            "partial_panel",
            "prompt_injection",
            "parroting",
            "edge_case_conceded",
            "imprecise",
            "hedged",
            "keyword_stuffing",
            "transcript_unsupported",
            "transcript_mismatch",
        )
    ]
    if e.unscored:
        chips.append(f"unscored ×{len(e.unscored)}")
    pk = ""
    if run.pass_k:
        pk = "<div><b>pass^k</b> " + " ".join(f"k={k}: {v:.2f}" for k, v in run.pass_k.items()) + "</div>"
    try:
        threshold = f"≥ {tier_threshold(need):g}"
    except ValueError:
        threshold = ""
    sess = ""
    if run.session is not None:
        m = run.session.manifest
        dur = m.meeting_seconds
        sess = (
            f"<div><b>session</b> {esc(run.session.start.transport)}, "
            f"{esc(m.turns_played if m.turns_played is not None else len(run.session.turn_start))}/{esc(run.session.start.turns_planned)} turns"
            + (f", {mmss(dur)} of meeting" if dur is not None else "")
            + "</div>"
        )
    speech = _speech_line(e.speech)
    unscored = ""
    if e.unscored:
        unscored = (
            '<div class="unscored"><b>Not scored</b> (left out of the means, never counted as 0):<ul>'
            + "".join(f"<li>{esc(u)}</li>" for u in e.unscored)
            + "</ul></div>"
        )
    return f"""
<div class="headline">
  <div class="big {score_class(e.modylbench_score)}" data-testid="score">{fmt(e.modylbench_score)}<small>/10</small></div>
  <div class="hl-body">
    <div class="tier">{esc(e.tier or "not scored")} <span class="verdict v-{verdict.split()[0].lower()}">{verdict}</span>
      <span class="muted">this scenario needs {esc(need)} ({threshold})</span></div>
    <div class="jd"><span><b>Journey</b> {fmt(e.journey)} <small>how it worked in the meeting, mean of
      {len(e.turns)} turns, weight 40%</small></span>
      <span><b>Destination</b> {fmt(e.destination)} <small>what it delivered, mean of {len(e.products)} products,
      weight 60%</small></span></div>
    <div><b>judges</b> {esc(judges or "—")} · <b>ended</b> {esc(e.termination_reason or "—")} ·
      <b>capped</b> {capped_t} turns, {capped_p} products</div>
    {pk}{sess}{speech}{network_line(run.responses)}{turn_taking_line(e)}
    <div class="chips">{_flag_chips(chips) or '<span class="muted">no flags</span>'}</div>
    {unscored}
  </div>
</div>"""


def _speech_line(sp: Any) -> str:
    """How the agent's speech was taken: recognised, or not recognised and declared words capped."""
    if sp is None or (sp.voiced_s <= 0 and not sp.recognition):
        return ""
    if not sp.recognition:
        return (
            f"<div><b>speech</b> not recognised (no <code>--asr</code>): {sp.voiced_s:.0f} s of voice; declared "
            f"transcripts credited up to {sp.words_per_voiced_second:g} words per voiced second</div>"
        )
    lost = f", <b>{sp.unrecognised_s:.0f} s unrecognised</b>" if sp.unrecognised_s > 0 else ""
    return f"<div><b>speech</b> recognised: {sp.recognised_s:.0f} of {sp.voiced_s:.0f} s of voice heard{lost}</div>"


def _turn_reason(t: TurnScore) -> str:
    """The judges' words for a turn, shortened: the first rationale that says something."""
    for v in t.judges:
        if v.rationale:
            return v.rationale if len(v.rationale) < 160 else v.rationale[:157] + "…"
        if v.unscored_reason:
            return f"not scored: {v.unscored_reason}"
    return t.unscored_reason or ""


CEILING_FLAGS = ("silent_journey", "no_deliverables", "edge_cases_conceded")
"""Run flags that lower the scenario's ceiling: they cost points only when the ceiling is below the uncapped score."""


def _why_not_ten(e: Any, ceiling_cost: float) -> str | None:
    """One sentence on where the points between the score and 10 went (a 9.96 is not a rounding of 10)."""
    score = e.modylbench_score
    if score is None or score >= 10 - 5e-4:
        return None
    parts = []
    both = e.journey is not None and e.destination is not None
    for name, mean, weight, what in (("journey", e.journey, JOURNEY_WEIGHT, "mean turn score"),
                                     ("destination", e.destination, DESTINATION_WEIGHT, "mean product score")):
        if mean is None:
            continue
        w = weight if both else 1.0
        parts.append(f"the {name} ({what} {mean:.2f}) costs {w * (10 - mean):.2f} ({w:g} × {10 - mean:.2f})")
    if ceiling_cost > 5e-4:
        parts.append(f"the scenario's ceiling costs {ceiling_cost:.2f}")
    dims = sorted((v, d) for d, v in dimension_means(e).items() if v is not None and v < 10 - 5e-4)[:3]
    lowest = ("; lowest dimensions: " + ", ".join(f"{esc(nice(d))} {v:.2f}" for v, d in dims)) if dims else ""
    return f"Why {score:.2f} and not 10: " + ", ".join(parts) + lowest + "."


def _lost_points(run: RunView) -> str:
    """Plain sentences: where the score went, largest losses first."""
    e = run.entry
    items: list[str] = []
    scored = [t for t in e.turns if t.score is not None]
    if scored:
        low = [t for t in scored if t.score is not None and t.score < 6.0]
        if low:
            reasons = Counter(_turn_reason(t) for t in low)
            common = "; ".join(f"“{esc(r)}” ({n})" for r, n in reasons.most_common(3) if r)
            capped = sum(1 for t in low if t.capped)
            items.append(
                f"<b>{len(low)} of {len(scored)} turns scored below 6</b>"
                + (f", {capped} of them capped at 4.0 by a hard floor" if capped else "")
                + (f". Judges said: {common}." if common else ".")
            )
        worst = sorted(
            (t for t in scored if (t.score or 0.0) < 7.5), key=lambda t: (t.score or 0.0, t.turn_index)
        )[:5]
        if worst:
            links = []
            for t in worst:
                st = run.session.turn_start.get(t.turn_index) if run.session else None
                links.append(
                    f'<li><a href="#{run.anchor}-turn-{t.turn_index}">turn {t.turn_index}</a> '
                    f'<span class="{score_class(t.score)} pill">{fmt(t.score)}</span> '
                    f"{esc(nice(run.turn_phase(t.turn_index)[0]))} — {esc(_turn_reason(t))} "
                    f"{_seek(run, st, 'listen')}</li>"
                )
            items.append("Lowest turns:<ul>" + "".join(links) + "</ul>")
        dims = dimension_means(e)
        weak = sorted(((v, d) for d, v in dims.items() if v is not None and v < 6.0), key=lambda x: x[0])[:3]
        if weak:
            items.append("Weakest dimensions: " + ", ".join(f"{esc(nice(d))} {v:.1f}" for v, d in weak) + ".")
    for p in e.products:
        name = p.product_id or p.output_type
        why = [
            FLAG_TEXT.get(f, f)
            for f in p.flags
            if f in ("not_delivered", "no_trajectory_evidence", "hard_floor", "correctness_bounded")
        ]
        failed = [c for c in p.checks if not c.passed]
        if p.score is None:
            items.append(f"Product <b>{esc(name)}</b> was not scored: {esc(p.unscored_reason or '')}.")
        elif p.score < 7.5 or failed:
            detail = ""
            if p.expected_mutations_total:
                detail = f" ({p.expected_mutations_matched or 0} of {p.expected_mutations_total} expected edits seen)"
            fails = ""
            if failed:
                fails = (
                    f"; {len(failed)} of {len(p.checks)} checks failed: "
                    + ", ".join(f"{esc(c.criterion_id)} ({esc(c.reason)})" for c in failed[:4])
                    + (" …" if len(failed) > 4 else "")
                )
            items.append(
                f'Product <a href="#{run.anchor}-product-{esc(name)}"><b>{esc(name)}</b></a> scored '
                f'<span class="{score_class(p.score)} pill">{fmt(p.score)}</span>'
                + (": " + "; ".join(esc(w) for w in why) if why else "")
                + detail
                + fails
                + "."
            )
    mm = e.mutation_metrics
    if mm.destructive or mm.backtracks:
        items.append(
            f"The edit trajectory has {mm.destructive} destructive edits (a correct value overwritten) and "
            f"{mm.backtracks} backtracks."
        )
    uncapped = combine_parts(e.journey, e.destination)
    ceiling_cost = uncapped - e.modylbench_score if uncapped is not None and e.modylbench_score is not None else 0.0
    noted = []
    for f in e.flags:
        if f not in FLAG_TEXT:
            continue
        if f in CEILING_FLAGS and ceiling_cost > 5e-4:
            items.append(f"Run flag <b>{esc(f)}</b>: {esc(FLAG_TEXT[f])}; it cost {ceiling_cost:.2f} points.")
        else:  # a flag is not a loss in itself: what it cost (if anything) is in the turn and product scores
            noted.append(f"<b>{esc(f)}</b> ({esc(FLAG_TEXT[f])})")
    why_ten = _why_not_ten(e, ceiling_cost)
    tail = [why_ten] if why_ten else []
    if noted:
        tail.append("Flagged, with no points taken for it on its own: " + "; ".join(noted) + ".")
    if not items:
        good = '<p class="good-news">No significant losses: every turn scored 6 or more and every product passed its checks.</p>'
        return good + ('<ul class="lost">' + "".join(f"<li>{i}</li>" for i in tail) + "</ul>" if tail else "")
    return '<ul class="lost">' + "".join(f"<li>{i}</li>" for i in items + tail) + "</ul>"


def _judge_table(verdicts: Sequence[Any], dims: Sequence[str], consensus: dict[str, float]) -> str:
    head = "".join(f"<th>{esc(nice(d))}</th>" for d in dims)
    rows = []
    for v in verdicts:
        if v.dimensions is None:
            rows.append(
                f'<tr><th>{esc(v.judge)}</th><td colspan="{len(dims)}" class="muted">not scored: '
                f"{esc(v.unscored_reason or '')}</td></tr>"
            )
        else:
            cells = "".join(
                f'<td class="{score_class(v.dimensions.get(d))}">{fmt(v.dimensions.get(d), 1)}</td>'
                for d in dims
            )
            rows.append(f"<tr><th>{esc(v.judge)}</th>{cells}</tr>")
    if len(verdicts) > 1 or not verdicts:
        cells = "".join(
            f'<td class="{score_class(consensus.get(d))}"><b>{fmt(consensus.get(d), 1)}</b></td>'
            for d in dims
        )
        rows.append(f"<tr><th>consensus</th>{cells}</tr>")
    rationale = "".join(
        f'<p class="rationale"><b>{esc(v.judge)}:</b> {esc(v.rationale or v.unscored_reason or "")}'
        + (f" {_flag_chips(v.flags)}" if v.flags else "")
        + "</p>"
        for v in verdicts
    )
    return f'<div class="scroll"><table class="dims"><tr><th>judge</th>{head}</tr>{"".join(rows)}</table></div>{rationale}'


def _turns_section(run: RunView, edits_by_turn: dict[int, list[tuple[Mutation, set[str]]]]) -> str:
    e = run.entry
    resp = {t.turn_index: t for t in (run.responses.turns if run.responses else [])}
    out = [
        f'<div class="turns" id="{run.anchor}-turns"><div class="trow thead"><span>turn</span><span>score</span>'
        "<span>phase</span><span>channel</span><span>latency</span><span>edits</span><span>flags</span>"
        "<span>play</span></div>"
    ]
    for t in e.turns:
        ti = t.turn_index
        phase, channel = run.turn_phase(ti)
        r = resp.get(ti)
        lat = f"{r.latency_ms / 1000:.1f}s" if r is not None and r.latency_ms is not None else "—"
        edits = edits_by_turn.get(ti, [])
        bad_edits = sum(1 for _, tg in edits if tg & {"destructive", "backtrack"})
        start = run.session.turn_start.get(ti) if run.session else None
        capped = (
            '<span class="capped" title="capped at 4.0 by a hard floor">capped</span>' if t.capped else ""
        )
        flags = [f for f in t.flags if f != "hard_floor"]
        out.append(
            f'<details class="turn b-{score_class(t.score)}" id="{run.anchor}-turn-{ti}" data-turn="{ti}"'
            + (f' data-start="{start:.2f}"' if start is not None else "")
            + ">"
            f'<summary class="trow"><span>#{ti}</span><span class="pill {score_class(t.score)}">{fmt(t.score)}</span>'
            f"<span>{esc(nice(phase))}</span><span>{esc(channel)}</span><span>{lat}</span>"
            f"<span>{len(edits)}{f' ({bad_edits}⚠)' if bad_edits else ''}</span>"
            f"<span>{capped}{_flag_chips(flags)}</span><span>{_seek(run, start, mmss(start or 0.0))}</span></summary>"
        )
        out.append('<div class="tbody">')
        out.append(_turn_detail(run, t, r, edits))
        out.append("</div></details>")
    out.append("</div>")
    return "".join(out)


def _turn_detail(run: RunView, t: TurnScore, r: Any, edits: list[tuple[Mutation, set[str]]]) -> str:
    ti = t.turn_index
    sc_turn = run.scenario.turns[ti] if run.scenario is not None and ti < len(run.scenario.turns) else None
    said = run.session.persona_said.get(ti) if run.session else None
    persona = " ".join(said) if said else (sc_turn.human_utterance if sc_turn else "")
    parts = ['<div class="cols"><div>']
    parts.append(f'<h5>Persona said</h5><p class="said">{esc(persona) or "<span class=muted>—</span>"}</p>')
    chats = run.session.chats.get(ti, []) if run.session else []
    persona_chat = [txt for who, txt in chats if who == "persona"]
    if not persona_chat and sc_turn is not None and sc_turn.chat_message:
        persona_chat = [sc_turn.chat_message]
    for c in persona_chat:
        parts.append(f'<p class="chat"><b>persona chat:</b> {esc(c)}</p>')
    if sc_turn is not None:
        if sc_turn.screen is not None:
            parts.append(f'<p class="muted">screen: {esc(sc_turn.screen.title)}</p>')
        if sc_turn.files:
            parts.append(f'<p class="muted">files pushed: {esc(", ".join(sc_turn.files))}</p>')
        if sc_turn.edge_case:
            parts.append(f'<p class="edge">curveball: {esc(sc_turn.edge_case)}</p>')
        parts.append(
            f'<p class="expected"><b>Expected of the agent:</b> {esc(sc_turn.expected_agent_action)}</p>'
        )
    parts.append("</div><div>")
    if r is None:
        parts.append('<h5>Agent</h5><p class="muted">No response recorded for this turn.</p>')
    else:
        parts.append(
            f'<h5>Agent said</h5><p class="said">{esc(r.agent_response) or "<span class=muted>(nothing)</span>"}</p>'
        )
        for c in r.chat_messages:
            parts.append(f'<p class="chat"><b>agent chat:</b> {esc(c)}</p>')
    if run.session is not None:
        extra = []
        if ti in run.session.turn_end_reason:
            extra.append(f"turn ended: {run.session.turn_end_reason[ti].replace('_', ' ')}")
        extra += run.session.interruptions.get(ti, [])
        if extra:
            parts.append(f'<p class="muted">{esc("; ".join(extra))}</p>')
    if edits:
        parts.append(f'<h5>Edits this turn ({len(edits)})</h5><ul class="edits">')
        for m, tags in edits[:30]:
            parts.append(
                f'<li class="{" ".join("e-" + x for x in sorted(tags))}"><code>{esc(m.product_id)}'
                f"{esc(m.path)}</code> {esc(m.mutation_type)} → {cell(m.new_value)} "
                f'<span class="muted">{esc(", ".join(sorted(tags)))}</span></li>'
            )
        if len(edits) > 30:
            parts.append(f'<li class="muted">… {len(edits) - 30} more</li>')
        parts.append("</ul>")
    parts.append("</div></div>")
    parts.append("<h5>Judges</h5>")
    if t.unscored_reason:
        parts.append(f'<p class="unscored">Not scored: {esc(t.unscored_reason)}</p>')
    parts.append(_judge_table(t.judges, TURN_DIMENSIONS, t.dimensions))
    if t.flags:
        parts.append(
            '<ul class="flagtext">'
            + "".join(f"<li><b>{esc(f)}</b>: {esc(FLAG_TEXT.get(f, ''))}</li>" for f in t.flags)
            + "</ul>"
        )
    return "".join(parts)


def _products_section(run: RunView, classified: list[tuple[Mutation, set[str]]]) -> str:
    e = run.entry
    if not e.products:
        return (
            '<p class="muted">No deliverables were due in this run (a slice of the meeting is scored on its '
            "journey alone).</p>"
        )
    finals = {
        wp.product_id: wp for wp in (run.responses.work_products if run.responses else []) if wp.product_id
    }
    criteria: dict[str, VerificationCriterion] = {}
    if run.scenario is not None:
        for eo in run.scenario.expected_outputs:
            for c in eo.verification_criteria:
                if isinstance(c, VerificationCriterion):
                    criteria[c.id] = c
    n_turns = len(e.turns)
    out = []
    for p in e.products:
        out.append(_product_block(run, p, finals, criteria, classified, n_turns))
    return "".join(out)


def _product_block(
    run: RunView,
    p: ProductScore,
    finals: dict[str, Any],
    criteria: dict[str, VerificationCriterion],
    classified: list[tuple[Mutation, set[str]]],
    n_turns: int,
) -> str:
    name = p.product_id or p.output_type
    out = [
        f'<section class="product" id="{run.anchor}-product-{esc(name)}">'
        f'<h4>{esc(name)} <small>{esc(p.output_type)}</small> <span class="pill {score_class(p.score)}">'
        f"{fmt(p.score)}</span> {'<span class=capped>capped</span>' if p.capped else ''} {_flag_chips(p.flags)}</h4>"
    ]
    if p.unscored_reason:
        out.append(f'<p class="unscored">Not scored: {esc(p.unscored_reason)}</p>')
    for f in p.flags:
        if f in FLAG_TEXT:
            out.append(f'<p class="flagline"><b>{esc(f)}</b>: {esc(FLAG_TEXT[f])}</p>')
    if p.checks:
        passed = sum(1 for c in p.checks if c.passed)
        out.append(
            f"<h5>Programmatic checks: {passed} of {len(p.checks)} passed"
            + (f" (correctness bound {p.correctness_bound:.1f})" if p.correctness_bound is not None else "")
            + '</h5><div class="scroll"><table class="checks"><tr><th></th><th>check</th><th>what</th>'
            "<th>result</th><th>required</th></tr>"
        )
        for c in sorted(p.checks, key=lambda c: c.passed):
            desc = criteria[c.criterion_id].description if c.criterion_id in criteria else ""
            out.append(
                f'<tr class="{"ok" if c.passed else "ko"}"><td>{"✓" if c.passed else "✗"}</td>'
                f"<td>{esc(c.criterion_id)}</td><td>{esc(desc)}</td><td>{esc(numbers_in(c.reason))}</td>"
                f"<td>{'yes' if c.required else 'no'}</td></tr>"
            )
        out.append("</table></div>")
    if p.judges:
        out.append(
            "<details><summary>Judges' scores and rationale</summary>"
            + _judge_table(p.judges, PRODUCT_DIMENSIONS, p.dimensions)
            + "</details>"
        )
    if p.product_id is not None:
        mine = [(m, tg) for m, tg in classified if m.product_id == p.product_id]
        per_turn: dict[int, Counter[str]] = defaultdict(Counter)
        for m, tg in mine:
            kind = next(
                (k for k in ("destructive", "backtrack", "reverted", "unexpected", "expected") if k in tg),
                "other",
            )
            per_turn[m.turn_index][kind] += 1
        expected: Counter[int] = Counter()
        if run.scenario is not None:
            expected.update(
                x.turn_index for x in run.scenario.expected_mutations if x.product_id == p.product_id
            )
        bad = [(m, tg) for m, tg in mine if tg & {"destructive", "backtrack"}]
        out.append(
            f"<h5>Trajectory: {len(mine)} edit{'' if len(mine) == 1 else 's'} by the agent"
            + (
                f", {p.expected_mutations_matched} of {p.expected_mutations_total} expected edits seen"
                if p.expected_mutations_total
                else ""
            )
            + (f", {len(bad)} destructive or backtracking" if bad else "")
            + "</h5>"
        )
        if mine or expected:
            out.append(edits_chart(per_turn, expected, n_turns))
            out.append(
                '<p class="muted">Bars: the agent\'s edits in each turn (x: turn). Black ticks: the edits a '
                "strong participant makes in that turn. Work shown as it goes tracks the ticks; a final-state "
                "dump is one late bar.</p>"
            )
        if bad:
            out.append(
                '<ul class="edits">'
                + "".join(
                    f'<li class="{" ".join("e-" + x for x in sorted(tg))}">turn '
                    f'<a href="#{run.anchor}-turn-{m.turn_index}">{m.turn_index}</a>: <code>{esc(m.path)}</code> '
                    f"{cell(m.old_value)} → {cell(m.new_value)} <b>{esc(', '.join(sorted(tg & {'destructive', 'backtrack'})))}"
                    "</b></li>"
                    for m, tg in bad[:20]
                )
                + "</ul>"
            )
    wp = finals.get(p.product_id) if p.product_id is not None else None
    if wp is not None:
        spec = (
            next((x for x in run.scenario.products if x.product_id == p.product_id), None)
            if run.scenario
            else None
        )
        rendered = render_content(
            wp.output_type,
            wp.content,
            spec.reference if spec is not None else None,
            spec.template if spec is not None else None,
        )
        out.append(f'<details class="final" open><summary>Final state</summary>{rendered}</details>')
    elif "not_delivered" in p.flags:
        out.append('<p class="muted">Never delivered.</p>')
    else:
        out.append(
            '<p class="muted">The final content is not in this scorecard (give the responses or the '
            "session to see it).</p>"
        )
    out.append("</section>")
    return "".join(out)


def _meeting_charts(run: RunView) -> str:
    """The turn dimensions per turn, the latency per turn and (for a recorded session) who spoke when."""
    out = []
    heat = dimension_heatmap(run)
    if heat:
        out.append(f"<h3>Dimensions per turn</h3>{heat}")
    lat = latency_chart(run)
    if not lat and run.responses is not None:
        out.append('<h3>Latency per turn</h3><p class="muted">The responses give no latencies.</p>')
    if lat:
        out.append(
            '<h3>Latency per turn</h3><p class="muted">Seconds from the end of the persona\'s speech to the '
            "agent's first answer in the turn. Hover a bar for its value; a turn number opens the turn.</p>"
            + lat
        )
    out.append(network_table(run.responses))
    out.append(turn_taking_table(run.entry))
    who = activity_chart(run)
    if who:
        seek = (
            " Click a speech bar to play the recording from there."
            if run.session and run.session.recording
            else ""
        )
        out.append(
            '<h3>Who spoke when</h3><p class="muted">Everything said, posted, sent and edited, on the meeting '
            f"clock. Hover a mark for what it was.{seek}</p>{who}{activity_table(run)}"
        )
    return "".join(out)


def _media_section(run: RunView, audio: bool) -> str:
    s = run.session
    if s is None:
        return ""
    out = ["<h3>Recording, slides and files</h3>"]
    rec = s.recording
    if rec is not None and audio:
        try:
            ogg = encode_recording(rec)
            uri = data_uri("audio/ogg", ogg)
            out.append(
                f'<div class="player"><audio id="{run.anchor}-audio" controls preload="auto" src="{uri}"></audio>'
                '<p class="muted">Stereo: the persona on the left, the agent on the right. The ▶ links in the '
                f"turn list jump here (needs JavaScript). Opus, {len(ogg) / 1e6:.1f} MB.</p></div>"
            )
        except Exception as exc:  # noqa: BLE001 - a recording that will not encode leaves the rest of the report
            logger.warning("could not encode %s: %s", rec, exc)
            out.append(f'<p class="muted">The recording could not be encoded: {esc(exc)}</p>')
    elif rec is None:
        out.append('<p class="muted">No recording.wav in this session.</p>')
    if s.frames:
        out.append('<h4>Slides shown</h4><div class="slides">')
        for fr in s.frames:
            thumb = None
            if fr.image is not None:
                p = attachment_path(s.folder, fr.image)
                if p.is_file():
                    thumb = thumbnail(p.read_bytes())
            img = (
                f'<img src="{thumb}" alt="{esc(fr.title or fr.slide_id)}" width="{THUMB_WIDTH}">'
                if thumb
                else ""
            )
            ti = fr.turn_index
            where = f'turn <a href="#{run.anchor}-turn-{ti}">{ti}</a>' if ti is not None else ""
            out.append(
                f"<figure>{img}<figcaption>{esc(fr.title or fr.slide_id)} — {where} at "
                f"{mmss(fr.meeting_time)} {_seek(run, fr.meeting_time, 'play')}</figcaption></figure>"
            )
        out.append("</div>")
    if s.files:
        out.append(
            '<h4>Files exchanged</h4><table class="sheet"><tr><th>turn</th><th>direction</th><th>file</th>'
            "<th>type</th><th>size</th><th>status</th></tr>"
        )
        for f in s.files:
            name = esc(f.name)
            if f.ok and f.attachment is not None and f.size <= MAX_FILE_EMBED:
                p = attachment_path(s.folder, f.attachment)
                if p.is_file():
                    uri = data_uri(esc(f.media_type), p.read_bytes())
                    name = f'<a download="{esc(f.name)}" href="{uri}">{esc(f.name)}</a>'
            status = "ok" if f.ok else f"refused: {esc(f.reason)}"
            out.append(
                f"<tr><td>{esc(f.turn_index)}</td><td>{esc(f.direction.replace('_', ' '))}</td><td>{name}</td>"
                f"<td>{esc(f.media_type)}</td><td>{f.size:,} B</td><td>{status}</td></tr>"
            )
        out.append("</table>")
    if s.errors:
        out.append(
            "<h4>Errors</h4><ul>"
            + "".join(
                f"<li>{mmss(er.meeting_time)} <b>{esc(er.source)}</b> {esc(er.kind)}: {esc(er.message)}</li>"
                for er in s.errors
            )
            + "</ul>"
        )
    return "".join(out)


def _run_section(run: RunView, audio: bool, collapsed: bool) -> str:
    e = run.entry
    traj = list(run.responses.mutation_trajectory or []) if run.responses else []
    tags = (
        classify_mutations(traj, run.scenario) if run.scenario is not None and traj else [set() for _ in traj]
    )
    classified = list(zip(traj, tags, strict=True))
    by_turn: dict[int, list[tuple[Mutation, set[str]]]] = defaultdict(list)
    for m, tg in classified:
        by_turn[m.turn_index].append((m, tg))
    title = run.scenario.title if run.scenario is not None else e.scenario_id
    link = (
        f' <a class="muted" href="{esc(run.session_report)}">open the session report with its recording →</a>'
        if run.session_report
        else ""
    )
    capped_products = sum(1 for p in e.products if p.capped)
    note = (
        f'<p class="muted">Bars are the judges\' consensus before caps; {capped_products} product'
        f"{'' if capped_products == 1 else 's'} then capped at 4.0 (see Work products).</p>"
        if capped_products
        else ""
    )
    body = [
        _headline(run),
        f'<div class="cols2"><div><h3>Where points were lost</h3>{_lost_points(run)}</div>'
        f"<div><h3>The 11 dimensions</h3>{dimension_chart([(run.label, dimension_means(e))])}{note}</div></div>",
        f'<h3>Score per turn</h3><p class="muted">Click a bar to open the turn.</p>{timeline_chart(run)}',
        _meeting_charts(run),
        _media_section(run, audio),
        '<h3>Turns <small class="muted">(click a row for what was said and the judges\' reasons)</small></h3>'
        + _turns_section(run, by_turn),
        f"<h3>Work products</h3>{_products_section(run, classified)}",
    ]
    mm = e.mutation_metrics
    body.append(
        f'<p class="muted">Mutation metrics ({esc(mm.source)}): {mm.total} edits, {mm.correct} correct of {mm.expected} '
        f"expected, {mm.incorrect} incorrect, {mm.unnecessary} unnecessary, {mm.missing} missing, "
        f"{mm.destructive} destructive, {mm.backtracks} backtracks; efficiency {fmt(mm.efficiency)}, "
        f"convergence {fmt(mm.convergence_rate)}.</p>"
    )
    head = (
        f"<h2>{esc(title)} <small>— {esc(run.label)}, trial {e.trial}</small></h2>"
        f'<p class="muted">scenario <code>{esc(e.scenario_id)}</code>{link}</p>'
    )
    if collapsed:
        return (
            f'<details class="run" id="{run.anchor}"><summary><b>{esc(title)}</b> — {esc(run.label)} '
            f'trial {e.trial}: <span class="pill {score_class(e.modylbench_score)}">{fmt(e.modylbench_score)}</span> '
            f"{esc(e.tier or '')}</summary>{head}{''.join(body)}</details>"
        )
    return f'<section class="run" id="{run.anchor}">{head}{"".join(body)}</section>'


def _comparison(runs: Sequence[RunView], cards: Sequence[Scorecard]) -> str:
    labels = list(dict.fromkeys(r.label for r in runs))
    by_label: dict[str, list[RunView]] = defaultdict(list)
    for r in runs:
        by_label[r.label].append(r)
    base = labels[0]
    judges_of = {id(e): c.judges for c in cards for e in c.scenarios}
    bases = {lb: [basis_of(r, judges_of.get(id(r.entry), ())) for r in by_label[lb]] for lb in labels}
    # Runs that are not like for like (a 2-turn slice vs a whole meeting, another seed or panel) are shown
    # side by side, labelled, and never with a difference.
    notes = unequal(bases)

    def mean(xs: Iterable[float | None]) -> float | None:
        v = [x for x in xs if x is not None]
        return sum(v) / len(v) if v else None

    def delta(v: float | None, ref: float | None, label: str, equal: bool | None = None) -> str:
        if not (not notes if equal is None else equal):
            return ""
        if label == base or v is None or ref is None:
            return ""
        d = v - ref
        cls = "up" if d > 0.05 else "down" if d < -0.05 else "same"
        return f' <span class="delta {cls}">{d:+.2f}</span>'

    overall = {lb: mean(r.entry.modylbench_score for r in by_label[lb]) for lb in labels}
    # Error bars: each label's runs under its label as the model id, bootstrapped and paired as the scorecard does.
    as_label = [r.entry.model_copy(update={"model_id": lb}) for lb in labels for r in by_label[lb]]
    intervals = {lb: mean_interval([e for e in as_label if e.model_id == lb], lb) for lb in labels}
    against = {lb: compare_models(lb, base, as_label) for lb in labels[1:]} if not notes else {}

    def noise(lb: str) -> str:
        c = against.get(lb)
        if c is None or c.distinguishable is None:
            return ""
        if c.distinguishable:
            return ' <small class="sig">beyond noise</small>'
        need = f"; ~{c.trials_needed} trials would tell" if c.trials_needed else ""
        return f' <small class="tie">tied: within noise{esc(need)}</small>'

    out = ['<section class="compare" id="compare"><h2>Comparison</h2>']
    if notes:
        out.append(
            '<div class="unequal"><p><b>Not like for like.</b> These runs did not play the same thing, so their '
            "scores are shown side by side but not compared: no differences (Δ) are given where they differ.</p><ul>"
            + "".join(f"<li>{esc(n)}</li>" for n in notes)
            + "</ul></div>"
        )
    else:
        out.append(
            f'<p class="muted">Differences (Δ) are against <b>{esc(base)}</b>, the first run given.</p>'
        )
    out.append(
        '<table class="sheet cmp"><tr><th>agent / model</th><th>runs</th><th>turns played</th><th>score</th><th>95% interval</th>'
        "<th>tier</th><th>journey</th><th>destination</th><th>pass^k</th><th>capped turns</th></tr>"
    )
    pk_of: dict[str, str] = {}
    for card in cards:
        for agg in card.aggregate.values():
            pk_of.setdefault(agg.model_id, " ".join(f"k={k}: {v:.2f}" for k, v in agg.pass_k.items()))
    for lb in labels:
        rs = by_label[lb]
        score = overall[lb]
        out.append(
            f"<tr><th>{esc(lb)}</th><td>{len(rs)}</td>"
            f"<td>{esc(', '.join(str(t) for t in sorted({len(r.entry.turns) for r in by_label[lb]})))}</td>"
            f'<td class="{score_class(score)}"><b>{fmt(score)}</b>'
            f"{delta(score, overall[base], lb)}{noise(lb)}</td><td>{esc(format_interval(intervals[lb]))}</td>"
            f"<td>{esc(tier_of(score) if score is not None else '—')}</td>"
            f"<td>{fmt(mean(r.entry.journey for r in rs))}</td><td>{fmt(mean(r.entry.destination for r in rs))}</td>"
            f"<td>{esc(pk_of.get(rs[0].entry.model_id, '—'))}</td>"
            f"<td>{sum(1 for r in rs for t in r.entry.turns if t.capped)}</td></tr>"
        )
    out.append("</table>")
    dims_of = {lb: mean_dims([dimension_means(r.entry) for r in by_label[lb]]) for lb in labels}
    out.append("<h3>The 11 dimensions, side by side</h3>")
    out.append(dimension_chart([(lb, dims_of[lb]) for lb in labels]))
    out.append(
        '<table class="sheet cmp"><tr><th>dimension</th>'
        + "".join(f"<th>{esc(lb)}</th>" for lb in labels)
        + "</tr>"
    )
    for d in (*TURN_DIMENSIONS, *PRODUCT_DIMENSIONS):
        cells = "".join(
            f'<td class="{score_class(dims_of[lb].get(d))}">{fmt(dims_of[lb].get(d))}'
            f"{delta(dims_of[lb].get(d), dims_of[base].get(d), lb)}</td>"
            for lb in labels
        )
        out.append(f"<tr><th>{esc(nice(d))}</th>{cells}</tr>")
    out.append("</table>")
    scenario_ids = list(dict.fromkeys(r.entry.scenario_id for r in runs))
    out.append(
        '<h3>Per scenario</h3><table class="sheet cmp"><tr><th>scenario</th>'
        + "".join(f"<th>{esc(lb)}</th>" for lb in labels)
        + "</tr>"
    )
    for sid in scenario_ids:
        vals = {
            lb: mean(r.entry.modylbench_score for r in by_label[lb] if r.entry.scenario_id == sid)
            for lb in labels
        }
        row_cells: list[str] = []
        slices = {lb: sorted({len(r.entry.turns) for r in by_label[lb] if r.entry.scenario_id == sid}) for lb in labels}
        row_bases = {lb: [b for b in bases[lb] if b.scenario_id == sid] for lb in labels}
        for lb in labels:
            anchor = next((r.anchor for r in by_label[lb] if r.entry.scenario_id == sid), None)
            v = fmt(vals[lb])
            cell = f'<a href="#{anchor}">{v}</a>' if anchor else v
            equal = not unequal({base: row_bases[base], lb: row_bases[lb]}) if row_bases[lb] else False
            label = ""
            if len({tuple(t) for t in slices.values() if t}) > 1 and slices[lb]:
                label = f' <small class="slice">{esc(", ".join(map(str, slices[lb])))} turns</small>'
            row_cells.append(
                f'<td class="{score_class(vals[lb])}">{cell}{label}{delta(vals[lb], vals[base], lb, equal)}</td>'
            )
        out.append(f"<tr><th>{esc(sid)}</th>{''.join(row_cells)}</tr>")
    out.append("</table></section>")
    return "".join(out)


def build_report(
    cards: Sequence[Scorecard],
    sessions: Sequence[Path | SessionView] = (),
    *,
    responses: Sequence[ScenarioResponses] = (),
    scenarios: dict[str, Scenario] | None = None,
    names: Sequence[str] | None = None,
    audio: bool = True,
    base: Path | None = None,
    on_progress: Callable[[int, int, str], None] | None = None,
) -> str:
    """The report's HTML text (see ``write_report``)."""
    if not cards:
        raise ValueError("no scorecard to report")
    if scenarios is None:
        try:
            scenarios = resolve_scenarios(())
        except Exception as exc:  # noqa: BLE001 - the report still shows the scorecard without scenario text
            logger.warning("built-in scenarios unavailable: %s", exc)
            scenarios = {}
    tell = on_progress or (lambda done, total, what: None)
    views = []
    for i, s in enumerate(sessions):
        views.append(s if isinstance(s, SessionView) else load_session(Path(s)))
        tell(i + 1, len(sessions), "sessions read")
    runs = build_runs(cards, views, responses, scenarios, names)
    if base is not None:
        link_session_reports(runs, base)
    labels = list(dict.fromkeys(r.label for r in runs))
    compare = len(labels) > 1 or len(cards) > 1
    collapsed = compare or len(runs) > 1
    judges = list(dict.fromkeys(j for c in cards for j in c.judges))
    title = (
        "ModylBench comparison"
        if compare
        else (f"ModylBench — {runs[0].entry.scenario_id} × {runs[0].label}" if runs else "ModylBench report")
    )
    parts = [
        '<!doctype html><html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # Everything is inline: no request may leave the file.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; media-src data: blob:; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">",
        f"<title>{esc(title)}</title><style>\n{_asset('report.css')}</style></head><body><main>",
        f"<h1>{esc(title)}</h1>",
        f'<p class="muted">Scored by {esc(", ".join(judges))} · modylbench {esc(cards[0].modylbench_version)} · '
        f"report written {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}. Scores are 1–10; tiers: Consultant ≥ 9, "
        "Mentor ≥ 7.5, Peer ≥ 6, else Below Peer. The score is 40% journey (each turn of the meeting) + 60% "
        "destination (the work products).</p>",
    ]
    if compare:
        parts.append(_comparison(runs, cards))
    if collapsed and runs:
        parts.append('<h2>Runs</h2><p class="muted">Open a run for its turns, products and recording.</p>')
    for i, run in enumerate(runs):
        parts.append(_run_section(run, audio, collapsed))
        tell(i + 1, len(runs), "runs drawn")
    skipped = [s for c in cards for s in c.skipped]
    if skipped:
        parts.append(
            "<h2>Lines not scored</h2><ul>"
            + "".join(
                f"<li>{esc(s.get('scenario_id'))} / {esc(s.get('model_id'))}: {esc(s.get('reason'))}</li>"
                for s in skipped
            )
            + "</ul>"
        )
    parts.append(f"<script>\n{_asset('report.js')}</script></main></body></html>")
    return "".join(parts)


def write_report(
    cards: list[Scorecard],
    path: Path,
    sessions: Sequence[Path | SessionView] = (),
    *,
    responses: Sequence[ScenarioResponses] = (),
    scenarios: dict[str, Scenario] | None = None,
    names: Sequence[str] | None = None,
    audio: bool = True,
    on_progress: Callable[[int, int, str], None] | None = None,
) -> Path:
    """Write one self-contained HTML report of the scorecards (several give a comparison view).

    ``sessions`` are recorded session folders: their recording, slides, files and what was said are
    shown with the entry of the same scenario and model. ``responses`` supply agent words and final
    products when there is no session (``evaluate``). ``on_progress(done, total, what)`` is told as
    sessions are read and runs drawn (a report of many recorded sessions takes a while).
    """
    path = Path(path)
    text = build_report(
        cards,
        sessions,
        responses=responses,
        scenarios=scenarios,
        names=names,
        audio=audio,
        base=path.parent,
        on_progress=on_progress,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # text from outside that skipped the checks at the door: never an empty report
        logger.warning("report %s: invalid Unicode (lone surrogates) replaced by U+FFFD", path)
        data = valid_text(text).encode("utf-8")
    tmp = path.with_name(path.name + ".part")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    logger.info("wrote report %s (%d bytes)", path, len(text))
    return path
