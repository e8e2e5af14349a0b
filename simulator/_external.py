"""``cmd:`` agents (and ``py:`` agents over WebRTC): a process started for each meeting with the meeting's URL and
token in its environment, its output kept (bounded) in the session folder, and ended, whatever it does, once the
meeting is."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shlex
import signal
import subprocess
import sys
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from modylbench.channels import Clock, TaskOwner
from modylbench.record import SessionFolder
from modylbench.simulator._faults import AgentFaults

logger = logging.getLogger(__name__)

URL_VAR = "MODYLBENCH_URL"
TOKEN_VAR = "MODYLBENCH_TOKEN"
MAX_OUTPUT = 10 * 1024 * 1024
"""Bytes of a command's stdout, and of its stderr, kept in the session folder; the rest is read and dropped."""
EXIT_GRACE = 3.0
"""Seconds a command has to exit by itself after the meeting ended (it was sent meeting_end) before SIGTERM."""
TERM_GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL."""
SETTLE = 2.0
"""Seconds the meeting waits, after the agent left, to learn whether its command failed (exit status)."""
_READ = 1 << 20
MAX_REPORTS = 1_000
"""Failure reports read from a ``py:`` agent's process; the rest are read and dropped."""
AGENT_ENV = ("PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "TMPDIR",
             "VIRTUAL_ENV", "LD_LIBRARY_PATH", "SSL_CERT_FILE", "SSL_CERT_DIR")
"""What an agent's process gets of the harness's environment by default (with every ``LC_*``), besides the
meeting's URL and token: enough to run a program, none of the harness's secrets (the judge's OPENAI_API_KEY,
cloud and hub tokens). ``--agent-env NAME`` passes more (docs/testing-your-agent.md)."""
_REAPER = """
import os, signal, sys
fd, group = int(sys.argv[1]), int(sys.argv[2])
try:
    said = os.read(fd, 1)
except OSError:
    said = b""
if not said:  # the harness died (however: kill -9 too) before ending the agent: end its process group
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass
"""


class AgentProcess:
    """One meeting's ``cmd:`` agent: the shell command in its own process group, its stdout and stderr copied
    to ``agent.stdout.log`` / ``agent.stderr.log`` (at most ``max_output`` bytes each, then a note)."""

    def __init__(self, command: str, folder: Path, env: dict[str, str], max_output: int = MAX_OUTPUT,
                 argv: list[str] | None = None,
                 on_report: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.command = shlex.join(argv) if argv else command
        self.argv = argv
        """Run this program (no shell) instead of ``command`` through the shell."""
        self.on_report = on_report
        """Given: the process gets a pipe (fd in MODYLBENCH_REPORT_FD) to report its failures on, one JSON
        object a line (``simulator.agent_runner`` writes them), each passed here."""
        self.folder = folder
        self.env = env
        self.max_output = max_output
        self.proc: asyncio.subprocess.Process | None = None
        self.ended_by = ""
        """How the command ended: exited (by itself), terminated (SIGTERM) or killed (SIGKILL)."""
        self.captured: dict[str, dict[str, int]] = {}
        """Per stream: bytes kept and bytes dropped."""
        self._stderr_tail: deque[bytes] = deque(maxlen=64)
        self._owner = TaskOwner("agent-process", quiet=True)
        self._copiers: list[asyncio.Future[None]] = []
        self.reports_read: asyncio.Future[None] | None = None
        """Ends once the process closed its report pipe (it exited): every report it wrote was passed on."""
        self._reaper: subprocess.Popen[bytes] | None = None
        self._reaper_fd = -1

    async def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        common: dict[str, Any] = {"stdin": asyncio.subprocess.DEVNULL, "stdout": asyncio.subprocess.PIPE,
                                  "stderr": asyncio.subprocess.PIPE, "start_new_session": True, "limit": _READ}
        read_fd = write_fd = -1
        if self.on_report is not None:
            from modylbench.simulator.agent_runner import REPORT_FD_VAR

            read_fd, write_fd = os.pipe()
            self.env = {**self.env, REPORT_FD_VAR: str(write_fd)}
        try:
            # Its own session (process group): the process and everything it starts end together.
            if self.argv:
                self.proc = await asyncio.create_subprocess_exec(
                    *self.argv, env=self.env, pass_fds=(write_fd,) if write_fd >= 0 else (), **common)
            else:
                self.proc = await asyncio.create_subprocess_shell(self.command, env=self.env, **common)
        except BaseException:
            for fd in (read_fd, write_fd):
                if fd >= 0:
                    os.close(fd)
            raise
        self._start_reaper()
        assert self.proc.stdout is not None and self.proc.stderr is not None
        files = SessionFolder(self.folder)
        self._copiers = [self._owner.start(self._copy(self.proc.stdout, files.agent_stdout), "stdout"),
                         self._owner.start(self._copy(self.proc.stderr, files.agent_stderr, tail=True), "stderr")]
        if write_fd >= 0:
            os.close(write_fd)  # the child's copy is the only writer: EOF once it exits
            self.reports_read = self._owner.start(self._read_reports(read_fd), "reports")
        logger.info("started agent command (pid %d): %s", self.proc.pid, self.command)

    def _start_reaper(self) -> None:
        """A small process that ends the agent's process group if this one dies without doing so (kill -9 of
        ``run``): it waits on a pipe only this process writes; end of file without a word means we are gone."""
        assert self.proc is not None
        read_fd, self._reaper_fd = os.pipe()
        try:
            self._reaper = subprocess.Popen(
                [sys.executable, "-I", "-c", _REAPER, str(read_fd), str(self.proc.pid)], pass_fds=(read_fd,),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True)
        except OSError:
            logger.warning("could not start the agent's reaper: its processes outlive a killed harness")
            os.close(self._reaper_fd)
            self._reaper_fd = -1
        finally:
            os.close(read_fd)

    def _stop_reaper(self) -> None:
        """The group was ended here: tell the reaper so (it exits without signalling a group id reused since)."""
        if self._reaper_fd >= 0:
            with contextlib.suppress(OSError):
                os.write(self._reaper_fd, b"x")
            os.close(self._reaper_fd)
            self._reaper_fd = -1
        if self._reaper is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._reaper.wait(timeout=5)
            self._reaper = None

    @property
    def returncode(self) -> int | None:
        return None if self.proc is None else self.proc.returncode

    async def wait(self) -> int:
        assert self.proc is not None
        return await self.proc.wait()

    def last_stderr_line(self) -> str:
        """The last non-empty line the command wrote on stderr (for a failure's one-line message)."""
        text = b"".join(self._stderr_tail).decode("utf-8", "replace")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return lines[-1][:500] if lines else ""

    async def _copy(self, stream: asyncio.StreamReader, path: Path, tail: bool = False) -> None:
        # Read to the end even past the bound: an agent blocked on a full pipe would look hung.
        kept = dropped = 0
        with open(path, "wb") as out:
            while chunk := await stream.read(_READ):
                if tail:
                    self._stderr_tail.append(chunk[-4096:])
                room = self.max_output - kept
                if room > 0:
                    out.write(chunk[:room])
                    kept += min(room, len(chunk))
                dropped += max(0, len(chunk) - max(room, 0))
            if dropped:
                out.write(f"\n[modylbench: output truncated after {self.max_output} bytes; {dropped} more bytes "
                          "were read and dropped]\n".encode())
        self.captured[path.name] = {"kept": kept, "dropped": dropped}

    async def _read_reports(self, fd: int) -> None:
        assert self.on_report is not None
        from modylbench.simulator.agent_runner import MAX_REPORT

        reader = asyncio.StreamReader(limit=2 * MAX_REPORT)
        loop = asyncio.get_running_loop()
        transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader),
                                                    os.fdopen(fd, "rb", buffering=0))
        count = 0
        try:
            while True:
                try:
                    line = await reader.readline()
                except ValueError:  # a line past the bound: dropped (its tail reads as an unreadable line)
                    logger.warning("a report from the agent's process was over %d bytes: dropped", 2 * MAX_REPORT)
                    continue
                if not line:
                    return
                if count >= MAX_REPORTS:  # read on (the process must not block on a full pipe), keep none
                    count += 1
                    continue
                try:
                    entry = json.loads(line)
                except ValueError:
                    entry = None
                if not isinstance(entry, dict):
                    logger.warning("unreadable report from the agent's process: %r", line[:200])
                    continue
                count += 1
                self.on_report(entry)
        finally:
            transport.close()
            if count > MAX_REPORTS:
                logger.warning("the agent's process reported %d or more failures; the first %d were kept",
                               count, MAX_REPORTS)

    def _signal_group(self, sig: int) -> None:
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, sig)

    async def stop(self, clock: Clock, grace: float = EXIT_GRACE, term_grace: float = TERM_GRACE) -> None:
        """End the command: wait ``grace`` for it to exit, then SIGTERM, then SIGKILL, its whole process group;
        then collect its output. Returns once the process is gone."""
        if self.proc is None:
            return
        if self.proc.returncode is None:
            self.ended_by = "exited"
            if not await _within(clock, self.proc.wait(), grace):
                self.ended_by = "terminated"
                self._signal_group(signal.SIGTERM)
                if not await _within(clock, self.proc.wait(), term_grace):
                    self.ended_by = "killed"
                    self._signal_group(signal.SIGKILL)
                    await self.proc.wait()
        else:
            self.ended_by = self.ended_by or "exited"
        # What the shell started and left behind (a background job) goes with it.
        self._signal_group(signal.SIGKILL)
        self._stop_reaper()
        readers = [*self._copiers, *([self.reports_read] if self.reports_read else [])]
        if not await _within(clock, asyncio.gather(*readers, return_exceptions=True), grace + term_grace):
            for task in readers:  # a stray holder of the pipes outlived SIGKILL (another session)
                task.cancel()
            await asyncio.gather(*readers, return_exceptions=True)
        logger.info("agent command (pid %d) %s with code %s", self.proc.pid, self.ended_by, self.proc.returncode)

    def manifest_entry(self) -> dict[str, Any]:
        """What ``manifest.json`` keeps about the command's life."""
        return {"command": self.command, "pid": self.proc.pid if self.proc else None, "exit_code": self.returncode,
                "ended_by": self.ended_by, "output": {k: dict(v) for k, v in sorted(self.captured.items())}}


async def _within(clock: Clock, aw: Any, timeout: float) -> bool:
    """Await ``aw`` for at most ``timeout`` seconds of ``clock``; False (and ``aw`` cancelled) if it did not finish."""
    race = TaskOwner("within", quiet=True)
    task, timer = race.start(aw, "aw"), race.start(clock.sleep(timeout), "timeout")
    try:
        await asyncio.wait({task, timer}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        timer.cancel()
    if task.done():
        return True
    task.cancel()
    await asyncio.gather(task, timer, return_exceptions=True)
    return False


def command_env(url: str, token: str, passed: tuple[str, ...] = ()) -> dict[str, str]:
    """The command's environment: the allow-listed part of ours (``AGENT_ENV``, ``LC_*``) and the names in
    ``passed``, the meeting's URL and token, and unbuffered Python output."""
    env = {k: v for k, v in os.environ.items() if k in AGENT_ENV or k.startswith("LC_") or k in passed}
    env[URL_VAR], env[TOKEN_VAR] = url, token
    env.setdefault("PYTHONUNBUFFERED", "1")  # a Python agent's log reaches the file as it is written
    return env


def py_agent_argv(target: str) -> list[str]:
    """A ``py:`` agent's own process: this interpreter running ``simulator.agent_runner MODULE:FUNCTION``."""
    return [sys.executable, "-m", "modylbench.simulator.agent_runner", target]


def py_agent_env(url: str, token: str, target: str, passed: tuple[str, ...] = ()) -> dict[str, str]:
    """``command_env`` plus this process's sys.path, so that the agent imports its module as the harness did
    (the current folder included, as ``python -m`` and ``modylbench run`` make it importable)."""
    from modylbench.simulator.agent_runner import SYS_PATH_VAR

    env = command_env(url, token, passed)
    paths = [p or os.getcwd() for p in sys.path]
    root = _import_root(target.partition(":")[0])
    if root is not None and root not in paths:
        paths.append(root)
    env[SYS_PATH_VAR] = json.dumps(paths)
    return env


def _import_root(module_name: str) -> str | None:
    """The folder from which ``module_name``, already imported here, imports by its name: for a module loaded
    without a sys.path entry of its own (pytest's ``--import-mode=importlib`` names test modules so)."""
    module = sys.modules.get(module_name)
    file = getattr(module, "__file__", None)
    if not file:
        return None
    path = Path(file).resolve()
    parts = module_name.split(".")
    here = path.parent if path.name == "__init__.py" else path.with_suffix("")
    for part in reversed(parts):
        if here.name != part:
            return None
        here = here.parent
    return str(here)


class CommandWatch:
    """Turns what the command does before and during the meeting into ``agent_error`` reports: it exits before
    joining, does not join within ``join_timeout``, or exits with an error while the meeting is on."""

    def __init__(self, child: AgentProcess, meeting: Any, faults: AgentFaults, clock: Clock,
                 join_timeout: float) -> None:
        self.child, self.meeting, self.faults, self.clock = child, meeting, faults, clock
        self.join_timeout = join_timeout
        self.meeting_over = False
        self._seen_exit = asyncio.Event()
        faults.settle = self.settle

    def _why(self, rc: int, when: str) -> str:
        line = self.child.last_stderr_line()
        how = f"was killed by signal {-rc}" if rc < 0 else f"exited with code {rc}"
        what = "process" if self.child.argv else "command"
        return (f"the agent's {what} {how} {when}; "
                + (f"its last stderr line: {line}" if line else "it wrote nothing on stderr"))

    async def run(self) -> None:
        race = TaskOwner("join-watch", quiet=True)
        joined = race.start(self.meeting.wait_connected(), "joined")
        exited = race.start(self.child.wait(), "exited")
        timer = race.start(self.clock.sleep(self.join_timeout), "join-timeout")
        try:
            await asyncio.wait({joined, exited, timer}, return_when=asyncio.FIRST_COMPLETED)
            if not joined.done() or joined.exception() is not None:
                if exited.done():
                    rc = exited.result()
                    await self._reports_in()
                    self.faults.report("crash" if rc else "exited", self._why(rc, "before joining the meeting"),
                                       fatal=True)
                    self._seen_exit.set()
                    await self.meeting.close("agent_error")
                    return
                if not joined.done():
                    what = "process" if self.child.argv else "command"
                    self.faults.report("no_join", f"the agent's {what} did not join the meeting within "
                                                  f"{self.join_timeout:g} s (it is still running)", fatal=True)
                    await self.meeting.close("agent_error")
                    return
            rc = await exited
            await self._reports_in()
            # A py: agent's process reported its crash itself (with the traceback): that is the one to keep.
            if not self.meeting_over and rc != 0 and self.faults.fatal is None:
                self.faults.report("crash", self._why(rc, "during the meeting"), fatal=True)
            self._seen_exit.set()
        finally:
            for task in (joined, timer):
                task.cancel()
            await asyncio.gather(joined, timer, return_exceptions=True)
            exited.cancel()
            await asyncio.gather(exited, return_exceptions=True)

    async def _reports_in(self) -> None:
        """The process exited: let the reports it wrote reach the record first (bounded: a stray holder of the
        pipe, a process it started, must not hold the meeting)."""
        if self.child.reports_read is not None:
            await _within(self.clock, asyncio.shield(self.child.reports_read), SETTLE)

    async def settle(self) -> None:
        """The agent left: give its process a moment to exit, so that a crash is charged as one."""
        await _within(self.clock, self._seen_exit.wait(), SETTLE)

