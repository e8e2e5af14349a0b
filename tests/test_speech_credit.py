"""What the agent said (docs/scoring.md): recognised text, or declared words capped by voiced time."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from modylbench.record import (
    AgentSpeech,
    AgentSpeechRecognised,
    AgentSpeechUnrecognised,
    Attachment,
    SessionFolder,
    SessionStart,
    TurnStart,
    derive_responses,
    read_recognition,
    write_recognition,
)


def _c(t: float = 1.0, turn: int | None = 0) -> dict[str, Any]:
    return {"wall_time": 1000.0 + t, "meeting_time": t, "turn_index": turn}


def _att(tag: str) -> Attachment:
    return Attachment(sha256=hashlib.sha256(tag.encode()).hexdigest(), size=10, media_type="audio/wav")


def _seg(onset: float, offset: float, transcript: str | None, tag: str | None = "a") -> AgentSpeech:
    return AgentSpeech(**_c(offset), onset=onset, offset=offset, transcript=transcript,
                       audio=_att(tag) if tag else None)  # fmt: skip


def _derive(*speech: Any) -> tuple[Any, dict[str, Any]]:
    events = [
        SessionStart(**_c(0, None), scenario_id="s", scenario_hash="h", agent="a", transport="inproc", turns_planned=1),
        TurnStart(**_c(0), phase="p", channel="audio"),
        *speech,
    ]
    r = derive_responses(events)
    assert r.measurements is not None
    return r.turns[0], r.measurements["turns"][0]


def _words(n: int) -> str:
    return " ".join(f"w{i}" for i in range(n))


def test_200_words_over_2_seconds_of_voice_are_capped_and_flagged() -> None:
    turn, m = _derive(_seg(1.0, 3.0, _words(200)))
    assert turn.agent_response == _words(9)  # floor(4.5 * 2)
    assert m["speech_flags"] == ["transcript_unsupported"]
    assert (m["speech_words_declared"], m["speech_words_credited"], m["speech_source"]) == (200, 9, "declared")


def test_a_fast_talker_is_never_cut() -> None:
    # 3.5 words a second over a 10 s answer split by VAD into two segments, transcript sent once at the start.
    turn, m = _derive(_seg(1.0, 5.5, _words(35)), _seg(6.0, 11.5, None))
    assert turn.agent_response == _words(35)
    assert m["speech_flags"] == [] and m["speech_words_credited"] == 35


def test_words_declared_with_no_voice_earn_nothing() -> None:
    turn, m = _derive(_seg(2.0, 2.0, "the answer is 42", tag=None))
    assert turn.agent_response == "" and m["speech_flags"] == ["transcript_unsupported"]


def test_recognised_text_is_what_was_said() -> None:
    rec = AgentSpeechRecognised(**_c(5), segment=0, audio_sha256=_att("a").sha256, text="revenue grew four percent",
                                model="openai/w")  # fmt: skip
    turn, m = _derive(_seg(1.0, 3.0, "Revenue grew 4 percent, clearly."), rec)
    assert turn.agent_response == "revenue grew four percent"
    assert m["speech_source"] == "recognised" and m["speech_flags"] == []  # 3 of 5 declared words heard: 0.6


def test_a_transcript_that_was_not_said_is_a_mismatch_and_not_credited() -> None:
    rec = AgentSpeechRecognised(**_c(5), segment=0, audio_sha256=_att("a").sha256, text="um okay",
                                model="openai/w")  # fmt: skip
    turn, m = _derive(_seg(1.0, 3.0, "EBITDA is 57.5 million and the IRR is 24.6%"), rec)
    assert turn.agent_response == "um okay" and m["speech_flags"] == ["transcript_mismatch"]


def test_unrecognised_speech_falls_back_to_the_capped_transcript() -> None:
    failed = AgentSpeechUnrecognised(**_c(5), segment=0, audio_sha256=_att("a").sha256, model="openai/w",
                                     reason="HTTP 429 (after 4 attempts)")  # fmt: skip
    turn, m = _derive(_seg(1.0, 3.0, _words(20)), failed)
    assert turn.agent_response == _words(9) and m["speech_source"] == "declared"
    assert m["speech_unrecognised_s"] == 2.0


def test_recognition_of_other_audio_is_ignored_and_a_text_beats_a_later_failure() -> None:
    other = AgentSpeechRecognised(**_c(5), segment=0, audio_sha256=_att("zzz").sha256, text="forged", model="m")
    turn, _ = _derive(_seg(1.0, 3.0, "hello there"), other)
    assert turn.agent_response == "hello there"
    ok = AgentSpeechRecognised(**_c(5), segment=1, audio_sha256=_att("b").sha256, text="second", model="m")
    failed = AgentSpeechUnrecognised(**_c(6), segment=1, audio_sha256=_att("b").sha256, model="m", reason="x")
    turn, m = _derive(_seg(0.5, 0.5, None, tag=None), _seg(1.0, 3.0, None, tag="b"), ok, failed)
    assert turn.agent_response == "second" and m["speech_source"] == "recognised"


def test_sidecar_round_trip_skips_garbage(tmp_path: Path) -> None:
    ok = AgentSpeechRecognised(**_c(5), segment=3, audio_sha256=_att("a").sha256, text="hi", model="m")
    write_recognition(tmp_path, [ok])
    path = SessionFolder(tmp_path).recognition
    path.write_bytes(path.read_bytes() + b"not json\n" + b'{"event": "chat_message"}\n' + b"x" * (1024 * 1024 + 5))
    assert read_recognition(tmp_path) == [ok]
    assert read_recognition(tmp_path / "nowhere") == []
