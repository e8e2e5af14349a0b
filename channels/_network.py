"""Network profiles and the in-process impairment of a live WebRTC session's datagrams (docs/network.md).

A ``NetworkProfile`` says what each direction of the network does to packets (loss, Gilbert–Elliott bursts,
delay, jitter, a rate cap with a queue, reordering, duplication). ``Impairment`` applies it to the real
datagrams of the harness's peer connection (SRTP, SRTCP, DTLS-wrapped SCTP) where aioice sends and
receives them, on the injected clock; ``WireCounters`` counts what crossed the wire per direction and
stream (RTP, retransmissions, NACKs, PLIs), which is what the record's ``network_stats`` events carry.
"""

from __future__ import annotations

import asyncio
import hashlib
import heapq
import itertools
import logging
import math
import random
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from modylbench.channels._clock import Clock
from modylbench.channels._tasks import TaskOwner

logger = logging.getLogger(__name__)

Direction = Literal["to_agent", "from_agent"]
DIRECTIONS: tuple[Direction, Direction] = ("to_agent", "from_agent")
"""``to_agent``: what the harness sends (the persona's voice, screen, files): the agent's downlink;
``from_agent``: what the agent sends: its uplink."""

REORDER_HOLD = 0.020
"""Seconds a reordered packet is held back when its direction has no delay for it to skip (netem semantics
need a delay; without one a "reordered" packet is instead overtaken by the packets behind it)."""
DEFAULT_QUEUE = 0.300
"""Seconds of queueing a rate-capped direction buffers before it drops (a tail-drop bottleneck)."""


class NetworkProfileError(ValueError):
    """A ``--network`` value that cannot be read; the message says what is accepted."""


@dataclass(frozen=True, slots=True)
class PathImpairment:
    """What one direction of the network does to packets. Times in seconds, rates in bits per second."""

    loss: float = 0.0
    """Share of packets lost (0-1), on average."""
    burst: float = 1.0
    """Mean length of a loss burst in packets: above 1, loss follows a Gilbert–Elliott chain (a bad state
    that loses every packet, left with probability 1/burst); 1 is independent loss."""
    delay: float = 0.0
    """One-way delay added to every packet."""
    jitter: float = 0.0
    """Standard deviation of a normal variation of the delay (packets keep their order unless reordered)."""
    rate: float = 0.0
    """Bottleneck rate (bit/s); 0: unlimited."""
    queue: float = DEFAULT_QUEUE
    """Seconds of backlog the bottleneck holds before dropping (only with ``rate``)."""
    reorder: float = 0.0
    """Share of packets sent out of order: they skip the delay (or are held ``REORDER_HOLD`` without one)."""
    duplicate: float = 0.0
    """Share of packets delivered twice."""

    def __post_init__(self) -> None:
        for name in ("loss", "reorder", "duplicate"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise NetworkProfileError(f"{name}={value:g}: a share between 0 and 1 (or a percentage: 2%)")
        for name in ("delay", "jitter", "rate", "queue"):
            if getattr(self, name) < 0 or not math.isfinite(getattr(self, name)):
                raise NetworkProfileError(f"{name}={getattr(self, name):g}: must be a finite value >= 0")
        if self.burst < 1.0:
            raise NetworkProfileError(f"burst={self.burst:g}: mean burst length in packets, at least 1")
        if self.loss >= 1.0 and self.burst > 1.0:
            raise NetworkProfileError("loss=100% with burst: everything is lost anyway; drop burst")

    @property
    def clean(self) -> bool:
        return self == PathImpairment(queue=self.queue)

    def describe(self) -> str:
        """The custom syntax for this direction (what ``parse_path`` reads back)."""
        parts = []
        if self.loss:
            parts.append(f"loss={self.loss * 100:g}%")
        if self.burst != 1.0:
            parts.append(f"burst={self.burst:g}")
        if self.delay:
            parts.append(f"delay={self.delay * 1000:g}ms")
        if self.jitter:
            parts.append(f"jitter={self.jitter * 1000:g}ms")
        if self.rate:
            parts.append(f"rate={_rate_text(self.rate)}")
            if self.queue != DEFAULT_QUEUE:
                parts.append(f"queue={self.queue * 1000:g}ms")
        if self.reorder:
            parts.append(f"reorder={self.reorder * 100:g}%")
        if self.duplicate:
            parts.append(f"duplicate={self.duplicate * 100:g}%")
        return ",".join(parts) or "clean"


def _rate_text(rate: float) -> str:
    for unit, scale in (("mbit", 1e6), ("kbit", 1e3)):
        if rate >= scale and rate % (scale / 1000) == 0:
            return f"{rate / scale:g}{unit}"
    return f"{rate:g}bit"


@dataclass(frozen=True, slots=True)
class NetworkProfile:
    """A named network: what it does to each direction of the meeting's packets."""

    name: str
    to_agent: PathImpairment = field(default_factory=PathImpairment)
    from_agent: PathImpairment = field(default_factory=PathImpairment)

    @property
    def clean(self) -> bool:
        return self.to_agent.clean and self.from_agent.clean

    def path(self, direction: Direction) -> PathImpairment:
        return self.to_agent if direction == "to_agent" else self.from_agent

    @property
    def key(self) -> str:
        """What names this network in a session's key and folder: ``clean`` when nothing is impaired, a built-in
        profile's name, else the canonical custom spec (``describe``: ``loss=0.02`` and ``loss=2%`` are one)."""
        if self.clean:
            return "clean"
        return self.name if PROFILES.get(self.name) == self else self.describe()

    def describe(self) -> str:
        """The profile in the custom syntax (``down:…;up:…``); parsing it gives the same impairments."""
        down, up = self.to_agent.describe(), self.from_agent.describe()
        return down if down == up else f"down:{down};up:{up}"

    def manifest(self) -> dict[str, Any]:
        """The profile as the manifest's ``network`` records it."""

        def path(p: PathImpairment) -> dict[str, float]:
            return {f.name: getattr(p, f.name) for f in fields(p)}

        return {"profile": self.name, "spec": self.describe(), "to_agent": path(self.to_agent),
                "from_agent": path(self.from_agent)}  # fmt: skip


def _both(name: str, **kw: float) -> NetworkProfile:
    p = PathImpairment(**kw)
    return NetworkProfile(name, p, p)


PROFILES: dict[str, NetworkProfile] = {
    "clean": _both("clean"),
    # Good home Wi-Fi: a few ms of air-time jitter, rare independent loss.
    "home-wifi": _both("home-wifi", loss=0.005, delay=0.015, jitter=0.005),
    # A phone on LTE/5G: longer path, more jitter, bursty loss, a thinner uplink.
    "mobile": NetworkProfile(
        "mobile",
        PathImpairment(loss=0.01, burst=2.0, delay=0.045, jitter=0.015, rate=8e6),
        PathImpairment(loss=0.02, burst=2.0, delay=0.045, jitter=0.015, rate=2e6),
    ),
    # A shared, saturated link: a bottleneck just above the meeting's own rate, a deep queue, queue drops.
    "congested": _both("congested", loss=0.01, delay=0.060, jitter=0.020, rate=800e3, queue=0.5),
    # Bursty loss (Gilbert–Elliott): 5 % of packets, in bursts of 4 on average.
    "lossy-burst": _both("lossy-burst", loss=0.05, burst=4.0, delay=0.020, jitter=0.005),
}
"""The built-in profiles (``--network NAME``); figures chosen from common field measurements, docs/network.md."""

_NUMBER = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:e-?[0-9]+)?)\s*([a-z%/]*)\s*$", re.IGNORECASE)
_TIME_UNITS = {"": 1e-3, "ms": 1e-3, "s": 1.0, "us": 1e-6}
_RATE_UNITS = {"": 1.0, "bit": 1.0, "bps": 1.0, "kbit": 1e3, "kbps": 1e3, "k": 1e3, "mbit": 1e6, "mbps": 1e6,
               "m": 1e6, "gbit": 1e9}  # fmt: skip


def _value(key: str, text: str) -> float:
    m = _NUMBER.match(text)
    if m is None:
        raise NetworkProfileError(f"{key}={text!r}: not a number")
    number, unit = float(m.group(1)), m.group(2).lower()
    if key in ("loss", "reorder", "duplicate"):
        if unit == "%":
            return number / 100
        if unit:
            raise NetworkProfileError(f"{key}={text!r}: a share (0.02) or a percentage (2%)")
        return number
    if key in ("delay", "jitter", "queue"):
        if unit not in _TIME_UNITS:
            raise NetworkProfileError(f"{key}={text!r}: a time in ms (default), s or us")
        return number * _TIME_UNITS[unit]
    if key == "rate":
        if unit not in _RATE_UNITS:
            raise NetworkProfileError(f"rate={text!r}: bit/s, with kbit or mbit (e.g. 2mbit)")
        return number * _RATE_UNITS[unit]
    if unit:
        raise NetworkProfileError(f"{key}={text!r}: a plain number")
    return number


_KEYS = ("loss", "burst", "delay", "jitter", "rate", "queue", "reorder", "duplicate")


def parse_path(text: str, base: PathImpairment | None = None) -> PathImpairment:
    """``loss=2%,burst=3,delay=40ms,…`` (or a built-in profile's name, both of its directions being equal)
    as one direction's impairment, on top of ``base``."""
    text = text.strip()
    if text in PROFILES and base is None:
        p = PROFILES[text]
        if p.to_agent != p.from_agent:
            raise NetworkProfileError(f"{text!r} differs by direction; give it as the whole --network value")
        return p.to_agent
    values: dict[str, float] = {}
    for item in filter(None, (x.strip() for x in text.split(","))):
        key, sep, raw = item.partition("=")
        key = key.strip().lower()
        if not sep or key not in _KEYS:
            raise NetworkProfileError(f"{item!r}: expected KEY=VALUE with KEY one of {', '.join(_KEYS)}")
        values[key] = _value(key, raw)
    return replace(base or PathImpairment(), **values)


def parse_profile(text: str) -> NetworkProfile:
    """A ``--network`` value: a built-in profile's name (``PROFILES``), or the custom syntax
    ``KEY=VALUE,…`` for both directions, ``down:KEY=VALUE,…;up:KEY=VALUE,…`` for each (``down`` is toward
    the agent, ``up`` from it; a side left out is clean; a bare part before them applies to both)."""
    text = text.strip()
    if not text:
        raise NetworkProfileError(
            "empty network profile; give a name (" + ", ".join(PROFILES) + ") or KEY=VALUE,…"
        )
    if text in PROFILES:
        return PROFILES[text]
    if "=" not in text and ":" not in text:
        raise NetworkProfileError(f"unknown network profile {text!r}: {', '.join(PROFILES)}, or custom "
                                  "loss=…,burst=…,delay=…,jitter=…,rate=…,reorder=…,duplicate=… "
                                  "(down:…;up:… per direction)")  # fmt: skip
    both = PathImpairment()
    sides: dict[str, PathImpairment] = {}
    for part in filter(None, (x.strip() for x in text.split(";"))):
        side, sep, rest = part.partition(":")
        if sep and side.strip().lower() in ("down", "up"):
            key = side.strip().lower()
            if key in sides:
                raise NetworkProfileError(f"{key}: given twice")
            sides[key] = parse_path(rest) if rest.strip() in PROFILES else parse_path(rest, both)
        elif sides:
            raise NetworkProfileError(f"{part!r}: the part for both directions goes first")
        else:
            both = parse_path(part) if part in PROFILES else parse_path(part, both)
    return NetworkProfile(text, sides.get("down", both), sides.get("up", both))


def direction_seed(seed: int, direction: Direction) -> int:
    """The random stream of one direction of a session's network, from the session's seed."""
    return int.from_bytes(
        hashlib.sha256(f"modylbench-network/{seed}/{direction}".encode()).digest()[:8], "big"
    )


class PathModel:
    """The per-packet decisions of one direction: deterministic from its seed and the packets' order."""

    def __init__(self, impairment: PathImpairment, seed: int) -> None:
        self.p = impairment
        self.rng = random.Random(seed)
        self.bad = False
        # Gilbert–Elliott with loss 1 in the bad state, 0 in the good: mean burst 1/r, mean loss p/(p+r).
        self._r = 1.0 / impairment.burst
        loss = impairment.loss
        self._p = 1.0 if loss >= 1.0 else loss * self._r / (1.0 - loss)
        self._free_at = -math.inf
        self._last_due = -math.inf

    def lost(self) -> bool:
        """Whether the next packet is lost on the path (before any bottleneck)."""
        p = self.p
        if p.loss <= 0.0:
            return False
        if p.burst <= 1.0:
            return self.rng.random() < p.loss
        u = self.rng.random()
        self.bad = u >= self._r if self.bad else u < self._p
        return self.bad

    def schedule(self, now: float, size: int) -> tuple[list[float], str]:
        """When the next packet (``size`` bytes) arrives, once per copy; [] and why when it is dropped.

        Every packet draws the same random numbers whatever happens to it, so one packet's fate does not
        shift the next one's (a rate queue dropping a packet leaves the loss pattern as it was).
        """
        p, rng = self.p, self.rng
        lost = self.lost()
        dup, reorder = rng.random() < p.duplicate, rng.random() < p.reorder
        spread = rng.gauss(0.0, p.jitter) if p.jitter else 0.0
        if lost:
            return [], "loss"
        depart = now
        if p.rate > 0.0:
            start = max(now, self._free_at)
            if start - now > p.queue:
                return [], "queue"
            self._free_at = depart = start + size * 8 / p.rate
        due = depart + max(0.0, p.delay + spread)
        if reorder:
            due = depart if p.delay > 0.0 else due + REORDER_HOLD
            why = "reorder"
        else:
            due = max(due, self._last_due)  # jitter alone keeps the order, as on most real paths
            self._last_due = due
            why = ""
        return ([due, due] if dup else [due]), why


# ---------------------------------------------------------------- what crossed the wire


def datagram_kind(data: bytes) -> str:
    """What a DTLS-SRTP datagram carries (RFC 7983 demultiplexing, RFC 5761 RTP/RTCP): ``rtp``, ``rtcp``,
    ``dtls`` (application data: SCTP, i.e. the data channels) or ``dtls-handshake``."""
    if not data:
        return "other"
    b = data[0]
    if 128 <= b <= 191:
        return "rtcp" if len(data) > 1 and 192 <= data[1] <= 223 else "rtp"
    if 20 <= b <= 63:
        return "dtls" if b == 23 else "dtls-handshake"
    return "other"


@dataclass
class StreamCounters:
    """One RTP stream (an SSRC) as it crossed the wire: sent by its endpoint, and after the network."""

    kind: str = ""
    sent: int = 0
    delivered: int = 0
    retransmitted: int = 0
    """RTX packets (retransmissions answering NACKs) of this stream."""
    bytes_sent: int = 0


@dataclass
class PathCounters:
    """One direction: datagrams as sent, what the impairment did to them, and the RTCP feedback seen."""

    datagrams: int = 0
    bytes: int = 0
    delivered: int = 0
    dropped_loss: int = 0
    dropped_queue: int = 0
    duplicated: int = 0
    reordered: int = 0
    delay_total: float = 0.0
    delay_max: float = 0.0
    rtp: int = 0
    rtcp: int = 0
    sctp: int = 0
    nacks: int = 0
    plis: int = 0
    firs: int = 0
    streams: dict[int, StreamCounters] = field(default_factory=dict)

    def as_record(self) -> dict[str, Any]:
        """The fields a ``network_stats`` event carries for this direction."""
        delays = self.delivered or 1
        return {"datagrams": self.datagrams, "bytes": self.bytes, "delivered": self.delivered,
                "dropped_loss": self.dropped_loss, "dropped_queue": self.dropped_queue,
                "duplicated": self.duplicated, "reordered": self.reordered,
                "delay_mean_ms": round(self.delay_total / delays * 1000, 3),
                "delay_max_ms": round(self.delay_max * 1000, 3), "rtp_packets": self.rtp,
                "rtcp_packets": self.rtcp, "sctp_packets": self.sctp, "nacks": self.nacks, "plis": self.plis,
                "firs": self.firs}  # fmt: skip


RTCP_RTPFB, RTCP_PSFB = 205, 206


class WireCounters:
    """Counts each direction's datagrams by kind and stream; ``rtx`` names the SSRCs that carry retransmissions
    (from the SDP's ``a=ssrc-group:FID``), ``kinds`` each SSRC's media kind."""

    def __init__(self) -> None:
        self.paths: dict[Direction, PathCounters] = {d: PathCounters() for d in DIRECTIONS}
        self.rtx: dict[int, int] = {}
        """RTX SSRC -> the SSRC it retransmits."""
        self.kinds: dict[int, str] = {}

    def learn_sdp(self, sdp: str) -> None:
        """Note each SSRC's kind and the RTX pairs an SDP declares."""
        kind = ""
        for line in sdp.splitlines():
            if line.startswith("m="):
                kind = line[2:].split(" ", 1)[0]
            elif line.startswith("a=ssrc:"):
                try:
                    self.kinds.setdefault(int(line[7:].split(" ", 1)[0]), kind)
                except ValueError:
                    pass
            elif line.startswith("a=ssrc-group:FID "):
                parts = line.split()[1:]
                if len(parts) == 2 and all(x.isdigit() for x in parts):
                    self.rtx[int(parts[1])] = int(parts[0])

    def sent(self, direction: Direction, data: bytes, kind: str) -> None:
        c = self.paths[direction]
        c.datagrams += 1
        c.bytes += len(data)
        if kind == "rtp" and len(data) >= 12:
            c.rtp += 1
            ssrc = int.from_bytes(data[8:12], "big")
            media = self.rtx.get(ssrc)
            s = self._stream(c, media if media is not None else ssrc)
            if media is not None:
                s.retransmitted += 1
            else:
                s.sent += 1
                s.bytes_sent += len(data)
        elif kind == "rtcp":
            c.rtcp += 1
            # SRTCP leaves the first 8 bytes in the clear: the type of the first packet of the compound.
            # aiortc (and browsers) send NACK and PLI as packets of their own, so they are seen here.
            fmt, pt = data[0] & 0x1F, data[1]
            if pt == RTCP_RTPFB and fmt == 1:
                c.nacks += 1
            elif pt == RTCP_PSFB and fmt == 1:
                c.plis += 1
            elif pt == RTCP_PSFB and fmt == 4:
                c.firs += 1
        elif kind == "dtls":
            c.sctp += 1

    def delivered(self, direction: Direction, data: bytes, kind: str, delay: float) -> None:
        c = self.paths[direction]
        c.delivered += 1
        c.delay_total += delay
        c.delay_max = max(c.delay_max, delay)
        if kind == "rtp" and len(data) >= 12:
            ssrc = int.from_bytes(data[8:12], "big")
            if ssrc not in self.rtx:
                self._stream(c, ssrc).delivered += 1

    def _stream(self, c: PathCounters, ssrc: int) -> StreamCounters:
        s = c.streams.get(ssrc)
        if s is None:
            s = c.streams[ssrc] = StreamCounters(kind=self.kinds.get(ssrc, ""))
        return s


# ---------------------------------------------------------------- the delay line


Deliver = Callable[[bytes, int], Awaitable[None] | None]


class DelayLine:
    """Packets held until their arrival time on the injected clock, released by one owned task."""

    def __init__(self, clock: Clock, name: str) -> None:
        self.clock, self.name = clock, name
        self._heap: list[tuple[float, int, bytes, int, Deliver, float, str]] = []
        self._seq = itertools.count()
        self._kick: asyncio.Future[None] | None = None
        self._until = math.inf
        self.task: asyncio.Task[None] | None = None
        self.on_delivered: Callable[[bytes, str, float], None] | None = None

    def push(self, due: float, data: bytes, component: int, deliver: Deliver, sent: float, kind: str) -> None:
        heapq.heappush(self._heap, (due, next(self._seq), data, component, deliver, sent, kind))
        if due < self._until and self._kick is not None and not self._kick.done():
            self._kick.set_result(None)

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            now = self.clock.now()
            while self._heap and self._heap[0][0] <= now:
                _, _, data, component, deliver, sent, kind = heapq.heappop(self._heap)
                if self.on_delivered is not None:
                    self.on_delivered(data, kind, now - sent)
                try:
                    out = deliver(data, component)
                    if out is not None:
                        await out
                except ConnectionError:
                    pass  # the connection closed meanwhile: the datagram is lost, as UDP would lose it
            self._kick = loop.create_future()
            if not self._heap:
                self._until = math.inf
                await self._kick
                continue
            self._until = self._heap[0][0]
            sleeper = TaskOwner("impairment", quiet=True).start(self.clock.sleep_until(self._until), "sleep")
            try:
                await asyncio.wait({sleeper, self._kick}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                if not sleeper.done():
                    sleeper.cancel()

    @property
    def held(self) -> int:
        return len(self._heap)


class Impairment:
    """Applies a ``NetworkProfile`` to one peer connection's datagrams (hooked in by ``channels._compat``):
    ``outgoing``/``incoming`` take each datagram the harness sends/receives and deliver it later, twice or
    never. Counts everything in ``wire``. DTLS handshake packets pass untouched: joining is not what is
    measured, and a lost handshake would end the meeting before it began."""

    def __init__(self, profile: NetworkProfile, seed: int, clock: Clock) -> None:
        self.profile, self.seed, self.clock = profile, seed, clock
        self.wire = WireCounters()
        self.models: dict[Direction, PathModel] = {
            d: PathModel(profile.path(d), direction_seed(seed, d)) for d in DIRECTIONS
        }
        self.lines: dict[Direction, DelayLine] = {d: DelayLine(clock, d) for d in DIRECTIONS}
        self._clean = {d: profile.path(d).clean for d in DIRECTIONS}
        """Per direction, whether nothing is impaired (worked out once: ``clean`` builds and compares a profile)."""
        self.fates: list[tuple[Direction, str, int]] | None = None
        """When a list (tests, diagnosis): (direction, kind, copies delivered) of every impaired datagram."""
        for d, line in self.lines.items():
            line.on_delivered = lambda data, kind, delay, d=d: self.wire.delivered(d, data, kind, delay)  # type: ignore[misc]

    def start(self, start_task: Callable[[Any, str], Any]) -> None:
        """Start the delay lines' tasks with the owner's ``start(coro, name)``."""
        for d, line in self.lines.items():
            if line.task is None:
                line.task = start_task(line.run(), f"network-{d}")

    def handle(
        self, direction: Direction, data: bytes, component: int, deliver: Deliver
    ) -> Awaitable[None] | None:
        """One datagram in ``direction``: counted, then delivered now, later, twice or never."""
        kind = datagram_kind(data)
        self.wire.sent(direction, data, kind)
        if kind in ("dtls-handshake", "other") or self._clean[direction]:
            self.wire.delivered(direction, data, kind, 0.0)
            return deliver(data, component)
        now = self.clock.now()
        dues, why = self.models[direction].schedule(now, len(data))
        c = self.wire.paths[direction]
        if self.fates is not None:
            self.fates.append((direction, kind, len(dues)))
        if not dues:
            if why == "loss":
                c.dropped_loss += 1
            else:
                c.dropped_queue += 1
            return None
        if why == "reorder":
            c.reordered += 1
        if len(dues) > 1:
            c.duplicated += 1
        line = self.lines[direction]
        if len(dues) == 1 and dues[0] <= now and not line.held:
            self.wire.delivered(direction, data, kind, 0.0)
            return deliver(data, component)
        for due in dues:
            line.push(due, data, component, deliver, now, kind)
        return None


# ---------------------------------------------------------------- one sample of the meeting's network

CLOCK_RATES = {"audio": 48_000, "video": 90_000}
"""RTP clock rates: aiortc reports jitter in RTP timestamp units."""


def network_sample(net: Impairment, stats: list[Any], sctp_retransmissions: int | None,
                   concealed_frames: int | None, audio: Any, screen: Any) -> dict[str, Any]:  # fmt: skip
    """The fields of a ``network_stats`` record event: per direction the wire's and the impairment's counts,
    per stream those plus what aiortc's ``getStats`` says (``stats``: its report's values), and the persona's
    pacing (``audio``/``screen``: ``PacingStats``)."""
    paths = {d: net.wire.paths[d].as_record() for d in DIRECTIONS}
    paths["to_agent"]["sctp_retransmissions"] = sctp_retransmissions
    paths["from_agent"]["sctp_retransmissions"] = None
    streams: dict[tuple[str, int], dict[str, Any]] = {}

    def stream(direction: Direction, ssrc: int, kind: str = "") -> dict[str, Any]:
        key = (direction, ssrc)
        if key not in streams:
            c = net.wire.paths[direction].streams.get(ssrc, StreamCounters(kind=kind))
            streams[key] = {"direction": direction, "ssrc": ssrc, "kind": c.kind or kind,
                            "packets_sent": c.sent, "packets_delivered": c.delivered,
                            "retransmitted": c.retransmitted, "bytes_sent": c.bytes_sent, "packets_lost": None,
                            "jitter_ms": None, "round_trip_ms": None, "fraction_lost": None,
                            "concealed_frames": None}  # fmt: skip
        if kind and not streams[key]["kind"]:
            streams[key]["kind"] = kind
        return streams[key]

    for d in DIRECTIONS:
        for ssrc, c in net.wire.paths[d].streams.items():
            stream(d, ssrc, c.kind)
    # aiortc files a sender's remote-inbound-rtp under the reporter's SSRC; the sender's own outbound-rtp
    # shares its id's suffix, and carries the SSRC the report is about.
    outbound = {s.id.split("_", 1)[-1]: s.ssrc for s in stats if s.type == "outbound-rtp"}
    for s in stats:
        kind = getattr(s, "kind", "")
        rate = CLOCK_RATES.get(kind, 90_000)
        if s.type == "remote-inbound-rtp":  # the agent's receiver reports on the persona's stream
            reported = outbound.get(s.id.split("_", 1)[-1])
            if reported is None:
                continue
            out = stream("to_agent", reported, kind)
            out["packets_lost"] = s.packetsLost
            out["jitter_ms"] = round(s.jitter / rate * 1000, 3)
            out["fraction_lost"] = round(s.fractionLost / 256, 4)  # RTCP's 8-bit fixed point
            # Audio only: a still screen sends no RTP between key frames, so the video sender's reports carry
            # the last packet's NTP time again and again, and aiortc's estimate from them comes out wrong
            # (measured: -658 to +123 ms on a 120 ms path); the audio stream sends every 20 ms.
            if s.roundTripTime is not None and kind == "audio":
                out["round_trip_ms"] = round(s.roundTripTime * 1000, 3)
        elif s.type == "inbound-rtp":  # the harness's receiver on the agent's stream
            out = stream("from_agent", s.ssrc, kind)
            out["packets_lost"] = s.packetsLost
            out["jitter_ms"] = round(s.jitter / rate * 1000, 3)
            if kind == "audio":
                out["concealed_frames"] = concealed_frames
    return {"profile": net.profile.name, "to_agent": paths["to_agent"], "from_agent": paths["from_agent"],
            "streams": sorted(streams.values(), key=lambda x: (x["direction"], x["kind"], x["ssrc"])),
            "persona_audio_frames": audio.frames, "persona_audio_late_frames": audio.late_frames,
            "persona_screen_frames": screen.frames, "persona_screen_late_frames": screen.late_frames}  # fmt: skip
