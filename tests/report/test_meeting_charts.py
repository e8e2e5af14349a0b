"""The report's meeting charts: who spoke when, latency per turn, the dimensions × turns heat map, and
products' rows in template order."""

from __future__ import annotations

import re
from pathlib import Path

from modylbench.record import (
    AgentSpeech,
    ChatMessage,
    DocUpdate,
    FileTransfer,
    PersonaUtterance,
    ScenarioResponses,
    SessionStart,
    TurnResponse,
    read_record,
)
from modylbench.scenarios import Part, ProductTemplate, SheetTemplate
from modylbench.scoring import ScenarioScore, Scorecard, read_scorecard
from modylbench.scoring.report import RunView, SessionView, build_report, build_runs, load_session
from modylbench.scoring.report._charts import (
    HEAT_BLOCK,
    ROW_WIDTH,
    _row_span,
    activity_chart,
    activity_table,
    dimension_heatmap,
    latency_chart,
)
from modylbench.scoring.report._content import render_content
from modylbench.scoring.report._view import _activity, turn_latencies

from .conftest import SCENARIO


def _svg_size(svg: str) -> tuple[float, float]:
    m = re.search(r'<svg[^>]* width="([\d.]+)" height="([\d.]+)"', svg)
    assert m, svg[:300]
    return float(m.group(1)), float(m.group(2))


# --------------------------------------------------------------------------- who spoke when


def test_activity_comes_from_the_record(session_folder: Path, scenarios) -> None:  # type: ignore[no-untyped-def]
    view = load_session(session_folder)
    events = read_record(session_folder).events
    said = [e for e in events if isinstance(e, PersonaUtterance)]
    spoke = [e for e in events if isinstance(e, AgentSpeech)]
    chats = [e for e in events if isinstance(e, ChatMessage) and e.sender in ("persona", "agent")]
    files = [e for e in events if isinstance(e, FileTransfer)]
    edits = [e for e in events if isinstance(e, DocUpdate) and e.origin in ("persona", "agent")]
    kinds = [(a.who, a.kind) for a in view.activity]
    assert kinds.count(("persona", "speech")) == len(said) > 0
    assert kinds.count(("agent", "speech")) == len(spoke) > 0
    assert sum(1 for _, k in kinds if k == "chat") == len(chats)
    assert sum(1 for _, k in kinds if k == "file") == len(files) > 0
    assert sum(1 for _, k in kinds if k == "edit") == len(edits) > 0
    first = next(a for a in view.activity if a.kind == "speech" and a.who == "persona")
    assert (first.start, first.end, first.text) == (said[0].start, said[0].end, said[0].text)
    assert view.meeting_end >= max(a.end for a in view.activity)

    card_runs = build_runs([_card(session_folder)], [view], [], scenarios)
    svg = activity_chart(card_runs[0])
    # Every utterance and speech segment is a bar with its words in a title, and seeks the recording.
    assert svg.count("<title>persona speaks") == len(said)
    assert svg.count("<title>agent speaks") == len(spoke)
    assert svg.count('data-seek="') == len(said) + len(spoke)
    assert svg.count("<title>persona file") + svg.count("<title>agent file") == len(files)
    for label in ("persona speaks", "agent speaks", "agent chat, files", "agent edits"):
        assert f">{label}</text>" in svg
    # Each turn's number links to its row in the turn list.
    anchor = card_runs[0].anchor
    for ti in view.turn_start:
        assert f'href="#{anchor}-turn-{ti}"' in svg
    # The same per turn as a table (the chart's text equivalent): one row a turn, the edits add up.
    table = activity_table(card_runs[0])
    rows = re.findall(r"<tr><th scope=\"row\">.*?</tr>", table)
    assert len(rows) == len(view.turn_start)
    agent_edits = sum(int(re.findall(r"<td>(\d+)</td></tr>", r)[0]) for r in rows)
    assert agent_edits == sum(1 for e in edits if e.origin == "agent" and e.turn_index is not None)


def _card(folder: Path) -> Scorecard:
    return read_scorecard(folder / "scorecard.json")


def test_rows_keep_a_long_meeting_a_page_wide() -> None:
    assert _row_span(150) == 180  # a short slice: one row
    assert _row_span(590) == 600
    assert _row_span(22 * 60) == 450  # the whole LBO meeting: three rows of 7.5 minutes
    assert _row_span(45 * 60) == 720  # four rows at most
    assert _row_span(3 * 3600) >= 3 * 3600 / 4


def _synthetic_session(entry: ScenarioScore, n_turns: int, seconds_per_turn: float) -> RunView:
    """A long meeting built from events: each turn the persona speaks, the agent answers and edits."""
    start = SessionStart(
        wall_time=0,
        meeting_time=0,
        scenario_id=SCENARIO,
        scenario_hash="0" * 64,
        agent="x",
        transport="inproc",
        turns_planned=n_turns,
    )
    view = SessionView(
        folder=Path("."),
        start=start,
        responses=ScenarioResponses(scenario_id=SCENARIO, model_id="x", turns=[]),
    )
    for ti in range(n_turns):
        t0 = ti * seconds_per_turn
        view.turn_start[ti] = t0
        evs = [
            PersonaUtterance(
                wall_time=0, meeting_time=t0, turn_index=ti, text=f"question {ti}", start=t0, end=t0 + 9
            ),
            AgentSpeech(
                wall_time=0,
                meeting_time=t0 + 10,
                turn_index=ti,
                onset=t0 + 10,
                offset=t0 + 20,
                transcript=f"answer {ti}",
            ),
            *(
                DocUpdate(
                    wall_time=0,
                    meeting_time=t0 + 21 + k * 0.01,
                    turn_index=ti,
                    origin="agent",
                    update="",
                    size=10,
                )
                for k in range(40)
            ),
        ]
        for e in evs:
            act = _activity(e)
            assert act is not None
            view.activity.append(act)
    view.meeting_end = n_turns * seconds_per_turn
    return RunView(entry=entry, label="x", session=view)


def test_a_50_turn_meeting_is_drawn_in_proportion(scored) -> None:  # type: ignore[no-untyped-def]
    run = _synthetic_session(scored["correct"][0].scenarios[0], 50, 54.0)  # 45 minutes
    svg = activity_chart(run)
    w, h = _svg_size(svg)
    assert w <= ROW_WIDTH + 160 and h < 600  # four rows, a page wide
    assert svg.count('transform="translate(0 ') == 4
    # Bursts of edits are one tick per 2 px with their count, not 2,000 marks.
    assert svg.count(" agent edits at ") < 200 and "40 agent edits at" in svg
    # A segment across a row's end is drawn in both rows.
    assert 50 <= svg.count("<title>agent speaks") <= 53


# --------------------------------------------------------------------------- latency


def _responses(rows: list[dict[str, object]], turns: int, model_id: str) -> ScenarioResponses:
    return ScenarioResponses(
        scenario_id=SCENARIO,
        model_id=model_id,
        turns=[
            TurnResponse(
                turn_index=i, latency_ms=next((r["latency_ms"] for r in rows if r["turn_index"] == i), None)
            )
            for i in range(turns)
        ],  # type: ignore[misc]
        measurements={"turns": rows},
    )


def test_latency_per_turn_speech_and_action_apart(scored, scenarios) -> None:  # type: ignore[no-untyped-def]
    card, _ = scored["correct"]
    rows: list[dict[str, object]] = [
        {
            "turn_index": 0,
            "latency_ms": 800.0,
            "latency_first": "speech",
            "latency_speech_ms": 800.0,
            "latency_action_ms": 2500.0,
            "latency_chat_ms": None,
            "latency_doc_ms": 2500.0,
            "latency_file_ms": None,
        },
        {
            "turn_index": 1,
            "latency_ms": 1200.0,
            "latency_first": "chat",
            "latency_speech_ms": None,
            "latency_action_ms": 1200.0,
            "latency_chat_ms": 1200.0,
            "latency_doc_ms": None,
            "latency_file_ms": None,
        },
        {
            "turn_index": 2,
            "latency_ms": None,
            "latency_first": None,
            "latency_speech_ms": None,
            "latency_action_ms": None,
        },
    ]
    resp = _responses(rows, 3, card.scenarios[0].model_id)
    lats = turn_latencies(resp)
    assert [(lt.speech_ms, lt.action_ms, lt.action_kind) for lt in lats] == [
        (800.0, 2500.0, "doc"),
        (None, 1200.0, "chat"),
        (None, None, None),
    ]
    run = build_runs([card], [], [resp], scenarios)[0]
    svg = latency_chart(run)
    assert "turn 0: first speech after 0.8 s" in svg
    assert "turn 0: first chat, edit or file (doc) after 2.5 s" in svg
    # Missing latencies are shown as missing, never as 0 s.
    assert "turn 1: no first speech" in svg and "turn 2: no first chat, edit or file" in svg
    assert svg.count('class="miss"') == 3 + 2 * (len(card.scenarios[0].turns) - 3)
    assert "turn 3: no response recorded" in svg
    assert "first speech: median 0.8 s" in svg and "none in 51 turns" in svg
    w, _ = _svg_size(svg)
    assert w <= 1000  # 52 turns a page wide


def test_latency_without_measurements_is_the_first_response(scored, scenarios) -> None:  # type: ignore[no-untyped-def]
    card, resp = scored["correct"]
    plain = resp.model_copy(
        update={
            "turns": [t.model_copy(update={"latency_ms": 1000.0 + 100 * t.turn_index}) for t in resp.turns],
            "measurements": None,
        }
    )
    svg = latency_chart(build_runs([card], [], [plain], scenarios)[0])
    assert "turn 5: first response after 1.5 s" in svg and "first speech" not in svg
    # No latencies at all: no chart, and the report says so.
    assert latency_chart(build_runs([card], [], [resp], scenarios)[0]) == ""
    assert "The responses give no latencies." in build_report([card], responses=[resp], scenarios=scenarios)


# --------------------------------------------------------------------------- heat map


def test_heat_map_cells_values_and_unscored(scored, scenarios) -> None:  # type: ignore[no-untyped-def]
    card, resp = scored["polite_only"]
    entry = card.scenarios[0]
    turns = [
        t.model_copy(
            update={
                "score": None,
                "capped": False,
                "dimensions": {},
                "unscored_reason": "openai/judge-x: refused",
            }
        )
        if t.turn_index == 4
        else t
        for t in entry.turns
    ]
    entry2 = entry.model_copy(update={"turns": turns})
    run = build_runs([card.model_copy(update={"scenarios": [entry2]})], [], [resp], scenarios)[0]
    html = dimension_heatmap(run)
    n = len(turns)
    assert html.count('<table class="heat">') == -(-n // HEAT_BLOCK) == 2
    cells = re.findall(r'<td class="([^"]+)" title="([^"]*)">([^<]*)</td>', html)
    assert len(cells) == 7 * n  # the turn score and six dimensions per turn
    unscored = [c for c in cells if c[0] == "h-none"]
    assert len(unscored) == 7 and all("refused" in c[1] and c[2] == "–" for c in unscored)
    t0 = entry.turns[0]
    ctx = t0.dimensions["context_accuracy"]
    assert (f"turn 0 · context accuracy: {ctx:.2f}") in html
    assert f">{ctx:.1f}</td>" in html
    capped = [t for t in turns if t.capped]
    assert html.count("▲</td>") == len(capped)
    # Colour is never the only cue: every scored cell writes its value.
    assert all(re.fullmatch(r"\d+\.\d▲?", c[2]) for c in cells if c[0] != "h-none")


# --------------------------------------------------------------------------- template order


def test_rows_follow_the_template_then_the_reference_then_natural_order() -> None:
    template = ProductTemplate(
        sheets=[
            SheetTemplate(
                key="pnl",
                rows=[Part(key="revenue"), Part(key="gross_profit"), Part(key="ebitda")],
                columns=[Part(key="y2025"), Part(key="y2024")],
            )
        ]
    )
    reference = {"pnl": {"ebitda": {"y2024": 1}, "revenue": {"y2024": 1}, "net_income": {"y2024": 1}}}
    content = {
        "pnl": {
            k: {"y2024": 1.0, "y2025": 2.0, "note_b": 3.0}
            for k in ("exit_10x", "net_income", "ebitda", "exit_9x", "gross_profit", "revenue")
        }
    }
    html = render_content("spreadsheet", content, reference, template)
    order = [
        html.index(f"<th>{k}</th>")
        for k in ("revenue", "gross_profit", "ebitda", "net_income", "exit_9x", "exit_10x")
    ]
    assert order == sorted(order)
    cols = [html.index(f"<th>{c}</th>") for c in ("y2025", "y2024", "note_b")]
    assert cols == sorted(cols)
    # Without a template the reference orders; with neither, natural order.
    html = render_content("spreadsheet", content, reference)
    assert html.index("<th>ebitda</th>") < html.index("<th>revenue</th>") < html.index("<th>net_income</th>")
    # kv keys and dashboard widgets too (the shared document's maps keep no order).
    kv = render_content(
        "kv",
        {"irr": 1, "moic": 2, "exit_10x": 3, "exit_9x": 4},
        template=ProductTemplate(keys=[Part(key="moic"), Part(key="irr")]),
    )
    assert [kv.index(k) for k in ("moic", "irr", "exit_9x", "exit_10x")] == sorted(
        kv.index(k) for k in ("moic", "irr", "exit_9x", "exit_10x")
    )
    dash = render_content(
        "dashboard",
        {
            "title": "d",
            "widgets": {
                "b": {"type": "kpi", "title": "B", "value": 1},
                "a": {"type": "kpi", "title": "A", "value": 2},
            },
        },
        template=ProductTemplate(widgets=[Part(key="b"), Part(key="a")]),
    )
    assert dash.index(">B<") < dash.index(">A<")


def test_the_report_orders_products_by_the_scenario_template(scored, scenarios) -> None:  # type: ignore[no-untyped-def]
    card, resp = scored["correct"]
    sc = scenarios[SCENARIO]
    spec = next(p for p in sc.products if p.output_type == "spreadsheet")
    assert spec.template is not None and spec.template.sheets
    sheet = spec.template.sheets[0]
    # A declared template in the reverse of the reference's order.
    declared = [r.key for r in sheet.rows][::-1]
    tpl = spec.template.model_copy(
        update={
            "sheets": [
                sheet.model_copy(update={"rows": [Part(key=k) for k in declared]}),
                *spec.template.sheets[1:],
            ]
        }
    )
    products = [p.model_copy(update={"template": tpl}) if p is spec else p for p in sc.products]
    text = build_report(
        [card],
        responses=[resp],
        scenarios={**scenarios, SCENARIO: sc.model_copy(update={"products": products})},
    )
    part = text.split(f"<h5>{sheet.key}</h5>", 1)[1].split("</table>", 1)[0]
    shown = [k for k in re.findall(r"<th>([^<]+)</th>", part) if k in declared]
    assert shown == [k for k in declared if k in shown] and len(shown) >= 2
