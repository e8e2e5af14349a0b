"""The clocks: virtual time jumps only when every task waits on the meeting and flows at the wall rate while
anything works on the wall clock; wall time paces for real."""

from __future__ import annotations

import asyncio
import socket
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from modylbench.channels import ClockTimeout, VirtualClock, WallClock, wait_for, wall_work

NOTICE = 0.02
"""Seconds of wall-clock work that may pass before the clock notices it and starts flowing (CI saw 0.2 and 1.9 ms
on a busy machine); the flow then ends within POLL_WHILE_FLOWING of the work."""


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


# ---------------------------------------------------------------- skipping only dead air


def _answer_later(sock: socket.socket, after: float) -> threading.Timer:
    """A remote party (a model) that answers on ``sock`` after ``after`` wall seconds."""
    timer = threading.Timer(after, sock.send, args=(b"x",))
    timer.start()
    return timer


async def test_meeting_time_flows_at_the_wall_rate_while_a_socket_read_is_pending() -> None:
    clock = VirtualClock()
    loop = asyncio.get_running_loop()
    ours, theirs = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=ours)
    persona_timer = asyncio.ensure_future(clock.sleep(10.0))  # e.g. the turn's budget
    early = asyncio.ensure_future(clock.sleep(0.2))  # e.g. media pacing while the agent thinks
    t0 = loop.time()
    try:
        _answer_later(theirs, 0.5)
        assert await reader.read(1) == b"x"
        waited = loop.time() - t0
        # The agent's half second was real meeting time; the persona's 10 s budget is not over.
        assert 0.5 - NOTICE <= clock.now() and abs(clock.now() - waited) < 0.05
        assert early.done() and not persona_timer.done()
    finally:
        writer.close()
        await writer.wait_closed()
        theirs.close()
    await persona_timer  # dead air again: a jump, not ten real seconds
    assert clock.now() == pytest.approx(10.0, abs=0.02)
    assert loop.time() - t0 < 2.0
    # Flowed: the agent's half second as the clock noticed it (NOTICE early at worst), and no more than the wall
    # time it waited (under load that wait may exceed 0.5 s, so the upper bound is what was measured).
    assert 0.5 - NOTICE <= clock.flowed < waited + 0.1


async def test_a_sleeper_due_while_time_flows_wakes_on_the_wall_schedule() -> None:
    clock = VirtualClock()
    ours, theirs = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=ours)
    woke: list[float] = []

    async def pacer() -> None:
        for i in range(1, 6):
            await clock.sleep_until(i * 0.05)
            woke.append(clock.now())

    try:
        _answer_later(theirs, 0.4)
        pacing = asyncio.ensure_future(pacer())
        await reader.read(1)
        await pacing
    finally:
        writer.close()
        await writer.wait_closed()
        theirs.close()
    assert [round(i * 0.05, 2) for i in range(1, 6)] == pytest.approx(woke, abs=0.03)


@pytest.mark.parametrize("work", ["thread", "timer", "child process"])
async def test_thread_jobs_wall_timers_and_child_processes_are_wall_clock_work(work: str) -> None:
    clock = VirtualClock()
    budget = asyncio.ensure_future(clock.sleep(30.0))
    if work == "thread":
        await asyncio.to_thread(time.sleep, 0.3)
    elif work == "timer":
        await asyncio.sleep(0.3)
    else:
        proc = await asyncio.create_subprocess_exec(sys.executable, "-c", "import time; time.sleep(0.3)")
        await proc.wait()
    # Meeting time flowed for the work's wall time instead of jumping to the 30 s budget.
    assert 0.3 - NOTICE <= clock.now() < 10.0 and not budget.done()
    await budget
    assert clock.now() == pytest.approx(30.0, abs=0.02)


async def test_many_short_thread_jobs_never_let_time_jump_in_between() -> None:
    """A job's end and the loop taking its result are not two moments when time could jump."""
    clock = VirtualClock()
    budget = asyncio.ensure_future(clock.sleep(5.0))
    for i in range(300):
        assert await asyncio.to_thread(lambda i=i: i) == i
        assert not budget.done()
    assert clock.now() < 5.0
    budget.cancel()


async def test_held_thread_jobs_cost_no_meeting_time() -> None:
    clock = VirtualClock()
    budget = asyncio.ensure_future(clock.sleep(5.0))
    with clock.hold():
        await asyncio.to_thread(time.sleep, 0.2)
    assert clock.now() == 0.0 and not clock.flowing
    await budget
    assert clock.now() == 5.0 and clock.flowed == 0.0


async def test_work_only_declared_flows_and_undeclared_is_jumped_over() -> None:
    """An executor of the agent's own is invisible: ``wall_work()`` declares it."""
    loop = asyncio.get_running_loop()
    with ThreadPoolExecutor(1) as own:
        clock = VirtualClock()
        budget = asyncio.ensure_future(clock.sleep(5.0))
        with wall_work():
            await loop.run_in_executor(own, time.sleep, 0.2)
        assert 0.2 - NOTICE <= clock.now() < 5.0 and not budget.done()
        budget.cancel()

        clock = VirtualClock()
        budget = asyncio.ensure_future(clock.sleep(5.0))
        await loop.run_in_executor(own, time.sleep, 0.2)
        assert budget.done() and clock.now() == 5.0


async def test_a_listening_server_is_not_work_in_progress() -> None:
    clock = VirtualClock()
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    try:
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        await clock.sleep(3600.0)
        assert loop.time() - t0 < 1.0 and clock.flowed == 0.0
    finally:
        server.close()
        await server.wait_closed()


async def test_clocks_sharing_a_loop_do_not_take_each_other_for_work() -> None:
    """Meetings side by side (``run --transport inproc --concurrency N``) each have a clock on one loop."""
    a, b = VirtualClock(), VirtualClock()
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    await asyncio.gather(a.sleep(10.0), b.sleep(20.0), a.sleep(3.0), b.sleep(7.0))
    assert (a.now(), b.now()) == (10.0, 20.0)
    assert loop.time() - t0 < 1.0


async def _paced_log(timers: bool) -> list[tuple[str, float]]:
    """A 20 ms stream of 60 slots, as ``call_at`` callbacks or as a task sleeping slot by slot, among sleepers
    whose deadlines fall exactly on its slots: one set before the stream's own entry, one chained from the
    stream (after it), and a stretch where the stream wakes nobody."""
    clock = VirtualClock()
    log: list[tuple[str, float]] = []
    grid = [0.0]
    for _ in range(70):
        grid.append(grid[-1] + 0.02)  # the stream's slots, accumulated as it accumulates them
    chained = asyncio.Event()
    ended = asyncio.get_running_loop().create_future()

    def slot(k: int) -> None:
        log.append(("slot", clock.now()))
        if k in (5, 45):
            chained.set()  # wakes the chained sleeper, which then sleeps to a later slot (entry after ours)

    async def stream() -> None:
        t = clock.now()
        await clock.sleep_until(t)
        slot(0)
        t += 0.02
        if timers:
            def fire(k: int, at: float) -> None:
                slot(k)
                if k < 59:
                    clock.call_at(at + 0.02, lambda: fire(k + 1, at + 0.02))
                else:
                    ended.set_result(None)

            clock.call_at(t, lambda: fire(1, t))
            await ended
            return
        for k in range(1, 60):
            await clock.sleep_until(t)
            slot(k)
            t += 0.02

    async def early() -> None:  # its entries are older than the stream's for the same slot: it goes first
        for k in (10, 30, 50):
            await clock.sleep_until(grid[k])
            log.append(("early", clock.now()))

    async def after() -> None:
        for _ in range(2):
            await chained.wait()
            chained.clear()
            now = clock.now()
            await clock.sleep_until(now + 0.02 + 0.02)  # two slots on: may or may not be a slot's float exactly
            log.append(("after", clock.now()))

    await asyncio.gather(early(), stream(), after())
    return log


async def test_call_at_runs_where_a_task_sleeping_to_the_same_deadline_would() -> None:
    """The in-process transport paces its audio with ``call_at``: the same meeting times and the same order
    among the clock's sleepers as the task loop it replaces, slot for slot."""
    by_task, by_timer = await _paced_log(False), await _paced_log(True)
    assert [name for name, _ in by_timer].count("slot") == 60
    assert by_timer == by_task
    slots = [t for name, t in by_timer if name == "slot"]
    assert all(b - a == pytest.approx(0.02) for a, b in zip(slots, slots[1:], strict=False))


async def test_call_at_cancel_late_deadline_and_a_failing_callback() -> None:
    clock = VirtualClock()
    loop = asyncio.get_running_loop()
    ran: list[str] = []
    errors: list[dict[str, object]] = []
    loop.set_exception_handler(lambda _loop, ctx: errors.append(ctx))
    try:
        dropped = clock.call_at(1.0, lambda: ran.append("dropped"))
        dropped.cancel()
        clock.call_at(0.0, lambda: ran.append("due"))  # already due: the next loop pass, as sleep_until yields once
        assert ran == []

        def boom() -> None:
            raise RuntimeError("slot failed")

        clock.call_at(0.5, boom)
        clock.call_at(0.5, lambda: ran.append("after boom"))
        await clock.sleep(2.0)
        assert ran == ["due", "after boom"]
        assert dropped.cancelled() and clock.sleepers == 0
        assert len(errors) == 1 and isinstance(errors[0]["exception"], RuntimeError)
    finally:
        loop.set_exception_handler(None)


async def test_silent_slots_are_jumped_over_without_a_look_each() -> None:
    """Callbacks that wake nobody are run one instant after the other in the clock's own look: 50 s of 20 ms slots
    take far fewer looks (event-loop passes) than slots; the loop still gets a pass every few hundred."""
    clock = VirtualClock()
    count = 0
    done = asyncio.get_running_loop().create_future()

    def fire(at: float) -> None:
        nonlocal count
        count += 1
        if count < 2500:
            clock.call_at(at + 0.02, lambda: fire(at + 0.02))
        else:
            done.set_result(None)

    looks = 0
    tick = clock._tick

    def counted(loop: asyncio.AbstractEventLoop) -> None:
        nonlocal looks
        looks += 1
        tick(loop)

    clock._tick = counted  # type: ignore[method-assign]
    clock.call_at(0.02, lambda: fire(0.02))
    await done
    assert count == 2500 and clock.now() == pytest.approx(50.0)
    assert 2500 / 300 < looks < 2500 / 50


async def test_call_at_keeps_the_wall_schedule_while_time_flows() -> None:
    """While a thread job runs, meeting time flows: the callbacks then run at their deadlines on the wall schedule,
    none early, none lost."""
    clock = VirtualClock()
    fired: list[tuple[float, float]] = []
    walls: list[float] = []
    done = asyncio.get_running_loop().create_future()

    def fire(at: float) -> None:
        fired.append((at, clock.now()))
        walls.append(time.monotonic())
        if len(fired) < 10:
            clock.call_at(at + 0.02, lambda: fire(at + 0.02))
        elif not done.done():
            done.set_result(None)

    clock.call_at(0.02, lambda: fire(0.02))
    job = asyncio.ensure_future(asyncio.to_thread(time.sleep, 0.3))
    await done
    await job
    assert len(fired) == 10
    assert all(now >= at for at, now in fired)
    assert walls[-1] - walls[0] > 0.1  # they ran on the wall schedule while time flowed, not in one jump
