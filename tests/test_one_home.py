"""One home each: the bounded JSONL reader, the OpenAI call-and-retry loop and background-task ownership are
defined once and used everywhere else (a second copy is a bug waiting to drift)."""

from __future__ import annotations

import ast
import io
import re
from pathlib import Path

from modylbench.scenarios import bounded_lines

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("scenarios", "record", "channels", "personas", "agents", "simulator", "scoring", "integrations")


def _sources() -> list[Path]:
    return [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")]


def _hits(pattern: str, allowed: set[str]) -> list[str]:
    rx = re.compile(pattern)
    return [
        f"{p.relative_to(ROOT)}:{n}"
        for p in _sources()
        if str(p.relative_to(ROOT)) not in allowed
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if rx.search(line) and not line.lstrip().startswith("#")
    ]


def test_bounded_lines_drains_an_overlong_line_and_keeps_a_cut_one() -> None:
    data = b'{"a":1}\n' + b"x" * 50 + b"\n" + b'{"b":2}\n' + b'{"cut"'
    assert list(bounded_lines(io.BytesIO(data), 20)) == [
        (1, b'{"a":1}\n'), (2, None), (3, b'{"b":2}\n'), (4, b'{"cut"')]
    # A line exactly at the limit (its newline beyond it) is read.
    assert list(bounded_lines(io.BytesIO(b"x" * 20 + b"\n"), 20)) == [(1, b"x" * 20 + b"\n")]


def test_jsonl_files_are_read_only_through_bounded_lines() -> None:
    # A file's readline with a size: a JSONL reader of its own. (Stream readers of a pipe are not files.)
    assert _hits(r"\bfh\.readline\(|\.readline\([A-Z_]+ \+ 1\)", {"scenarios/_jsonl.py"}) == []


def _status(code: int, retry_after: str | None = None) -> Exception:
    import httpx
    import openai

    headers = {"retry-after": retry_after} if retry_after else {}
    response = httpx.Response(code, headers=headers, request=httpx.Request("POST", "http://127.0.0.1/v1"))
    return openai.APIStatusError(f"status {code}", response=response, body=None)


def test_one_call_and_retry_loop_classifies_and_waits() -> None:
    import asyncio

    from modylbench.scoring._openai_call import Unusable, ask_with_retries

    def run(*outcomes: object) -> tuple[object, list[float], int]:
        slept: list[float] = []
        calls = 0

        async def attempt() -> object:
            nonlocal calls
            calls += 1
            got = outcomes[min(calls, len(outcomes)) - 1]
            if isinstance(got, Exception):
                raise got
            return got

        async def sleep(s: float) -> None:
            slept.append(s)

        got = asyncio.run(ask_with_retries(attempt, what="t", max_attempts=3, timeout_s=5, backoff_s=0.5,
                                           max_backoff_s=4, sleep=sleep))
        return got, slept, calls

    got, slept, calls = run(Unusable("not JSON"), "ok")
    assert (got.value, got.failure, slept, calls) == ("ok", None, [0.5], 2)
    got, slept, calls = run(_status(400))  # final at once: not the server's fault, not retried
    assert (got.value, got.failure, got.server_failed, slept, calls) == (None, "HTTP 400: status 400", False, [], 1)
    got, slept, calls = run(_status(503, "2"))
    assert got.failure == "HTTP 503 (after 3 attempts)" and got.server_failed and slept == [2.0, 2.0] and calls == 3


def test_the_judge_and_recognition_share_the_loop() -> None:
    # Catching the client's status errors is classifying a call's failure: only the shared loop does it.
    assert _hits(r"except openai\.", {"scoring/_openai_call.py"}) == []


TASK_HOME = "channels/_tasks.py"
"""The one module that starts asyncio tasks itself (``TaskOwner``)."""


def _bare_task_calls(tree: ast.AST) -> list[int]:
    """Lines that start a task no owner holds: ``asyncio.create_task``/``ensure_future``, or ``create_task`` on an
    event loop (``loop.create_task``, ``asyncio.get_running_loop().create_task``). A TaskGroup's ``tg.create_task``
    and a framework's own task manager (pipecat's ``self.create_task``) are owned."""
    lines = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        attr, recv = node.func.attr, node.func.value
        if attr == "ensure_future" or (attr == "create_task" and (
                (isinstance(recv, ast.Name) and recv.id in ("asyncio", "loop"))
                or (isinstance(recv, ast.Call) and isinstance(recv.func, ast.Attribute)
                    and recv.func.attr in ("get_running_loop", "get_event_loop")))):
            lines.append(node.lineno)
    return lines


def test_every_background_task_is_owned() -> None:
    found = [f"{p.relative_to(ROOT)}:{n}" for p in _sources() if str(p.relative_to(ROOT)) != TASK_HOME
             for n in _bare_task_calls(ast.parse(p.read_text(encoding="utf-8")))]
    assert found == [], f"start tasks through channels.TaskOwner or a TaskGroup: {found}"


def test_the_task_check_sees_a_bare_call() -> None:
    bare = ast.parse("import asyncio\nasync def f(loop):\n    asyncio.ensure_future(g())\n"
                     "    loop.create_task(g())\n    asyncio.get_running_loop().create_task(g())\n"
                     "    async with asyncio.TaskGroup() as tg:\n        tg.create_task(g())\n")
    assert _bare_task_calls(bare) == [3, 4, 5]


async def test_a_task_owner_awaits_what_it_cancels_and_reports_a_failure() -> None:
    import asyncio

    from modylbench.channels import TaskOwner

    failures: list[str] = []
    owner = TaskOwner("t", on_error=lambda name, exc: failures.append(f"{name}: {exc}"))

    async def boom() -> None:
        raise ValueError("no")

    sleeper = owner.start(asyncio.sleep(3600), "sleeper")
    owner.start(boom(), "boom")
    shielded = owner.start(asyncio.shield(asyncio.sleep(0)), "shield")  # a future, not a coroutine
    await shielded
    await asyncio.sleep(0)
    assert failures == ["t:boom: no"]
    assert len(owner) == 1  # the sleeper: finished tasks leave their owner
    await owner.aclose()
    assert sleeper.cancelled() and len(owner) == 0
