"""Progress of long runs: the reporter's three views (live, lines, JSON), time left, the record-event hook,
events from session workers in other processes, and the commands' --json streams."""

from __future__ import annotations

import concurrent.futures
import io
import json
import multiprocessing
from pathlib import Path

import pytest
from click.testing import CliRunner

from modylbench.record import PROGRESS_EVENTS, ProgressReporter, TurnEnd, TurnStart, record_progress
from modylbench.simulator._progress import forwarding

ROOT = Path(__file__).resolve().parents[2]


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def _reporter(mode: str) -> tuple[ProgressReporter, io.StringIO, FakeClock]:
    buf, clock = io.StringIO(), FakeClock()
    return (
        ProgressReporter(mode, stream=buf, json_stream=buf, clock=clock, wall=lambda: 1e9 + clock.t),
        buf,
        clock,
    )


def _meeting(r: ProgressReporter, clock: FakeClock) -> None:
    """Two sessions of 4 turns: one plays two turns and finishes, the other fails."""
    r.emit("run_started", command="run", total=3)
    r.emit("session_skipped", "c", reason="already complete")
    r.emit(
        "session_started",
        "a",
        label="lbo × oracle",
        scenario_id="lbo",
        agent="oracle",
        transport="inproc",
        seed=0,
        turns=4,
    )
    r.emit(
        "session_started",
        "b",
        label="lbo × null",
        scenario_id="lbo",
        agent="null",
        transport="inproc",
        seed=0,
        turns=4,
    )
    hook = r.session_hook("a", 4)
    hook(TurnStart(wall_time=0, meeting_time=0, turn_index=0, phase="opening", channel="voice"))
    clock.t = 30.0
    hook(TurnEnd(wall_time=0, meeting_time=30, turn_index=0, reason="agent_done"))
    hook(TurnStart(wall_time=0, meeting_time=30, turn_index=1, phase="model build", channel="doc"))


def test_lines_one_line_per_event_with_counts_and_time_left() -> None:
    r, buf, clock = _reporter("lines")
    _meeting(r, clock)
    # After 30 s: a quarter of one of the two sessions to run is done -> 1/8 of the work -> 210 s left.
    assert r.fraction() == pytest.approx(1 / 8)
    assert r.time_left() == pytest.approx(210.0)
    clock.t = 60.0
    r.emit(
        "session_finished", "a", termination_reason="completed", turns_played=4, wall_s=60.0, folder="/x/a"
    )
    r.emit("session_failed", "b", error="agent crashed")
    r.emit("run_finished", done=1, failed=1, skipped=1, total=3)
    lines = buf.getvalue().splitlines()
    assert lines[0] == "[   0:00] run: 3 to do"
    assert "c: skipped (already complete)" in lines[1]
    assert "lbo × oracle: turn 1/4 opening · voice" in lines[4]
    assert lines[5].startswith("[   0:30]") and "turn 1/4 ended (agent_done)" in lines[5]
    assert "lbo × oracle: turn 2/4 model build · doc" in lines[6]
    assert (
        "lbo × oracle: completed, 4 turns, 60.0s  [1 done, 0 failed, 1 skipped, 1 running, 0 waiting"
        in lines[7]
    )
    assert "lbo × null: FAILED: agent crashed" in lines[8]
    assert (
        lines[9] == "[   1:00] run finished: 1 done, 1 failed, 1 skipped, 0 running, 0 waiting  elapsed 1:00"
    )
    assert len(lines) == 10


def test_a_session_that_ended_in_an_agent_error_counts_as_failed() -> None:
    r, buf, clock = _reporter("lines")
    _meeting(r, clock)
    r.emit("session_finished", "a", termination_reason="agent_error", turns_played=1, wall_s=3.0, folder="/x/a")
    r.emit("session_finished", "b", termination_reason="max_turns", turns_played=4, wall_s=9.0, folder="/x/b")
    assert (r.done, r.failed, r.skipped) == (1, 1, 1)
    assert "lbo × oracle: agent_error, 1 turns, 3.0s  [0 done, 1 failed, 1 skipped, 1 running" in buf.getvalue()


def test_json_lines_carry_the_documented_fields() -> None:
    r, buf, clock = _reporter("json")
    _meeting(r, clock)
    r.emit("judge_progress", judge="openai/m", done=3, total=10)
    events = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert [e["event"] for e in events] == [
        "run_started",
        "session_skipped",
        "session_started",
        "session_started",
        "turn_started",
        "turn_ended",
        "turn_started",
        "judge_progress",
    ]
    for e in events:
        assert e["v"] == 1 and isinstance(e["time"], float) and isinstance(e["elapsed"], float)
        extra = set(e) - {"v", "event", "time", "elapsed", "task"}
        assert extra <= set(PROGRESS_EVENTS[e["event"]]), (e["event"], extra)
    assert events[5] == {
        "v": 1,
        "event": "turn_ended",
        "time": 1e9 + 30,
        "elapsed": 30.0,
        "task": "a",
        "turn": 0,
        "turns": 4,
        "reason": "agent_done",
    }
    # The documented set is the one in docs/progress.md.
    doc = (ROOT / "docs" / "progress.md").read_text(encoding="utf-8")
    for name, fields in PROGRESS_EVENTS.items():
        assert f"`{name}`" in doc, name
        for field in fields:
            assert f"`{field}`" in doc, (name, field)


def test_unknown_event_is_a_programming_error() -> None:
    r, _, _ = _reporter("lines")
    with pytest.raises(ValueError, match="unknown progress event"):
        r.emit("turn_begun", "a")
    with pytest.raises(ValueError, match="progress mode"):
        ProgressReporter("fancy")


def test_judge_calls_print_as_tenths_when_piped() -> None:
    r, buf, clock = _reporter("lines")
    for done in range(0, 101):
        clock.t = done
        r.judge_hook("openai/m", done, 100)
    lines = buf.getvalue().splitlines()
    assert len(lines) == 11, lines
    assert lines[5].endswith("judge openai/m: 50/100, ~0:50 left")
    assert lines[-1].startswith("[   1:40] judge openai/m: 100/100")


def test_live_view_shows_running_sessions_turn_and_phase() -> None:
    from rich.console import Console

    r, _, clock = _reporter("live")
    _meeting(r, clock)
    out = io.StringIO()
    Console(file=out, width=120, color_system=None).print(r.render())
    text = out.getvalue()
    assert "0 done, 0 failed, 1 skipped, 2 running, 0 waiting, ~3:30 left" in text
    assert "lbo × oracle" in text and "2/4" in text and "model build" in text and "doc" in text
    assert "lbo × null" in text and "–/4" in text


def test_auto_is_lines_when_not_a_terminal_and_silent_runs_print_nothing() -> None:
    r, buf, _ = _reporter("auto")
    assert r.mode == "lines"
    with r:
        pass
    assert buf.getvalue() == ""


def test_record_progress_maps_turn_events_only() -> None:
    start = TurnStart(wall_time=0, meeting_time=0, turn_index=2, phase="close", channel="chat")
    assert record_progress(start, 5) == (
        "turn_started",
        {"turn": 2, "turns": 5, "phase": "close", "channel": "chat"},
    )
    assert record_progress(object(), 5) is None


def test_events_reach_the_reporter_from_a_worker_process() -> None:
    r, buf, _ = _reporter("json")
    r.emit("session_started", "a", label="x", turns=3)
    ctx = multiprocessing.get_context("spawn")
    with forwarding(r) as hook, concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as pool:
        # The hook itself runs in the worker (it is what a session there calls with each recorded event).
        remote = hook("a", 3)
        pool.submit(
            remote, TurnStart(wall_time=0, meeting_time=0, turn_index=0, phase="opening", channel="voice")
        ).result(timeout=60)
        pool.submit(remote, TurnEnd(wall_time=0, meeting_time=1, turn_index=0, reason="silence")).result(
            timeout=60
        )
    events = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert [(e["event"], e.get("task"), e.get("turn")) for e in events] == [
        ("session_started", "a", None),
        ("turn_started", "a", 0),
        ("turn_ended", "a", 0),
    ]
    assert r.running["a"].turns_done == 1


def test_report_json_stream_on_stdout(tmp_path: Path) -> None:
    from modylbench.record import ScenarioResponses
    from modylbench.scenarios import resolve_scenarios
    from modylbench.scoring import make_judges, score, write_scorecard
    from modylbench.scoring.cli import report

    line = (ROOT / "fixtures" / "responses" / "correct.jsonl").read_text(encoding="utf-8").splitlines()[0]
    resp = ScenarioResponses.model_validate_json(line)
    card = tmp_path / "scorecard.json"
    write_scorecard(
        score([resp], dict(resolve_scenarios((), only=[resp.scenario_id])), make_judges([])), card
    )
    res = CliRunner().invoke(report, [str(card), "--output", str(tmp_path / "r.html"), "--json"])
    assert res.exit_code == 0, res.output
    events = [json.loads(x) for x in res.stdout.splitlines()]
    assert [(e["event"], e["done"], e["total"], e["what"]) for e in events] == [
        ("report_progress", 1, 1, "runs drawn")
    ]


def test_run_json_stream_follows_a_real_meeting(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from modylbench.simulator.cli import exit_code

    args = [
        "run",
        "financial_analyst_lbo_model",
        "--transport",
        "inproc",
        "--turns",
        "2",
        "--out",
        str(tmp_path),
        "--json",
    ]
    assert exit_code(args) == 0
    out = capsys.readouterr().out
    events = [json.loads(line) for line in out.splitlines()]  # stdout holds only the stream
    task = "financial_analyst_lbo_model__oracle__inproc__turns2__seed0__t0"
    assert [(e["event"], e.get("turn")) for e in events] == [
        ("run_started", None),
        ("session_started", None),
        ("turn_started", 0),
        ("turn_ended", 0),
        ("turn_started", 1),
        ("turn_ended", 1),
        ("session_finished", None),
        ("run_finished", None),
    ]
    assert all(e.get("task") == task for e in events[1:-1])
    assert events[-2]["termination_reason"] == "max_turns" and events[-2]["turns_played"] == 2
    # Run again: the complete session is skipped, and the stream says so.
    assert exit_code(args) == 0
    again = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [e["event"] for e in again] == ["run_started", "session_skipped", "run_finished"]
    assert again[-1]["skipped"] == 1
