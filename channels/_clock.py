"""Injected time for the live transport: a ``Clock`` protocol, the wall clock and a virtual clock that skips
only dead air (docs/architecture.md, "Time").

Everything that paces media or timestamps events takes a ``Clock``; only this module reads the system time.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import socket
import time
import weakref
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Protocol, TypeVar, runtime_checkable

from modylbench.channels._compat import (
    child_process_waits,
    count_default_executor_jobs,
    jobs_not_counted,
    loop_ready_count,
    loop_timers,
    loop_watched_fds,
)
from modylbench.channels._tasks import TaskOwner

logger = logging.getLogger(__name__)

T = TypeVar("T")

__all__ = ["Clock", "ClockTimeout", "ClockTimer", "VirtualClock", "WallClock", "wait_for", "wall_work"]


class ClockTimeout(asyncio.TimeoutError):
    """``wait_for`` ran out of time on the injected clock."""


@runtime_checkable
class Clock(Protocol):
    """Meeting time in seconds since the clock started, plus sleeping on that time line."""

    def now(self) -> float:
        """Seconds since the clock started (monotonic)."""
        ...

    def wall_time(self) -> float:
        """Unix time (seconds) corresponding to ``now()``; what records store as ``wall_time``."""
        ...

    async def sleep(self, delay: float) -> None:
        """Return after ``delay`` seconds of this clock's time."""
        ...

    async def sleep_until(self, when: float) -> None:
        """Return once ``now() >= when``."""
        ...


class WallClock:
    """Real time: ``now()`` is ``time.monotonic()`` relative to construction; sleeps use the event loop."""

    def __init__(self) -> None:
        self._t0 = time.monotonic()
        self._wall0 = time.time()

    def now(self) -> float:
        return time.monotonic() - self._t0

    def wall_time(self) -> float:
        return self._wall0 + self.now()

    async def sleep(self, delay: float) -> None:
        await asyncio.sleep(max(0.0, delay))

    async def sleep_until(self, when: float) -> None:
        # asyncio.sleep rounds to the loop's clock resolution; loop on the rare early wake so pacing
        # never runs ahead of schedule.
        while True:
            remaining = when - self.now()
            if remaining <= 0:
                return
            await asyncio.sleep(remaining)


class ClockTimer:
    """A callback at a meeting time on a ``VirtualClock`` (``call_at``); ``cancel()`` it to drop it."""

    __slots__ = ("_callback", "_state")

    def __init__(self, callback: Callable[[], object]) -> None:
        self._callback = callback
        self._state = 0  # 0 pending, 1 run (or handed to the loop), 2 cancelled

    def cancel(self) -> None:
        if self._state == 0:
            self._state = 2

    def cancelled(self) -> bool:
        return self._state == 2

    def done(self) -> bool:
        """Run or cancelled: no longer waiting (what the clock's heap asks of its entries, as of a future)."""
        return self._state != 0

    def _run(self) -> None:
        if self._state == 2:
            return
        self._state = 1
        self._callback()


INLINE_INSTANTS = 256
"""Instants of ``call_at`` callbacks alone a ``VirtualClock`` runs in one look, one after the other, while they
wake nobody (a paced silent stream), before it gives the event loop a pass."""

POLL_WHILE_FLOWING = 0.01
"""Seconds between looks at whether the wall-clock work is over while meeting time flows (and so the
most meeting time a flow can outlast that work by)."""


def _listening(fd: int) -> bool:
    """Whether ``fd`` is a listening socket: a server waiting for someone to connect is not work in progress."""
    accept_conn = getattr(socket, "SO_ACCEPTCONN", None)
    if accept_conn is None:
        return False
    try:
        sock = socket.socket(fileno=fd)
    except OSError:  # a pipe or another non-socket
        return False
    try:
        return bool(sock.getsockopt(socket.SOL_SOCKET, accept_conn))
    except OSError:
        return False
    finally:
        sock.detach()  # the descriptor stays its owner's


class _WallWork:
    """What one event loop has in progress on the wall clock: sockets and pipes it waits on, timers of its own
    (``asyncio.sleep``, wall-clock timeouts), thread jobs, child processes, and work declared with
    ``wall_work()``."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        # Weak references only: this is the value of a WeakKeyDictionary keyed by the loop.
        self._loop = weakref.ref(loop)
        self.declared = 0
        self.clock_timers: weakref.WeakSet[asyncio.TimerHandle] = weakref.WeakSet()
        """The virtual clocks' own loop timers (set while flowing): not work of anyone's."""
        self.clock_ticks = 0
        """The virtual clocks' looks queued as ready callbacks: several clocks on one loop (meetings side by
        side) must not take each other's for work, or none would ever jump."""
        executor = count_default_executor_jobs(loop)
        self._executor = weakref.ref(executor) if executor is not None else None
        blind = loop_watched_fds(loop) is None
        if blind or executor is None:
            logger.warning("meeting time cannot see this event loop's %s (%s): it jumps over them unless "
                           "they are declared with modylbench.channels.wall_work()",
                           "sockets" if blind else "thread jobs", type(loop).__name__)  # fmt: skip

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        return self._loop()

    def pending(self) -> str:
        """What is in progress on the wall clock (one short reason), or "" when nothing is."""
        loop = self._loop()
        if loop is None:
            return ""
        if self.declared:
            return "declared wall-clock work"
        executor = self._executor() if self._executor is not None else None
        if executor is not None and executor.in_flight > 0:
            return f"{executor.in_flight} thread job(s)"
        if loop_timers(loop, self.clock_timers):
            return "a timer on the wall clock"
        fds = loop_watched_fds(loop)
        if fds:
            for fd in fds:
                if not _listening(fd):
                    return f"file descriptor {fd}"
        if child_process_waits():
            return "a child process"
        return ""


_WATCHES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _WallWork] = weakref.WeakKeyDictionary()


def _watch_of(loop: asyncio.AbstractEventLoop) -> _WallWork:
    watch = _WATCHES.get(loop)
    if watch is None:
        watch = _WATCHES[loop] = _WallWork(loop)
    return watch


@contextmanager
def wall_work() -> Iterator[None]:
    """Declare work in progress on the wall clock that the loop cannot see by itself (an executor of your own,
    a call into another process without a pipe): meanwhile a ``VirtualClock`` on this loop lets meeting time
    flow at the wall rate instead of jumping. Sockets, ``asyncio.to_thread`` jobs and child processes are
    seen without it. Must be entered on the running loop."""
    watch = _watch_of(asyncio.get_running_loop())
    watch.declared += 1
    try:
        yield
    finally:
        watch.declared -= 1


class VirtualClock:
    """Meeting time that skips only dead air: it jumps to the next sleeper's deadline when every task waits
    on the meeting itself, and flows at the wall-clock rate while anything works on the wall clock.

    Time jumps only when the event loop has nothing ready to run and nothing in progress outside it, so a
    headless meeting of scripted agents over the in-process transport runs as fast as the CPU allows while
    keeping every ordering it would have in real time; CPU work on the loop costs no meeting time. Work
    outside the loop (a socket read or write pending, e.g. an HTTP call to a model; an ``asyncio.to_thread``
    job; a child process; anything inside ``wall_work()``) makes meeting time flow at the wall rate until it
    ends, so an agent's think time and latency are real. Harness work that should cost no meeting time goes
    inside ``with clock.hold():``. One clock serves one event loop.
    """

    def __init__(self, start: float = 0.0, wall_epoch: float | None = None) -> None:
        self._now = start
        self._wall_epoch = time.time() if wall_epoch is None else wall_epoch
        self._heap: list[tuple[float, int, asyncio.Future[None] | ClockTimer]] = []
        self._seq = itertools.count()
        self._holds = 0
        self._scheduled = False
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0
        self._queued = False
        self._flow_since: float | None = None
        """``time.monotonic()`` when meeting time began to flow (``_now`` is the meeting time then); None
        while it jumps."""
        self._watch: _WallWork | None = None
        self.flowed = 0.0
        """Meeting seconds that passed at the wall rate (while something worked on the wall clock)."""
        # Loops without a visible ready queue (not CPython's default loop) fall back to yielding this many
        # times with no new sleeper before advancing.
        self._idle_passes = 0
        try:
            # Seen from the start, so the loop's thread jobs are counted from the first one.
            self._watch = _watch_of(asyncio.get_running_loop())
        except RuntimeError:  # made outside a running loop: the first sleep looks
            pass

    def now(self) -> float:
        if self._flow_since is None:
            return self._now
        return self._now + (time.monotonic() - self._flow_since)

    def wall_time(self) -> float:
        return self._wall_epoch + self.now()

    @property
    def flowing(self) -> bool:
        """True while meeting time flows at the wall rate (something is working on the wall clock)."""
        return self._flow_since is not None

    async def sleep(self, delay: float) -> None:
        await self.sleep_until(self.now() + max(0.0, delay))

    async def sleep_until(self, when: float) -> None:
        loop = asyncio.get_running_loop()
        if when <= self.now():
            # Still yield once, like asyncio.sleep(0), so a pacing loop cannot starve the others.
            await asyncio.sleep(0)
            return
        fut: asyncio.Future[None] = loop.create_future()
        heapq.heappush(self._heap, (when, next(self._seq), fut))
        if self._timer is not None and when < self._timer_at:
            # Flowing, with a timer set for later than this deadline: look again now.
            self._timer.cancel()
            self._drop_timer()
            self._scheduled = False
        self._schedule(loop)
        await fut

    def call_at(self, when: float, callback: Callable[[], object]) -> ClockTimer:
        """Run ``callback`` once ``now() >= when``, in the very order a task sleeping ``sleep_until(when)`` from
        this moment would wake (the heap's order), on the running loop; without the task: no future, no task
        step. Where every sleeper due at an instant is such a callback, the clock runs them within its own
        look and jumps on while they wake nobody, so a paced stream of frames that has no effect (silence
        nobody listens to) costs a heap push and pop per frame instead of an event-loop pass. A deadline
        already passed runs on the next loop pass, as ``sleep_until`` would yield once."""
        loop = asyncio.get_running_loop()
        timer = ClockTimer(callback)
        if when <= self.now():
            loop.call_soon(timer._run)
            return timer
        heapq.heappush(self._heap, (when, next(self._seq), timer))
        if self._timer is not None and when < self._timer_at:
            self._timer.cancel()
            self._drop_timer()
            self._scheduled = False
        self._schedule(loop)
        return timer

    @contextmanager
    def hold(self) -> Iterator[None]:
        """Harness work that should cost no meeting time (a thread storing a file): time does not jump
        meanwhile, and the thread jobs this task starts inside do not count as wall-clock work (time still
        flows if something else works on the wall clock)."""
        self._holds += 1
        try:
            with jobs_not_counted():
                yield
        finally:
            self._holds -= 1
            if self._holds == 0 and self._heap:
                try:
                    self._schedule(asyncio.get_running_loop())
                except RuntimeError:
                    pass

    def advance(self, delay: float) -> None:
        """Move time forward by hand (tests), waking every sleeper whose deadline has passed."""
        self._now += max(0.0, delay)
        self._wake_due()

    @property
    def sleepers(self) -> int:
        """Number of tasks (and ``call_at`` callbacks) waiting on this clock."""
        return sum(1 for _, _, f in self._heap if not f.done())

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._watch is None or self._watch.loop is not loop:
            self._watch = _watch_of(loop)
        if not self._scheduled:
            self._scheduled = True
            self._queued = True
            self._watch.clock_ticks += 1
            loop.call_soon(self._tick, loop)

    def _wall_work(self, loop: asyncio.AbstractEventLoop) -> str:
        if self._watch is None or self._watch.loop is not loop:
            self._watch = _watch_of(loop)
        return self._watch.pending()

    def _tick(self, loop: asyncio.AbstractEventLoop) -> None:
        self._scheduled = False
        if self._queued and self._watch is not None:
            self._queued = False
            self._watch.clock_ticks -= 1
        self._drop_timer()
        while self._heap and self._heap[0][2].done():  # cancelled sleepers
            heapq.heappop(self._heap)
        if self._flow_since is not None:
            if self._wall_work(loop):
                self._wake_due(loop)
                self._arm(loop)
                return
            now = self.now()
            self.flowed += now - self._now
            self._now, self._flow_since = now, None
            logger.debug("meeting time jumps again from %.3f s", now)
            self._wake_due(loop)
        if not self._heap:
            return
        ready = loop_ready_count(loop)
        if ready is None:
            self._idle_passes += 1
            busy = self._idle_passes < 50
        else:
            busy = ready > (self._watch.clock_ticks if self._watch is not None else 0)
        if busy:
            # CPU work on the loop costs no meeting time: look again once it is done.
            self._schedule(loop)
            return
        self._idle_passes = 0
        # Everyone waits: on the meeting (jump to the next deadline), or on the wall clock (flow with it).
        working = self._wall_work(loop)
        if working:
            self._flow_since = time.monotonic()
            logger.debug("meeting time flows at the wall rate from %.3f s: %s", self._now, working)
            self._arm(loop)
            return
        if self._holds:
            return  # the hold's end looks again
        # While callbacks run here, the sleepers they add need no look of their own: this one looks after them.
        self._scheduled = True
        try:
            for _ in range(INLINE_INSTANTS):
                self._now = max(self._now, self._heap[0][0])
                before = loop_ready_count(loop)
                if not self._wake_due(loop, inline=before is not None):
                    break
                # The instant held only callbacks, run here: jump on at once if they woke nobody (what the next
                # look would do, without the loop's pass in between).
                while self._heap and self._heap[0][2].done():
                    heapq.heappop(self._heap)
                if not self._heap or self._holds or loop_ready_count(loop) != before:
                    break
        finally:
            self._scheduled = False
        if self._heap:
            self._schedule(loop)

    def _arm(self, loop: asyncio.AbstractEventLoop) -> None:
        """While flowing: look again at the next deadline, or sooner to see whether the work is over."""
        if not self._heap:
            return  # nobody to wake; the next sleeper looks again
        delay = min(POLL_WHILE_FLOWING, max(0.0, self._heap[0][0] - self.now()))
        self._scheduled = True
        self._timer_at = self.now() + delay
        self._timer = loop.call_later(delay, self._tick, loop)
        if self._watch is not None:
            self._watch.clock_timers.add(self._timer)

    def _drop_timer(self) -> None:
        if self._timer is not None and self._watch is not None:
            self._watch.clock_timers.discard(self._timer)
        self._timer = None

    def _wake_due(self, loop: asyncio.AbstractEventLoop | None = None, inline: bool = False) -> bool:
        """Wake every sleeper due. A ``call_at`` callback is handed to the loop where the task's step would be
        (the same place in the ready queue); with ``inline``, when the instant holds callbacks only, they run
        here, in the same order (nothing else would have run between them). True when they did."""
        now = self.now()
        heap = self._heap
        if not heap or heap[0][0] > now:
            return False
        due = []
        while heap and heap[0][0] <= now:
            due.append(heapq.heappop(heap)[2])
        if loop is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # advance() from outside a loop: nothing else can run between them
                inline = True
        inline = inline and all(isinstance(e, ClockTimer) or e.done() for e in due)
        for e in due:
            if isinstance(e, ClockTimer):
                if e.done():
                    continue
                if inline or loop is None:
                    try:
                        e._run()
                    except (SystemExit, KeyboardInterrupt):
                        raise
                    except BaseException as exc:
                        if loop is None:
                            raise
                        loop.call_exception_handler({"message": "exception in a VirtualClock.call_at callback",
                                                     "exception": exc})
                else:
                    loop.call_soon(e._run)
            elif not e.done():
                e.set_result(None)
        return inline


async def wait_for(clock: Clock, aw: Awaitable[T], timeout: float | None) -> T:
    """``asyncio.wait_for`` measured on ``clock``: raises ``ClockTimeout`` (cancelling ``aw``) when it runs out."""
    race = TaskOwner("wait_for", quiet=True)
    task = race.start(aw, "aw")
    if timeout is None:
        return await task
    timer = race.start(clock.sleep(timeout), "timeout")
    try:
        done, _ = await asyncio.wait({task, timer}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        task.cancel()
        timer.cancel()
        raise
    if task in done:
        timer.cancel()
        return task.result()
    task.cancel()
    try:
        await task
    except (asyncio.CancelledError, Exception):
        pass
    raise ClockTimeout(f"timed out after {timeout} s")
