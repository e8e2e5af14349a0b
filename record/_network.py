"""What the network did to a recorded meeting, derived from its ``network_stats`` samples: totals, each
turn's share, and what the network destroyed (the responses' ``measurements.network``; docs/network.md)."""

from __future__ import annotations

import logging
from typing import Any

from modylbench.record._events import FileTransfer, NetworkStats, TurnEnd, TurnStart

logger = logging.getLogger(__name__)

SPEECH_LOSS_FLAG = 0.05
"""Share of a turn's audio packets lost in one direction from which the network, not the listener, is said
to have kept speech from arriving (a 5 % loss of 20 ms Opus frames without FEC is clearly audible)."""


def _audio(sample: NetworkStats | None, direction: str) -> tuple[int, int]:
    """(audio RTP packets sent, delivered) in ``direction`` up to ``sample``."""
    if sample is None:
        return 0, 0
    sent = delivered = 0
    for s in sample.streams:
        if s.direction == direction and s.kind == "audio":
            sent += s.packets_sent
            delivered += s.packets_delivered
    return sent, delivered


def _share(lost: int, of: int) -> float | None:
    return round(lost / of, 4) if of > 0 else None


def _path_totals(sample: NetworkStats, direction: str) -> dict[str, Any]:
    p = sample.to_agent if direction == "to_agent" else sample.from_agent
    sent, delivered = _audio(sample, direction)
    rtts = [s.round_trip_ms for s in sample.streams if s.round_trip_ms is not None]
    jitters = [s.jitter_ms for s in sample.streams if s.direction == direction and s.jitter_ms is not None]
    return {"datagrams": p.datagrams, "lost": p.dropped_loss + p.dropped_queue,
            "loss": _share(p.dropped_loss + p.dropped_queue, p.datagrams),
            "audio_loss": _share(sent - delivered, sent), "delay_mean_ms": p.delay_mean_ms,
            "nacks": p.nacks, "plis": p.plis, "sctp_retransmissions": p.sctp_retransmissions,
            "retransmitted": sum(s.retransmitted for s in sample.streams if s.direction == direction),
            "jitter_ms": max(jitters) if jitters else None, "round_trip_ms": max(rtts) if rtts else None}  # fmt: skip


def network_measurements(events: list[Any]) -> dict[str, Any] | None:
    """The network of a recorded meeting, or None when the record has no ``network_stats`` (in process)."""
    samples = [e for e in events if isinstance(e, NetworkStats)]
    if not samples:
        return None
    last = samples[-1]
    windows: dict[int, list[float]] = {}
    for e in events:
        if isinstance(e, TurnStart) and e.turn_index is not None:
            windows[e.turn_index] = [e.meeting_time, last.meeting_time]
        elif isinstance(e, TurnEnd) and e.turn_index in windows:
            windows[e.turn_index][1] = e.meeting_time

    def at(t: float, after: bool) -> NetworkStats | None:
        """The last sample at or before ``t`` (after=False), or the first at or after it."""
        if after:
            return next((s for s in samples if s.meeting_time >= t - 1e-6), last)
        return next((s for s in reversed(samples) if s.meeting_time <= t + 1e-6), None)

    turns: list[dict[str, Any]] = []
    impaired: list[dict[str, Any]] = []
    for idx, (t0, t1) in sorted(windows.items()):
        before, after = at(t0, False), at(t1, True)
        row: dict[str, Any] = {"turn_index": idx}
        for d in ("to_agent", "from_agent"):
            s0, d0 = _audio(before, d)
            s1, d1 = _audio(after, d)
            row[f"{d}_audio_loss"] = _share((s1 - d1) - (s0 - d0), s1 - s0)
        late0 = before.persona_audio_late_frames if before is not None else 0
        row["persona_late_frames"] = (after.persona_audio_late_frames - late0) if after is not None else 0
        rtts = [x.round_trip_ms for s in samples if t0 <= s.meeting_time <= t1 + 1e-6 for x in s.streams
                if x.round_trip_ms is not None]  # fmt: skip
        row["round_trip_ms"] = max(rtts) if rtts else None
        turns.append(row)
        if (row["to_agent_audio_loss"] or 0) >= SPEECH_LOSS_FLAG:
            impaired.append({"turn_index": idx, "kind": "speech_to_agent",
                             "detail": f"{row['to_agent_audio_loss']:.1%} of the persona's audio packets were lost "
                                       "on the way to the agent"})  # fmt: skip
        if (row["from_agent_audio_loss"] or 0) >= SPEECH_LOSS_FLAG:
            impaired.append({"turn_index": idx, "kind": "speech_from_agent",
                             "detail": f"{row['from_agent_audio_loss']:.1%} of the agent's audio packets were lost "
                                       "on the way to the harness"})  # fmt: skip
    for e in events:
        if isinstance(e, FileTransfer) and not e.ok:
            sample = at(e.meeting_time, True) or last
            d = "to_agent" if e.direction == "to_agent" else "from_agent"
            path = sample.to_agent if d == "to_agent" else sample.from_agent
            if path.dropped_loss + path.dropped_queue > 0:
                impaired.append({"turn_index": e.turn_index, "kind": f"file_{d}",
                                 "detail": f"{e.name} could not arrive ({e.reason}) on a network that had lost "
                                           f"{path.dropped_loss + path.dropped_queue} datagrams"})  # fmt: skip
    return {"profile": last.profile, "samples": len(samples),
            "to_agent": _path_totals(last, "to_agent"), "from_agent": _path_totals(last, "from_agent"),
            "persona_audio_late_frames": last.persona_audio_late_frames,
            "persona_screen_late_frames": last.persona_screen_late_frames,
            "turns": turns, "impaired": impaired}  # fmt: skip
