"""The one home of background tasks: every task the package starts is owned (``TaskOwner``, or a TaskGroup), so
that it is cancelled and awaited with its owner and its failure is never lost (tests/test_one_home.py checks
that no module calls ``asyncio.create_task``/``ensure_future`` itself)."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any

logger = logging.getLogger(__name__)


class TaskOwner:
    """Owns background tasks: started together, cancelled and awaited together (``aclose``).

    A task that fails is logged and reported through ``on_error``; with ``quiet`` the owner's caller reads each
    task's result itself (a race of a task against a timer), so nothing is logged.
    """

    def __init__(self, name: str, on_error: Callable[[str, BaseException], None] | None = None, *,
                 quiet: bool = False) -> None:
        self.name = name
        self.on_error = on_error
        self.quiet = quiet
        self._tasks: set[asyncio.Future[Any]] = set()

    def start(self, aw: Awaitable[Any], name: str) -> asyncio.Future[Any]:
        """Run ``aw`` (a coroutine, or a future: a shield, a thread) as a task of this owner."""
        if inspect.iscoroutine(aw):
            task: asyncio.Future[Any] = asyncio.get_running_loop().create_task(aw, name=f"{self.name}:{name}")
        else:
            task = asyncio.ensure_future(aw)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Future[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled() or self.quiet:
            return
        exc = task.exception()
        if exc is not None:
            where = task.get_name() if isinstance(task, asyncio.Task) else self.name
            logger.error("task %s failed", where, exc_info=exc)
            if self.on_error is not None:
                self.on_error(where, exc)

    def __len__(self) -> int:
        return len(self._tasks)

    async def aclose(self) -> None:
        """Cancel every task still running and await them all."""
        current = asyncio.current_task()
        tasks = [t for t in self._tasks if t is not current]
        for t in tasks:
            t.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
