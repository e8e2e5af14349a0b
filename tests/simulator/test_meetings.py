"""Whole meetings: the built-in agents over the in-process transport, replay, disconnects, WebRTC."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from modylbench.agents import BuiltinAgent
from modylbench.record import read_record
from modylbench.scenarios import load_builtin, load_path, resolve_scenarios
from modylbench.simulator import MeetingOptions, RunSpec, run_one, score_session
from modylbench.simulator.cli import exit_code

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"
SCENARIOS = {s.scenario_id: s for s in load_builtin()}
GAMERS = ["null", "polite", "verbose", "injector", "final-dump"]


def _run(scenario_id: str, agent: str, folder: Path, turns: int | None = None, **kw: Any) -> Any:
    scenarios = {**SCENARIOS, **{s.scenario_id: s for s in load_path(MINI)}}
    spec = RunSpec(scenarios[scenario_id], agent, folder, meeting=MeetingOptions(turns=turns), **kw)
    result = asyncio.run(run_one(spec))
    card = score_session(folder, scenarios, ["offline"])
    return result, card.scenarios[0]


def _unchanged_writes(sc: Any) -> int:
    """Expected edits that write, at a leaf, the value already there (the template's or an earlier edit's)."""
    import copy

    from modylbench.scenarios import apply_mutation, leaves, resolve

    contents: dict[str, Any] = {p.product_id: copy.deepcopy(p.initial_content) for p in sc.products}
    n = 0
    for m in sc.expected_mutations:
        value = m.value if m.value is not None else m.expected_value
        if m.mutation_type == "create":
            if any(isinstance(v, int | float) for _p, v in leaves(value)):
                apply_mutation(contents, m)  # a create with figures writes the product whole
            continue  # a bare create leaves the persona's template in place (the oracle fills it)
        if m.product_id in contents:
            before = resolve(contents[m.product_id], m.path, None)
            n += before is not None and not isinstance(before, dict | list) and before == value
        apply_mutation(contents, m)
    return n


@pytest.mark.parametrize("scenario_id", list(SCENARIOS))
def test_oracle_reaches_consultant_over_inproc(scenario_id: str, tmp_path: Path) -> None:
    result, entry = _run(scenario_id, "oracle", tmp_path / "s")
    assert result.termination_reason == "completed"
    assert result.turns_played == len(SCENARIOS[scenario_id].turns)
    assert entry.modylbench_score is not None and entry.modylbench_score >= 9.0, entry.flags
    assert entry.tier == "Consultant"
    # The oracle's trajectory, derived from its Yjs edits, matches the scenario's expected mutations,
    # except the creates of products the persona set up from their templates before turn 0 (the oracle
    # fills those in instead of replacing them) and edits that write the value a part already holds
    # (no change, so no mutation).
    expected = SCENARIOS[scenario_id].expected_mutations
    templated = sum(1 for m in expected if m.mutation_type == "create")
    unchanged = _unchanged_writes(SCENARIOS[scenario_id])
    assert entry.mutation_metrics.missing <= templated + unchanged
    assert entry.mutation_metrics.correct >= len(expected) - templated - unchanged
    manifest = json.loads((tmp_path / "s" / "manifest.json").read_text())
    assert manifest["complete"] and manifest["media"]["audio_frames_late_20ms"] == 0


# Gaming agents played live. The scorer's verdict on every gaming strategy in every scenario is proven at
# the responses level (tests/scoring/test_antigaming.py, test_adversarial.py); what the meeting path adds
# is that the record and the trajectory derived from it keep that verdict. So each gaming agent plays one
# whole meeting (a different scenario each), and every (scenario, agent) pair plays the opening slice of
# its scenario: context setting, every channel, the first edits. Thirty whole meetings proved no more.
FULL_GAMING = dict(zip(GAMERS, SCENARIOS, strict=False))
"""Gaming agent -> the scenario it plays whole."""
SLICE = 10
"""Turns of the opening slice: past the first active-work turns and their edits in every scenario."""


def _gaming_cases() -> list[Any]:
    cases = [pytest.param(sid, agent, None, id=f"{sid}-{agent}-whole") for agent, sid in FULL_GAMING.items()]
    cases += [
        pytest.param(sid, agent, SLICE, id=f"{sid}-{agent}-slice{SLICE}")
        for sid in SCENARIOS
        for agent in GAMERS
        if FULL_GAMING[agent] != sid
    ]
    return cases


def test_every_gaming_agent_plays_a_whole_meeting() -> None:
    assert set(FULL_GAMING) == set(GAMERS) and len(set(FULL_GAMING.values())) == len(GAMERS)


@pytest.mark.parametrize(("scenario_id", "agent", "turns"), _gaming_cases())
def test_gaming_agents_stay_below_peer(
    scenario_id: str, agent: str, turns: int | None, tmp_path: Path
) -> None:
    result, entry = _run(scenario_id, agent, tmp_path / "s", turns=turns)
    played = len(SCENARIOS[scenario_id].turns) if turns is None else turns
    assert result.termination_reason == ("completed" if turns is None else "max_turns")
    assert result.turns_played == played
    assert entry.modylbench_score is not None and entry.modylbench_score < 6.0
    if agent == "final-dump":
        # One late burst: every agent edit lands in the last turn played.
        resp = json.loads((tmp_path / "s" / "responses.jsonl").read_text())
        edited = {m["turn_index"] for m in resp["mutation_trajectory"]}
        assert edited == {played - 1}
        if turns is None:  # a slice scores no product (the meeting ended early), so no product flag either
            assert any("no_trajectory_evidence" in p.flags for p in entry.products)


def test_replay_reproduces_the_scorecard_and_refuses_tampering(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "s"
    _run("financial_analyst_lbo_model", "oracle", folder, turns=10)
    code = exit_code(["replay", str(folder)])
    err = capsys.readouterr().err
    assert code == 0 and "matches the scorecard the run wrote" in err
    assert json.loads((folder / "replay-scorecard.json").read_text()) == json.loads((folder / "scorecard.json").read_text())
    tampered = tmp_path / "t"
    shutil.copytree(folder, tampered)
    data = bytearray((tampered / "record.jsonl").read_bytes())
    data[len(data) // 2] ^= 0x01
    (tampered / "record.jsonl").write_bytes(bytes(data))
    code = exit_code(["replay", str(tampered)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: record refused: record.jsonl:")
    assert "Traceback" not in err


def test_a_record_cut_anywhere_replays_up_to_the_cut(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    _run("financial_analyst_lbo_model", "oracle", folder, turns=4)
    data = (folder / "record.jsonl").read_bytes()
    full = read_record(folder).events
    cut_dir = tmp_path / "cut"
    shutil.copytree(folder, cut_dir)
    for cut in range(len(data) // 7, len(data), max(1, len(data) // 9)):
        (cut_dir / "record.jsonl").write_bytes(data[:cut])
        read = read_record(cut_dir)
        assert read.events == full[: len(read.events)]
        assert read.truncated == (data[cut - 1 : cut] != b"\n")
        assert len(read.events) < len(full)
        card = score_session(cut_dir, SCENARIOS, ["offline"], write=False)
        assert card.scenarios[0].termination_reason in ("interrupted", "max_turns")


class LeavesAfterTwoTurns(BuiltinAgent):
    """Answers two turns like the oracle would, then its process 'dies'."""

    name = "quitter"

    async def respond(self, turn_index: int) -> None:
        assert self.client is not None
        if turn_index >= 2:
            await self.client.leave()
            return
        await self.say(self.scenario.turns[turn_index].reference_response)
        await self.client.done(turn_index)


def test_agent_disconnect_leaves_a_complete_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from modylbench.agents import _reference

    monkeypatch.setitem(_reference.AGENTS, "quitter", LeavesAfterTwoTurns)
    folder = tmp_path / "s"
    result, entry = _run("financial_analyst_lbo_model", "quitter", folder)
    assert result.termination_reason == "agent_disconnected"
    assert 2 <= result.turns_played < 52
    events = read_record(folder).events
    assert events[-1].event == "session_end" and events[-1].termination_reason == "agent_disconnected"
    assert any(e.event == "disconnect" and e.participant == "agent" for e in events)
    assert "agent_disconnected" in entry.flags
    assert json.loads((folder / "manifest.json").read_text())["termination_reason"] == "agent_disconnected"


def test_run_command_slice_and_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs"
    args = ["run", "financial_analyst_lbo_model", "--agent", "oracle", "--agent", "polite", "--transport", "inproc",
            "--turns", "3", "--out", str(out)]
    assert exit_code(args) == 0
    captured = capsys.readouterr()
    card = json.loads((out / "scorecard.json").read_text())
    scores = {e["model_id"]: e["modylbench_score"] for e in card["scenarios"]}
    assert scores["oracle"] >= 9.0 and scores["polite"] < 6.0
    assert "max_turns" in card["scenarios"][0]["flags"]
    assert "scorecard:" in captured.out
    assert exit_code(args) == 0
    assert "already complete" in capsys.readouterr().err


def test_unknown_agent_and_scenario_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code(["run", "nope", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown scenario 'nope'") and err.count("\n") == 1
    assert all(sid in err for sid in SCENARIOS), err  # the ids there are, though none was built
    assert exit_code(["run", "financial_analyst_lbo_modle", "--out", str(tmp_path)]) == 2
    assert "did you mean 'financial_analyst_lbo_model'?" in capsys.readouterr().err
    assert exit_code(["run", "financial_analyst_lbo_model", "--agent", "wizard", "--transport", "inproc",
                 "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "unknown agent 'wizard'" in err and "oracle" in err and "'cmd:COMMAND'" in err
    assert err.count("\n") == 1 and len(err) < 260, (len(err), err)  # one line a person reads, not 600 characters
    assert exit_code(["run", "financial_analyst_lbo_model", "--agent", "oracel", "--out", str(tmp_path)]) == 2
    assert "did you mean 'oracle'?" in capsys.readouterr().err
    assert exit_code(["replay", str(tmp_path / "missing")]) == 2


def test_meeting_over_real_webrtc(tmp_path: Path) -> None:
    """Two real aiortc peers on loopback, the mini scenario, in real time."""
    folder = tmp_path / "s"
    result, entry = _run("mini_fixture", "oracle", folder, transport="webrtc")
    assert result.termination_reason == "completed"
    assert result.media["audio_frames_sent"] > 100
    # Zero late frames is the target the benchmark measures on a quiet machine
    # (benchmarks/bench_simulator.py); a test on a shared CI machine only rules out a systematic lag
    # (pacing that falls behind makes most frames late, not a few).
    assert result.media["audio_frames_late_20ms"] < result.media["audio_frames_sent"] // 10
    events = read_record(folder).events
    speech = [e for e in events if e.event == "agent_speech" and e.onset < e.offset]
    assert speech, "the agent's voice was not detected on its audio track"
    kinds = {e.event for e in events}
    assert {"persona_utterance", "screen_frame", "file_transfer", "chat_message", "doc_update"} <= kinds
    assert entry.modylbench_score is not None and entry.modylbench_score >= 9.0


def test_resolve_scenarios_has_every_builtin() -> None:
    from modylbench.scenarios.builtin import BUILTIN_IDS

    assert list(resolve_scenarios()) == list(BUILTIN_IDS)


def test_concurrent_webrtc_sessions_run_in_their_own_processes(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """--concurrency over WebRTC: each session in a worker process (SessionWorkers), all recorded and scored."""
    out = tmp_path / "runs"
    args = ["run", "mini_fixture", "--scenarios", str(MINI), "--agent", "oracle", "--agent", "polite",
            "--transport", "webrtc", "--concurrency", "2", "--out", str(out)]
    assert exit_code(args) == 0
    err = capsys.readouterr().err
    card = json.loads((out / "scorecard.json").read_text())
    scores = {e["model_id"]: e["modylbench_score"] for e in card["scenarios"]}
    assert scores["oracle"] >= 9.0 and scores["polite"] < scores["oracle"]
    for agent in ("oracle", "polite"):
        manifest = json.loads((out / f"mini_fixture__{agent}__webrtc__all__seed0__t0" / "manifest.json").read_text())
        assert manifest["complete"] and manifest["transport"] == "webrtc"
        assert manifest["media"]["audio_frames_sent"] > 50
        assert f"mini_fixture × {agent}: completed, 4 turns" in err


class LeavesWhileThePersonaSpeaks(BuiltinAgent):
    """Hangs up as soon as the persona starts its second line (its caption arrives with the first audio frame)."""

    name = "hangs-up"

    async def run(self, client: Any) -> None:
        from modylbench.agents import CaptionReceived, TurnEnded

        async for ev in client.events():
            if isinstance(ev, TurnEnded) and ev.turn_index == 0:
                await client.done(0)  # the first turn closes at once
            if isinstance(ev, CaptionReceived) and ev.utterance_id == "u1":
                await client.leave()
                return


@pytest.mark.slow
def test_an_agent_hanging_up_mid_speech_ends_the_meeting_at_once(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Over WebRTC nobody pulls the persona's audio track once the agent has gone: the speech it was playing
    must end then, not at the meeting's timeout."""
    from modylbench.agents import _reference

    monkeypatch.setitem(_reference.AGENTS, "hangs-up", LeavesWhileThePersonaSpeaks)
    folder = tmp_path / "s"
    result, _ = _run("financial_analyst_lbo_model", "hangs-up", folder, turns=3, transport="webrtc")
    assert result.termination_reason == "agent_disconnected"
    events = read_record(folder).events
    line = next(e for e in events if e.event == "persona_utterance" and e.turn_index == 1)
    end = events[-1]
    assert end.event == "session_end"
    # The line was cut where the agent left, well before its scripted length was over.
    assert line.end - line.start < 0.9 * len(line.text.split()) / 2.5
    assert end.meeting_time < line.start + 30
