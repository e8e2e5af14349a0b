"""One definition of comparable runs (``modylbench.record.RunBasis``): its words, the model ids it gives runs that
do not compare, and its use by ``run --out``, ``view`` and the scorecard's cells."""

from __future__ import annotations

import json
from pathlib import Path

from modylbench.record import Manifest, RunBasis, labels
from modylbench.simulator.cli import exit_code

SCENARIO = "financial_analyst_lbo_model"


def test_differences_in_words_and_unknowns_never_differ() -> None:
    a = RunBasis("s", seed=0, turns=None, transport="webrtc", network="clean", judges=("offline",), scenario_hash="h1")
    assert a.differs_from(RunBasis("s")) == []
    b = RunBasis("s", seed=3, turns=2, transport="inproc", network="mobile", judges=("openai/m",), scenario_hash="h2")
    assert a.differs_from(b) == [
        "seed (3 vs 0)",
        "turns played (2 vs whole meeting)",
        "transport (inproc vs webrtc)",
        "network (mobile vs clean)",
        "judges (openai/m vs offline)",
        "scenario version (hash)",
    ]
    assert RunBasis("s", judges=("b", "a")) == RunBasis("s", judges=("a", "b"))  # a panel is a set


def test_runs_that_do_not_compare_never_share_a_model_id() -> None:
    whole, sliced = RunBasis("s", turns=None), RunBasis("s", turns=2)
    assert labels([("a", whole), ("a", sliced)]) == ["a [all turns]", "a [2 turns]"]
    # Seeds and scenarios are what an aggregate spans: no label for them.
    assert labels([("a", RunBasis("s", seed=0)), ("a", RunBasis("t", seed=1))]) == ["a", "a"]
    # Two scenarios always hash apart; two versions of one scenario do not compare.
    assert labels([("a", RunBasis("s", scenario_hash="h1")), ("a", RunBasis("t", scenario_hash="h2"))]) == ["a", "a"]
    assert labels([("a", RunBasis("s", scenario_hash="h1abcdefgh")), ("a", RunBasis("s", scenario_hash="h2"))]) == [
        "a [scenario h1abcdef]", "a [scenario h2]"]
    assert labels([("a", RunBasis("s", judges=("x",))), ("a", RunBasis("s", judges=("y",)))]) == [
        "a [judges x]", "a [judges y]"]


def test_a_session_basis_from_its_manifest() -> None:
    m = Manifest(scenario_id="s", transport="webrtc", seed=4, judges=["offline"], scenario_hash="h",
                 session={"scenario_id": "s", "turns": 2, "network": "mobile"})
    assert RunBasis.of_session(m, turns=2) == RunBasis("s", seed=4, turns=2, transport="webrtc", network="mobile",
                                                        judges=("offline",), scenario_hash="h")
    # Recorded before networks were in the key, or in process: nothing impaired it.
    assert RunBasis.of_session(Manifest(scenario_id="s", transport="inproc"), turns=None).network == "clean"


def test_run_out_never_averages_a_slice_with_another(tmp_path: Path) -> None:
    out = tmp_path / "out"
    common = ["--agent", "oracle", "--transport", "inproc", "--progress", "off", "--out", str(out)]
    assert exit_code(["run", SCENARIO, "--turns", "2", *common]) == 0
    assert exit_code(["run", SCENARIO, "--turns", "3", *common]) == 0
    card = json.loads((out / "scorecard.json").read_text(encoding="utf-8"))
    assert sorted(card["aggregate"]) == ["oracle [2 turns]", "oracle [3 turns]"]
    assert sorted(row["model"] for row in json.loads((out / "leaderboard.json").read_text())["rows"]) == [
        "oracle [2 turns]", "oracle [3 turns]"]


def test_view_ranks_two_networks_apart() -> None:
    from modylbench.simulator._view import Session, _group_text, leaderboards
    from tests.scoring.test_uncertainty import run

    def session(agent: str, network: str) -> Session:
        e = run(agent, SCENARIO, 0, 0, [8.0, 9.0])
        return Session(path=f"{agent}{network}", scenario_id=SCENARIO, agent=agent, seed=0, transport="webrtc",
                       judges=("offline",), turns=2, full_turns=52, scenario_hash="h", score=e.modylbench_score,
                       tier=e.tier, passed=e.passed, termination="completed", report=None, entry=e, network=network)

    _, overall = leaderboards([session("a", "clean"), session("a", "mobile"), session("b", "mobile")])
    assert sorted(len(rows) for rows in overall.values()) == [1, 2]
    texts = sorted(_group_text(g, rows) for g, rows in overall.items())
    assert texts[1].startswith("first 2 of 52 turns · seed 0 · webrtc · network mobile · judges offline")
