"""The HTML report's content: headline, losses, products, trajectory marks, comparison, self-containment."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from modylbench.scoring import Scorecard, classify_mutations, compute_metrics, read_scorecard, write_scorecard
from modylbench.scoring._cmd_report import report
from modylbench.scoring.report import build_report, dimension_means, write_report

from .conftest import SCENARIO, lbo_line


def _external_refs(text: str) -> list[str]:
    """Every src/href that would make the browser fetch something outside the file."""
    refs = re.findall(r'(?:src|href)="([^"]*)"', text)
    return [r for r in refs if not (r.startswith("#") or r.startswith("data:"))]


def test_good_run_headline_and_products(scored, scenarios, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    card, resp = scored["correct"]
    path = write_report([card], tmp_path / "r.html", responses=[resp], scenarios=scenarios)
    text = path.read_text(encoding="utf-8")
    entry = card.scenarios[0]
    assert f">{entry.modylbench_score:.2f}<small>/10" in text
    assert entry.tier and entry.tier in text
    assert "PASSED" in text if entry.passed else "FAILED" in text
    assert _external_refs(text) == []
    # Final products rendered from the responses: the LBO sheet's figures appear as table cells.
    assert "<h5>income_statement</h5>" in text
    assert "Programmatic checks:" in text
    # Every turn has an expandable row with the persona's words.
    sc = scenarios[SCENARIO]
    assert text.count('<details class="turn') == len(sc.turns)
    assert sc.turns[3].human_utterance.split(".")[0].replace("'", "&#x27;") in text


def test_gaming_run_says_where_points_went(scored, scenarios, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    card, resp = scored["final_state_dump"]
    text = build_report([card], responses=[resp], scenarios=scenarios)
    assert "FAILED" in text
    lost = text.split("Where points were lost", 1)[1].split("The 11 dimensions", 1)[0]
    assert "no_trajectory_evidence" in text
    assert "fewer than half the expected edits made within two turns" in lost
    assert "turns scored below 6" in lost


def test_unscored_items_are_shown_not_zero(scored, scenarios) -> None:  # type: ignore[no-untyped-def]
    card, resp = scored["correct"]
    entry = card.scenarios[0]
    t = entry.turns[2].model_copy(update={"score": None, "capped": False, "dimensions": {},
                                          "unscored_reason": "openai/judge-x: timed out after 4 attempts"})
    turns = list(entry.turns)
    turns[2] = t
    entry2 = entry.model_copy(update={"turns": turns, "unscored": ["turn 2: openai/judge-x: timed out after 4 attempts"]})
    card2 = card.model_copy(update={"scenarios": [entry2]})
    text = build_report([card2], responses=[resp], scenarios=scenarios)
    assert "unscored ×1" in text
    assert "Not scored</b> (left out of the means, never counted as 0)" in text
    assert "timed out after 4 attempts" in text
    row = text.split(f'id="{_anchor(text)}-turn-2"', 1)[1].split("</summary>", 1)[0]
    assert "—" in row and "s-none" in row


def _anchor(text: str) -> str:
    m = re.search(r'id="(run-[^"]+)-turn-0"', text)
    assert m
    return m.group(1)


def test_mutation_marks_match_the_metrics(scored, scenarios) -> None:  # type: ignore[no-untyped-def]
    sc = scenarios[SCENARIO]
    for name in ("correct", "final_state_dump"):
        _, resp = scored[name]
        traj = resp.mutation_trajectory or []
        tags = classify_mutations(traj, sc)
        mm = compute_metrics(traj, sc, "trajectory")
        assert sum("destructive" in t for t in tags) == mm.destructive
        assert sum("backtrack" in t for t in tags) == mm.backtracks
        assert sum("expected" in t for t in tags) == mm.correct
        assert sum("reverted" in t for t in tags) == mm.unnecessary


def test_a_destructive_edit_is_marked(scored, scenarios) -> None:  # type: ignore[no-untyped-def]
    card, resp = scored["correct"]
    traj = list(resp.mutation_trajectory or [])
    good = next(i for i, m in enumerate(traj) if m.mutation_type == "update_cell" and isinstance(m.new_value, int | float))
    m = traj[good]
    bad = m.model_copy(update={"turn_index": m.turn_index + 1, "old_value": m.new_value,
                               "new_value": float(m.new_value) * 3 + 1})
    traj.insert(good + 1, bad)
    tags = classify_mutations(traj, scenarios[SCENARIO])
    assert "destructive" in tags[good + 1]
    resp2 = resp.model_copy(update={"mutation_trajectory": traj})
    text = build_report([card], responses=[resp2], scenarios=scenarios)
    assert 'class="e-destructive' in text


def test_dimension_means_cover_the_eleven(scored) -> None:  # type: ignore[no-untyped-def]
    card, _ = scored["correct"]
    means = dimension_means(card.scenarios[0])
    assert len(means) == 11 and all(v is not None and 1 <= v <= 10 for v in means.values())


def test_comparison_lists_differences(scored, scenarios) -> None:  # type: ignore[no-untyped-def]
    good, _ = scored["correct"]
    bad, _ = scored["final_state_dump"]
    text = build_report([good, bad], scenarios=scenarios)
    cmp = text.split('id="compare"', 1)[1].split("</section>", 1)[0]
    delta = bad.scenarios[0].modylbench_score - good.scenarios[0].modylbench_score  # type: ignore[operator]
    assert f"{delta:+.2f}" in cmp
    assert "The 11 dimensions, side by side" in cmp and "Per scenario" in cmp
    assert cmp.count("<tr><th>") >= 2 + 11 + 1


def test_report_command_reads_scorecards(scored, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    for name in ("correct", "final_state_dump"):
        card, resp = scored[name]
        folder = tmp_path / name
        folder.mkdir()
        write_scorecard(card, folder / "scorecard.json")
        (folder / "responses.jsonl").write_text(resp.model_dump_json() + "\n", encoding="utf-8")
    out = tmp_path / "cmp.html"
    res = CliRunner().invoke(report, [str(tmp_path / "correct" / "scorecard.json"), str(tmp_path / "final_state_dump"),
                                      "--output", str(out)])
    assert res.exit_code == 0, res.output
    text = out.read_text(encoding="utf-8")
    assert 'id="compare"' in text and "<h5>income_statement</h5>" in text  # responses beside were picked up
    res = CliRunner().invoke(report, [str(tmp_path / "missing.json"), "--output", str(out)])
    assert res.exit_code == 2 and "no scorecard here" in res.output


def test_session_report_has_recording_slides_and_files(session_folder: Path) -> None:
    path = session_folder / "report.html"
    assert path.is_file(), "run writes report.html beside the scorecard"
    text = path.read_text(encoding="utf-8")
    assert _external_refs(text) == [] or all(r.endswith("report.html") for r in _external_refs(text))
    assert '<audio id="' in text and 'src="data:audio/ogg;base64,' in text
    assert text.count("data-seek=") >= 6
    assert "Slides shown" in text and "data:image/jpeg;base64," in text
    assert "Files exchanged" in text and "cloudsync_financials.csv" in text
    card = read_scorecard(session_folder / "scorecard.json")
    assert isinstance(card, Scorecard)
    assert "No deliverables were due" in text  # a 6-turn slice is scored on its journey alone


def test_evaluate_writes_a_report(tmp_path: Path) -> None:
    from modylbench.scoring._cli import evaluate

    src = tmp_path / "responses.jsonl"
    src.write_text(lbo_line("correct.jsonl").model_dump_json() + "\n", encoding="utf-8")
    res = CliRunner().invoke(evaluate, ["--responses", str(src), "--output", str(tmp_path / "scorecard.json"),
                                        "--quiet"])
    assert res.exit_code == 0, res.output
    text = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "Where points were lost" in text and "<h5>income_statement</h5>" in text


def test_a_near_perfect_run_says_why_it_is_not_ten_and_names_no_free_flag(scored, scenarios) -> None:  # type: ignore[no-untyped-def]
    card, resp = scored["correct"]
    entry = card.scenarios[0]
    # A flag that lowers the ceiling, on a run whose ceiling was not reached: it cost nothing.
    flagged = entry.model_copy(update={"flags": [*entry.flags, "edge_cases_conceded"]})
    text = build_report([card.model_copy(update={"scenarios": [flagged]})], responses=[resp], scenarios=scenarios)
    lost = text.split("Where points were lost", 1)[1].split("The 11 dimensions", 1)[0]
    assert "Run flag <b>edge_cases_conceded</b>" not in lost  # not presented as a loss
    assert "Flagged, with no points taken for it on its own: <b>edge_cases_conceded</b>" in lost
    assert entry.modylbench_score is not None and entry.modylbench_score < 10
    assert f"Why {entry.modylbench_score:.2f} and not 10: the journey (mean turn score {entry.journey:.2f}) costs" in lost
    j, d = entry.journey, entry.destination
    assert j is not None and d is not None
    assert abs(0.4 * (10 - j) + 0.6 * (10 - d) - (10 - entry.modylbench_score)) < 1e-9  # the sentence adds up
    assert f"costs {0.4 * (10 - j):.2f} (0.4 × {10 - j:.2f})" in lost and f"costs {0.6 * (10 - d):.2f}" in lost


def test_comparison_legend_cuts_long_agent_names_to_their_column() -> None:
    from modylbench.scoring.report._charts import LEGEND_CHARS, dimension_chart

    names = ["an-agent-with-a-really-long-model-name-v1", "another-agent-with-a-long-name-v2", "short"]
    svg = dimension_chart([(n, {}) for n in names])
    shown = re.findall(r'class="lg"><title>([^<]*)</title>([^<]*)</text>', svg)
    assert [t for t, _ in shown] == names  # the whole name on hover
    assert all(len(s) <= LEGEND_CHARS for _, s in shown) and shown[2][1] == "short"
    assert shown[0][1].endswith("…")
