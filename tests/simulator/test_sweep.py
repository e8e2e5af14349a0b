"""``modylbench sweep``: the file's validation, the cells it plans, a real sweep on this machine, resume
(complete cells skipped, broken ones moved aside and redone), results that accumulate; and ``run`` into the
same OUT keeping an earlier run's results."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest

from modylbench.record import SessionFolder
from modylbench.scenarios import load_path
from modylbench.simulator._batch import cell_status
from modylbench.simulator._runner import session_complete
from modylbench.simulator._sessionkey import agent_slug
from modylbench.simulator.cli import exit_code

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"


def _sweep_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sweep.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('agents = ["oracle"]\nagent = "null"\n', "unknown key 'agent'"),
        ('agents = ["oracle"]\ntrials = "3"\n', "trials: Input should be a valid integer"),
        ('agents = ["oracle"]\n[ray]\nadress = "auto"\n', "unknown key 'ray.adress'"),
        ('agents = ["oracle"]\nseeds = [-1]\n', "seeds: Value error, seeds are non-negative integers"),
        (
            'agents = ["oracle"]\ntransports = ["carrier-pigeon"]\n',
            "transports.0: Input should be 'inproc' or 'webrtc'",
        ),
        ('agents = ["oracle"]\nturns = [0]\n', 'turns: Value error, turns are positive integers or "all"'),
        ("trials = 2\n", "agents: required"),
        ('agents = ["oracle"\n', "not valid TOML"),
    ],
)
def test_a_bad_sweep_file_is_one_line_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, expected: str
) -> None:
    path = _sweep_file(tmp_path, text)
    assert exit_code(["sweep", str(path), "--out", str(tmp_path / "out"), "--dry-run"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith(f"error: {path}: ") and expected in err, err
    assert not (tmp_path / "out").exists()


def test_dry_run_lists_the_cells_and_flags_override_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _sweep_file(
        tmp_path,
        'scenarios = ["all"]\ntags = ["difficulty=hard"]\nagents = ["oracle", "null"]\n'
        "trials = 2\nturns = 3\n",
    )
    assert exit_code(["sweep", str(path), "--out", str(tmp_path / "out"), "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # Four built-in scenarios carry difficulty=hard (LBO and supply chain, and their multi-party meetings);
    # 4 scenarios x 2 agents x 2 trials.
    assert lines[-1] == "16 cells: 16 todo"
    assert lines[0] == "todo     financial_analyst_lbo_model__oracle__inproc__turns3__seed0__t0"
    assert {ln.split("__")[0].split()[-1] for ln in lines[:-1]} == {
        "financial_analyst_lbo_model",
        "optimization_solver_supply_chain",
        "financial_analyst_lbo_room",
        "optimization_solver_supply_chain_room",
    }
    assert (
        exit_code(
            [
                "sweep",
                str(path),
                "--out",
                str(tmp_path / "out"),
                "--dry-run",
                "--agent",
                "polite",
                "--seed",
                "0",
                "--seed",
                "1",
                "--turns",
                "all",
                "--trials",
                "1",
                "--tag",
                "tier=Peer",
                "--tag",
                "difficulty=hard",
            ]
        )
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "4 cells: 4 todo"
    assert lines[:-1] == [
        "todo     optimization_solver_supply_chain__polite__inproc__all__seed0__t0",
        "todo     optimization_solver_supply_chain__polite__inproc__all__seed1__t0",
        "todo     optimization_solver_supply_chain_room__polite__inproc__all__seed0__t0",
        "todo     optimization_solver_supply_chain_room__polite__inproc__all__seed1__t0",
    ]
    assert (
        exit_code(["sweep", str(path), "--out", str(tmp_path / "o"), "--dry-run", "--tag", "difficulty=easy"])
        == 2
    )
    assert "no scenario matches the tags ['difficulty=easy']" in capsys.readouterr().err


def test_agent_folder_names_are_readable_bounded_and_distinct() -> None:
    assert agent_slug("oracle") == "oracle"
    assert agent_slug("llm/gpt-4o-mini") != agent_slug("llm_gpt-4o-mini")
    long_cmd = "cmd:python " + "x" * 300 + " --flag"
    slug = agent_slug(long_cmd)
    assert len(slug) <= 48 and slug.startswith("cmd-python-xxx") and "/" not in slug and " " not in slug
    assert agent_slug(long_cmd + "2") != slug


def test_a_sweep_runs_resumes_and_accumulates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    path = _sweep_file(
        tmp_path,
        f'scenario_files = ["{MINI}"]\nscenarios = ["mini_fixture"]\nagents = ["oracle", "null"]\n'
        f'trials = 2\nconcurrency = 1\nout = "{out}"\n',
    )
    assert exit_code(["sweep", str(path)]) == 0
    cells = sorted(d for d in out.iterdir() if d.is_dir())
    assert [c.name for c in cells] == [
        f"mini_fixture__{a}__inproc__all__seed0__t{t}" for a in ("null", "oracle") for t in (0, 1)
    ]
    for cell in cells:
        manifest = SessionFolder(cell).read_manifest()
        assert manifest is not None and manifest.complete and session_complete(cell)
        assert manifest.sweep_cell is not None and manifest.sweep_cell["name"] == cell.name
        assert manifest.node is not None and manifest.node["hostname"]
    card = json.loads((out / "scorecard.json").read_text())
    assert sorted((s["model_id"], s["trial"]) for s in card["scenarios"]) == [
        ("null", 0),
        ("null", 1),
        ("oracle", 0),
        ("oracle", 1),
    ]
    board = json.loads((out / "leaderboard.json").read_text())
    assert [r["model"] for r in board["rows"]] == ["oracle", "null"]  # best mean first
    assert board["cells"] == {"planned": 4, "complete": 4, "failed": 0}
    assert board["rows"][0]["scenarios"]["mini_fixture"]["runs"] == 2
    md = (out / "leaderboard.md").read_text()
    assert "| 1 | oracle | 2 |" in md and "| 2 | null | 2 |" in md  # far apart: separate ranks
    lo, hi = board["rows"][0]["interval"]
    assert lo <= board["rows"][0]["mean_score"] <= hi
    assert re.search(r"\| oracle \| 2 \| \d+\.\d\d \[\d+\.\d\d, \d+\.\d\d\] \|", md)
    (neighbours,) = board["comparisons"]
    assert neighbours["a"] == "oracle" and neighbours["distinguishable"] is True and "separated" in md
    assert json.loads((out / "sweep.json").read_text())["cells"][0]["name"] == cells[2].name  # plan order

    # A broken cell (a crash left it unsealed) and a complete one, then a second sweep that adds an agent.
    broken, kept = cells[0], cells[3]
    manifest = SessionFolder(broken).read_manifest()
    assert manifest is not None
    SessionFolder(broken).write_manifest(manifest.model_copy(update={"complete": False}))
    kept_card = SessionFolder(kept).scorecard.stat().st_mtime_ns
    capsys.readouterr()
    assert (
        exit_code(
            ["sweep", str(path), "--dry-run", "--agent", "oracle", "--agent", "null", "--agent", "polite"]
        )
        == 0
    )
    plan = capsys.readouterr().out
    assert (
        f"broken   {broken.name}" in plan
        and f"complete {kept.name}" in plan
        and plan.endswith("6 cells: 2 todo, 3 complete, 1 broken\n")
    )
    assert (
        exit_code(
            [
                "sweep",
                str(path),
                "--agent",
                "oracle",
                "--agent",
                "null",
                "--agent",
                "polite",
                "--concurrency",
                "2",
            ]
        )
        == 0
    )  # side by side: a worker process each (SessionWorkers)
    captured = capsys.readouterr()
    err = captured.err
    assert "6 cells: 3 already complete, 3 to run" in err
    reused = next(line for line in captured.out.splitlines() if line.startswith("reused "))
    assert reused.startswith("reused 3 complete cells of the same configuration (not run again): ")
    assert kept.name in reused and broken.name not in reused  # the summary names what it did not run again
    aside = [d for d in out.iterdir() if d.name.startswith(broken.name + ".crashed-")]
    assert len(aside) == 1 and (aside[0] / "record.jsonl").exists()  # kept, never deleted
    assert session_complete(broken)  # redone
    assert SessionFolder(kept).scorecard.stat().st_mtime_ns == kept_card  # skipped, untouched
    card = json.loads((out / "scorecard.json").read_text())
    assert sorted({s["model_id"] for s in card["scenarios"]}) == ["null", "oracle", "polite"]
    assert len(card["scenarios"]) == 6

    # A narrower sweep into the same folder drops nothing from the results.
    assert exit_code(["sweep", str(path), "--agent", "polite"]) == 0
    assert len(json.loads((out / "scorecard.json").read_text())["scenarios"]) == 6
    mini = load_path(MINI)[0]
    assert cell_status(kept, ["offline"], scenario=mini) == "complete"
    assert cell_status(kept, ["offline", "openai/gpt-4o-mini"], scenario=mini) == "rescore"
    assert cell_status(kept, ["offline"]) == "broken"  # a cell is counted only once verified against its scenario
    assert cell_status(tmp_path / "nothing", ["offline"]) == "todo"


def test_a_second_run_keeps_the_first_runs_results(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    base = [
        "run",
        "mini_fixture",
        "--scenarios",
        str(MINI),
        "--transport",
        "inproc",
        "--out",
        str(out),
        "--progress",
        "off",
    ]
    assert exit_code([*base, "--agent", "oracle"]) == 0
    assert exit_code([*base, "--agent", "null"]) == 0
    card = json.loads((out / "scorecard.json").read_text())
    assert sorted(s["model_id"] for s in card["scenarios"]) == ["null", "oracle"]
    assert set(card["aggregate"]) == {"null", "oracle"}
    assert (
        "oracle" in (out / "report.html").read_text() and "| oracle |" in (out / "leaderboard.md").read_text()
    )


def test_a_ray_address_nobody_answers_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _sweep_file(tmp_path, f'scenario_files = ["{MINI}"]\nagents = ["oracle"]\n[ray]\nnum_cpus = 0.5\n')
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens on it
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert exit_code(["sweep", str(path), "--out", str(tmp_path / "out"), "--ray", f"127.0.0.1:{port}"]) == 2
    assert f"error: --ray 127.0.0.1:{port}: no Ray head answers there" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_sweep_reports_progress_as_run_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--json: the documented event stream, each cell started and finished with its turns, a resumed cell skipped."""
    out = tmp_path / "out"
    path = _sweep_file(
        tmp_path,
        f'scenario_files = ["{MINI}"]\nscenarios = ["mini_fixture"]\nagents = ["oracle", "null"]\n'
        f'concurrency = 1\nout = "{out}"\n',
    )
    capsys.readouterr()
    assert exit_code(["sweep", str(path), "--json"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]  # stdout: the stream alone
    names = [e["event"] for e in events]
    assert names[0] == "run_started" and events[0]["command"] == "sweep" and events[0]["total"] == 2
    assert names[-1] == "run_finished" and events[-1]["done"] == 2 and events[-1]["failed"] == 0
    for cell in (
        "mini_fixture__oracle__inproc__all__seed0__t0",
        "mini_fixture__null__inproc__all__seed0__t0",
    ):
        mine = [e["event"] for e in events if e.get("task") == cell]
        assert mine[0] == "session_started" and mine[-1] == "session_finished", mine
        assert mine.count("turn_ended") == 4  # the mini fixture's four turns, as they were played
    assert exit_code(["sweep", str(path), "--json"]) == 0
    again = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [e["event"] for e in again].count("session_skipped") == 2
