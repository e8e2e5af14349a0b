"""The clocks: virtual time jumps only when every task waits; wall time paces for real."""

from __future__ import annotations

import asyncio

import pytest

from modylbench.channels import ClockTimeout, VirtualClock, WallClock, wait_for


async def test_virtual_clock_orders_sleepers_and_jumps() -> None:
    clock = VirtualClock()
    order: list[tuple[str, float]] = []

    async def sleeper(name: str, delay: float) -> None:
        await clock.sleep(delay)
        order.append((name, clock.now()))

    loop = asyncio.get_running_loop()
    t0 = loop.time()
    async with asyncio.TaskGroup() as tg:
        tg.create_task(sleeper("b", 3600.0))
        tg.create_task(sleeper("a", 1.5))
        tg.create_task(sleeper("c", 7200.0))
    assert order == [("a", 1.5), ("b", 3600.0), ("c", 7200.0)]
    # Two virtual hours must not take real time.
    assert loop.time() - t0 < 1.0


async def test_virtual_clock_waits_while_tasks_are_busy() -> None:
    clock = VirtualClock()
    steps = 0

    async def busy() -> None:
        nonlocal steps
        for _ in range(200):
            steps += 1
            await asyncio.sleep(0)

    async def sleeper() -> float:
        await clock.sleep(10.0)
        return float(steps)

    async with asyncio.TaskGroup() as tg:
        s = tg.create_task(sleeper())
        tg.create_task(busy())
    # Time advanced only once the busy task had finished all its steps.
    assert s.result() == 200


async def test_virtual_clock_paced_loop_is_exact() -> None:
    clock = VirtualClock()
    stamps = []
    for i in range(1, 51):
        await clock.sleep_until(i * 0.02)
        stamps.append(clock.now())
    assert stamps == [pytest.approx(i * 0.02) for i in range(1, 51)]


async def test_virtual_clock_hold_stops_time() -> None:
    clock = VirtualClock()
    woke = asyncio.Event()

    async def sleeper() -> None:
        await clock.sleep(1.0)
        woke.set()

    with clock.hold():
        task = asyncio.create_task(sleeper())
        for _ in range(20):
            await asyncio.sleep(0)
        assert not woke.is_set()
        assert clock.now() == 0.0
    await task
    assert clock.now() == 1.0


async def test_wait_for_times_out_on_virtual_clock() -> None:
    clock = VirtualClock()
    never: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    with pytest.raises(ClockTimeout):
        await wait_for(clock, never, 30.0)
    assert clock.now() == 30.0
    assert never.cancelled()


async def test_wait_for_returns_result() -> None:
    clock = VirtualClock()

    async def quick() -> int:
        await clock.sleep(1.0)
        return 7

    assert await wait_for(clock, quick(), 5.0) == 7
    assert clock.now() == 1.0


async def test_wall_clock_sleep_until_is_not_early() -> None:
    clock = WallClock()
    target = clock.now() + 0.03
    await clock.sleep_until(target)
    assert clock.now() >= target
    assert clock.wall_time() > 1.6e9
