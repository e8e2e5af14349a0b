"""Each reach-in of channels/_compat.py still holds on the installed aiortc, aioice and Python: these fail
when a private name is gone or no longer does what the harness relies on."""

from __future__ import annotations

import asyncio
import logging

import aioice
import aioice.ice
import pytest
from aiortc import RTCPeerConnection, RTCRtpCodecParameters
from aiortc.jitterbuffer import JitterBuffer, JitterFrame
from aiortc.rtp import RTCP_PSFB_PLI, RtcpPsfbPacket, RtpPacket

from modylbench.channels import _compat
from modylbench.channels._compat import (
    WRITTEN_FOR,
    RecoveringJitterBuffer,
    enable_loopback_candidates,
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
