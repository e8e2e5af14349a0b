"""The scenario loader: strict validation with located one-line errors, and lossless round trips."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from modylbench.scenarios import (
    ScenarioLoadError,
    apply_mutations,
    load_builtin,
    load_path,
    make_pointer,
    parse_pointer,
    parse_scenario,
    resolve,
    run_check,
    to_public,
)
from modylbench.simulator.cli import main

ROOT = Path(__file__).resolve().parent.parent
MALFORMED = ROOT / "fixtures" / "malformed_scenarios"
EXPECTED: dict[str, str] = json.loads((MALFORMED / "EXPECTED.json").read_text())
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"


def _run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = 0
    try:
        main(args)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_corpus_is_large_enough() -> None:
    assert len(EXPECTED) >= 20
    assert sorted(EXPECTED) == sorted(p.name for p in MALFORMED.glob("*.jsonl"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_malformed_file_is_rejected_with_located_one_line_message(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run_cli(["list-scenarios", "--scenarios", str(MALFORMED / name)], capsys)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert lines, "no error message"
    assert EXPECTED[name] in lines[0], lines[0]
    assert "Traceback" not in err
    assert all(line.startswith("error: ") for line in lines)


def test_huge_line_is_refused_without_reading_it_all(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "huge.jsonl"
    f.write_bytes(b'{"scenario_id": "' + b"a" * (9 * 1024 * 1024) + b'"}\n')
    code, _, err = _run_cli(["list-scenarios", "--scenarios", str(f)], capsys)
    assert code == 2
    assert "huge.jsonl:1: line longer than 8 MiB" in err


def test_real_process_prints_no_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "modylbench.simulator.cli", "list-scenarios", "--scenarios", str(MALFORMED / "unknown_channel.jsonl")],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "error: unknown_channel.jsonl:2: turns[2].channel: 'fax' is not one of audio, chat, screen, data"
    )


def test_missing_path_is_a_clean_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run_cli(["list-scenarios", "--scenarios", "/nonexistent/x.jsonl"], capsys)
    assert code == 2 and "no such file or folder" in err


def test_mini_fixture_loads_and_round_trips() -> None:
    [s] = load_path(MINI)
    assert s.channels_used == ["audio", "chat", "screen", "data"]
    assert s.turns[2].edge_case == "wrong_number"
    assert s.metadata == {"source": "fixture"}
    public = to_public(s)
    assert isinstance(public["metadata"], str)
    assert set(public["turns"][0]) == {
        "turn_index", "human_utterance", "expected_agent_action", "phase", "channel",
        "expected_response_type", "wait_for_agent_sec",
    }
    again = parse_scenario(json.loads(json.dumps(public)), "x")
    assert again == s


def test_public_file_without_extensions_loads() -> None:
    raw = json.loads(MINI.read_text())
    meta = json.loads(raw["metadata"])
    meta.pop("modylbench")
    raw["metadata"] = json.dumps(meta)
    s = parse_scenario(raw, "plain")
    # Without our extensions the edge case is reachable through its utterance.
    assert s.turns[2].edge_case is None and s.edge_cases[0].name == "wrong_number"
    assert s.expected_mutations[1].expected_value == 2.0


def test_dict_metadata_and_string_expected_value_accepted() -> None:
    raw = json.loads(MINI.read_text())
    raw["metadata"] = json.loads(raw["metadata"])
    raw["expected_mutations"][1]["expected_value"] = "2.0"
    s = parse_scenario(raw, "x")
    assert s.expected_mutations[1].expected_value == "2.0"


def test_reference_product_passes_its_criteria_and_wrong_one_fails() -> None:
    [s] = load_path(MINI)
    contents = apply_mutations(s.expected_mutations)
    crit = s.expected_outputs[0].verification_criteria[0]
    assert not isinstance(crit, str)
    assert run_check(crit, contents["model"]).passed
    assert not run_check(crit, {"ebitda": 2.2}).passed
    assert not run_check(crit, {}).passed


@pytest.mark.parametrize(
    ("pointer", "tokens"),
    [("", []), ("/a", ["a"]), ("/a~1b/c~0d", ["a/b", "c~d"]), ("/", [""]), ("/0/x", ["0", "x"])],
)
def test_pointer_round_trip(pointer: str, tokens: list[str]) -> None:
    assert parse_pointer(pointer) == tokens
    assert make_pointer(list(tokens)) == pointer


def test_pointer_resolution() -> None:
    doc = {"sheet": {"year1": {"revenue": {"value": 57.5, "formula": "=B2*1.15"}}}, "items": [1, 2]}
    assert resolve(doc, "/sheet/year1/revenue/value") == 57.5
    assert resolve(doc, "/items/1") == 2
    assert resolve(doc, "/items/01", None) is None
    assert resolve(doc, "/nope", None) is None


def test_load_errors_are_typed() -> None:
    with pytest.raises(ScenarioLoadError) as info:
        load_path(MALFORMED / "bad_tier.jsonl")
    assert info.value.problems[0].startswith("bad_tier.jsonl:1: quality_tier:")


def test_builtin_scenarios_round_trip_through_public_format() -> None:
    for s in load_builtin():
        assert parse_scenario(json.loads(json.dumps(to_public(s))), s.scenario_id) == s
