"""Each reach-in of channels/_compat.py still holds on the installed aiortc, aioice and Python: these fail
when a private name is gone or no longer does what the harness relies on."""

from __future__ import annotations

import asyncio
import logging
import socket
import sys
import threading
import time

import aioice
import aioice.ice
import aioice.stun
import pytest
from aiortc import RTCPeerConnection, RTCRtpCodecParameters
from aiortc.jitterbuffer import JitterBuffer, JitterFrame
from aiortc.rtp import RTCP_PSFB_PLI, RtcpPsfbPacket, RtpPacket

from modylbench.channels import _compat
from modylbench.channels._compat import (
    WRITTEN_FOR,
    RecoveringJitterBuffer,
    enable_loopback_candidates,
    encoded_packets_supported,
    jitter_buffer_of,
    keyframe_requests_visible,
    loop_has_ready_callbacks,
    observe_rtp_packets,
    replace_jitter_buffer,
    take_keyframe_request,
)


def test_a_version_other_than_the_one_written_for_is_warned_about(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    assert set(WRITTEN_FOR) == set(_compat.installed_versions())
    monkeypatch.setitem(WRITTEN_FOR, "aiortc", "0.0.1")
    with caplog.at_level(logging.WARNING, logger=_compat.__name__):
        lines = _compat.check_versions.__wrapped__()
    assert any(line.startswith("aiortc ") and "written for 0.0.1" in line for line in lines)
    assert "written for 0.0.1" in caplog.text


async def test_aioice_gathers_a_loopback_host_candidate_once_enabled() -> None:
    enable_loopback_candidates()
    assert "127.0.0.1" in aioice.ice.get_host_addresses(use_ipv4=True, use_ipv6=False)
    # The patched module attribute is what gathering really reads.
    conn = aioice.Connection(ice_controlling=True, components=1, use_ipv6=False)
    try:
        await conn.gather_candidates()
        assert any(c.host == "127.0.0.1" for c in conn.local_candidates)
    finally:
        await conn.close()


async def test_a_pli_from_the_receiver_is_seen_as_a_keyframe_request() -> None:
    pc = RTCPeerConnection()
    try:
        sender = pc.addTransceiver("video", direction="sendonly").sender
        assert keyframe_requests_visible(sender)
        assert take_keyframe_request(sender) is False
        await sender._handle_rtcp_packet(RtcpPsfbPacket(fmt=RTCP_PSFB_PLI, ssrc=1, media_ssrc=sender._ssrc))
        assert take_keyframe_request(sender) is True
        assert take_keyframe_request(sender) is False  # consumed
    finally:
        await pc.close()


def test_the_sender_still_sends_a_tracks_encoded_packets_as_they_are() -> None:
    """The pre-encoded tracks (channels/_encoded.py) return ``av.Packet``s; aiortc must pack them, not encode."""
    from fractions import Fraction

    from aiortc.codecs.opus import OpusEncoder
    from aiortc.codecs.vpx import Vp8Encoder
    from av import Packet

    assert encoded_packets_supported()
    packet = Packet(b"\x90\x00\x00\x9d\x01\x2a" + bytes(40))
    packet.pts, packet.time_base = 45_000, Fraction(1, 90_000)
    encoder = Vp8Encoder()
    payloads, timestamp = encoder.pack(packet)
    assert timestamp == 45_000 and payloads and payloads[0].endswith(bytes(packet))  # descriptor + the bytes
    assert encoder.pack(packet)[0][0] != payloads[0]  # the sender's own picture id advances
    audio = Packet(b"\xf8\xff\xfe")
    audio.pts, audio.time_base = 960, Fraction(1, 48_000)
    assert OpusEncoder().pack(audio) == ([b"\xf8\xff\xfe"], 960)


class _CountingBuffer(RecoveringJitterBuffer):
    def __init__(self) -> None:
        super().__init__(capacity=16, prefetch=4)
        self.added: list[int] = []

    def add(self, packet: RtpPacket) -> tuple[bool, JitterFrame | None]:
        self.added.append(packet.sequence_number)
        return super().add(packet)


async def test_the_replaced_jitter_buffer_and_the_packet_observer_see_every_audio_packet() -> None:
    pc = RTCPeerConnection()
    try:
        receiver = pc.addTransceiver("audio").receiver
        assert isinstance(jitter_buffer_of(receiver), JitterBuffer)
        buffer = _CountingBuffer()
        assert replace_jitter_buffer(receiver, buffer)
        assert jitter_buffer_of(receiver) is buffer
        seen: list[int] = []
        observe_rtp_packets(receiver, lambda p: seen.append(p.timestamp))
        # The codec table is filled by receive() once negotiated; set Opus directly to feed packets by hand.
        codecs = receiver._RTCRtpReceiver__codecs  # type: ignore[attr-defined]
        codecs[111] = RTCRtpCodecParameters(mimeType="audio/opus", clockRate=48000, channels=2, payloadType=111)
        for seq in range(3):
            packet = RtpPacket(payload_type=111, sequence_number=seq, timestamp=seq * 960, ssrc=7)
            packet.payload = b"\xf8\xff\xfe"
            await receiver._handle_rtp_packet(packet, arrival_time_ms=seq * 20)
        assert seen == [0, 960, 1920]
        assert buffer.added == [0, 1, 2]  # aiortc's receive path used our buffer, not its own
    finally:
        await pc.close()


def test_the_recovering_buffer_still_finds_the_stock_buffers_state() -> None:
    buf = RecoveringJitterBuffer(capacity=16, prefetch=4)
    for name in ("_origin", "_capacity", "_packets", "_prefetch"):
        assert hasattr(buf, name), name
    assert callable(buf._remove_frame) and callable(buf.remove)


async def test_the_event_loop_says_whether_callbacks_are_ready() -> None:
    loop = asyncio.get_running_loop()
    assert loop_has_ready_callbacks(loop) is False
    handle = loop.call_soon(lambda: None)
    assert loop_has_ready_callbacks(loop) is True
    handle.cancel()
    assert loop_has_ready_callbacks(object()) is None  # type: ignore[arg-type]


async def test_the_event_loop_says_which_descriptors_it_waits_on_besides_its_own() -> None:
    loop = asyncio.get_running_loop()
    assert _compat.loop_watched_fds(loop) == []  # the self-pipe is the loop's own
    ours, theirs = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=ours)
    try:
        read = asyncio.ensure_future(reader.read(1))
        await asyncio.sleep(0)
        assert _compat.loop_watched_fds(loop) == [ours.fileno()]
        theirs.send(b"x")
        assert await read == b"x"
    finally:
        writer.close()
        await writer.wait_closed()
        theirs.close()
    assert _compat.loop_watched_fds(loop) == []
    assert _compat.loop_watched_fds(object()) is None  # type: ignore[arg-type]


async def test_the_event_loop_lists_its_timers() -> None:
    loop = asyncio.get_running_loop()
    assert _compat.loop_timers(loop) == 0
    sleeping = asyncio.ensure_future(asyncio.sleep(30))
    await asyncio.sleep(0)
    assert _compat.loop_timers(loop) == 1
    mine = loop.call_later(30, lambda: None)
    assert _compat.loop_timers(loop, {mine}) == 1
    sleeping.cancel()
    mine.cancel()
    await asyncio.gather(sleeping, return_exceptions=True)
    assert _compat.loop_timers(loop) == 0  # cancelled timers may linger in the heap: not counted
    assert _compat.loop_timers(object()) is None  # type: ignore[arg-type]


async def test_the_default_executor_counts_its_jobs_until_the_loop_has_their_results() -> None:
    loop = asyncio.get_running_loop()
    counting = _compat.count_default_executor_jobs(loop)
    assert counting is not None and _compat.count_default_executor_jobs(loop) is counting
    assert loop._default_executor is counting  # asyncio.to_thread goes through it
    gate = threading.Event()
    job = loop.run_in_executor(None, gate.wait, 10)
    taken: list[bool] = []
    uncounted = asyncio.Event()
    uncount = counting._uncount

    def observed_uncount() -> None:
        taken.append(job.done())
        uncount()
        uncounted.set()

    counting._uncount = observed_uncount  # type: ignore[method-assign]
    await asyncio.sleep(0)
    assert counting.in_flight == 1
    gate.set()
    assert await job is True
    await asyncio.wait_for(uncounted.wait(), 5)
    # The count dropped only once asyncio had handed the result to the awaiting future (callback order).
    assert taken == [True] and counting.in_flight == 0
    with _compat.jobs_not_counted():
        held = asyncio.ensure_future(asyncio.to_thread(time.sleep, 0.05))
        await asyncio.sleep(0)
    assert counting.in_flight == 0
    await held
    assert _compat.count_default_executor_jobs(object()) is None  # type: ignore[arg-type]


async def test_a_child_process_being_waited_for_is_seen() -> None:
    loop = asyncio.get_running_loop()
    # The watcher is the process's: children other tests of this worker started may still be waited for.
    before = _compat.child_process_waits() + len(_compat.loop_watched_fds(loop) or [])
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", "import time; time.sleep(0.3)")
    waiting = asyncio.ensure_future(proc.wait())
    await asyncio.sleep(0.05)
    # Python 3.11 waits in a watcher thread; 3.12+ on a pidfd the loop watches.
    assert _compat.child_process_waits() + len(_compat.loop_watched_fds(loop) or []) >= before + 1
    assert await waiting == 0
    # The watcher thread hands the exit to the loop before it leaves its table: give it a moment (bounded).
    for _ in range(200):
        if _compat.child_process_waits() + len(_compat.loop_watched_fds(loop) or []) <= before:
            break
        await asyncio.sleep(0.01)
    assert _compat.child_process_waits() + len(_compat.loop_watched_fds(loop) or []) <= before


async def test_the_event_loop_says_how_many_callbacks_are_ready() -> None:
    loop = asyncio.get_running_loop()
    assert _compat.loop_ready_count(loop) == 0
    handles = [loop.call_soon(lambda: None) for _ in range(3)]
    assert _compat.loop_ready_count(loop) == 3
    for h in handles:
        h.cancel()
    assert _compat.loop_ready_count(object()) is None  # type: ignore[arg-type]



async def test_the_datagram_hooks_see_a_peer_connections_packets_and_sctp_retransmissions_are_counted() -> None:
    from modylbench.channels._compat import count_sctp_retransmissions, ice_connections, intercept_datagrams
    from modylbench.channels._webrtc import rtc_configuration

    seen: list[str] = []
    remote: list[object] = []
    app_out = [0]

    def outgoing(data: bytes, component: int, deliver: object) -> object:
        seen.append("out")
        if remote and data[:1] == b"\x17":  # DTLS application data (SCTP), once the channel is there
            app_out[0] += 1
            if 3 <= app_out[0] <= 5:
                return None  # lost on the way
        return deliver(data, component)  # type: ignore[operator]

    def incoming(data: bytes, component: int, deliver: object) -> object:
        seen.append("in")
        return deliver(data, component)  # type: ignore[operator]

    a, b = RTCPeerConnection(rtc_configuration()), RTCPeerConnection(rtc_configuration())
    try:
        channel = a.createDataChannel("chat")
        await a.setLocalDescription(await a.createOffer())
        await b.setRemoteDescription(a.localDescription)
        connections = ice_connections(b)
        assert len(connections) == 1
        assert intercept_datagrams(connections[0], outgoing, incoming)
        assert not intercept_datagrams(connections[0], outgoing, incoming)  # once only
        assert b.sctp is not None
        counter = count_sctp_retransmissions(b.sctp)
        assert counter is not None
        open_ = asyncio.Event()

        def on_channel(ch: object) -> None:
            remote.append(ch)
            ch.on("open", open_.set)  # type: ignore[attr-defined]
            if ch.readyState == "open":  # type: ignore[attr-defined]
                open_.set()

        b.on("datachannel", on_channel)
        replies: asyncio.Queue[str] = asyncio.Queue()
        channel.on("message", replies.put_nowait)
        await b.setLocalDescription(await b.createAnswer())
        await a.setRemoteDescription(b.localDescription)
        await asyncio.wait_for(open_.wait(), 20)
        assert "out" in seen and "in" in seen  # DTLS and SCTP passed the hooks both ways
        for i in range(8):
            remote[0].send(f"m{i}")  # type: ignore[attr-defined]
        texts = [await asyncio.wait_for(replies.get(), 20) for _ in range(8)]
        assert texts == [f"m{i}" for i in range(8)]  # the dropped datagrams were sent again
        assert counter.chunks >= 1
    finally:
        await a.close()
        await b.close()


# ---------------------------------------------------------------- aioice: consent that waits for late answers


class _Pair:
    """A nominated pair whose consent checks time out ``silent`` times, then are answered."""

    def __init__(self, silent: int) -> None:
        self.remote_addr = ("127.0.0.1", 9)
        self.protocol = self
        self.silent = silent
        self.retransmissions: list[int | None] = []

    async def request(self, request: object, addr: object, integrity_key: bytes | None = None,
                      retransmissions: int | None = None) -> object:  # fmt: skip
        self.retransmissions.append(retransmissions)
        if self.silent > 0:
            self.silent -= 1
            raise aioice.stun.TransactionTimeout()
        return object()


class _Connection:
    """What ``query_consent`` reads of an aioice ``Connection`` (checked against the real one below)."""

    def __init__(self, pair: _Pair) -> None:
        self._nominated = {1: pair}
        self.remote_password = "pw"
        self._query_consent_task: object = "running"
        self.closed = False

    def build_request(self, pair: _Pair, nominate: bool) -> object:
        return object()

    async def close(self) -> None:
        self.closed = True

    def __log_info(self, *args: object) -> None:  # aioice's private logger (mangled alike: _Connection__log_info)
        pass


async def _consent(query: object, silent: int, monkeypatch: pytest.MonkeyPatch, checks: int = 40) -> _Connection:
    """Run ``query`` (a ``query_consent``) with checks 1 ms apart and a 0.2 s expiry against a pair silent for
    ``silent`` checks; the connection once it closed, or after ``checks`` checks."""
    monkeypatch.setattr(aioice.ice, "CONSENT_INTERVAL", 0.001)
    monkeypatch.setattr(_compat, "CONSENT_EXPIRY", 0.2)
    conn = _Connection(_Pair(silent))
    task = asyncio.ensure_future(query(conn))  # type: ignore[operator]
    while not task.done() and len(conn._nominated[1].retransmissions) < checks:
        await asyncio.sleep(0.001)
    task.cancel()
    (outcome,) = await asyncio.gather(task, return_exceptions=True)
    assert not isinstance(outcome, Exception), outcome
    return conn


async def test_consent_lapses_only_after_its_expiry_without_any_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stock aioice gives up after six unanswered checks, each sent once (a flood that delays the answers past
    0.5 s ended meetings as agent_disconnected); the replacement retransmits and waits CONSENT_EXPIRY."""
    stock = await _consent(_compat._original_query_consent, 6, monkeypatch)
    assert stock.closed and stock._nominated[1].retransmissions == [0] * 6
    tolerant = await _consent(_compat._tolerant_query_consent, 6, monkeypatch)
    assert not tolerant.closed and set(tolerant._nominated[1].retransmissions) == {_compat.CONSENT_RETRANSMISSIONS}
    gone = await _consent(_compat._tolerant_query_consent, 100_000, monkeypatch, checks=100_000)
    assert gone.closed and gone._query_consent_task is None


async def test_the_consent_reach_in_still_finds_what_it_replaces() -> None:
    """aioice still starts ``self.query_consent()`` once connected, and its connection and STUN protocol still
    have what the replacement reads (names and keywords)."""
    import inspect

    _compat.tolerate_late_consent_answers()
    assert aioice.ice.Connection.query_consent is _compat._tolerant_query_consent
    assert "self.query_consent()" in inspect.getsource(aioice.ice.Connection.connect)
    assert {"retransmissions", "integrity_key"} <= set(inspect.signature(aioice.ice.StunProtocol.request).parameters)
    assert "nominate" in inspect.signature(aioice.ice.Connection.build_request).parameters
    conn = aioice.Connection(ice_controlling=True, components=1, use_ipv6=False)
    try:
        assert isinstance(conn._nominated, dict) and hasattr(conn, "_query_consent_task")
        assert hasattr(conn, "remote_password") and isinstance(aioice.ice.CONSENT_INTERVAL, int | float)
    finally:
        await conn.close()
