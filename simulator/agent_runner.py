"""A ``py:`` agent in a process of its own (``run --agent py:… --transport webrtc``): joins the meeting whose URL
and token are in MODYLBENCH_URL / MODYLBENCH_TOKEN and awaits ``FUNCTION(client)``; its failures go to the harness.

Usage: ``python -m modylbench.simulator.agent_runner MODULE:FUNCTION``. The harness starts it per meeting, so
that the agent's CPU never stalls the persona's media (they shared one event loop before).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import traceback
from typing import IO

logger = logging.getLogger(__name__)

REPORT_FD_VAR = "MODYLBENCH_REPORT_FD"
"""The file descriptor the harness reads the agent's failures from: one JSON object a line
(kind, message, traceback, fatal)."""
SYS_PATH_VAR = "MODYLBENCH_SYS_PATH"
"""The harness's ``sys.path`` (JSON list): the agent imports its module as the harness did."""
MAX_REPORT = 64 * 1024
"""Bytes of one failure report (its traceback trimmed to fit)."""


class _Reports:
    """Writes the agent's failures to the harness's pipe; without one (run by hand), logs them."""

    def __init__(self, stream: IO[str] | None) -> None:
        self.stream = stream

    def __call__(self, kind: str, message: str, tb: str | None = None, fatal: bool = False) -> None:
        entry = {"kind": kind, "message": str(message)[:4000], "traceback": (tb or "")[-(MAX_REPORT // 2):] or None,
                 "fatal": fatal}
        if self.stream is None:
            logger.warning("agent error (%s): %s", kind, message)
            return
        try:
            self.stream.write(json.dumps(entry) + "\n")
            self.stream.flush()
        except OSError:  # the harness is gone: nothing left to tell
            pass


def _restore_sys_path() -> None:
    """The harness's sys.path ('' is its working directory, which is ours too)."""
    raw = os.environ.get(SYS_PATH_VAR)
    if not raw:
        return
    try:
        paths = [p for p in json.loads(raw) if isinstance(p, str)]
    except ValueError:
        return
    sys.path[:] = [p or os.getcwd() for p in paths] + [p for p in sys.path if p not in paths]


async def _main(target: str, report: _Reports) -> int:
    from modylbench.agents import join
    from modylbench.simulator._agentspec import load_py_agent
    from modylbench.simulator._errors import UserError
    from modylbench.simulator._runner import agent_speech_engine, wants_person_audio

    try:
        body = load_py_agent(target)
    except UserError as exc:  # the harness checked it first; a module that changed since says so here
        print(f"error: {exc}", file=sys.stderr)
        return 2
    url, token = os.environ.get("MODYLBENCH_URL", ""), os.environ.get("MODYLBENCH_TOKEN", "")
    if not url or not token:
        print("error: MODYLBENCH_URL and MODYLBENCH_TOKEN must be set (the meeting to join)", file=sys.stderr)
        return 2
    client = await join(url, token, synthesize=agent_speech_engine().synthesize, receive_audio=True,
                        participant_audio=wants_person_audio(body))
    client.on_error = lambda kind, message, tb: report(kind, message, tb)
    try:
        await body(client)
    except Exception as exc:  # noqa: BLE001 - the agent's failure is reported to the harness, then we exit 1
        report("crash", f"the agent raised {type(exc).__name__}: {exc}", traceback.format_exc(), fatal=True)
        traceback.print_exc()
        return 1
    finally:
        await client.leave()
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m modylbench.simulator.agent_runner MODULE:FUNCTION", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if os.environ.get(REPORT_FD_VAR):  # started by the harness: end with it, even if it is killed (-9)
        from modylbench.simulator._runner import die_with_parent

        die_with_parent(os.getppid())
    _restore_sys_path()
    fd = os.environ.get(REPORT_FD_VAR)
    stream = os.fdopen(int(fd), "w", encoding="utf-8") if fd and fd.isdigit() else None
    try:
        return asyncio.run(_main(args[0], _Reports(stream)))
    finally:
        if stream is not None:
            stream.close()


if __name__ == "__main__":
    sys.exit(main())
