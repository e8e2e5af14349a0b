"""The ``realtime`` agent in meetings against a local server that speaks the OpenAI Realtime event protocol."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pytest

from modylbench.agents import AGENTS, make_agent
from modylbench.channels import LinkOptions
from modylbench.record import ModelSpecError, products_json, read_record, rebuild_doc
from modylbench.scenarios import Scenario, load_builtin
from modylbench.simulator import MeetingOptions, RunSpec, run_one, score_session
from tests.agents._realtime_server import BETA_NAMES, RealtimeServer

SCENARIO: Scenario = load_builtin(only=["business_strategist_telehealth_entry"])[0]
TURNS = 3


def _plan() -> tuple[dict[int, list[tuple[str, Any]]], Any]:
    """Turn 1: an edit (a row the scenario expects later) and a chat line; turn 2: an edit the agent must refuse."""
    row = next(m for m in SCENARIO.expected_mutations if m.mutation_type == "add_row")
    plan: dict[int, list[tuple[str, Any]]] = {
        1: [
            (
                "edit_product",
                {"product_id": row.product_id, "pointer": row.path, "value_json": json.dumps(row.value)},
            ),
            ("chat", {"text": "Noted: Indonesia first, inputs going into the market model now."}),
        ],
        2: [
            ("edit_product", '{"product_id": "market_model", "pointer": "/x", "value_json": "not json"}'),
            ("no_such_tool", {}),
        ],
    }
    return plan, row


def _run(
    tmp_path: Path, base_url: str, turns: int = TURNS, transport: str = "inproc", captions: bool = True
) -> Any:
    spec = RunSpec(
        SCENARIO,
        f"realtime/test-rt@{base_url}",
        tmp_path / "s",
        transport=transport,
        meeting=MeetingOptions(turns=turns),
        link=LinkOptions(captions=captions),
    )
    return asyncio.run(run_one(spec))


def _check_meeting(tmp_path: Path, server: RealtimeServer, row: Any, turns: int = TURNS) -> None:
    seen = server.seen
    events = read_record(tmp_path / "s").events
    # One session, opened at /v1/realtime with the model named, configured for 24 kHz pcm16 and the tools.
    assert seen.paths == ["/v1/realtime?model=test-rt"]
    session = seen.sessions[-1]
    assert session["type"] == "realtime" and session["audio"]["input"]["format"] == {
        "type": "audio/pcm",
        "rate": 24000,
    }
    assert session["audio"]["input"]["turn_detection"] is None
    assert {t["name"] for t in session["tools"]} == {"chat", "edit_product"}
    assert SCENARIO.meeting_goal[:60] in session["instructions"] and "market_model" in session["instructions"]
    # The persona's speech reached the model at 24 kHz: each commit lasts about as long as the utterance.
    spoken = [e for e in events if e.event == "persona_utterance"]
    assert len(seen.commits) == len(spoken) == turns
    for commit, utterance in zip(seen.commits, spoken, strict=True):
        duration = utterance.end - utterance.start
        assert 0.9 * duration <= commit.seconds <= duration + 2.0, (commit.seconds, duration)
        assert commit.rms > 300  # voiced, not silence
    # The file pushed in the slice reached the model as text.
    assert any("[file " in t for c in seen.commits for t in c.texts), [c.texts for c in seen.commits]
    # Every turn answered out loud, with the model's transcript, then done.
    for turn in range(turns):
        said = [e for e in events if e.event == "agent_speech" and e.turn_index == turn]
        assert said and said[0].transcript == SCENARIO.turns[turn].reference_response
        assert said[0].offset - said[0].onset > 1.0 and said[0].audio is not None
        assert any(e.event == "agent_done" and e.turn_index == turn for e in events)
    # The tool calls: the edit is in the shared document, the chat in the record, errors went back to the model.
    outputs = [o["output"] for o in seen.outputs]
    assert outputs[:2] == ["ok", "ok"]
    if turns >= 3:
        assert outputs[2].startswith("error") and "no_such_tool" in outputs[3]
    assert seen.responses == [0, 1, 1, 2, 2][: 2 * turns - 1]
    assert any(e.event == "chat_message" and e.sender == "agent" and "Indonesia" in e.text for e in events)
    content = products_json(rebuild_doc(events))[row.product_id]["content"]
    for token in row.path.strip("/").split("/"):
        content = content[token]
    assert content == row.value
    assert (
        next(e for e in events if e.event == "session_end").termination_reason == "max_turns"
    )  # the slice ran out


def test_realtime_agent_answers_a_meeting_slice_in_process(tmp_path: Path) -> None:
    plan, row = _plan()
    server = RealtimeServer(SCENARIO, plan)
    with server as base_url:
        result = _run(tmp_path, base_url)
    assert result.termination_reason == "max_turns"
    _check_meeting(tmp_path, server, row)
    card = score_session(tmp_path / "s", {SCENARIO.scenario_id: SCENARIO}, ["offline"])
    entry = card.scenarios[0]
    assert entry.modylbench_score is not None
    assert all(t.score is not None for t in entry.turns)


@pytest.mark.slow
def test_realtime_agent_over_webrtc(tmp_path: Path) -> None:
    """Two turns over loopback WebRTC in real time (about two minutes): Opus both ways, the wall clock."""
    plan, row = _plan()
    server = RealtimeServer(SCENARIO, plan)
    with server as base_url:
        result = _run(tmp_path, base_url, turns=2, transport="webrtc")
    assert result.termination_reason == "max_turns"
    _check_meeting(tmp_path, server, row, turns=2)


def test_beta_event_names_and_no_captions(tmp_path: Path) -> None:
    """A server that sends the beta names (response.audio.delta, response.audio_transcript.done), in a meeting
    without captions: the agent's own voice detector says when the persona has finished."""
    server = RealtimeServer(SCENARIO, names=BETA_NAMES)
    with server as base_url:
        result = _run(tmp_path, base_url, turns=1, captions=False)
    assert result.termination_reason == "max_turns"
    events = read_record(tmp_path / "s").events
    utterance = next(e for e in events if e.event == "persona_utterance")
    assert not utterance.captioned and len(server.seen.commits) == 1
    assert server.seen.commits[0].seconds >= 0.9 * (utterance.end - utterance.start)
    said = [e for e in events if e.event == "agent_speech"]
    assert said and said[0].transcript == SCENARIO.turns[0].reference_response
    assert said[0].onset >= utterance.end  # it waited for the persona to finish
    assert any(e.event == "agent_done" for e in events)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_unreachable_server_is_an_agent_error_not_a_hang(tmp_path: Path) -> None:
    result = _run(tmp_path, f"http://127.0.0.1:{_closed_port()}/v1", turns=1)
    assert result.termination_reason == "max_turns"
    events = read_record(tmp_path / "s").events
    errors = [e for e in events if e.event == "agent_error"]
    assert (
        errors and errors[0].kind == "model_error" and "cannot open a realtime session" in errors[0].message
    )
    assert any(e.event == "agent_done" for e in events)  # the turn was given up, not left to its budget
    assert not [e for e in events if e.event == "agent_speech"]


def test_server_errors_are_recorded_and_the_turn_ends(tmp_path: Path) -> None:
    server = RealtimeServer(SCENARIO, refuse_responses=True)
    with server as base_url:
        _run(tmp_path, base_url, turns=1)
    events = read_record(tmp_path / "s").events
    errors = [e for e in events if e.event == "agent_error"]
    assert errors and "the model is unavailable" in errors[0].message
    assert server.seen.responses == [0] and any(e.event == "agent_done" for e in events)


def test_realtime_agent_names() -> None:
    assert "realtime" in AGENTS
    agent = make_agent("realtime/my-model@http://127.0.0.1:8000/v1", SCENARIO)
    assert agent.url == "ws://127.0.0.1:8000/v1/realtime?model=my-model"  # type: ignore[attr-defined]
    assert make_agent("realtime@wss://host/openai?api-version=1", SCENARIO).url.startswith(  # type: ignore[attr-defined]
        "wss://host/openai/realtime?api-version=1&model="
    )
    with pytest.raises(ModelSpecError, match="ftp://x"):
        make_agent("realtime/m@ftp://x", SCENARIO)
    with pytest.raises(ModelSpecError, match="no model name"):
        make_agent("realtime/", SCENARIO)


def test_a_delta_past_the_message_bound_ends_the_session_not_the_meeting(tmp_path: Path) -> None:
    # 2 MB deltas: within the old 8 MiB bound (each one decoded and resampled on the meeting's loop), past 1 MiB.
    server = RealtimeServer(SCENARIO, flood=(2_000_000, 3))
    with server as base_url:
        result = _run(tmp_path, base_url, turns=1)
    assert result.termination_reason == "max_turns"
    events = read_record(tmp_path / "s").events
    errors = [e.message for e in events if e.event == "agent_error"]
    assert any("1009" in m and "message too big" in m for m in errors), errors
    assert not [e for e in events if e.event == "agent_speech" and e.offset - e.onset > 1.0]
    assert any(e.event == "agent_done" for e in events)


def test_a_response_s_audio_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import modylbench.agents._realtime as rt

    # Each delta ~10 s of audio (within the message bound); 8 of them against a 30 s bound for the test.
    monkeypatch.setattr(rt, "MAX_RESPONSE_AUDIO_S", 30.0)
    server = RealtimeServer(SCENARIO, flood=(640_000, 8))
    with server as base_url:
        result = _run(tmp_path, base_url, turns=1)
    assert result.termination_reason == "max_turns"
    events = read_record(tmp_path / "s").events
    refused = [e for e in events if e.event == "agent_error" and "passed 30 s" in e.message]
    assert len(refused) == 1  # once per response, not once per delta
    spoken = sum(e.offset - e.onset for e in events if e.event == "agent_speech")
    assert 25.0 <= spoken <= 31.0, spoken
