"""Worker processes for the batch layer: each an event loop (a lane) playing several sessions at once, fed from
one queue so that no more than ``concurrency`` run in all; outcomes and progress come back on another."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable
from typing import Any

from modylbench.channels import TaskOwner
from modylbench.record import ProgressReporter
from modylbench.simulator._batch import Outcome, first_line, play_and_score
from modylbench.simulator._errors import UserError
from modylbench.simulator._progress import QueueHook, session_task

_MSG = "batch-lane"
"""Tags a lane's own messages on the results queue (4-tuples); a QueueHook's progress items are 3-tuples."""


def _lane_main(jobs: Any, results: Any, slots: int, panel: list[str], stop: Any) -> None:
    """A worker process's body: one event loop playing up to ``slots`` sessions at once, taken from ``jobs``,
    until the end of the jobs or ``stop``; each outcome is put on ``results``."""
    try:
        asyncio.run(_lane(jobs, results, slots, panel, stop))
    except KeyboardInterrupt:
        # Ctrl-C reached this worker too (a terminal signals the whole group): its sessions were stopped. Said as
        # a plain return: a KeyboardInterrupt shipped back would surface in the parent's loop as a second Ctrl-C.
        return


async def _lane(jobs: Any, results: Any, slots: int, panel: list[str], stop: Any) -> None:
    loop = asyncio.get_running_loop()
    free = threading.Semaphore(slots)
    over = threading.Event()
    main = asyncio.current_task()

    async def one(index: int, spec: Any, hook: Any) -> None:
        try:
            results.put((_MSG, "started", index, None))
            outcome = await play_and_score(spec, panel, hook)
            results.put((_MSG, "outcome", index, outcome))
        except UserError as exc:
            results.put((_MSG, "user_error", index, (str(exc), exc.exit_code)))
        finally:
            free.release()

    def feed(tg: asyncio.TaskGroup) -> None:
        # A thread: the Manager's queue blocks. It waits for a free slot, takes a job, starts it on the loop;
        # it watches ``stop`` throughout (the parent's Ctrl-C), also after the last job.
        def start(item: Any) -> None:
            tg.create_task(one(*item))

        taking = True
        while not over.is_set():
            if stop.is_set():
                if main is not None:
                    loop.call_soon_threadsafe(main.cancel)
                return
            if not taking or not free.acquire(timeout=0.2):
                over.wait(0.2)
                continue
            try:
                item = jobs.get(timeout=0.2)
            except Exception:  # noqa: BLE001 - queue.Empty through the proxy; EOF when the parent is gone
                free.release()
                if not _alive(jobs):
                    return
                continue
            if item is None:
                free.release()
                taking = False
                loop.call_soon_threadsafe(no_more.set)
                continue
            loop.call_soon_threadsafe(start, item)

    no_more = asyncio.Event()
    try:
        async with asyncio.TaskGroup() as tg:
            feeder = TaskOwner("lane", quiet=True).start(asyncio.to_thread(feed, tg), "feed")  # awaited below
            await no_more.wait()
        over.set()
        await feeder
    finally:
        over.set()


def _alive(proxy: Any) -> bool:
    try:
        proxy.qsize()
    except Exception:  # noqa: BLE001 - the Manager is gone
        return False
    return True


class Lanes:
    """``workers`` worker processes, each an event loop playing up to ``slots`` sessions at once (a real-time
    session keeps a loop to itself with one slot; in-process ones share one loop per core)."""

    def __init__(self, workers: int, slots: int) -> None:
        import multiprocessing
        from multiprocessing.managers import SyncManager

        from modylbench.simulator._runner import SessionWorkers, die_with_parent

        self.workers, self.slots = workers, slots
        # The Manager's server is a process of its own: like the workers, it must not outlive a killed run.
        self._manager = SyncManager(ctx=multiprocessing.get_context("spawn"))
        self._manager.start(die_with_parent, (os.getpid(),))
        self.jobs, self.results, self.stop = self._manager.Queue(), self._manager.Queue(), self._manager.Event()
        self._pool = SessionWorkers(workers)

    async def run(self, specs: list[Any], panel: list[str], concurrency: int, reporter: ProgressReporter | None,
                  on_outcome: Callable[[Any, Outcome], None]) -> None:
        """Play ``specs``, ``concurrency`` at once over the lanes; ``on_outcome`` (on this loop) hears each."""
        await _Round(self, specs, reporter, on_outcome).run(panel, concurrency)

    def close(self) -> None:
        self._pool.close()
        self._manager.shutdown()


class _Round:
    """One ``Lanes.run``: what is pending, the thread that drains the results queue, admission into the jobs."""

    def __init__(self, lanes: Lanes, specs: list[Any], reporter: ProgressReporter | None,
                 on_outcome: Callable[[Any, Outcome], None]) -> None:
        self.lanes, self.reporter, self.on_outcome = lanes, reporter, on_outcome
        self.loop = asyncio.get_running_loop()
        self.pending: dict[int, Any] = dict(enumerate(specs))
        self.queued = iter(list(self.pending.items()))
        self.finished, self.flushed = asyncio.Event(), asyncio.Event()
        self.failure: list[BaseException] = []
        self.ended = False

    def deliver(self, kind: str, index: int, payload: Any) -> None:
        """A lane's message, on this loop: a session started, ended (its outcome), or raised a UserError."""
        if kind == "flush":
            self.flushed.set()
            return
        if kind == "started":
            if index in self.pending and self.reporter is not None:
                task, fields = session_task(self.pending[index])
                self.reporter.emit("session_started", task, **fields)
            return
        spec = self.pending.pop(index, None)
        if spec is None:
            return
        if kind == "user_error":
            self.failure.append(UserError(payload[0], payload[1]))
            self.finished.set()
            return
        self.on_outcome(spec, payload)
        self.admit()
        if not self.pending:
            self.finished.set()

    def drain(self) -> None:
        """The thread reading the results queue: lanes' messages to ``deliver``, progress to the reporter."""
        while True:
            try:
                item = self.lanes.results.get()
            except (EOFError, OSError):
                return
            if item == "stop":
                return
            if len(item) == 4 and item[0] == _MSG:
                self.loop.call_soon_threadsafe(self.deliver, *item[1:])
            elif self.reporter is not None:  # a QueueHook's progress: (task, event, fields)
                task, event, fields = item
                self.reporter.emit(event, task, **fields)

    def admit(self) -> None:
        """Queue the next session, or after the last one end mark per lane. Sessions enter as others end, so no
        more than ``concurrency`` run at once whatever the lanes' slots add up to."""
        item = next(self.queued, None)
        if item is None:
            if not self.ended:
                self.ended = True
                for _ in range(self.lanes.workers):
                    self.lanes.jobs.put(None)
            return
        index, spec = item
        task, fields = session_task(spec)
        hook = QueueHook(self.lanes.results, task, fields["turns"]) if self.reporter is not None else None
        self.lanes.jobs.put((index, spec, hook))

    async def run(self, panel: list[str], concurrency: int) -> None:
        lanes = self.lanes
        drainer = threading.Thread(target=self.drain, name="batch-results", daemon=True)
        drainer.start()
        for _ in range(min(concurrency, len(self.pending)) + (len(self.pending) <= concurrency)):
            self.admit()
        owner = TaskOwner("lanes", quiet=True)  # awaited in the finally below
        watch = owner.start(asyncio.gather(*(lanes._pool.call(_lane_main, lanes.jobs, lanes.results, lanes.slots,
                                                                panel, lanes.stop) for _ in range(lanes.workers))),
                            "lanes")
        try:
            done = owner.start(self.finished.wait(), "finished")
            await asyncio.wait([done, watch], return_when=asyncio.FIRST_COMPLETED)
            if watch.done() and not self.finished.is_set():
                await self._lost(watch)
            if self.failure:
                raise self.failure[0]
        finally:
            lanes.stop.set()
            with contextlib.suppress(BaseException):
                await asyncio.shield(watch)
            await owner.aclose()
            with contextlib.suppress(Exception):
                lanes.results.put("stop")
            drainer.join(timeout=5)

    async def _lost(self, watch: asyncio.Future[Any]) -> None:
        """The lanes ended with sessions pending: once their last messages are in, the rest never come (a worker
        died: the pool is broken) and are recorded as ``worker_lost``."""
        self.lanes.results.put((_MSG, "flush", -1, None))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.flushed.wait(), timeout=10)
        exc = None if watch.cancelled() else watch.exception()
        why = first_line(exc) if exc is not None else "a worker process ended before its sessions did"
        for index in list(self.pending):
            self.deliver("outcome", index, Outcome(self.pending[index].folder.name, error=why,
                                                   failure_kind="worker_lost"))
