"""Every reach-in into a dependency's private parts (aiortc, aioice, asyncio), in one place.

Each one names the version it was written for (``WRITTEN_FOR``); ``check_versions`` logs a warning once
when an installed version differs, and tests/channels/test_compat.py fails when a reach-in stops holding.
Callers use the functions here, never the private names themselves.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import random
import sys
import threading
from collections.abc import Awaitable, Callable, Collection, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from contextlib import contextmanager
from importlib import metadata
from typing import Any

import aioice.ice
import aioice.stun
from aiortc import RTCRtpReceiver, RTCRtpSender
from aiortc.jitterbuffer import JitterBuffer, JitterFrame
from aiortc.rtp import RtpPacket
from aiortc.utils import uint16_add

logger = logging.getLogger(__name__)

WRITTEN_FOR: dict[str, str] = {"aiortc": "1.16.0", "aioice": "0.13.0", "python": "3.11"}
"""The versions the reach-ins below were written for and tested against."""


def installed_versions() -> dict[str, str]:
    """The installed versions of what ``WRITTEN_FOR`` names ("python" as major.minor)."""
    out = {"python": f"{sys.version_info.major}.{sys.version_info.minor}"}
    for dist in ("aiortc", "aioice"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    return out


def version_mismatches() -> list[str]:
    """One line per dependency whose installed version is not the one the reach-ins were written for."""
    have = installed_versions()
    return [
        f"{name} {have[name]} (written for {want})"
        for name, want in WRITTEN_FOR.items()
        if have[name] != want
    ]


@functools.cache
def check_versions() -> list[str]:
    """Warn (once per process) when the installed versions differ from ``WRITTEN_FOR``; returns the lines."""
    mismatches = version_mismatches()
    if mismatches:
        logger.warning("private-API reach-ins were written for other versions: %s; "
                       "run tests/channels/test_compat.py to check they still hold", "; ".join(mismatches))  # fmt: skip
    return mismatches


# ---------------------------------------------------------------- aioice: a 127.0.0.1 host candidate

_original_host_addresses = aioice.ice.get_host_addresses


def _host_addresses_with_loopback(use_ipv4: bool, use_ipv6: bool) -> list[str]:
    addresses = _original_host_addresses(use_ipv4, use_ipv6)
    if use_ipv4 and "127.0.0.1" not in addresses:
        addresses.append("127.0.0.1")
    return addresses


def enable_loopback_candidates() -> None:
    """Make aioice offer 127.0.0.1 as a host candidate: it never does by itself, and on a loopback-only host
    ICE would then have no candidate at all. aioice gathers host candidates from the module-level
    ``aioice.ice.get_host_addresses`` (aioice 0.9-0.13), which is replaced here (docs/protocol.md §8)."""
    check_versions()
    aioice.ice.get_host_addresses = _host_addresses_with_loopback  # type: ignore[assignment]


# ---------------------------------------------------------------- aioice: consent freshness that waits for late answers

CONSENT_EXPIRY = 30.0
"""Seconds without any answer to a consent check after which consent to send expires (RFC 7675 §5.1)."""
CONSENT_RETRANSMISSIONS = 3
"""Retransmissions of each consent check (aioice's 0.5 s, doubling: an answer may come 7.5 s late)."""

_original_query_consent = aioice.ice.Connection.query_consent


async def _tolerant_query_consent(self: aioice.ice.Connection) -> None:
    """aioice 0.13's ``Connection.query_consent`` with RFC 7675's expiry: consent lapses after
    ``CONSENT_EXPIRY`` s with no answer, not after six checks each answered within 0.5 s (stock aioice sends
    each check once, ``retransmissions=0``). A peer flooding a data channel puts thousands of datagrams ahead
    of the answer in the socket's queue, and a meeting ended as agent_disconnected although both peers
    were there. Written on aioice's ``_nominated``, ``build_request``, ``remote_password`` and
    ``StunProtocol.request`` (0.9-0.13)."""
    assert self.remote_password is not None
    loop = asyncio.get_running_loop()
    answered = loop.time()
    while True:
        await asyncio.sleep(aioice.ice.CONSENT_INTERVAL * (0.8 + 0.4 * random.random()))
        for pair in list(self._nominated.values()):
            request = self.build_request(pair, nominate=False)
            try:
                await pair.protocol.request(request, pair.remote_addr,
                                            integrity_key=self.remote_password.encode("utf8"),
                                            retransmissions=CONSENT_RETRANSMISSIONS)  # fmt: skip
                answered = loop.time()
            except aioice.stun.TransactionError:
                pass
        if loop.time() - answered >= CONSENT_EXPIRY:
            logger.info("ICE consent to send expired (no answer in %.0f s)", loop.time() - answered)
            self._query_consent_task = None
            await self.close()
            return


def tolerate_late_consent_answers() -> None:
    """Make every aioice ``Connection`` of this process expire consent the RFC 7675 way (see
    ``_tolerant_query_consent``). ``Connection.connect`` starts ``self.query_consent()`` once ICE completes
    (aioice 0.9-0.13); the class attribute is replaced."""
    check_versions()
    aioice.ice.Connection.query_consent = _tolerant_query_consent  # type: ignore[method-assign]


# ---------------------------------------------------------------- aiortc: key-frame requests (RTCP PLI/FIR)

_FORCE_KEYFRAME = "_RTCRtpSender__force_keyframe"
"""aiortc's ``RTCRtpSender`` sets its private ``__force_keyframe`` when the receiver sends PLI or FIR, and
its own encoder reads it; a track that encodes itself has no other way to hear the request."""


def keyframe_requests_visible(sender: RTCRtpSender) -> bool:
    """True when ``sender`` exposes the key-frame request flag ``take_keyframe_request`` reads."""
    check_versions()
    return hasattr(sender, _FORCE_KEYFRAME)


def take_keyframe_request(sender: Any) -> bool:
    """Whether the receiver asked ``sender`` for a key frame since the last call (the request is consumed)."""
    if sender is not None and getattr(sender, _FORCE_KEYFRAME, False):
        setattr(sender, _FORCE_KEYFRAME, False)
        return True
    return False


@functools.cache
def encoded_packets_supported() -> bool:
    """True when aiortc sends a track's finished ``av.Packet`` as it is, which the pre-encoded tracks rely on.

    aiortc 1.16's ``RTCRtpSender._next_encoded_frame`` encodes what ``recv()`` returns only when it is an
    ``av.Frame``; anything else goes to the codec's ``pack(packet)`` (``OpusEncoder``, ``Vp8Encoder``), which
    only packetizes it (VP8 payload descriptor, the sender's own picture id) and takes the RTP timestamp from
    ``pts``/``time_base``; the sender adds its own SSRC, sequence numbers and timestamp origin. Checked here:
    both ``pack`` methods exist and the sender still tells frames from packets."""
    check_versions()
    import inspect

    from aiortc.codecs.opus import OpusEncoder
    from aiortc.codecs.vpx import Vp8Encoder

    try:
        source = inspect.getsource(RTCRtpSender._next_encoded_frame)
    except (AttributeError, OSError, TypeError):
        return False
    packs = all(callable(getattr(codec, "pack", None)) for codec in (OpusEncoder, Vp8Encoder))
    return packs and "isinstance(data, Frame)" in source and ".pack(data)" in source


# ---------------------------------------------------------------- aiortc: the audio receive path

_JITTER_BUFFER = "_RTCRtpReceiver__jitter_buffer"
AUDIO_PREFETCH = 4
"""Frames aiortc's audio jitter buffer holds back before decoding (4 × 20 ms; aiortc's own audio setting)."""


def replace_jitter_buffer(receiver: RTCRtpReceiver, buffer: JitterBuffer) -> bool:
    """Put ``buffer`` in place of ``receiver``'s private jitter buffer; False (nothing done) if it has none."""
    check_versions()
    if not hasattr(receiver, _JITTER_BUFFER):
        return False
    setattr(receiver, _JITTER_BUFFER, buffer)
    return True


def jitter_buffer_of(receiver: RTCRtpReceiver) -> JitterBuffer | None:
    """``receiver``'s private jitter buffer (tests)."""
    buffer = getattr(receiver, _JITTER_BUFFER, None)
    return buffer if isinstance(buffer, JitterBuffer) else None


def observe_rtp_packets(receiver: RTCRtpReceiver, observer: Callable[[RtpPacket], None]) -> None:
    """Call ``observer`` with every RTP packet ``receiver`` is handed, as it arrives, before aiortc sees it.

    aiortc has no hook for it: the receiver's ``_handle_rtp_packet(packet, arrival_time_ms)``, which the
    DTLS transport calls for each packet, is wrapped.
    """
    check_versions()
    original: Callable[[RtpPacket, int], Awaitable[None]] = receiver._handle_rtp_packet

    async def handle(packet: RtpPacket, arrival_time_ms: int) -> None:
        observer(packet)
        await original(packet, arrival_time_ms)

    receiver._handle_rtp_packet = handle  # type: ignore[method-assign]


class RecoveringJitterBuffer(JitterBuffer):
    """aiortc's audio jitter buffer, except that a lost packet is skipped once later frames are waiting.

    Stock aiortc waits for the missing packet until the buffer overflows and then stays full, adding
    ~200 ms to every later frame (aiortc issue #543). Written on ``JitterBuffer``'s private state
    (``_origin``, ``_capacity``, ``_packets``, ``_prefetch``, ``_remove_frame``) of aiortc 1.16.
    """

    max_backlog = AUDIO_PREFETCH + 1
    """Frames allowed to wait; beyond that the oldest are dropped, because
    aiortc releases at most one frame per arriving packet and a burst after a stall would otherwise add its
    size to every later frame."""

    tap: Callable[[int, JitterFrame], bool] | None = None
    """Called with each frame the buffer releases and its RTP payload type; a frame it takes (returns True)
    is not handed to aiortc's decoder thread (``channels._webrtc.LoopOpus`` decodes it on the loop)."""

    dropped = 0
    """Frames dropped to keep the backlog bounded."""
    skipped = 0
    """Lost packets skipped over (20 ms of audio concealed, i.e. played as a gap, each)."""

    def add(self, packet: RtpPacket) -> tuple[bool, JitterFrame | None]:
        pli, frame = super().add(packet)
        if frame is not None and self._origin is not None:
            cap = self._capacity
            present = sum(1 for p in self._packets if p is not None)
            if present > self.max_backlog:
                self.dropped += present - self.max_backlog
                self.remove(present - self.max_backlog)
                while self._packets[self._origin % cap] is None and any(self._packets):
                    self._origin = uint16_add(self._origin, 1)
        if frame is None and self._origin is not None:
            cap = self._capacity
            if self._packets[self._origin % cap] is None:
                present = sum(1 for p in self._packets if p is not None)
                if present > self._prefetch:
                    for _ in range(cap):
                        if self._packets[self._origin % cap] is not None:
                            break
                        self._origin = uint16_add(self._origin, 1)
                        self.skipped += 1
                    frame = self._remove_frame(packet.sequence_number)
        if frame is not None and self.tap is not None and self.tap(packet.payload_type, frame):
            frame = None
        return pli, frame


_RECEIVER_CODECS = "_RTCRtpReceiver__codecs"


def receiver_codec_names(receiver: RTCRtpReceiver) -> dict[int, str] | None:
    """Payload type -> codec name (lower case, e.g. ``opus``) that ``receiver`` negotiated; None when aiortc's
    private table is not where aiortc 1.16 keeps it."""
    codecs = getattr(receiver, _RECEIVER_CODECS, None)
    if not isinstance(codecs, dict):
        return None
    return {int(pt): str(getattr(c, "name", "")).lower() for pt, c in codecs.items()}


# ---------------------------------------------------------------- asyncio: is the loop idle?


def loop_has_ready_callbacks(loop: asyncio.AbstractEventLoop) -> bool | None:
    """Whether ``loop`` has callbacks ready to run now, or None when it does not say.

    CPython's ``BaseEventLoop`` keeps them in the private deque ``_ready`` (3.8-3.13); other loops (uvloop)
    have nothing to look at, and the ``VirtualClock`` then falls back to counting idle passes.
    """
    ready = getattr(loop, "_ready", None)
    return None if ready is None else len(ready) > 0


def loop_ready_count(loop: asyncio.AbstractEventLoop) -> int | None:
    """How many callbacks ``loop`` has ready to run now (the same ``_ready`` deque), or None when it does not say."""
    ready = getattr(loop, "_ready", None)
    return None if ready is None else len(ready)


# ---------------------------------------------------------------- asyncio: work on the wall clock


def loop_watched_fds(loop: asyncio.AbstractEventLoop) -> list[int] | None:
    """The file descriptors ``loop`` waits on for someone (sockets, pipes), its own wake-up pipe left out;
    None when the loop does not say.

    CPython's selector loops (3.8-3.13) keep a ``selectors`` selector in ``_selector`` and the read end of
    their self-pipe in ``_ssock``. A transport registers its socket there while it reads or has bytes left to
    write; anyio (httpx, openai) pauses reading on an idle connection, so a pooled keep-alive one is not there.
    """
    selector = getattr(loop, "_selector", None)
    if selector is None:
        return None
    try:
        watched = selector.get_map()
        if len(watched) <= 1 and getattr(loop, "_ssock", None) is not None:
            return []  # the self-pipe alone: the common case, kept cheap (it runs at every clock jump)
        ssock = getattr(loop, "_ssock", None)
        own = ssock.fileno() if ssock is not None else -1
        return [key.fd for key in watched.values() if key.fd != own]
    except (RuntimeError, ValueError, OSError):  # a closed selector or self-pipe
        return []


_JOBS_UNCOUNTED: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "modylbench_jobs_uncounted", default=False
)


@contextmanager
def jobs_not_counted() -> Iterator[None]:
    """Executor jobs submitted inside (by this task) are left out of ``CountingExecutor.in_flight``."""
    token = _JOBS_UNCOUNTED.set(True)
    try:
        yield
    finally:
        _JOBS_UNCOUNTED.reset(token)


class CountingExecutor(ThreadPoolExecutor):
    """A loop's default executor (``asyncio.to_thread``, ``run_in_executor(None, …)``) that counts its jobs in flight.

    A job stops counting on the loop, after asyncio has handed its result to the awaiting future: the count
    is dropped by a done-callback added one loop iteration after ``submit``, i.e. after the one
    ``run_in_executor`` adds through ``wrap_future`` as soon as ``submit`` returns (3.8-3.13), and
    ``concurrent.futures`` runs done-callbacks in the order they were added. So there is no moment when
    the job is over but neither counted nor visible as a ready callback.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(thread_name_prefix="asyncio")
        self._loop = loop
        self._lock = threading.Lock()
        self.in_flight = 0
        """Jobs submitted (outside ``jobs_not_counted``) whose result the loop has not taken yet."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        fut = super().submit(fn, *args, **kwargs)
        if not _JOBS_UNCOUNTED.get():
            with self._lock:
                self.in_flight += 1
            self._loop.call_soon_threadsafe(fut.add_done_callback, self._job_done)
        return fut

    def _job_done(self, _fut: Future[Any]) -> None:
        try:
            self._loop.call_soon_threadsafe(self._uncount)
        except RuntimeError:  # the loop is closed: nobody is counting any more
            self._uncount()

    def _uncount(self) -> None:
        with self._lock:
            self.in_flight -= 1


def count_default_executor_jobs(loop: asyncio.AbstractEventLoop) -> CountingExecutor | None:
    """Make ``loop``'s default executor a ``CountingExecutor`` (once) and return it; None when the loop keeps
    its default executor elsewhere than CPython's ``BaseEventLoop._default_executor`` (3.8-3.13).

    A stock default executor already in place is shut down without waiting: its running jobs finish (and
    are not counted), new ones go to the counting executor.
    """
    missing = object()
    current = getattr(loop, "_default_executor", missing)
    if current is missing or getattr(loop, "_executor_shutdown_called", False):
        return None
    if isinstance(current, CountingExecutor):
        return current
    counting = CountingExecutor(loop)
    loop.set_default_executor(counting)
    if isinstance(current, Executor):
        current.shutdown(wait=False)
    return counting


def child_process_waits() -> int:
    """Child processes asyncio is waiting for in watcher threads (any loop of this process).

    Python 3.8-3.11's default child watcher, ``ThreadedChildWatcher``, kept by the event loop policy in
    ``_watcher``, waits for each child in a thread listed in ``_threads`` until the exit is handed to the loop.
    From 3.12 a pidfd watcher waits on a file descriptor instead, which ``loop_watched_fds`` sees.
    """
    watcher = getattr(asyncio.get_event_loop_policy(), "_watcher", None)
    threads = getattr(watcher, "_threads", None)
    return len(threads) if isinstance(threads, dict) else 0


def loop_timers(loop: asyncio.AbstractEventLoop, ignore: Collection[asyncio.TimerHandle] = ()) -> int | None:
    """Timers pending on ``loop`` (``call_later``/``call_at``: ``asyncio.sleep``, ``wait_for`` and anyio
    timeouts), cancelled ones and those in ``ignore`` left out; None when the loop does not say.

    CPython's ``BaseEventLoop`` keeps them in the heap ``_scheduled`` (3.8-3.13), cancelled ones included
    until it cleans up.
    """
    scheduled = getattr(loop, "_scheduled", None)
    if scheduled is None:
        return None
    if not scheduled:
        return 0  # the common case in a scripted meeting: kept cheap (it runs at every clock jump)
    return sum(1 for h in scheduled if not h.cancelled() and h not in ignore)


# ---------------------------------------------------------------- aioice/aiortc: the datagrams of a peer connection

DatagramHook = Callable[[bytes, int, Callable[[bytes, int], Any]], Any]
"""``hook(data, component, deliver)``: handle one datagram; ``deliver(data, component)`` passes it on."""


def ice_connections(pc: Any) -> list[aioice.ice.Connection]:
    """The aioice ``Connection`` objects under a peer connection's transports (one when bundled).

    aiortc keeps each ``RTCIceTransport``'s aioice connection in its private ``_connection`` (aiortc 1.x,
    through 1.16); the transports are reached through public names (``receiver.transport.transport``,
    ``pc.sctp.transport.transport``). Call after ``setRemoteDescription`` (bundling is settled then) and
    before ICE connects.
    """
    check_versions()
    found: list[aioice.ice.Connection] = []
    dtls = [t.receiver.transport for t in pc.getTransceivers()]
    if pc.sctp is not None:
        dtls.append(pc.sctp.transport)
    for transport in dtls:
        ice = getattr(transport, "transport", None)
        conn = getattr(ice, "_connection", None)
        if isinstance(conn, aioice.ice.Connection) and all(conn is not c for c in found):
            found.append(conn)
    return found


def intercept_datagrams(connection: aioice.ice.Connection, outgoing: DatagramHook, incoming: DatagramHook) -> bool:
    """Route every non-STUN datagram ``connection`` sends or receives through ``outgoing``/``incoming``.

    aioice 0.9-0.13: aiortc sends through ``Connection.send``, which calls ``self.sendto(data, component)``,
    and each ``StunProtocol`` hands a received non-STUN datagram to ``self.receiver.data_received(data,
    component)``; both are looked up on the instance, so instance attributes replace them. STUN (ICE checks,
    consent) does not pass here. False (nothing done) when either method is missing.
    """
    check_versions()
    send = getattr(connection, "sendto", None)
    receive = getattr(connection, "data_received", None)
    if send is None or receive is None or getattr(connection, "_modylbench_intercepted", False):
        return False

    async def sendto(data: bytes, component: int) -> None:
        out = outgoing(data, component, send)
        if out is not None:
            await out

    def data_received(data: bytes, component: int) -> None:
        out = incoming(data, component, receive)
        if out is not None:  # data_received is synchronous in aioice; the hook never returns a coroutine here
            raise TypeError("incoming datagram hook must deliver synchronously")

    connection.sendto = sendto  # type: ignore[method-assign]
    connection.data_received = data_received  # type: ignore[method-assign]
    connection._modylbench_intercepted = True  # type: ignore[attr-defined]
    return True


class SctpRetransmissions:
    """Data chunks an SCTP association sent again (T3 timeouts and fast retransmits)."""

    def __init__(self) -> None:
        self.chunks = 0


def count_sctp_retransmissions(sctp: Any) -> SctpRetransmissions | None:
    """Count the data chunks ``sctp`` (an ``RTCSctpTransport``) retransmits; None when it cannot be seen.

    aiortc 1.16's ``_transmit`` raises a chunk's private ``_sent_count`` before each ``_send_chunk(chunk)``;
    a ``DataChunk`` going out with a count above 1 is a retransmission. ``_send_chunk`` is wrapped.
    """
    check_versions()
    from aiortc.rtcsctptransport import DataChunk

    original = getattr(sctp, "_send_chunk", None)
    if original is None:
        return None
    counter = SctpRetransmissions()

    async def send_chunk(chunk: Any) -> None:
        if isinstance(chunk, DataChunk) and getattr(chunk, "_sent_count", 0) > 1:
            counter.chunks += 1
        await original(chunk)

    sctp._send_chunk = send_chunk
    return counter
