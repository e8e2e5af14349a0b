"""The audio receive buffer recovers from a lost packet and from a burst (aiortc #543), unlike stock aiortc."""

from __future__ import annotations

from aiortc.jitterbuffer import JitterBuffer
from aiortc.rtp import RtpPacket

from modylbench.channels._compat import RecoveringJitterBuffer


def _packet(seq: int) -> RtpPacket:
    p = RtpPacket(payload_type=111, sequence_number=seq, timestamp=seq * 960)
    p._data = b"x"  # type: ignore[attr-defined]
    return p


def _backlog(buf: JitterBuffer, seqs: list[int]) -> int:
    """Feed packets; return how many are still held after the last one (the added latency, in frames)."""
    for s in seqs:
        buf.add(_packet(s))
    return sum(1 for p in buf._packets if p is not None)


def test_lost_packet_is_skipped() -> None:
    seqs = [s for s in range(200) if s != 50]
    stock = _backlog(JitterBuffer(capacity=16, prefetch=4), seqs)
    ours = _backlog(RecoveringJitterBuffer(capacity=16, prefetch=4), seqs)
    assert stock >= 12  # stock aiortc stays (almost) full after the loss: ~280 ms
    assert ours <= 5  # back to the prefetch depth: ~100 ms


def test_burst_after_stall_drains() -> None:
    buf = RecoveringJitterBuffer(capacity=16, prefetch=4)
    # A stall lets 12 packets pile up (they arrive at once, out of one burst); then steady flow resumes.
    stock = JitterBuffer(capacity=16, prefetch=4)
    seqs = list(range(20)) + list(range(32, 20, -1)) + list(range(32, 300))
    assert _backlog(buf, seqs) <= 5
    assert _backlog(stock, seqs) >= 12
