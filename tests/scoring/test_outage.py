"""A judge server that is down or dies midway: the scorecard says it is incomplete, evaluate exits 3,
and running it again resumes from the cache to a complete scorecard."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from rich.console import Console

from modylbench.record import ScenarioResponses
from modylbench.scenarios import Scenario, to_public
from modylbench.scoring import make_judges, print_summary, read_scorecard, score
from modylbench.scoring._cli import evaluate

from .openai_server import Answer, Script, good, openai_server
from .scoring_helpers import load_fixture_maker


class Dying(Script):
    """Answers ``healthy`` requests well, then 503 with ``Retry-After: 0`` (no waiting in tests)."""

    def __init__(self, healthy: int) -> None:
        super().__init__()
        self.healthy = healthy

    def next(self, body: dict[str, Any]) -> Answer:
        with self.lock:
            self.requests.append(body)
            if len(self.requests) > self.healthy:
                return Answer(status=503, content="overloaded", headers={"retry-after": "0"})
        props = body["response_format"]["json_schema"]["schema"]["properties"]
        return good({d: 8.0 for d in props if d != "rationale"})


class Sleeps:
    """Records the backoff delays instead of waiting them out."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def _files(tmp: Path, scenario: Scenario) -> tuple[Path, Path]:
    scen = tmp / "scenarios.jsonl"
    scen.write_text(json.dumps(to_public(scenario)) + "\n", encoding="utf-8")
    resp = tmp / "responses.jsonl"
    resp.write_text(json.dumps(load_fixture_maker().correct(scenario)) + "\n", encoding="utf-8")
    return scen, resp


def _n_items(scenario: Scenario) -> int:
    return len(scenario.turns) + len(scenario.expected_outputs)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_server_dying_midway_is_incomplete_then_resumes(tmp_path: Path, scenario: Scenario) -> None:
    scen, resp = _files(tmp_path, scenario)
    out = tmp_path / "scorecard.json"
    runner = CliRunner()
    n = _n_items(scenario)
    dying = Dying(healthy=4)
    with openai_server(dying) as url:
        args = ["--responses", str(resp), "--output", str(out), "--scenarios", str(scen),
                "--judge", f"openai/judge-model@{url}", "--concurrency", "1"]
        res = runner.invoke(evaluate, args)
    assert res.exit_code == 3, res.output
    assert "Traceback" not in res.output
    # stderr names the gap and how to finish; the printed summary says so too.
    assert "incomplete" in res.stderr and "resume" in res.stderr
    assert f"{n - 4} of {n} judge verdicts missing" in res.stderr
    assert "HTTP 503" in res.stderr
    assert "incomplete" in res.stdout and "Mentor" not in res.stdout
    card = read_scorecard(out)
    e = card.scenarios[0]
    assert card.incomplete and "incomplete" in e.flags and e.missing_verdicts == n - 4
    assert e.tier is None and e.passed is None
    agg = card.aggregate[e.model_id]
    assert agg.tier is None and agg.incomplete_runs == 1 and agg.pass_k == {}

    # The server is back: the same command asks only the missing items and completes.
    healthy = Dying(healthy=10**6)
    with openai_server(healthy) as url:
        args[args.index("--judge") + 1] = f"openai/judge-model@{url}"
        res = runner.invoke(evaluate, args)
    assert res.exit_code == 0, res.output
    assert len(healthy.requests) == n - 4
    assert "incomplete" not in res.output
    card = read_scorecard(out)
    e = card.scenarios[0]
    assert not card.incomplete and e.missing_verdicts == 0 and "incomplete" not in e.flags
    assert e.tier == "Mentor" and e.passed is True and e.modylbench_score == 8.0


def test_server_down_gives_up_quickly_and_says_so(tmp_path: Path, scenario: Scenario) -> None:
    """Connection refused on every call: a few items are tried, the rest are not sent at all."""
    lines = [ScenarioResponses.model_validate(load_fixture_maker().correct(scenario)) for _ in range(4)]
    for i, line in enumerate(lines):
        line.trial = i
    sleeps = Sleeps()
    (judge,) = make_judges(
        [f"openai/judge-model@http://127.0.0.1:{_free_port()}/v1"],
        cache_dir=tmp_path / "cache", concurrency=1, sleep=sleeps,
    )
    card = score(lines, {scenario.scenario_id: scenario}, [judge])
    n = _n_items(scenario) * len(lines)
    assert judge.calls < n  # type: ignore[attr-defined]
    assert card.incomplete
    for e in card.scenarios:
        assert e.tier is None and e.passed is None and e.modylbench_score is None and "incomplete" in e.flags
    reasons = {v.unscored_reason for e in card.scenarios for t in e.turns for v in t.judges}
    assert any(r and "connection error" in r for r in reasons)
    assert any(r and "judge unavailable" in r for r in reasons)


def test_partial_panel_is_incomplete_too(tmp_path: Path, scenario: Scenario) -> None:
    """Offline plus a dying LLM judge: every item has a score, but not from the panel asked for."""
    lines = [ScenarioResponses.model_validate(load_fixture_maker().correct(scenario))]
    with openai_server(Dying(healthy=2)) as url:
        judges = make_judges(["offline", f"openai/judge-model@{url}"], cache_dir=tmp_path / "c", concurrency=1)
        card = score(lines, {scenario.scenario_id: scenario}, judges)
    e = card.scenarios[0]
    assert e.modylbench_score is not None and e.unscored == []
    assert card.incomplete and "incomplete" in e.flags and e.tier is None and e.passed is None
    # run and replay print this summary: the gap and how to finish it are in it.
    console = Console(record=True, width=200)
    print_summary(card, console)
    text = console.export_text()
    assert "incomplete" in text and "to resume" in text and "judge verdicts missing" in text
    assert not any(t in text for t in ("Consultant", "Mentor", "Peer"))


def test_offline_panel_is_complete(scenario: Scenario) -> None:
    lines = [ScenarioResponses.model_validate(load_fixture_maker().correct(scenario))]
    card = score(lines, {scenario.scenario_id: scenario}, make_judges(["offline"]))
    e = card.scenarios[0]
    assert not card.incomplete and e.missing_verdicts == 0 and e.tier is not None


def test_help_documents_exit_3() -> None:
    res = CliRunner().invoke(evaluate, ["--help"])
    assert res.exit_code == 0 and "3  incomplete, resumable" in res.output
