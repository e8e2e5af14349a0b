"""The comparison view compares like with like: a 2-turn slice next to a whole meeting is labelled, never given a Δ."""

from __future__ import annotations

import re
from typing import Any

from modylbench.record import ScenarioResponses
from modylbench.scoring import make_judges, score
from modylbench.scoring.report import build_report
from modylbench.scoring.report._compare import Basis, unequal

from .conftest import SCENARIO, lbo_line


def _card(resp: ScenarioResponses, scenarios: dict[str, Any], turns: int | None = None) -> Any:
    scenario = scenarios[SCENARIO]
    if turns is not None:
        # Scored as a session is: against the whole scenario, which the line's turns_scheduled slices.
        resp = resp.model_copy(update={"turns": resp.turns[:turns], "turns_played": turns, "turns_scheduled": turns})
    return score([resp], {SCENARIO: scenario}, make_judges([]))


def _scenario_row(html: str) -> str:
    per_scenario = html.split("<h3>Per scenario</h3>", 1)[1]
    return per_scenario.split(f"<tr><th>{SCENARIO}</th>", 1)[1].split("</tr>", 1)[0]


def test_a_slice_and_a_whole_meeting_are_labelled_not_compared(scenarios: dict[str, Any]) -> None:
    full = _card(lbo_line("correct.jsonl"), scenarios)
    sliced = _card(lbo_line("polite_only.jsonl"), scenarios, turns=2)
    html = build_report([full, sliced], scenarios=scenarios)  # labelled by model: reference, polite_only
    assert "Not like for like" in html
    assert (
        f"{SCENARIO}: polite_only vs reference differ in turns played (2 vs whole meeting)"
        in html
    )
    assert 'class="delta' not in html  # no Δ anywhere: not overall, not per dimension, not per scenario
    row = _scenario_row(html)
    assert f"{len(full.scenarios[0].turns)} turns</small>" in row and "2 turns</small>" in row


def test_like_for_like_runs_get_differences(scenarios: dict[str, Any]) -> None:
    good = _card(lbo_line("correct.jsonl"), scenarios)
    gaming = _card(lbo_line("polite_only.jsonl"), scenarios)
    html = build_report([good, gaming], scenarios=scenarios)
    assert "Not like for like" not in html and "Differences (Δ) are against <b>reference</b>" in html
    row = _scenario_row(html)
    assert re.search(r'class="delta down">-\d+\.\d\d<', row), row
    assert "turns</small>" not in row


def test_comparison_shows_intervals_and_says_whether_a_gap_is_noise(scenarios: dict[str, Any]) -> None:
    good = _card(lbo_line("correct.jsonl"), scenarios)
    gaming = _card(lbo_line("polite_only.jsonl"), scenarios)
    html = build_report([good, gaming], scenarios=scenarios)
    table = html.split('<table class="sheet cmp">', 1)[1].split("</table>", 1)[0]
    assert "<th>95% interval</th>" in table
    assert len(re.findall(r"<td>\[\d+\.\d\d, \d+\.\d\d\]</td>", table)) == 2, table
    assert "beyond noise" in table  # a polite non-answer against the worked answer: far apart
    # The same answer twice under two names: the gap is 0, tied.
    same = build_report([good, _card(lbo_line("correct.jsonl").model_copy(update={"model_id": "twin"}), scenarios)],
                        scenarios=scenarios)
    assert "tied: within noise" in same.split('<table class="sheet cmp">', 1)[1].split("</table>", 1)[0]


def test_basis_differences_in_words() -> None:
    a = Basis("s", turns=None, seed=0, judges=("offline",), scenario_hash="h1")
    assert (
        a.differs_from(Basis("s", turns=None, seed=None, judges=(), scenario_hash=None)) == []
    )  # unknowns never differ
    b = Basis("s", turns=2, seed=3, judges=("openai/m",), scenario_hash="h2")
    assert a.differs_from(b) == [
        "seed (3 vs 0)",
        "turns played (2 vs whole meeting)",
        "judges (openai/m vs offline)",
        "scenario version (hash)",
    ]
    assert unequal({"x": [a], "y": [a]}) == []
    assert (
        unequal({"x": [a, Basis("s", turns=2)], "y": [a]})[0]
        == "s: x's runs played different numbers of turns (2, whole meeting)"
    )
