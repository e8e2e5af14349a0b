"""The CLI's cheap commands: help, list-scenarios, schema (with committed copies kept current)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from modylbench.simulator import UserError
from modylbench.simulator._cmd_scenarios import SCHEMAS, schema_json
from modylbench.simulator.cli import main

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = 0
    try:
        main(args)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_help_lists_commands_without_heavy_imports() -> None:
    code = (
        "import sys\n"
        "from modylbench.simulator.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('aiortc', 'av', 'scipy', 'openai', 'pycrdt', 'numpy') if m in sys.modules]\n"
        "print('HEAVY=' + ','.join(heavy))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "list-scenarios" in proc.stdout and "schema" in proc.stdout
    assert "HEAVY=\n" in proc.stdout, proc.stdout


def test_list_scenarios_json_includes_external_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["list-scenarios", "--json", "--scenarios", str(MINI)], capsys)
    assert code == 0
    rows = json.loads(out)
    mini = next(r for r in rows if r["scenario_id"] == "mini_fixture")
    assert mini["turns"] == 4 and mini["edge_cases"] == 1 and mini["quality_tier"] == "Peer"
    assert {"scenario_id", "vertical", "title", "quality_tier", "turns", "edge_cases"} <= set(mini)


def test_list_scenarios_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["list-scenarios", "--scenarios", str(MINI)], capsys)
    assert code == 0 and "mini_fixture" in out and "total" in out


def _available() -> list[str]:
    out = []
    for name in sorted(SCHEMAS):
        try:
            schema_json(name)
        except UserError:
            continue
        out.append(name)
    return out


@pytest.mark.parametrize("name", _available())
def test_committed_schema_is_current(name: str) -> None:
    committed = ROOT / "docs" / "schemas" / f"{name}.json"
    current = json.dumps(schema_json(name), indent=2, sort_keys=True) + "\n"
    assert committed.exists() and committed.read_text() == current, (
        f"regenerate with: modylbench schema {name} > docs/schemas/{name}.json"
    )


def test_export_dataset_round_trips(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from modylbench.scenarios import load_path, resolve_scenarios

    code, out, _ = _run(["export-dataset", str(tmp_path), "--scenarios", str(MINI)], capsys)
    assert code == 0
    loaded = {s.scenario_id: s for s in load_path(tmp_path / "data" / "test.jsonl")}
    assert loaded == resolve_scenarios([MINI])
    hard = [json.loads(line) for line in (tmp_path / "data" / "test_hard.jsonl").read_text().splitlines()]
    assert len(hard) == sum(len(s.edge_cases) for s in loaded.values())
    row = next(r for r in hard if r["scenario_id"] == "mini_fixture")
    assert row["turn"]["human_utterance"] == row["edge_case"]["human_utterance"]
    assert row["turn_index"] == 2 and len(row["preceding_turns"]) == 2


def test_an_oversized_agent_name_is_refused_before_any_meeting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = _run(["run", "financial_analyst_lbo_model", "--agent", "x" * 300, "--transport", "inproc",
                            "--turns", "1", "--out", str(tmp_path)], capsys)  # fmt: skip
    assert code == 2 and "at most 200 characters" in err
    assert not any(tmp_path.iterdir())


def test_run_help_names_every_exit_code_run_can_end_with() -> None:
    # 1 (a session raised: an infrastructure failure) and 130 (Ctrl-C) were missing from the list.
    from click.testing import CliRunner

    from modylbench.simulator._cmd_run import run

    text = " ".join(CliRunner().invoke(run, ["--help"], terminal_width=200).output.split())
    codes = text.split("Exit codes:", 1)[1]
    for code in ("0 done", "1 a session could not be run", "2 a usage error", "3 judges left items unscored",
                 "4 every session of an agent failed", "130 interrupted"):
        assert code in codes, codes


def test_the_command_table_says_what_each_command_says_of_itself() -> None:
    # `modylbench --help` lists the commands without importing them, from the table; the line is the command's.
    import importlib

    from modylbench.simulator.cli import _OPTIONAL, COMMANDS

    for name, (target, line) in {**COMMANDS, **_OPTIONAL}.items():
        module, attr = target.split(":")
        command = getattr(importlib.import_module(module), attr)
        assert command.name == name and command.short_help == line, (name, line, command.short_help)


def test_old_spellings_work_with_a_one_line_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    responses = ROOT / "fixtures" / "responses" / "correct.jsonl"
    code, _, err = _run(["evaluate", "--responses", str(responses), "--output", str(tmp_path / "a.json"),
                         "--concurrency", "2", "--quiet", "--progress", "off"], capsys)
    assert code in (0, 1) and "note: evaluate --concurrency is deprecated" in err and "--judge-concurrency" in err
    code, _, err = _run(["evaluate", "--responses", str(responses), "--output", str(tmp_path / "b.json"),
                         "--judge-concurrency", "2", "--quiet", "--progress", "off"], capsys)
    assert code in (0, 1) and "deprecated" not in err
    assert json.loads((tmp_path / "a.json").read_text())["scenarios"] == json.loads(
        (tmp_path / "b.json").read_text())["scenarios"]
    code, _, err = _run(["report", str(tmp_path / "a.json"), "-o", str(tmp_path / "r.html"), "--progress", "off"],
                        capsys)
    assert code == 0 and (tmp_path / "r.html").exists() and "note: report -o FILE is deprecated" in err
    code, _, err = _run(["export-dataset", str(tmp_path / "ds"), "--scenarios", str(MINI)], capsys)
    assert code == 0 and (tmp_path / "ds" / "README.md").exists() and "use --out OUT_DIR" in err
    code, _, err = _run(["export-dataset", "--out", str(tmp_path / "ds2"), "--scenarios", str(MINI)], capsys)
    assert code == 0 and (tmp_path / "ds2" / "README.md").exists() and "deprecated" not in err
    code, _, err = _run(["export-dataset"], capsys)
    assert code == 2 and "--out OUT_DIR" in err
