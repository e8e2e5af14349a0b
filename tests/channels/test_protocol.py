"""The protocol module both ends share: its messages are byte-for-byte what docs/protocol.md shows, and a file
pushed by one ``FileTransfers`` is verified and acknowledged by the other (the same rules either way)."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable

from modylbench.channels import Caption, TurnStartMarker, VirtualClock
from modylbench.channels._protocol import (
    BYE_MESSAGE,
    FileTransfers,
    ReceivedFile,
    agent_chat_message,
    control_message,
    done_message,
    hello_message,
    new_file_header,
    persona_chat_message,
    transcript_message,
)
from modylbench.channels._wire import SharedRate, WireError, chunk_frame, dumps


def test_messages_are_the_documented_bytes() -> None:
    assert hello_message("k3Jx9f", True, 2.0, 0.0, None) == (
        '{"type":"hello","protocol":1,"meeting_id":"k3Jx9f","captions":true,"screen_fps":2.0,"time":0.0}'
    )
    assert control_message(TurnStartMarker(2, "data"), 1.5) == (
        '{"type":"turn_start","turn_index":2,"phase":"data","time":1.5}'
    )
    assert control_message(Caption("hi", "u1", 1.0, 2.0), 1.0).startswith('{"type":"caption","speaker":"persona"')
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
