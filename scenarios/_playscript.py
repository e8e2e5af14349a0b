"""A scenario as a play script: the meeting turn by turn in Markdown (who speaks, on which channel, what is shown,
what is expected), so that a domain expert can review a scenario without reading Python.

``play_script(scenario)`` renders one; the built-ins' scripts are committed under ``docs/scenarios/`` and a test
keeps them current (``python -m modylbench.scenarios.builtin --play-scripts docs/scenarios`` rewrites them).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from modylbench.scenarios._schema import ExpectedFact, ExpectedMutation, Scenario, Slide, Turn

logger = logging.getLogger(__name__)

__all__ = ["play_script"]

_TABLE_ROWS = 12
"""A slide's or file's table is shown up to this many rows (the rest is counted, not printed)."""


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text.replace("|", "\\|").replace("\n", " ")


def _quote(text: str) -> list[str]:
    return [f"> {line}" if line else ">" for line in text.splitlines()]


def _table(columns: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(_cell(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows[:_TABLE_ROWS]]
    if len(rows) > _TABLE_ROWS:
        out.append(f"| … {len(rows) - _TABLE_ROWS} more rows |" + " |" * (len(columns) - 1))
    return out


def _slide(slide: Slide) -> list[str]:
    out = [f"**Screen** ({slide.kind}): **{slide.title}**" + (f" — {slide.subtitle}" if slide.subtitle else "")]
    if slide.bullets:
        out += ["", *(f"- {b}" for b in slide.bullets)]
    if slide.table is not None:
        out += ["", *_table(slide.table.columns, slide.table.rows)]
    if slide.chart is not None:
        c = slide.chart
        axes = ", ".join(x for x in (c.x_label and f"x: {c.x_label}", c.y_label and f"y: {c.y_label}") if x)
        out += ["", f"{c.chart_type} chart" + (f" ({axes})" if axes else "") + ":", ""]
        out += _table(["series", *c.categories], [[s.name, *s.values] for s in c.series])
    if slide.footnote:
        out += ["", f"*{slide.footnote}*"]
    return out


def _fact(fact: ExpectedFact) -> str:
    if isinstance(fact.value, str):
        said = " / ".join(f"“{k}”" for k in (fact.keywords or [fact.value]))
        line = f"- {fact.description}: {said}"
    else:
        tol = f" (±{fact.tolerance_pct:g} %)" if fact.tolerance_pct else " (exactly)"
        line = f"- {fact.description}: **{fact.value:g}{(' ' + fact.unit) if fact.unit else ''}**{tol}"
        if fact.keywords:
            line += " or " + " / ".join(f"“{k}”" for k in fact.keywords)
    if fact.withheld:
        line += f" — known only by asking (`{fact.withheld}`)"
    if fact.pushback:
        line += " — a wrong figure here is pushed back on"
    return line


def _edit(m: ExpectedMutation) -> str:
    where = f"`{m.path}`" if m.path else "(whole product)"
    if m.mutation_type == "create":
        return f"- `{m.product_id}`: create"
    if m.expected_value is not None:
        return f"- `{m.product_id}`: {m.mutation_type} {where} = {_cell(m.expected_value)}"
    return f"- `{m.product_id}`: {m.mutation_type} {where}"


def _who(scenario: Scenario) -> str:
    p = scenario.human_persona
    return "The persona" if isinstance(p, str) else p.name


def _turn(scenario: Scenario, turn: Turn, edits: list[ExpectedMutation]) -> list[str]:
    who = _who(scenario)
    head = (f"### Turn {turn.turn_index} · {turn.phase.replace('_', ' ')} · {turn.channel} · "
            f"{turn.expected_response_type.replace('_', ' ')} · waits {turn.wait_for_agent_sec:g} s")  # fmt: skip
    out = [head, ""]
    if turn.edge_case:
        out += [f"**Edge case:** `{turn.edge_case}`", ""]
    out += [f"**{who} says:**", "", *_quote(turn.human_utterance), ""]
    if turn.barge_in_after_sec is not None:
        out += [f"*{who} cuts in after {turn.barge_in_after_sec:g} s if the agent is still talking.*", ""]
    if turn.chat_message:
        out += [f"**{who} posts in chat:**", "", *_quote(turn.chat_message), ""]
    if turn.screen is not None:
        out += [*_slide(turn.screen), ""]
    if turn.files:
        out += ["**Files pushed:** " + ", ".join(f"`{f}`" for f in turn.files), ""]
    out += [f"**Expected of the agent:** {turn.expected_agent_action}", ""]
    if turn.expected_facts:
        out += ["**A good answer states:**", "", *(_fact(f) for f in turn.expected_facts), ""]
    if turn.reference_response:
        out += ["**Reference answer:**", "", *_quote(turn.reference_response), ""]
    if turn.reference_chat:
        out += ["**Reference chat:**", "", *_quote(turn.reference_chat), ""]
    if edits:
        out += [f"**Reference edits** ({len(edits)}):", "", *(_edit(m) for m in edits), ""]
    return out


def play_script(scenario: Scenario) -> str:
    """The meeting of ``scenario`` as a Markdown play script: the setting, then per turn who speaks, on which
    channel, what is shown or pushed, what is expected (the action, the facts a good answer states, the reference
    answer and edits), then the edge cases and the deliverables."""
    p = scenario.human_persona
    out = [
        f"# {scenario.title}",
        "",
        f"`{scenario.scenario_id}` · {scenario.vertical} · quality tier {scenario.quality_tier} · "
        f"{len(scenario.turns)} turns · {len(scenario.edge_cases)} edge cases · seed {scenario.seed}",
        "",
        "*Generated from the scenario by `modylbench play-script`; do not edit by hand.*",
        "",
        "## The setting",
        "",
    ]
    if isinstance(p, str):  # a scenario file may describe its persona in one text
        out += [p, ""]
    else:
        out += [f"**{p.name}**, {p.role}." + (f" {p.speaking_style}" if p.speaking_style else ""), ""]
        if p.goals:
            out += [f"{p.name} wants:", "", *(f"- {g}" for g in p.goals), ""]
    out += ["**Briefing (what the agent is told):**", "", *_quote(scenario.context), ""]
    out += ["**Meeting goal:**", "", *_quote(scenario.meeting_goal), ""]
    if scenario.data_files:
        out += ["**Files:**", ""]
        out += [f"- `{f.name}` ({f.media_type}, {len(f.content.splitlines())} lines)" + (f": {f.description}" if f.description else "")
                for f in scenario.data_files]  # fmt: skip
        out.append("")
    edits: dict[int, list[ExpectedMutation]] = {}
    for m in scenario.expected_mutations:
        edits.setdefault(m.turn_index, []).append(m)
    out += ["## The meeting", ""]
    for turn in scenario.turns:
        out += _turn(scenario, turn, edits.get(turn.turn_index, []))
    if scenario.edge_cases:
        out += ["## Edge cases", ""]
        for e in scenario.edge_cases:
            played = next((t.turn_index for t in scenario.turns if t.edge_case == e.name), None)
            out += [f"### `{e.name}` ({e.severity}" + (f", turn {played})" if played is not None else ")"), "",
                    e.description, "", f"**Expected:** {e.expected_behavior}", ""]  # fmt: skip
            if e.good_signals:
                out.append("Good signals: " + ", ".join(f"“{s}”" for s in e.good_signals))
            if e.bad_signals:
                out.append("Bad signals: " + ", ".join(f"“{s}”" for s in e.bad_signals))
            out.append("")
    out += ["## Deliverables", ""]
    for o in scenario.expected_outputs:
        checks = [c for c in o.verification_criteria if not isinstance(c, str)]
        out += [f"### {o.description}" + (f" (`{o.product_id}`, {o.output_type})" if o.product_id else f" ({o.output_type})"), ""]
        for c in o.verification_criteria:
            if isinstance(c, str):
                out.append(f"- judged: {c}")
            else:
                expected = "" if c.expected_value is None else f" {_cell(c.expected_value)}"
                out.append(f"- {c.description}: {c.check_type.replace('_', ' ')} at `{c.target_field or '/'}`{expected}")
        if not checks and not o.verification_criteria:
            out.append("- (no checks)")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
