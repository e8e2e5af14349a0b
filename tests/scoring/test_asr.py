"""Speech recognition through a real local ``/v1/audio/transcriptions`` server: answers, retries, faults, cache."""

from __future__ import annotations

import hashlib
import io
import socket
import wave
from pathlib import Path

import pytest

from modylbench.scoring import AsrSpecError, SpeechRecogniser

from .transcription_server import Fault, Transcriber, transcription_server


def _wav(seed: int, seconds: float = 0.5) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(bytes((seed + i) % 256 for i in range(int(seconds * 32000))))
    return buf.getvalue()


class Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, s: float) -> None:
        self.delays.append(s)


def _rec(url: str, tmp_path: Path | None = None, **kw: object) -> SpeechRecogniser:
    return SpeechRecogniser(f"openai/whisper-test@{url}", cache_dir=tmp_path, **kw)  # type: ignore[arg-type]


async def test_recognises_by_audio_and_caches(tmp_path: Path) -> None:
    a, b = _wav(1), _wav(2)
    t = Transcriber(texts={hashlib.sha256(a).hexdigest(): "Revenue grew  four percent."}, default_text="other")
    with transcription_server(t) as url:
        asr = _rec(url, tmp_path)
        assert (await asr.recognise(a)).text == "Revenue grew four percent."
        assert (await asr.recognise(b)).text == "other"
        again = _rec(url, tmp_path)
        assert (await again.recognise(a)).text == "Revenue grew four percent."
        await asr.aclose()
        await again.aclose()
    assert again.calls == 0  # answered from the cache
    assert [r["sha256"] for r in t.requests] == [hashlib.sha256(a).hexdigest(), hashlib.sha256(b).hexdigest()]
    assert t.requests[0]["model"] == "whisper-test" and t.requests[0]["filename"] == "segment.wav"
    assert {"file", "model", "response_format"} <= set(t.requests[0]["fields"])


async def test_429_and_503_are_retried_with_retry_after() -> None:
    t = Transcriber(default_text="heard", faults=[Fault(429, headers={"retry-after": "2"}), Fault(503)])
    sleeps = Sleeps()
    with transcription_server(t) as url:
        asr = _rec(url, sleep=sleeps)
        heard = await asr.recognise(_wav(3))
        await asr.aclose()
    assert heard.text == "heard"
    assert asr.calls == 3 and sleeps.delays == [2.0, 2.0]  # Retry-After, then backoff 1 * 2**1


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        (Fault(500), "HTTP 500 (after 4 attempts)"),
        (Fault(200, raw_body=b"<html>bad gateway</html>"), "malformed answer"),
        (Fault(200, raw_body=b'{"transcript": "x"}'), "answer is not a transcription"),
        (Fault(200, raw_body=b'{"text": 42}'), "answer is not a transcription"),
        # Deeper than Python's JSON reader recurses (issue 25): a reason, not a traceback.
        (Fault(200, raw_body=b'{"text": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"), "malformed answer"),
    ],
)
async def test_failures_become_a_reason_after_retries(fault: Fault, reason: str) -> None:
    t = Transcriber(default_text="never", always=fault)
    with transcription_server(t) as url:
        asr = _rec(url, sleep=Sleeps())
        heard = await asr.recognise(_wav(4))
        await asr.aclose()
    assert heard.text is None and heard.reason is not None and reason in heard.reason
    assert asr.calls == 4


async def test_client_error_is_not_retried() -> None:
    t = Transcriber(always=Fault(400))
    with transcription_server(t) as url:
        asr = _rec(url, sleep=Sleeps())
        heard = await asr.recognise(_wav(5))
        await asr.aclose()
    assert heard.reason is not None and heard.reason.startswith("HTTP 400") and asr.calls == 1


async def test_slow_server_times_out() -> None:
    t = Transcriber(default_text="late", delay_s=1.0)
    with transcription_server(t) as url:
        asr = _rec(url, sleep=Sleeps(), timeout_s=0.2, max_attempts=2)
        heard = await asr.recognise(_wav(6))
        await asr.aclose()
    assert heard.reason == "timed out after 0.2s (after 2 attempts)"


async def test_down_server_stops_being_asked_after_three_segments() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    asr = _rec(f"http://127.0.0.1:{port}/v1", sleep=Sleeps(), max_attempts=2)
    reasons = [(await asr.recognise(_wav(10 + i))).reason for i in range(5)]
    await asr.aclose()
    assert all(r is not None and r.startswith("connection error") for r in reasons[:3])
    assert all(r is not None and r.startswith("recognition unavailable, not asked") for r in reasons[3:])
    assert asr.calls == 6


def test_bad_specs_are_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(AsrSpecError, match="unknown provider 'whisper'"):
        SpeechRecogniser("whisper/base")
    with pytest.raises(AsrSpecError, match="set OPENAI_API_KEY"):
        SpeechRecogniser("openai/whisper-1")
    with pytest.raises(AsrSpecError, match="no base URL after @"):
        SpeechRecogniser("openai/whisper-1@")


BIG = b'{"text": "' + b"heard " * 400_000 + b'"}'
"""A 2.4 MB answer: ten times what the recogniser reads."""


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        (Fault(200, raw_body=BIG), "more than 256 KiB (not read)"),
        (Fault(200, raw_body=BIG, declare_length=False), "answer larger than 256 KiB (the rest not read)"),
        (Fault(500, raw_body=BIG), "more than 256 KiB (not read)"),  # an error body is bounded as well
        (Fault(200, raw_body=b'{"text": "heard"}', headers={"content-encoding": "gzip"}), "answer compressed"),
    ],
)
async def test_an_answer_past_the_size_bound_is_not_read(fault: Fault, reason: str) -> None:
    # Today's main read every byte (a 120 MB answer: 1.08 GB, persona audio late); now the connection is dropped
    # at MAX_ANSWER_BYTES and the segment is unrecognised with the reason, after the usual retries.
    t = Transcriber(always=fault)
    with transcription_server(t) as url:
        asr = _rec(url, max_attempts=2, sleep=Sleeps())
        heard = await asr.recognise(_wav(9))
        await asr.aclose()
    assert heard.text is None and heard.reason is not None
    assert reason in heard.reason and heard.reason.endswith("(after 2 attempts)"), heard.reason
    assert len(t.requests) == 2 and not asr.down


async def test_an_answer_within_the_bound_is_read() -> None:
    text = "word " * 4000  # 20,000 characters: the longest text accepted, well inside the byte bound
    with transcription_server(Transcriber(default_text=text.strip())) as url:
        asr = _rec(url)
        heard = await asr.recognise(_wav(10))
        await asr.aclose()
    assert heard.text == text.strip()
