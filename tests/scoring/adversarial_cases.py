"""The adversarial suite's scores, shared by its test files (issue 13, item 9).

tests/support/modylbench_testsupport/adversarial.py derives, from each scenario, correct agents in many
styles, gaming agents and partially correct agents. Each scenario's lines are scored once per test
process (one ``score`` call) and shared by the tests of that process: test_adversarial.py (offline
judge) and test_adversarial_panel.py (a panel with a lenient LLM judge served by a real local HTTP
server); test_adversarial_lines.py checks the lines themselves.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from modylbench.record import ScenarioResponses
from modylbench.scenarios import Scenario, resolve_scenarios
from modylbench.scoring import ScenarioScore, make_judges, score
from modylbench_testsupport import adversarial as ADV

from .openai_server import Answer, Script, good, openai_server

SCENARIOS: dict[str, Scenario] = resolve_scenarios([])
IDS = sorted(SCENARIOS)
# The panel sends every item of every strategy over HTTP: about 2,200 requests and 20-25 s per
# scenario on a laptop-class machine, so one scenario (Consultant tier) runs by default and the
# other five with --run-slow.
PANEL_DEFAULT = [s for s in ("financial_analyst_lbo_model",) if s in SCENARIOS]
LENIENT = 9.5
CORRECT_MIN, GAMING_MAX = 9.0, 6.0


def lines_of(sc: Scenario) -> list[dict[str, Any]]:
    """Every strategy's responses line for ``sc``."""
    return [ADV.STRATEGIES[name](sc) for name in ADV.STRATEGIES]


def by_model(card_entries: list[ScenarioScore]) -> dict[str, float]:
    out = {}
    for e in card_entries:
        assert e.modylbench_score is not None, f"{e.model_id}: unscored {e.unscored}"
        out[e.model_id] = e.modylbench_score
    return out


@cache
def offline_scores(sid: str) -> dict[str, float]:
    """strategy -> offline score on scenario ``sid``."""
    sc = SCENARIOS[sid]
    lines = [ScenarioResponses.model_validate(x) for x in lines_of(sc)]
    card = score(lines, {sid: sc}, make_judges(["offline"]))
    return by_model(card.scenarios)


class LenientLLM(Script):
    """A judge model that answers 9.5 on every dimension it is asked for, whatever it is shown."""

    def next(self, body: dict[str, Any]) -> Answer:
        with self.lock:
            self.requests.append({"model": body.get("model")})
        props = body["response_format"]["json_schema"]["schema"]["properties"]
        return good({d: LENIENT for d in props if d != "rationale"}, "looks great")


@cache
def panel_scores(sid: str) -> dict[str, float]:
    """strategy -> score by the panel [offline, lenient LLM] on scenario ``sid``."""
    sc = SCENARIOS[sid]
    lines = [ScenarioResponses.model_validate(x) for x in lines_of(sc)]
    script = LenientLLM()
    with openai_server(script) as url:
        judges = make_judges(["offline", f"openai/lenient@{url}"], concurrency=32, max_attempts=1)
        card = score(lines, {sid: sc}, judges)
    assert script.requests, "the LLM judge was never asked"
    return by_model(card.scenarios)


def table(scores: dict[str, float], names: list[str]) -> str:
    return ", ".join(f"{n}={scores[n]:.2f}" for n in names)


def check_partial(scores: dict[str, float]) -> None:
    """Partial agents rise strictly with p and stay below Consultant; three quarters right beats every
    gaming strategy, a quarter right beats the agents with nothing right (a quarter-right agent may
    legitimately sit below a gamer capped at the floor, so the lower ones are not held to that)."""
    got = [scores[n] for n in ADV.PARTIAL]
    assert got == sorted(got) and len(set(got)) == len(got), table(scores, ADV.PARTIAL)
    assert all(x < CORRECT_MIN for x in got), table(scores, ADV.PARTIAL)
    best_gaming = max(scores[n] for n in ADV.GAMING)
    assert got[-1] > best_gaming, f"{table(scores, ADV.PARTIAL)}; best gaming {best_gaming:.2f}"
    nothing = max(scores[n] for n in ("polite_only", "template_echo", "scenario_echo"))
    assert got[0] > nothing, f"{table(scores, ADV.PARTIAL)}; nothing-right agents {nothing:.2f}"
