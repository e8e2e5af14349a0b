"""``serve --bot-api``: a bot written against Attendee's documented API (``examples/attendee_bot.py``, a process of
its own, stdlib and websockets only) joins a meeting with only its base URL changed, hears it (realtime audio,
transcript webhooks), is heard (speech, or its own audio over the websocket) and is scored. And the API's
refusals: auth, sizes, shapes, one bot per meeting."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from modylbench.channels import SignalingServer, WallClock
from modylbench.record import products_json, read_record, rebuild_doc
from modylbench.scenarios import load_path
from modylbench.simulator._botapi import (
    MAX_BODY,
    MAX_HEAD,
    BotApi,
    BotApiThread,
    downsample,
    persona_name,
    sign_payload,
)
from modylbench.simulator._runner import score_session, speech_engines
from modylbench.simulator._session import run_meeting

ROOT = Path(__file__).resolve().parents[2]
MINI = load_path(ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl")[0]
EXAMPLE = ROOT / "examples" / "attendee_bot.py"


async def _http(port: int, raw: bytes) -> tuple[int, Any]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(raw)
    await writer.drain()
    data = await reader.read()
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), json.loads(body) if body else None


def _req(method: str, path: str, body: Any = None, token: str | None = "tok", extra: str = "") -> bytes:
    data = b"" if body is None else json.dumps(body).encode()
    auth = f"Authorization: Token {token}\r\n" if token is not None else ""
    return (f"{method} {path} HTTP/1.1\r\nHost: x\r\n{auth}Content-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n{extra}\r\n").encode() + data  # fmt: skip


async def test_the_api_refuses_what_it_must() -> None:
    api = await BotApi("ws://127.0.0.1:9/meetings/abc", "tok", "Dana Reyes").start()
    try:
        port = api.port
        assert (await _http(port, _req("GET", "/api/v1/bots", token=None)))[0] == 401
        assert (await _http(port, _req("GET", "/api/v1/bots", token="wrong")))[0] == 401
        assert await _http(port, _req("GET", "/api/v1/bots")) == (200, {"next": None, "previous": None, "results": []})
        assert (await _http(port, _req("GET", "/api/v1/bots/bot_nope")))[0] == 404
        assert (await _http(port, _req("GET", "/other")))[0] == 404
        status, body = await _http(port, _req("POST", "/api/v1/bots", {"meeting_url": "https://zoom.us/j/1"}))
        assert status == 400 and "this server hosts one meeting" in body["error"]
        ok = {"meeting_url": "ws://127.0.0.1:9/meetings/abc"}
        for bad, says in [({"websocket_settings": {"audio": {"url": "http://x"}}}, "ws:// or wss://"),
                          ({"websocket_settings": {"audio": {"url": "ws://x", "sample_rate": 44100}}}, "sample_rate"),
                          ({"webhooks": [{"url": "http://a"}] * 3}, "at most 2"),
                          ({"webhooks": [{"url": "file:///etc/passwd"}]}, "http:// or https://"),
                          ({"webhooks": [{"url": "http://a", "triggers": ["calendar.events_update"]}]}, "not served here")]:  # fmt: skip
            status, body = await _http(port, _req("POST", "/api/v1/bots", {**ok, **bad}))
            assert status == 400 and says in body["error"], body
        # Sizes: a declared body past the bound is refused unread; so is a head past its bound.
        big = f"POST /api/v1/bots HTTP/1.1\r\nAuthorization: Token tok\r\nContent-Length: {MAX_BODY + 1}\r\n\r\n"
        assert (await _http(port, big.encode()))[0] == 413
        assert (await _http(port, _req("GET", "/api/v1/bots", extra="X: " + "a" * MAX_HEAD + "\r\n")))[0] == 400
        status, body = await _http(port, _req("POST", "/api/v1/bots", [1]))
        assert status == 400 and "not a JSON object" in body["error"]
        assert (await _http(port, _req("PATCH", "/api/v1/bots")))[0] == 405
        # A bot whose meeting cannot be reached: created (201), then fatal_error; the seat is taken (409);
        # actions need the bot in the meeting (400); what is not served is a one-line 501.
        status, bot = await _http(port, _req("POST", "/api/v1/bots", ok))
        assert status == 201 and bot["state"] == "joining" and bot["id"].startswith("bot_")
        await api.bot_done()
        assert (await _http(port, _req("GET", f"/api/v1/bots/{bot['id']}")))[1]["state"] == "fatal_error"
        assert (await _http(port, _req("POST", "/api/v1/bots", ok)))[0] == 409
        status, body = await _http(port, _req("POST", f"/api/v1/bots/{bot['id']}/send_chat_message", {"message": "hi"}))
        assert status == 400 and "fatal_error, not in the meeting" in body["error"]
        status, body = await _http(port, _req("POST", f"/api/v1/bots/{bot['id']}/output_video", {}))
        assert status == 501 and "not implemented" in body["error"]
    finally:
        await api.close()


def test_webhook_signature_and_audio_rates() -> None:
    secret = base64.b64encode(b"k" * 32).decode()
    payload = {"trigger": "bot.state_change", "data": {"new_state": "joined_recording", "é": 1}}
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()
    expected = base64.b64encode(hmac.new(b"k" * 32, canonical, hashlib.sha256).digest()).decode()
    assert sign_payload(payload, secret) == expected
    tone = (8000 * np.sin(2 * np.pi * 440 * np.arange(4800) / 48000)).astype("<i2").tobytes()  # 100 ms
    for rate in (8000, 16000, 24000):
        out = np.frombuffer(downsample(tone, rate), dtype="<i2")
        assert len(out) == rate // 10 and 5000 < np.abs(out).max() <= 8000


async def _extensions(api: BotApiThread, token: str) -> dict[str, Any]:
    """The ModylBench extensions, used while the bot is in the meeting: the briefing, an edit, the products."""
    bot_id = await api.bot_joined()
    base = f"/api/v1/bots/{bot_id}/modylbench"
    _, briefing = await _http(api.api.port, _req("GET", f"{base}/briefing", token=token))
    status, _ = await _http(api.api.port, _req("POST", f"{base}/edit", {"product_id": "model", "pointer": "/ebitda",
                                                                      "value": 42}, token=token))  # fmt: skip
    _, products = await _http(api.api.port, _req("GET", f"{base}/products", token=token))
    status_bad, refused = await _http(api.api.port, _req("POST", f"{base}/edit", {"product_id": "model"}, token=token))
    return {"bot_id": bot_id, "briefing": briefing, "edit": status, "products": products,
            "bad_edit": (status_bad, refused)}  # fmt: skip


async def _meeting_with_bot(tmp_path: Path, *bot_args: str) -> tuple[Any, dict[str, Any], Path]:
    folder = tmp_path / "session"
    persona_speech, _ = speech_engines(MINI)
    wall = WallClock()
    async with SignalingServer() as server:
        meeting = server.create_meeting(wall)
        api = await BotApiThread(meeting.url, meeting.token, persona_name(MINI)).start()
        bot = await asyncio.create_subprocess_exec(
            sys.executable, str(EXAMPLE), "--api", api.base_url, f"--token={meeting.token}", "--meeting-url",
            meeting.url, "--timeout", "300", *bot_args, stdout=asyncio.subprocess.PIPE)  # fmt: skip
        try:
            used = asyncio.create_task(_extensions(api, meeting.token))
            result = await run_meeting(meeting, MINI, "attendee-bot", folder, wall, persona_speech)
            await api.bot_done()
            out, _ = await asyncio.wait_for(bot.communicate(), 60)
            ext = await asyncio.wait_for(used, 10)
            base = f"/api/v1/bots/{ext['bot_id']}/modylbench"
            ext["files"] = (await _http(api.api.port, _req("GET", f"{base}/files", token=meeting.token)))[1]
            ext["file0"] = (await _http(api.api.port, _req("GET", f"{base}/files/0", token=meeting.token)))[1]
        finally:
            if bot.returncode is None:
                bot.kill()
            await api.close()
    line = next(x for x in out.decode().splitlines() if x.startswith("bot_stats "))
    return result, {**json.loads(line[len("bot_stats "):]), "extensions": ext}, folder


def _check_scored(result: Any, stats: dict[str, Any], folder: Path) -> list[Any]:
    assert result.termination_reason == "completed", result.detail
    turns = len(MINI.turns)
    # The bot heard the meeting: 16 kHz mixed audio for the whole meeting, one transcript.update per utterance.
    events = read_record(folder).events
    spoken = [e for e in events if e.event == "persona_utterance"]
    assert stats["audio_s"] > 0.8 * sum(e.end - e.start for e in spoken)
    assert stats["webhooks"]["transcript.update"] == len(spoken) and stats["answered"] == len(spoken)
    assert stats["states"] == ["joined_recording", "leaving", "post_processing", "ended"]
    assert stats["webhooks"]["participant_events.join_leave"] == 2
    # It was heard and scored: speech with its words in every turn, its chat in the record.
    for turn in range(turns):
        said = [e for e in events if e.event == "agent_speech" and e.turn_index == turn]
        assert said and said[0].audio is not None and said[0].offset - said[0].onset > 0.5
    assert any(e.event == "chat_message" and e.sender == "agent" and e.text.startswith("Noted: ") for e in events)
    assert not [e for e in events if e.event == "agent_error"]
    card = score_session(folder, {MINI.scenario_id: MINI}, ["offline"]).scenarios[0]
    assert card.modylbench_score is not None and all(t.score is not None for t in card.turns)
    return events


@pytest.mark.slow
async def test_an_attendee_bot_joins_is_heard_and_is_scored(tmp_path: Path) -> None:
    result, stats, folder = await _meeting_with_bot(tmp_path)
    events = _check_scored(result, stats, folder)
    said = [e for e in events if e.event == "agent_speech"]
    assert all(s.transcript.startswith("Noted: ") for s in said)  # POST /speech: the harness's voice, its words
    # The extensions: the briefing, an edit that reached the shared document, the pushed file.
    ext = stats["extensions"]
    assert MINI.meeting_goal[:30] in json.dumps(ext["briefing"])
    assert ext["edit"] == 200 and ext["products"]["model"]["content"]["ebitda"] == 42
    assert ext["bad_edit"][0] == 400 and "value are required" in ext["bad_edit"][1]["error"]
    assert products_json(rebuild_doc(events))["model"]["content"]["ebitda"] == 42
    pushed = next(e for e in events if e.event == "file_pushed" or getattr(e, "name", None) == "inputs.csv")
    assert [f["name"] for f in ext["files"]] == ["inputs.csv"] and pushed is not None
    assert base64.b64decode(ext["file0"]["data"]) and ext["file0"]["name"] == "inputs.csv"


@pytest.mark.slow
async def test_a_bot_speaking_its_own_audio_over_the_websocket(tmp_path: Path) -> None:
    result, stats, folder = await _meeting_with_bot(tmp_path, "--echo-audio", "--per-participant")
    events = _check_scored(result, stats, folder)
    # Per-participant audio: the persona's, named, as long as the mixed stream.
    assert list(stats["per_participant_s"]) == [persona_name(MINI)]
    assert abs(stats["per_participant_s"][persona_name(MINI)] - stats["audio_s"]) < 1.0
    utterances = [e.text for e in events if e.event == "persona_utterance"]
    said = [e.transcript for e in events if e.event == "agent_speech" and e.transcript]
    assert said and set(said) <= set(utterances)  # realtime_audio.bot_output, words declared by the extension


def test_serve_says_in_one_line_when_the_bot_api_cannot_listen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    from modylbench.simulator.cli import exit_code

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = ["serve", MINI.scenario_id, "--scenarios", str(ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"),
                "--port", "0", "--bot-api", "--bot-api-port", str(port), "--out", str(tmp_path / "s"), "--wait", "1"]
        assert exit_code(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert f"cannot listen on 127.0.0.1:{port} for the bot API" in err[-1] and "Traceback" not in "\n".join(err)


def test_output_audio_mp3_is_decoded_to_the_meeting_rate() -> None:
    import io

    import av

    from modylbench.simulator._botapi import ApiError, _decode_mp3

    buf = io.BytesIO()
    with av.open(buf, mode="w", format="mp3") as out:
        stream = out.add_stream("mp3", rate=16000, layout="mono")
        tone = (8000 * np.sin(2 * np.pi * 440 * np.arange(16000) / 16000)).astype("<i2").reshape(1, -1)
        frame = av.AudioFrame.from_ndarray(tone, format="s16", layout="mono")
        frame.sample_rate = 16000
        for packet in [*stream.encode(frame), *stream.encode(None)]:
            out.mux(packet)
    pcm = _decode_mp3(base64.b64encode(buf.getvalue()).decode())
    assert 0.9 <= len(pcm) / 2 / 48000 <= 1.2  # one second of audio, at 48 kHz
    with pytest.raises(ApiError, match="not decodable MP3"):
        _decode_mp3(base64.b64encode(b"not an mp3 at all" * 100).decode())
