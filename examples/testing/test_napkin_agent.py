"""Tests of napkin_agent.py with ModylBench's pytest plugin: play the first turns of a meeting with the agent and
assert on what it stated and how each turn scored. Run ``pytest`` from this folder."""

from __future__ import annotations

import pytest

from modylbench.simulator.testing import MeetingRun, Meetings, run_meeting

SCENARIO = "financial_analyst_lbo_model"
AGENT = "py:napkin_agent:run"  # async def run(client) in napkin_agent.py


def test_gives_the_headline_price(meeting: Meetings) -> None:
    result = meeting.run(SCENARIO, agent=AGENT, turns=1, transport="inproc")
    assert result.turn(0).stated("ev_headline", "ltm_margin")
    assert result.turn(0).dimensions["context_accuracy"] >= 9
    assert not result.agent_errors


@pytest.fixture(scope="module")
def first_turns(tmp_path_factory: pytest.TempPathFactory) -> MeetingRun:
    """One three-turn meeting shared by the tests below (``run_meeting`` is the fixture's function)."""
    return run_meeting(SCENARIO, AGENT, turns=3, out=tmp_path_factory.mktemp("meetings"))


def test_sizes_the_financing(first_turns: MeetingRun) -> None:
    turn = first_turns.turn(2)
    assert turn.stated("senior_initial", "junior", "equity_initial", "equity_pct_initial")
    assert "$82.5M" in turn.said
    assert turn.latency_ms is not None and turn.latency_ms < 5000


def test_answers_every_turn(first_turns: MeetingRun) -> None:
    assert first_turns.turns_played == 3
    assert all(turn.said for turn in first_turns.turns)
    assert "no_response" not in first_turns.flags
    assert first_turns.score >= 6.0  # Peer: turn 1 holds it back (below)


@pytest.mark.xfail(strict=True, reason="the napkin agent does not ask for the debt terms yet")
def test_asks_for_the_debt_terms(first_turns: MeetingRun) -> None:
    assert first_turns.turn(1).stated("ask_debt_terms")
