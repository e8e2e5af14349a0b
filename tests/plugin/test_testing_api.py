"""modylbench.simulator.testing: real meetings (in-process, offline judge) read through MeetingRun/TurnResult, and
assertion helpers whose failures say which facts were expected and what the agent said."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from modylbench.record import SessionFolder
from modylbench.simulator._sessionkey import SessionKey
from modylbench.simulator.testing import (
    Check,
    MeetingRun,
    UnscoredError,
    UserError,
    agent_spec,
    run_meeting,
    run_meeting_async,
)

from .agents_for_tests import chats_margin, crashes, hedges_margin

LBO = "financial_analyst_lbo_model"


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> MeetingRun:
    return run_meeting(LBO, "oracle", turns=3, out=tmp_path_factory.mktemp("oracle"))


@pytest.fixture(scope="module")
def null(tmp_path_factory: pytest.TempPathFactory) -> MeetingRun:
    return run_meeting(LBO, "null", turns=2, out=tmp_path_factory.mktemp("null"), report=False)


def test_oracle_states_every_expected_fact(oracle: MeetingRun) -> None:
    assert oracle.turns_played == 3 and [t.index for t in oracle.turns] == [0, 1, 2]
    for turn in oracle.turns:
        check = turn.stated()
        assert isinstance(check, Check) and check.ok, check
        assert turn.stated_facts == turn.expected_facts and turn.expected_facts
    assert oracle.turn(0).stated("ev_headline")
    assert "180" in oracle.turn(0).said
    assert oracle.score >= 9.0 and oracle.tier == "Consultant"
    assert oracle.turn(2).dimensions["context_accuracy"] == 10.0
    assert oracle.turn(0).latency_ms is not None and oracle.turn(0).latency_ms > 0
    assert oracle.destination is None  # a slice is scored on its journey alone
    assert not oracle.agent_errors


def test_the_result_is_the_scorecard_written_to_the_session_folder(oracle: MeetingRun) -> None:
    files = SessionFolder(oracle.folder)
    written = json.loads(files.scorecard.read_text())
    assert written == json.loads(oracle.scorecard.model_dump_json())
    assert oracle.report.exists() and oracle.folder.parent.name.startswith("oracle")
    assert [t.model_dump() for t in oracle.responses.turns] == [
        json.loads(line) for line in [files.responses.read_text()]
    ][0]["turns"]


def test_facts_stated_agree_with_the_offline_judge(oracle: MeetingRun, null: MeetingRun) -> None:
    # One home: the judge's rationale counts the facts it credited; the accessor must list the same ones.
    for run in (oracle, null):
        for scored, turn in zip(run.card.turns, run.turns, strict=True):
            offline = next(v for v in scored.judges if v.judge == "offline")
            m = re.search(r"facts (\d+)/(\d+)", offline.rationale)
            if m is None:  # "no response": nothing stated
                assert offline.rationale == "no response" and not turn.stated_facts
                continue
            assert (int(m.group(1)), int(m.group(2))) == (len(turn.stated_facts), len(turn.expected_facts))


def test_a_failed_fact_check_says_what_was_expected_and_said(null: MeetingRun) -> None:
    check = null.turn(0).stated("ev_headline")
    assert not check
    # One line for pytest's assertion output: the facts expected, which were stated, what was said.
    assert repr(check) == (
        "FAILED: turn 0 did not state ev_headline (0/2 facts stated: ev_headline ✗, "
        "ltm_margin ✗); said nothing"
    )
    assert "\n" not in repr(check) and len(repr(check)) < 240  # pytest cuts reprs longer than 240 characters
    assert "ev_headline (Enterprise value at 12.0x LTM adjusted EBITDA: 180 $M): NOT stated" in check.detail
    assert "the agent said: (nothing)" in check.detail
    with pytest.raises(AssertionError) as info:
        check.expect()
    assert str(info.value) == check.message + "\n" + check.detail
    assert null.turn(0).flags == ["no_response", "hard_floor"]
    assert null.where("no_response") == ["turn 0", "turn 1"]
    assert "no_response" in null.flags and "max_turns" in null.flags
    assert null.score < 2.0 and null.tier == "Below Peer"


def test_a_partial_statement_lists_what_was_and_was_not_stated(tmp_path: Path) -> None:
    run = run_meeting(LBO, chats_margin, turns=1, out=tmp_path, report=False)
    both = run.turn(0).stated("ev_headline", "ltm_margin")
    assert not both
    assert both.message == (
        "turn 0 did not state ev_headline (1/2 facts stated: ev_headline ✗, ltm_margin ✓); "
        "said nothing, chat 'The EBITDA margin is 30%.'"
    )
    assert repr(run.turn(0).stated("ltm_margin")).startswith("passed: turn 0 stated ltm_margin")


def test_reprs_are_one_line_and_str_tells_the_whole_meeting(null: MeetingRun) -> None:
    assert repr(null) == (
        f"MeetingRun({LBO} × null over inproc: max_turns after 2 turns, score 1.00 Below Peer)"
    )
    assert repr(null.turn(1)) == "Turn(1: score 1.00, facts 0/3, flags no_response,hard_floor, said nothing)"
    text = str(null)
    assert "flags on turn 0: no_response, hard_floor" in text and str(null.folder) in text
    assert "context_accuracy 1.0" in text and "said: (nothing)" in text
    assert "fact revenue_per_customer (Average LTM revenue per customer: 35.7143 $K): NOT stated" in text


def test_mistakes_name_what_there_is(null: MeetingRun) -> None:
    with pytest.raises(
        IndexError, match=r"turn 5 was not played: the meeting played turns 0–1 \(termination: max_turns\)"
    ):
        null.turn(5)
    with pytest.raises(
        KeyError, match="turn 0 expects no fact 'senior_initial'; its facts: ev_headline, ltm_margin"
    ):
        null.turn(0).stated("senior_initial")
    with pytest.raises(KeyError, match="turn 0 has no dimension 'accuracy'; it has context_accuracy"):
        null.turn(0).dimensions["accuracy"]
    with pytest.raises(KeyError, match="a slice has none"):
        null.product("lbo_model")


def test_a_py_agent_given_as_a_function_runs_in_process(tmp_path: Path) -> None:
    assert agent_spec(chats_margin) == f"py:{chats_margin.__module__}:chats_margin"
    run = run_meeting(LBO, chats_margin, turns=1, out=tmp_path, report=False, agent_name="margin-bot")
    turn = run.turn(0)
    assert turn.said == "" and turn.chat == ["The EBITDA margin is 30%."]
    assert turn.stated("ltm_margin") and not turn.stated("ev_headline")
    assert turn.stated_facts == ["ltm_margin"]
    # Named as run names it: the agent's name and a hash of its spec (a py: function is not a built-in).
    key = SessionKey(LBO, agent_spec(chats_margin), "margin-bot", "inproc", 1, 0, 0)
    assert run.card.model_id == "margin-bot" and run.folder.name == key.name
    assert key.name.startswith(f"{LBO}__margin-bot-") and key.name.endswith("__inproc__turns1__seed0__t0")
    # A second run into the same folder gets a folder of its own.
    again = run_meeting(LBO, chats_margin, turns=1, out=tmp_path, report=False, agent_name="margin-bot")
    assert again.folder.name == f"{key.name}__2"


def test_a_crashing_agent_is_reported_with_its_error(tmp_path: Path) -> None:
    run = run_meeting(LBO, crashes, turns=2, out=tmp_path, report=False)
    assert run.agent_errors, run
    err = run.agent_errors[0]
    assert err.kind == "crash" and "ValueError: model returned nonsense" in err.message
    assert "agent_error" in run.flags
    assert "agent_error crash: the agent raised ValueError: model returned nonsense" in str(run)
    assert repr(run).endswith("1 agent error)")


def test_an_unscored_score_fails_the_assertion_with_its_reason(oracle: MeetingRun) -> None:
    card = oracle.card.model_copy(update={"modylbench_score": None, "unscored": ["judge outage"]})
    broken = oracle.scorecard.model_copy(update={"scenarios": [card]})
    unscored = MeetingRun(
        folder=oracle.folder,
        agent="oracle",
        transport="inproc",
        meeting=oracle.meeting,
        scenario=oracle.scenario,
        responses=oracle.responses,
        scorecard=broken,
    )
    with pytest.raises(UnscoredError, match="has no score \\(judge outage\\)"):
        assert unscored.score >= 7.5


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"scenario": "no_such_scenario", "agent": "oracle"}, "unknown scenario 'no_such_scenario'"),
        ({"scenario": LBO, "agent": "wizard"}, "unknown agent 'wizard'"),
        ({"scenario": LBO, "agent": "py:no_such_module_xyz:run"}, "no module named 'no_such_module_xyz'"),
        ({"scenario": LBO, "agent": "oracle", "transport": "carrier-pigeon"}, "transport 'carrier-pigeon'"),
        ({"scenario": LBO, "agent": "cmd:true", "transport": "inproc"}, "joins over WebRTC"),
    ],
)
def test_user_mistakes_are_one_line_errors(tmp_path: Path, kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(UserError, match=re.escape(message)) as info:
        run_meeting(**kwargs, out=tmp_path, turns=1)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)


def test_a_local_function_is_refused_with_the_reason() -> None:
    async def inner(client: object) -> None:
        return None

    with pytest.raises(UserError, match="module-level async function"):
        agent_spec(inner)


async def test_async_tests_await_the_async_form(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="await run_meeting_async"):
        run_meeting(LBO, "oracle", turns=1, out=tmp_path)
    run = await run_meeting_async(LBO, "oracle", turns=1, out=tmp_path, report=False)
    assert run.turn(0).stated("ev_headline", "ltm_margin")


def test_mutations_are_the_agents_edits_turn_by_turn(tmp_path: Path) -> None:
    run = run_meeting("business_strategist_telehealth_entry", "oracle", turns=6, out=tmp_path, report=False)
    assert run.mutations, run
    assert run.mutations == run.responses.mutation_trajectory
    assert sum(len(t.mutations) for t in run.turns) == len(run.mutations)
    edited = run.turn(5).mutations
    assert edited and {m.turn_index for m in edited} == {5}
    assert any(m.path == "/inputs/vietnam" for m in edited)
    assert "market_model" in run.products


@pytest.mark.slow
@pytest.mark.parametrize("form", ["py", "cmd"])
def test_an_agent_over_webrtc(tmp_path: Path, form: str) -> None:
    # Real peers over loopback in real time: a one-turn slice takes about half a minute of persona speech.
    agent = (
        chats_margin if form == "py" else f"cmd:{sys.executable} {Path(__file__).with_name('cmd_agent.py')}"
    )
    run = run_meeting(LBO, agent, turns=1, transport="webrtc", out=tmp_path, report=False)
    assert run.termination_reason == "max_turns" and not run.agent_errors, run
    assert run.turn(0).chat == ["The EBITDA margin is 30%."] and run.turn(0).stated("ltm_margin")
    assert run.scorecard.scenarios[0].turns[0].score is not None


def test_a_hedged_figure_counts_unless_firmness_is_asked_for(tmp_path: Path) -> None:
    turn = run_meeting(LBO, hedges_margin, turns=1, out=tmp_path, report=False).turn(0)
    assert turn.fact("ltm_margin").hedged and "hedged" in turn.flags
    assert turn.stated("ltm_margin")
    firm = turn.stated("ltm_margin", hedged_ok=False)
    assert not firm and firm.message.startswith("turn 0 did not state ltm_margin firmly (1/2 facts stated: ")
    assert "ltm_margin ✓ hedged" in firm.message
    assert "ltm_margin (LTM adjusted EBITDA margin: 30 %): stated, hedged" in firm.detail
