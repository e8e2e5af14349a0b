"""Bad responses files: valid lines scored, each bad one reported as file:line: reason, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from modylbench.scenarios import Scenario, to_public
from modylbench.scoring import read_responses, read_scorecard
from modylbench.scoring._cli import evaluate

from .scoring_helpers import load_fixture_maker


def _good(scenario: Scenario) -> dict[str, Any]:
    line: dict[str, Any] = load_fixture_maker().correct(scenario)
    return line


def _write_scenario(tmp: Path, scenario: Scenario) -> Path:
    p = tmp / "scenarios.jsonl"
    p.write_text(json.dumps(to_public(scenario)) + "\n", encoding="utf-8")
    return p


def test_malformed_lines_are_reported_and_the_rest_read(tmp_path: Path, scenario: Scenario) -> None:
    good = json.dumps(_good(scenario)).encode()
    dup = _good(scenario)
    dup["turns"].append(dict(dup["turns"][0]))
    wrong_type = _good(scenario)
    wrong_type["turns"][0]["turn_index"] = "first"
    lines = [
        b"\xef\xbb\xbf" + good,  # 1: BOM on the first line is accepted
        b"",  # 2: blank
        b"   ",  # 3: blank
        good.replace(b'"agent_response": "', b'"agent_response": "\xff\xfe', 1),  # 4: invalid UTF-8
        good.replace(b'"turn_index": 0', b'"turn_index": NaN', 1),  # 5: NaN
        b"[" * 100_000 + b"]" * 100_000,  # 6: deep nesting
        (
            b'{"scenario_id": "x", "model_id": "m", "turns": [], "work_products": [{"output_type": "kv", '
            b'"content": ' + b"[" * 70 + b"1" + b"]" * 70 + b"}]}"
        ),  # 7: nested deeper than 64 levels
        json.dumps(dup).encode(),  # 8: duplicate turn
        json.dumps(wrong_type).encode(),  # 9: wrong type
        good,  # 10: fine
        good[: len(good) // 2],  # 11: truncated last line, no newline
    ]
    path = tmp_path / "responses.jsonl"
    path.write_bytes(b"\n".join(lines))
    parsed, problems = read_responses(path)
    assert len(parsed) == 2
    by_line = {p.split(":")[1]: p for p in problems}
    assert set(by_line) == {"4", "5", "6", "7", "8", "9", "11"}
    assert "invalid UTF-8" in by_line["4"]
    assert "NaN" in by_line["5"]
    assert "nested" in by_line["6"] and "nested" in by_line["7"]
    assert "appears twice" in by_line["8"]
    assert "turns[0].turn_index" in by_line["9"]
    assert "truncated" in by_line["11"]
    assert all(p.startswith("responses.jsonl:") for p in problems)


def test_huge_line_is_skipped_with_bounded_reading(tmp_path: Path, scenario: Scenario) -> None:
    path = tmp_path / "big.jsonl"
    good = json.dumps(_good(scenario))
    with path.open("w", encoding="utf-8") as fh:
        fh.write('{"scenario_id": "' + "a" * (50 * 1024 * 1024) + '"}\n')
        fh.write(good + "\n")
    parsed, problems = read_responses(path)
    assert len(parsed) == 1 and len(problems) == 1 and problems[0].startswith("big.jsonl:1: line longer than")


def test_cli_exit_codes(tmp_path: Path, scenario: Scenario) -> None:
    scen = _write_scenario(tmp_path, scenario)
    ok = tmp_path / "ok.jsonl"
    ok.write_text(json.dumps(_good(scenario)) + "\n", encoding="utf-8")
    out = tmp_path / "card.json"
    runner = CliRunner()
    res = runner.invoke(
        evaluate, ["--responses", str(ok), "--output", str(out), "--scenarios", str(scen), "--quiet"]
    )
    assert res.exit_code == 0, res.output
    card = read_scorecard(out)
    assert card.scenarios[0].tier == "Consultant"

    mixed = tmp_path / "mixed.jsonl"
    unknown = dict(_good(scenario), scenario_id="no_such_scenario")
    mixed.write_text(json.dumps(_good(scenario)) + "\n" + json.dumps(unknown) + "\n{\n", encoding="utf-8")
    res = runner.invoke(
        evaluate, ["--responses", str(mixed), "--output", str(out), "--scenarios", str(scen), "--quiet"]
    )
    assert res.exit_code == 1
    assert "mixed.jsonl:2: unknown scenario 'no_such_scenario'" in res.output
    assert "mixed.jsonl:3: truncated JSON" in res.output
    assert "Traceback" not in res.output

    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    res = runner.invoke(evaluate, ["--responses", str(bad), "--output", str(out), "--scenarios", str(scen)])
    assert res.exit_code == 2 and "no line could be scored" in res.output
    res = runner.invoke(evaluate, ["--responses", str(tmp_path / "missing.jsonl"), "--output", str(out)])
    assert res.exit_code == 2 and "no such file" in res.output
    res = runner.invoke(
        evaluate,
        ["--responses", str(ok), "--output", str(out), "--scenarios", str(scen), "--judge", "gpt-judge"],
    )
    assert res.exit_code == 2 and "unknown judge" in res.output


def test_modylbench_evaluate_command_end_to_end(tmp_path: Path, scenario: Scenario) -> None:
    scen = _write_scenario(tmp_path, scenario)
    ok = tmp_path / "ok.jsonl"
    ok.write_text(json.dumps(_good(scenario)) + "\n", encoding="utf-8")
    out = tmp_path / "card.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "modylbench.simulator.cli",
            "evaluate",
            "--responses",
            str(ok),
            "--output",
            str(out),
            "--scenarios",
            str(scen),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Consultant" in proc.stdout and out.is_file()


def test_huge_identifiers_are_refused_in_one_line(tmp_path: Path, scenario: Scenario) -> None:
    """A 2 MB model_id (or scenario or product id) is refused with a one-line reason; outputs stay small."""
    scen = _write_scenario(tmp_path, scenario)
    huge = "m" * (2 * 1024 * 1024)
    big_model = dict(_good(scenario), model_id=huge)
    big_product = _good(scenario)
    big_product["work_products"][0]["product_id"] = huge
    big_mutation = _good(scenario)
    big_mutation["mutation_trajectory"][0]["product_id"] = huge
    big_scenario = dict(_good(scenario), scenario_id=huge)
    path = tmp_path / "responses.jsonl"
    lines = [_good(scenario), big_model, big_product, big_mutation, big_scenario]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    out = tmp_path / "scorecard.json"
    res = CliRunner().invoke(
        evaluate, ["--responses", str(path), "--output", str(out), "--scenarios", str(scen), "--quiet"]
    )
    assert res.exit_code == 1, res.output[:2000]
    problems = [line for line in res.stderr.splitlines() if line.startswith("responses.jsonl:")]
    assert [p.split(":")[1] for p in problems] == ["2", "3", "4", "5"]
    assert problems[0].startswith("responses.jsonl:2: model_id: String should have at most 200 characters")
    assert "work_products[0].product_id" in problems[1] and "mutation_trajectory[0].product_id" in problems[2]
    assert "scenario_id" in problems[3]
    assert all(len(p) < 300 for p in problems) and len(res.output) < 10_000
    assert out.stat().st_size < 1_000_000 and (tmp_path / "report.html").stat().st_size < 2_000_000
    assert read_scorecard(out).scenarios[0].model_id == "reference"


def test_scenario_file_with_a_huge_id_is_refused(tmp_path: Path, scenario: Scenario) -> None:
    for field in ("scenario_id", "product_id"):
        public = to_public(scenario)
        if field == "scenario_id":
            public["scenario_id"] = "s" * 100_000
        else:
            public["expected_mutations"][0]["product_id"] = "p" * 100_000
        scen = tmp_path / f"{field}.jsonl"
        scen.write_text(json.dumps(public) + "\n", encoding="utf-8")
        ok = tmp_path / "ok.jsonl"
        ok.write_text(json.dumps(_good(scenario)) + "\n", encoding="utf-8")
        res = CliRunner().invoke(
            evaluate, ["--responses", str(ok), "--output", str(tmp_path / "c.json"), "--scenarios", str(scen)]
        )
        assert res.exit_code == 2, res.output[:2000]
        assert "at most 200 characters" in res.stderr and len(res.stderr) < 1000, res.stderr[:2000]


def test_evaluate_piped_prints_its_table_whole_as_run_does(tmp_path: Path, scenario: Scenario) -> None:
    # rich sizes a piped console at 80 columns: evaluate's table once cut model ids there while run's widened.
    import os

    scen = _write_scenario(tmp_path, scenario)
    model = "an-agent-with-a-long-name-that-a-leaderboard-should-show-whole-v2"
    responses = tmp_path / "r.jsonl"
    responses.write_text(json.dumps(dict(_good(scenario), model_id=model)) + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    done = subprocess.run(
        [sys.executable, "-m", "modylbench.simulator.cli", "evaluate", "--responses", str(responses),
         "--output", str(tmp_path / "card.json"), "--scenarios", str(scen)],
        capture_output=True, text=True, timeout=120, env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert model in done.stdout, done.stdout
