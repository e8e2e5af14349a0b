"""Injected time for the live transport: a ``Clock`` protocol, the wall clock and a virtual clock.

Everything that paces media or timestamps events takes a ``Clock``; only this module reads the system time.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import time
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from typing import Protocol, TypeVar, runtime_checkable

from modylbench.channels._compat import loop_has_ready_callbacks

logger = logging.getLogger(__name__)

T = TypeVar("T")

__all__ = ["Clock", "ClockTimeout", "VirtualClock", "WallClock", "wait_for"]


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


class VirtualClock:
    """Virtual time that jumps to the next sleeper's deadline whenever the event loop has nothing else to do.

    Time only advances when every task on the loop is blocked (the loop's ready queue is empty), so a
    headless meeting over the in-process transport runs as fast as the CPU allows while keeping every
    ordering it would have in real time. Work done outside the loop (a thread, a subprocess) is invisible
    to that test: wrap it in ``with clock.hold():`` so time stands still until it finishes.
    One clock serves one event loop.
    """

    def __init__(self, start: float = 0.0, wall_epoch: float | None = None) -> None:
        self._now = start
        self._wall_epoch = time.time() if wall_epoch is None else wall_epoch
        self._heap: list[tuple[float, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()
        self._holds = 0
        self._scheduled = False
        # Loops without a visible ready queue (not CPython's default loop) fall back to yielding this many
        # times with no new sleeper before advancing.
        self._idle_passes = 0

    def now(self) -> float:
        return self._now

    def wall_time(self) -> float:
        return self._wall_epoch + self._now

    async def sleep(self, delay: float) -> None:
        await self.sleep_until(self._now + max(0.0, delay))

    async def sleep_until(self, when: float) -> None:
        loop = asyncio.get_running_loop()
        if when <= self._now:
            # Still yield once, like asyncio.sleep(0), so a pacing loop cannot starve the others.
            await asyncio.sleep(0)
            return
        fut: asyncio.Future[None] = loop.create_future()
        heapq.heappush(self._heap, (when, next(self._seq), fut))
        self._schedule(loop)
        await fut

    @contextmanager
    def hold(self) -> Iterator[None]:
        """Keep virtual time still while work the loop cannot see (a thread) is in progress."""
        self._holds += 1
        try:
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
        """Number of tasks waiting on this clock."""
        return sum(1 for _, _, f in self._heap if not f.done())

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self._tick, loop)

    def _tick(self, loop: asyncio.AbstractEventLoop) -> None:
        self._scheduled = False
        while self._heap and self._heap[0][2].done():  # cancelled sleepers
            heapq.heappop(self._heap)
        if not self._heap or self._holds:
            return
        busy = loop_has_ready_callbacks(loop)
        if busy is None:
            self._idle_passes += 1
            busy = self._idle_passes < 50
        if busy:
            self._schedule(loop)
            return
        self._idle_passes = 0
        self._now = max(self._now, self._heap[0][0])
        self._wake_due()
        if self._heap:
            self._schedule(loop)

    def _wake_due(self) -> None:
        while self._heap and self._heap[0][0] <= self._now:
            _, _, fut = heapq.heappop(self._heap)
            if not fut.done():
                fut.set_result(None)


async def wait_for(clock: Clock, aw: Awaitable[T], timeout: float | None) -> T:
    """``asyncio.wait_for`` measured on ``clock``: raises ``ClockTimeout`` (cancelling ``aw``) when it runs out."""
    task = asyncio.ensure_future(aw)
    if timeout is None:
        return await task
    timer = asyncio.ensure_future(clock.sleep(timeout))
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
