"""Hostile and careless inputs give one line or a bounded result (issue 25, item 7): numbers JSON cannot carry,
floods of chat or figures in one responses line, a deeply nested sweep file, a huge grid, names longer than a
file system allows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from modylbench.record import MAX_FOLDER_NAME, MAX_RUN_TEXT, MAX_TURN_CHAT, MAX_TURN_TEXT, fit_name
from modylbench.simulator._sweep import MAX_CELLS, Cell
from modylbench.simulator.cli import exit_code

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"
CORRECT = ROOT / "fixtures" / "responses" / "correct.jsonl"


def _line() -> dict:
    return json.loads(CORRECT.read_text(encoding="utf-8").splitlines()[0])


def _evaluate(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = tmp_path / "responses.jsonl"
    path.write_text(text + "\n", encoding="utf-8")
    capsys.readouterr()
    code = exit_code(["evaluate", "--responses", str(path), "--output", str(tmp_path / "out" / "scorecard.json")])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


@pytest.mark.parametrize("number", ["1e999", "-1e999", "9" * 5000])
def test_a_number_json_cannot_carry_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                number: str) -> None:
    line = _line()
    line["turns"][0]["latency_ms"] = 0
    text = json.dumps(line).replace('"latency_ms": 0', f'"latency_ms": {number}', 1)
    code, err = _evaluate(tmp_path, text, capsys)
    assert code == 2 and "responses.jsonl:1: " in err and "no line could be scored" in err
    assert ("out of range" in err) if "e999" in number else ("invalid JSON" in err)
    assert not (tmp_path / "out" / "scorecard.json").exists()


def test_a_chat_flood_in_one_line_is_refused_by_its_bound(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = _line()
    line["turns"][0]["chat_messages"] = [f"revenue is {i}.5 million, margin {i % 90}%" for i in range(100_000)]
    code, err = _evaluate(tmp_path, json.dumps(line), capsys)
    assert code == 2 and f"turns[0].chat_messages: 100,000 messages; at most {MAX_TURN_CHAT:,} a turn" in err


def test_an_eight_megabyte_answer_of_numbers_is_refused_by_its_bound(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    line = _line()
    line["turns"][0]["agent_response"] = " ".join(f"{i}.5" for i in range(2_000_000))[:8_000_000]
    code, err = _evaluate(tmp_path, json.dumps(line), capsys)
    assert code == 2 and f"turns[0]: 8,000,000 characters of speech and chat; at most {MAX_TURN_TEXT:,}" in err


def test_a_run_over_its_text_bound_is_refused_and_one_at_the_turn_bound_is_scored(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = _line()
    per_turn = MAX_TURN_TEXT
    n = MAX_RUN_TEXT // per_turn + 1
    assert n <= len(line["turns"])
    for turn in line["turns"][:n]:
        turn["agent_response"], turn["chat_messages"] = "a" * per_turn, []
    code, err = _evaluate(tmp_path, json.dumps(line), capsys)
    assert code == 2 and f"at most {MAX_RUN_TEXT:,} a run are scored" in err
    one = _line()
    one["turns"][0]["agent_response"] = "b" * (MAX_TURN_TEXT - 1)
    one["turns"][0]["chat_messages"] = ["c"]
    code, _ = _evaluate(tmp_path, json.dumps(one), capsys)
    assert code == 0


def _sweep(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = tmp_path / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    capsys.readouterr()
    code = exit_code(["sweep", str(path), "--out", str(tmp_path / "out"), "--dry-run"])
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    return code, err


def test_a_deeply_nested_sweep_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _sweep(tmp_path, 'agents = ["oracle"]\nx = ' + "[" * 50_000 + "]" * 50_000 + "\n", capsys)
    assert code == 2 and "nested too deeply to read" in err


def test_a_grid_above_the_cell_limit_is_refused_before_it_is_expanded(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    seeds = ", ".join(str(s) for s in range(2000))
    text = (f'scenario_files = ["{MINI}"]\nscenarios = ["mini_fixture"]\nagents = ["oracle", "null", "polite"]\n'
            f"trials = 1000\nseeds = [{seeds}]\n")
    code, err = _sweep(tmp_path, text, capsys)
    assert code == 2 and f"the sweep has 6,000,000 cells; at most {MAX_CELLS:,}" in err
    assert not (tmp_path / "out").exists()


def test_long_names_are_hash_shortened_to_fit_the_file_system() -> None:
    a, b = "s" * 200 + "__" + "a" * 200, "s" * 200 + "__" + "a" * 199 + "b"
    assert len(fit_name(a).encode()) <= MAX_FOLDER_NAME and fit_name(a) != fit_name(b)
    assert fit_name("short__name") == "short__name"
    assert len(fit_name("é" * 300).encode()) <= MAX_FOLDER_NAME  # cut on a character, not inside one
    cell = Cell("x" * 200, "cmd:" + "y" * 300, "y" * 300, "webrtc", None, 3, 0)
    assert len(cell.name.encode()) <= MAX_FOLDER_NAME


def test_a_long_scenario_id_with_a_long_agent_name_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = json.loads(MINI.read_text(encoding="utf-8").splitlines()[0])
    scenario["scenario_id"] = "x" * 200
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps(scenario) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    code = exit_code(["run", "x" * 200, "--scenarios", str(path), "--transport", "inproc", "--agent", "oracle",
                      "--agent-name", "A" * 200, "--out", str(out), "--progress", "off"])
    assert code == 0, capsys.readouterr().err
    [folder] = [d for d in out.iterdir() if d.is_dir()]
    assert len(folder.name.encode()) <= MAX_FOLDER_NAME and (folder / "scorecard.json").exists()
