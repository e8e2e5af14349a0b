"""The protocol module both ends share: its messages are byte-for-byte what docs/protocol.md shows, and a file
pushed by one ``FileTransfers`` is verified and acknowledged by the other (the same rules either way)."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from typing import Any

import pytest

from modylbench.agents import join_inprocess
from modylbench.channels import (
    AGENT_REPORTED_ERROR_KINDS,
    MAX_ERROR_MESSAGE,
    AgentDisconnected,
    AgentReportedError,
    Caption,
    InProcessMeeting,
    LinkOptions,
    ProtocolFault,
    TurnStartMarker,
    VirtualClock,
)
from modylbench.channels._protocol import (
    BYE_MESSAGE,
    MAX_ERROR_TRACEBACK,
    FileTransfers,
    ReceivedFile,
    agent_chat_message,
    control_message,
    done_message,
    error_message,
    hello_message,
    new_file_header,
    parse_agent_control,
    persona_chat_message,
    transcript_message,
)
from modylbench.channels._wire import SharedRate, WireError, chunk_frame, dumps, parse_json
from modylbench.record import AGENT_ERROR_KINDS


def test_messages_are_the_documented_bytes() -> None:
    assert hello_message("k3Jx9f", True, 2.0, 0.0, None) == (
        '{"type":"hello","protocol":1,"meeting_id":"k3Jx9f","captions":true,"screen_fps":2.0,"time":0.0}'
    )
    assert control_message(TurnStartMarker(2, "data"), 1.5) == (
        '{"type":"turn_start","turn_index":2,"phase":"data","time":1.5}'
    )
    assert control_message(Caption("hi", "u1", 1.0, 2.0), 1.0).startswith(
        '{"type":"caption","speaker":"persona"'
    )
    assert persona_chat_message("ok", 3.0) == '{"type":"chat","sender":"persona","text":"ok","time":3.0}'
    assert agent_chat_message("ok") == '{"type":"chat","text":"ok"}'
    assert done_message(None) == '{"type":"done","turn_index":null}'
    assert transcript_message("é") == '{"type":"transcript","text":"é"}'
    assert BYE_MESSAGE == '{"type":"bye"}'


class _Pipe:
    """One direction of the files channel, delivering to ``peer`` on a later loop pass."""

    label = "files"
    file_budget: SharedRate | None = None

    def __init__(self) -> None:
        self.peer: FileTransfers | None = None

    async def send(self, data: str | bytes) -> None:
        assert self.peer is not None
        asyncio.get_running_loop().call_soon(self.peer.on_message, data)
        await asyncio.sleep(0)


async def test_a_push_is_verified_and_acknowledged_by_the_other_end() -> None:
    clock = VirtualClock()
    got: list[ReceivedFile] = []
    to_b, to_a = _Pipe(), _Pipe()

    sends: list[asyncio.Task[None]] = []  # the replies in flight, owned here

    def reply(pipe: _Pipe) -> Callable[[str], None]:
        return lambda message: sends.append(asyncio.get_running_loop().create_task(pipe.send(message)))

    a = FileTransfers(clock, 1 << 20, reply(to_b), got.append)
    b = FileTransfers(clock, 1 << 20, reply(to_a), got.append)
    to_b.peer, to_a.peer = b, a
    data = bytes(range(256)) * 300  # three chunks
    header = await new_file_header("../notes.txt", data, "text/plain")
    assert header.name == "notes.txt"
    ok, reason = await a.push(to_b, header, data, rate=1e9, timeout=5.0)
    assert (ok, reason) == (True, "")
    assert len(got) == 1 and got[0].ok and bytes(got[0].data) == data
    assert got[0].sha256 == hashlib.sha256(data).hexdigest()
    await asyncio.gather(*sends)


async def test_an_overrun_ends_the_transfer_and_tells_its_sender() -> None:
    clock = VirtualClock()
    replies: list[str] = []
    ends = FileTransfers(clock, 1 << 20, replies.append, lambda f: None)
    header = await new_file_header("a.bin", b"abc", "application/octet-stream")
    ends.on_message(dumps(header.to_json()))
    try:
        ends.on_message(chunk_frame(header.file_id, b"abcd"))
    except WireError as exc:
        assert exc.kind == "file_overrun" and exc.file_id == header.file_id
    else:
        raise AssertionError("an overrun must be refused")
    assert replies and f'"type":"file_error","id":"{header.file_id}"' in replies[0]


# ---------------------------------------------------------------- the agent's "I failed" (control ``error``)


def test_an_error_report_is_parsed_with_its_fields() -> None:
    assert set(AGENT_REPORTED_ERROR_KINDS) <= set(AGENT_ERROR_KINDS)
    raw = error_message("model_error", "503 from my model")
    assert raw == '{"type":"error","kind":"model_error","message":"503 from my model","fatal":false}'
    assert parse_agent_control(parse_json(raw, "control"), 2.5, 8000) == AgentReportedError(
        2.5, "model_error", "503 from my model", None, False
    )
    obj = {"type": "error", "kind": "crash", "message": "boom", "traceback": "Traceback ...", "fatal": True}
    assert parse_agent_control(obj, 1.0, 8000) == AgentReportedError(
        1.0, "crash", "boom", "Traceback ...", True
    )
    # message and fatal may be left out
    assert parse_agent_control({"type": "error", "kind": "empty_answer"}, 0.0, 8000) == AgentReportedError(
        0.0, "empty_answer", "", None, False
    )


def test_an_error_report_is_bounded_and_made_valid_text() -> None:
    obj = {"type": "error", "kind": "model_error", "message": "x" * 50_000, "traceback": "t" * 30_000 + "END"}
    ev = parse_agent_control(obj, 0.0, 8000)
    assert isinstance(ev, AgentReportedError)
    assert len(ev.message) == MAX_ERROR_MESSAGE == 2000
    assert (
        ev.traceback is not None and len(ev.traceback) == MAX_ERROR_TRACEBACK and ev.traceback.endswith("END")
    )
    ev = parse_agent_control({"type": "error", "kind": "crash", "message": "bad \ud800 surrogate"}, 0.0, 8000)
    assert isinstance(ev, AgentReportedError) and ev.message == "bad \ufffd surrogate"
    ev.message.encode("utf-8")
    # what the SDK sends is cut to the same bound
    assert len(parse_json(error_message("crash", "y" * 9000), "control")["message"]) == MAX_ERROR_MESSAGE


@pytest.mark.parametrize(
    ("obj", "fault"),
    [
        ({"type": "error", "kind": "exited", "message": "x"}, "unknown_error_kind"),  # the harness's to say
        ({"type": "error", "kind": "no_join"}, "unknown_error_kind"),
        ({"type": "error", "kind": "oops"}, "unknown_error_kind"),
        ({"type": "error", "message": "no kind"}, "unknown_error_kind"),
        ({"type": "error", "kind": ["model_error"]}, "unknown_error_kind"),
        ({"type": "error", "kind": "crash", "message": 42}, "malformed_message"),
        ({"type": "error", "kind": "crash", "fatal": "yes"}, "malformed_message"),
        ({"type": "error", "kind": "crash", "traceback": {"a": 1}}, "malformed_message"),
    ],
)
def test_an_error_report_of_unknown_kind_or_malformed_is_a_protocol_fault(
    obj: dict[str, Any], fault: str
) -> None:
    with pytest.raises(WireError) as info:
        parse_agent_control(obj, 0.0, 8000)
    assert info.value.kind == fault


async def test_the_link_surfaces_error_reports_rate_limits_them_and_a_fatal_one_ends_the_agent() -> None:
    clock = VirtualClock()
    link = InProcessMeeting(clock, LinkOptions(error_rate=1.0, error_burst=3))
    client = await join_inprocess(link, receive_audio=False)  # no harness hook: reports go on the wire
    await link.wait_connected()
    for i in range(5):  # a burst of 3 passes, the rest is dropped and reported once
        client.report_error("model_error", f"try {i}")
    await asyncio.sleep(0)  # sent without waiting: let them go out before the raw message below
    await client.session.pipes["control"].send('{"type":"error","kind":"exited"}')
    await clock.sleep(1.0)  # one token back
    client.session.report_error("crash", "giving up", fatal=True)
    await asyncio.sleep(0)
    got = []
    async for ev in link.events():
        got.append(ev)
    errors = [e for e in got if isinstance(e, AgentReportedError)]
    assert [e.message for e in errors] == ["try 0", "try 1", "try 2", "giving up"]
    assert [e.fatal for e in errors] == [False, False, False, True]
    faults = [(e.kind, e.channel) for e in got if isinstance(e, ProtocolFault)]
    assert faults == [("error_flood", "control"), ("unknown_error_kind", "control")]
    assert isinstance(got[-1], AgentDisconnected) and got[-1].reason == "agent reported a fatal crash"
    await client.leave()
