"""Lone UTF-16 surrogates from outside never reach the record, a hash or a report (issue 14, item 1)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from modylbench.agents import BuiltinAgent
from modylbench.record import GENESIS, RecordIntegrityError, read_record, valid_text
from modylbench.record._store import canonical
from modylbench.scenarios import load_path
from modylbench.simulator import MeetingOptions, RunSpec, run_one, score_session
from modylbench.simulator.cli import exit_code

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"
CORRECT = ROOT / "fixtures" / "responses" / "correct.jsonl"


class SurrogateSender(BuiltinAgent):
    """Sends a transcript and a chat message holding lone surrogates, escaped as any JSON encoder does."""

    name = "surrogates"

    async def respond(self, turn_index: int) -> None:
        assert self.client is not None
        session = self.client.session
        await session._send("control", json.dumps({"type": "transcript", "text": "said \udfff"}))
        await session._send("chat", json.dumps({"type": "chat", "text": "chat \ud800 \ud83d\ude00"}))
        await self.client.done(turn_index)


def test_valid_text_replaces_lone_surrogates_and_joins_pairs() -> None:
    assert valid_text("a\ud800b") == "a\ufffdb"
    assert valid_text("\udfff") == "\ufffd"
    assert valid_text("\ud83d\ude00") == "\U0001f600"
    assert valid_text("plain é") == "plain é"


def test_an_agent_sending_lone_surrogates_is_recorded_not_an_infrastructure_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from modylbench.agents import _reference

    monkeypatch.setitem(_reference.AGENTS, "surrogates", SurrogateSender)
    scenarios = {s.scenario_id: s for s in load_path(MINI)}
    folder = tmp_path / "s"
    result = asyncio.run(run_one(RunSpec(scenarios["mini_fixture"], "surrogates", folder, meeting=MeetingOptions(turns=1))))
    assert result.termination_reason in ("completed", "max_turns"), result.detail
    events = read_record(folder).events
    assert not [e for e in events if e.event == "error" and e.source == "infrastructure"]
    chats = [e.text for e in events if e.event == "chat_message" and e.sender == "agent"]
    assert chats == ["chat \ufffd \U0001f600"]
    said = [e.transcript for e in events if e.event == "agent_speech" and e.transcript]
    assert said and all("\ufffd" in t for t in said)
    card = score_session(folder, scenarios, ["offline"])
    assert card.scenarios[0].termination_reason in ("completed", "max_turns")
    (folder / "responses.jsonl").read_text(encoding="utf-8")  # valid UTF-8 throughout


def test_a_record_holding_a_lone_surrogate_is_refused_in_one_line(tmp_path: Path) -> None:
    data = {"event": "chat_message", "wall_time": 0.0, "meeting_time": 0.0, "sender": "agent", "text": "\ud800"}
    body = json.dumps(data, sort_keys=True, separators=(",", ":"))  # ASCII, with the \ud800 escape
    # A forger computes the hash over the surrogate's raw bytes; the reader must still refuse cleanly.
    import hashlib

    h = hashlib.sha256((GENESIS + "\n" + canonical(data)).encode("utf-8", "surrogatepass")).hexdigest()
    (tmp_path / "record.jsonl").write_text(
        json.dumps({"seq": 0, "prev": GENESIS, "hash": h, "data": json.loads(body)}) + "\n", encoding="utf-8")
    with pytest.raises(RecordIntegrityError, match="surrogate"):
        read_record(tmp_path)


def test_evaluate_with_a_lone_surrogate_writes_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = json.loads(CORRECT.read_text(encoding="utf-8").splitlines()[0])
    line["turns"][0]["agent_response"] = "hello \ud800 world"
    line["turns"][0]["chat_messages"] = ["\udfff"]
    src = tmp_path / "responses.jsonl"
    src.write_text(json.dumps(line) + "\n", encoding="utf-8")  # ensure_ascii: the escapes stay escapes
    out = tmp_path / "out"
    code = exit_code(["evaluate", "--responses", str(src), "--output", str(out / "scorecard.json"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Traceback" not in err
    report = out / "report.html"
    assert report.stat().st_size > 1000
    assert not list(out.glob("*.part"))
    text = report.read_text(encoding="utf-8")
    # Each lone surrogate is shown as one replacement character where the agent's words are, and nowhere else.
    assert '<p class="said">hello \ufffd world</p>' in text
    assert '<p class="chat"><b>agent chat:</b> \ufffd</p>' in text
    assert text.count("\ufffd") == 2
