"""Fixtures for the report tests: scorecards from the response fixtures and one short recorded session."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from modylbench.record import ScenarioResponses
from modylbench.scenarios import resolve_scenarios
from modylbench.scoring import Scorecard, make_judges, score

ROOT = Path(__file__).resolve().parents[2]
RESPONSES = ROOT / "fixtures" / "responses"
SCENARIO = "financial_analyst_lbo_model"


def lbo_line(name: str) -> ScenarioResponses:
    """The LBO scenario's line of a responses fixture."""
    for line in (RESPONSES / name).read_text(encoding="utf-8").splitlines():
        if line.strip() and json.loads(line)["scenario_id"] == SCENARIO:
            return ScenarioResponses.model_validate_json(line)
    raise AssertionError(f"{name} has no {SCENARIO} line")


@pytest.fixture(scope="session")
def scenarios() -> dict[str, object]:
    return dict(resolve_scenarios(()))


@pytest.fixture(scope="session")
def scored(scenarios: dict[str, object]) -> dict[str, tuple[Scorecard, ScenarioResponses]]:
    """name -> (scorecard, responses) for a good run and two gaming runs of the LBO scenario."""
    out = {}
    for name in ("correct.jsonl", "final_state_dump.jsonl", "polite_only.jsonl"):
        resp = lbo_line(name)
        out[name.removesuffix(".jsonl")] = (score([resp], scenarios, make_judges([])), resp)  # type: ignore[arg-type]
    return out


@pytest.fixture(scope="session")
def session_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real recorded 6-turn meeting (inproc transport), scored and with its report written by ``run``."""
    out = tmp_path_factory.mktemp("runs")
    proc = subprocess.run(
        [sys.executable, "-m", "modylbench.simulator.cli", "run", SCENARIO, "--agent", "oracle", "--transport",
         "inproc", "--turns", "6", "--out", str(out)],
        capture_output=True, text=True, timeout=240,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out / f"{SCENARIO}__oracle__inproc__turns6__seed0__t0"
