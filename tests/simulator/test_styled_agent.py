"""A correct agent in its own style, played live: own labels, full digits, cell-by-cell edits through the
shared document, the record and the trajectory it yields. The responses-level suite (tests/scoring/
test_adversarial.py) shows the scorer is fair; this shows the meeting path keeps it so."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from modylbench.agents import AGENTS
from modylbench.scenarios import Scenario, load_builtin
from modylbench.simulator import RunSpec, run_one, score_session
from modylbench_testsupport import adversarial as SUITE

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = {s.scenario_id: s for s in load_builtin()}






def _play(sc: Scenario, style: str, folder: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setitem(AGENTS, "styled", SUITE.live_agent(SUITE.STRATEGIES[style](sc)))
    asyncio.run(run_one(RunSpec(sc, "styled", folder, transport="inproc")))
    return score_session(folder, SCENARIOS, ["offline"]).scenarios[0]


@pytest.mark.parametrize("style", ["own_labels", "cell_edits", "all_styles"])
def test_a_correct_agent_in_its_own_style_passes_live(
    style: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sc = SCENARIOS["financial_analyst_lbo_model"]
    entry = _play(sc, style, tmp_path / style, monkeypatch)
    assert entry.modylbench_score is not None and entry.modylbench_score >= 9.0, (entry.flags, entry.mutation_metrics)
    assert entry.mutation_metrics.on_time >= 0.9 * sum(
        1 for m in sc.expected_mutations if m.mutation_type != "create"
    ) - 5


def test_a_late_dump_played_live_stays_below_peer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sc = SCENARIOS["financial_analyst_lbo_model"]
    entry = _play(sc, "late_split_dump", tmp_path / "late", monkeypatch)
    assert entry.modylbench_score is not None and entry.modylbench_score < 6.0, entry.flags
