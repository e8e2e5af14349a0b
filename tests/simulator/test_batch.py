"""The batch layer under run and sweep: each session's record is read once and scored once; a failed session is
recorded with its kind and the batch goes on (exit 1); sessions spread over worker processes."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from modylbench.record import ProgressReporter, SessionFolder
from modylbench.scenarios import load_path
from modylbench.simulator._batch import BatchRun, default_workers
from modylbench.simulator._runner import RunSpec
from modylbench.simulator._session import MeetingOptions
from modylbench.simulator._sessionkey import MANIFEST_KEY, SessionKey
from modylbench.simulator.cli import exit_code

ROOT = Path(__file__).resolve().parent.parent.parent
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"


def _counting(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    import modylbench.record._store as store
    import modylbench.scoring as scoring
    import modylbench.scoring._scorecard as scorecard

    seen: Counter[str] = Counter()
    lines, score_async, make_judges = store.bounded_lines, scorecard.score_async, scoring.make_judges

    def counting_lines(fh: Any, limit: int) -> Any:
        seen["reads"] += str(getattr(fh, "name", "")).endswith("record.jsonl")
        return lines(fh, limit)

    def counting_score(responses: Any, *args: Any, **kwargs: Any) -> Any:
        seen["scored"] += len(responses)
        return score_async(responses, *args, **kwargs)

    def counting_judges(*args: Any, **kwargs: Any) -> Any:
        seen["panels"] += 1
        return make_judges(*args, **kwargs)

    monkeypatch.setattr(store, "bounded_lines", counting_lines)
    monkeypatch.setattr(scorecard, "score_async", counting_score)
    monkeypatch.setattr(scoring, "make_judges", counting_judges)
    return seen


def test_each_session_is_read_once_and_scored_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    # Before the batch layer: three reads, two scorings and two panels per session (benchmarks/batch_counts.py).
    seen = _counting(monkeypatch)
    out = tmp_path / "runs"
    argv = ["run", "mini_fixture", "--scenarios", str(MINI), "--agent", "oracle", "--agent", "polite",
            "--transport", "inproc", "--out", str(out), "--workers", "1", "--concurrency", "2", "--progress", "off"]
    assert exit_code(argv) == 0
    assert seen == Counter(reads=2, scored=2, panels=3)  # one panel per session, one to check the specs first
    printed = capsys.readouterr().out
    # The console shows the combined scorecard of the batch (both agents), not one session's.
    assert "oracle" in printed and "polite" in printed and "scorecard:   " in printed
    combined = json.loads((out / "scorecard.json").read_text())
    assert sorted(e["model_id"] for e in combined["scenarios"]) == ["oracle", "polite"]
    for agent in ("oracle", "polite"):
        folder = SessionFolder(out / f"mini_fixture__{agent}__inproc__all__seed0__t0")
        assert folder.is_scored() and folder.report.exists()


def _spec(scenario: Any, agent: str, folder: Path) -> RunSpec:
    key = SessionKey(scenario.scenario_id, agent, agent, "inproc", None, 0, 0)
    return RunSpec(scenario, agent, folder, "inproc",
                   meeting=MeetingOptions(judges=["offline"], extra_manifest={MANIFEST_KEY: key.manifest_entry()}))


def test_a_failed_session_is_recorded_with_its_kind_and_the_batch_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (scenario,) = load_path(MINI)
    out = tmp_path / "runs"
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    # The first session cannot be played (its folder cannot be made: an infrastructure failure, not the agent's).
    specs = [_spec(scenario, "polite", blocker / "mini_fixture__polite__inproc__all__seed0__t0"),
             _spec(scenario, "oracle", SessionKey("mini_fixture", "oracle", "oracle", "inproc", None, 0, 0).folder(out))]
    reporter = ProgressReporter("lines", command="run")
    with pytest.raises(SystemExit) as ended:
        BatchRun(specs, ["offline"], out, "run", reporter, workers=1)()
    assert ended.value.code == 1
    err = capsys.readouterr().err
    assert "mini_fixture__polite__inproc__all__seed0__t0: FAILED (infrastructure_error: " in err
    assert "error: 1 of 2 sessions failed" in err
    assert "1 done, 1 failed" in err
    # The other session was played, scored and combined all the same.
    combined = json.loads((out / "scorecard.json").read_text())
    assert [e["model_id"] for e in combined["scenarios"]] == ["oracle"]
    board = json.loads((out / "leaderboard.json").read_text())
    assert board["cells"] == {"planned": 2, "complete": 1, "failed": 1}


@pytest.mark.slow
def test_sessions_spread_over_worker_processes_are_scored_and_combined(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    argv = ["run", "mini_fixture", "--scenarios", str(MINI), "--agent", "oracle", "--agent", "polite", "--agent",
            "null", "--transport", "inproc", "--out", str(out), "--workers", "2", "--concurrency", "3",
            "--progress", "off"]
    assert exit_code(argv) == 0
    pids = set()
    for agent in ("oracle", "polite", "null"):
        manifest = json.loads((out / f"mini_fixture__{agent}__inproc__all__seed0__t0" / "manifest.json").read_text())
        pids.add(manifest["node"]["pid"])
    assert len(pids) == 2, pids  # two worker processes, neither of them this one
    assert os.getpid() not in pids
    assert len(json.loads((out / "scorecard.json").read_text())["scenarios"]) == 3


def test_default_workers() -> None:
    assert default_workers(4, ["webrtc"]) == 4  # a real-time meeting keeps a loop to itself
    assert default_workers(1, ["inproc"]) == 1
    assert default_workers(64, ["inproc"]) == max(1, min(64, os.cpu_count() or 1))

