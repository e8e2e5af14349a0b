"""A small owner for a link's background tasks: started together, cancelled and awaited together."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

logger = logging.getLogger(__name__)


class TaskOwner:
    """Owns background tasks; a task that fails is logged and reported through ``on_error``."""

    def __init__(self, name: str, on_error: Callable[[str, BaseException], None] | None = None) -> None:
        self.name = name
        self.on_error = on_error
        self._tasks: set[asyncio.Task[Any]] = set()

    def start(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro, name=f"{self.name}:{name}")
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            logger.error("task %s failed", task.get_name(), exc_info=exc)
            if self.on_error is not None:
                self.on_error(task.get_name(), exc)

    async def aclose(self) -> None:
        current = asyncio.current_task()
        tasks = [t for t in self._tasks if t is not current]
        for t in tasks:
            t.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
