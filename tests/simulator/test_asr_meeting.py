"""--asr in a meeting and in replay, against a real local transcription server (multipart, HTTP)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from modylbench.record import (
    AgentSpeech,
    AgentSpeechRecognised,
    AgentSpeechUnrecognised,
    SessionFolder,
    read_recognition,
    read_record,
)
from modylbench.scenarios import load_builtin
from modylbench.simulator import MeetingOptions, RunSpec, run_one, score_session
from modylbench.simulator.cli import cli, exit_code

from ..scoring.transcription_server import Fault, Transcriber, transcription_server

SCENARIOS = {s.scenario_id: s for s in load_builtin()}
LBO = SCENARIOS["financial_analyst_lbo_model"]


def _meeting(folder: Path, asr: str | None) -> list[Any]:
    asyncio.run(run_one(RunSpec(LBO, "oracle", folder, meeting=MeetingOptions(turns=2, asr=asr))))
    return read_record(folder).events  # verifies the chain


def _segments(events: list[Any]) -> list[AgentSpeech]:
    return [e for e in events if isinstance(e, AgentSpeech)]


def test_each_segment_is_recognised_and_what_was_heard_is_what_counts(tmp_path: Path) -> None:
    t = Transcriber(default_text="we will model the debt schedule")
    with transcription_server(t) as url:
        events = _meeting(tmp_path, f"openai/asr-heard@{url}")
    segs = _segments(events)
    voiced = [(i, s) for i, s in enumerate(segs) if s.audio is not None]
    heard = [e for e in events if isinstance(e, AgentSpeechRecognised)]
    assert voiced and len(heard) == len(voiced)
    assert {(h.segment, h.audio_sha256) for h in heard} == {(i, s.audio.sha256) for i, s in voiced if s.audio}
    assert sorted(r["sha256"] for r in t.requests) == sorted(s.audio.sha256 for _, s in voiced if s.audio)
    card = score_session(tmp_path, SCENARIOS, ["offline"])
    resp = json.loads(SessionFolder(tmp_path).responses.read_text())
    for turn, m in zip(resp["turns"], resp["measurements"]["turns"], strict=True):
        if m["agent_talk_time_s"] > 0:
            assert m["speech_source"] == "recognised"
            assert set(turn["agent_response"].split()) <= set("we will model the debt schedule".split())
            assert "transcript_mismatch" in m["speech_flags"]  # the oracle said something else
    sp = card.scenarios[0].speech
    assert sp is not None and sp.recognition and sp.recognised_s == sp.voiced_s > 0 and sp.unrecognised_s == 0
    assert "transcript_mismatch" in card.scenarios[0].turns[0].flags
    assert json.loads(SessionFolder(tmp_path).manifest.read_text())["asr"].startswith("openai/asr-heard@")


def test_a_failing_server_never_stops_the_meeting(tmp_path: Path) -> None:
    # 429 with Retry-After 0: retried at once as the judge would, then unrecognised; after three segments in
    # a row the recogniser stops asking.
    t = Transcriber(always=Fault(429, headers={"retry-after": "0"}))
    with transcription_server(t) as url:
        events = _meeting(tmp_path, f"openai/asr-down@{url}")
    failed = [e for e in events if isinstance(e, AgentSpeechUnrecognised)]
    assert failed and not any(isinstance(e, AgentSpeechRecognised) for e in events)
    assert any("HTTP 429 (after 4 attempts)" in e.reason for e in failed)
    assert events[-1].termination_reason == "max_turns"
    card = score_session(tmp_path, SCENARIOS, ["offline"])
    s = card.scenarios[0]
    assert s.speech is not None and s.speech.unrecognised_s == s.speech.voiced_s > 0
    assert "speech_unrecognised" in s.flags
    assert s.modylbench_score is not None and s.modylbench_score > 9.0  # fell back to the (honest) transcripts


def test_replay_adds_recognition_beside_the_sealed_record(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    events = _meeting(folder, None)
    record_before = SessionFolder(folder).record.read_bytes()
    voiced = [s for s in _segments(events) if s.audio is not None]
    t = Transcriber(default_text="the purchase price is twelve times EBITDA")
    with transcription_server(t) as url:
        out = CliRunner().invoke(cli, ["replay", str(folder), "--asr", f"openai/asr-replay@{url}"])
        assert out.exit_code == 0, out.output
        assert f"{len(voiced)} of {len(_segments(events))} segments asked, {len(voiced)} recognised" in out.output
        again = CliRunner().invoke(cli, ["replay", str(folder), "--asr", f"openai/asr-replay@{url}"])
        assert again.exit_code == 0 and "0 of" in again.output  # nothing left to recognise
    assert SessionFolder(folder).record.read_bytes() == record_before
    assert len(t.requests) == len(voiced)
    assert len(read_recognition(folder)) == len(voiced)
    card = json.loads(SessionFolder(folder).replay_scorecard.read_text())
    assert card["scenarios"][0]["speech"]["recognition"] is True
    resp = json.loads(SessionFolder(folder).responses.read_text())
    assert "twelve times EBITDA" in resp["turns"][0]["agent_response"]


def test_a_bad_asr_spec_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["run", "financial_analyst_lbo_model", "--transport", "inproc", "--asr", "whisper/x", "--out", str(tmp_path)]
    assert exit_code(argv) == 2
    err = capsys.readouterr().err
    assert "unknown provider 'whisper'" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
