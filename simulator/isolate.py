"""Run an agent command isolated from the harness: as another user, in a mount namespace of its own where the
scenarios' ground truth, the harness's home and the given paths (session folders) are empty and unreadable.

Usage (the harness must run as root; docs/testing-your-agent.md, "the trust model")::

    modylbench run SCENARIO --transport webrtc \\
        --agent 'cmd:python -m modylbench.simulator.isolate --hide runs -- python my_agent.py'

The command runs through util-linux ``setpriv`` with no groups, no capabilities and ``no_new_privs`` as
``--user`` (default ``nobody``), its working
directory ``/``, with the environment ``run`` gave the ``cmd:`` agent (allow-listed). Mounts made here are
private to the agent: the harness sees its files as they are. Linux only.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import os
import pwd
import shutil
import sys
import tempfile
from pathlib import Path

CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 4096, 8192, 16384, 1 << 18


class IsolationError(Exception):
    """Isolation cannot be set up here; the message is one line."""


def ground_truth_paths() -> list[Path]:
    """What an agent must not read: the built-in scenarios (data, solvers, published data with answers)."""
    import modylbench.scenarios as scenarios

    root = Path(scenarios.__file__).resolve().parent
    return [p for p in (root / "builtin", root / "data") if p.exists()]


def default_hidden() -> list[Path]:
    """Hidden unless told otherwise: the ground truth and the harness user's home (keys, caches, history)."""
    home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    return [*ground_truth_paths(), *([home] if home.is_dir() and home != Path("/") else [])]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise IsolationError(f"{what}: {os.strerror(err)}")


def _hide(libc: ctypes.CDLL, path: Path, keep: list[Path]) -> None:
    """Put an empty, unreadable filesystem over ``path`` (a directory), or /dev/null over a file. The ``keep``
    folders inside it (the interpreter's) stay visible at their paths, through a read-only tmpfs."""
    target = os.fsencode(path)
    inside = [k for k in keep if path in k.parents]
    if not path.is_dir():
        _check(libc.mount(b"/dev/null", target, None, MS_BIND, None), f"cannot hide {path}")
        return
    if not inside:
        rc = libc.mount(b"none", target, b"tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, b"size=4k,mode=000")
        _check(rc, f"cannot hide {path}")
        return
    # Park the kept folders, cover ``path`` with a tmpfs holding only their mount points, move them back.
    staging = [Path(tempfile.mkdtemp(prefix="modylbench-isolate-")) for _ in inside]
    for k, st in zip(inside, staging, strict=True):
        _check(libc.mount(os.fsencode(k), os.fsencode(st), None, MS_BIND | MS_REC, None), f"cannot keep {k}")
    _check(libc.mount(b"none", target, b"tmpfs", MS_NOSUID | MS_NODEV, b"size=64k,mode=711"), f"cannot hide {path}")
    for k, st in zip(inside, staging, strict=True):
        k.mkdir(parents=True, mode=0o711, exist_ok=True)
        _check(libc.mount(os.fsencode(st), os.fsencode(k), None, MS_MOVE, None), f"cannot keep {k}")
        st.rmdir()
    _check(libc.mount(b"none", target, None, MS_REMOUNT | MS_BIND | MS_RDONLY, None), f"cannot hide {path}")


def isolate(user: str, hidden: list[Path], keep: list[Path] | None = None) -> list[str]:
    """Enter a private mount namespace and hide ``hidden``; returns the argv prefix that becomes ``user`` for
    good at exec (util-linux ``setpriv``: no groups, no capabilities, ``no_new_privs``)."""
    if sys.platform != "linux":
        raise IsolationError("isolation needs Linux (mount namespaces)")
    if os.geteuid() != 0:
        raise IsolationError("isolation needs the harness to run as root (to change user and mount); "
                             "otherwise run the agent in a container (docs/testing-your-agent.md)")  # fmt: skip
    try:
        who = pwd.getpwnam(user)
    except KeyError:
        raise IsolationError(f"--user {user!r}: no such user") from None
    if who.pw_uid == 0:
        raise IsolationError(f"--user {user!r} is root: that isolates nothing")
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise IsolationError("setpriv (util-linux) is not on PATH")
    libc = _libc()
    _check(libc.unshare(CLONE_NEWNS), "cannot make a mount namespace")
    _check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "cannot make the mounts private")
    keep = keep or []
    # Folders holding a kept one first: what is hidden inside a kept folder is covered after it is back.
    for path in sorted(hidden, key=lambda h: not any(h in k.parents for k in keep)):
        if path.exists():
            _hide(libc, path.resolve(), keep)
    os.chdir("/")
    # setpriv changes the user with the capabilities kept until exec, so the command's own path is resolved
    # as root would (an interpreter under root's home), and runs with none.
    return [setpriv, f"--reuid={who.pw_uid}", f"--regid={who.pw_gid}", "--clear-groups", "--no-new-privs",
            "--inh-caps=-all", "--bounding-set=-all", "--"]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m modylbench.simulator.isolate", description=__doc__.splitlines()[0])
    p.add_argument("--user", default="nobody", help="the user the agent runs as (default: nobody)")
    p.add_argument("--hide", action="append", type=Path, default=[], metavar="PATH",
                   help="also hide PATH (a session folder or its parent, a scenario file); repeatable")  # fmt: skip
    p.add_argument("--show-home", action="store_true",
                   help="do not hide the harness user's home (the interpreter's folders in it stay visible anyway)")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARG ...]")
    a = p.parse_args(argv)
    command = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not command:
        p.error("no command given (put it after --)")
    hidden = [*ground_truth_paths(), *([] if a.show_home else default_hidden()), *a.hide]
    # Paths the command itself needs (its interpreter) must stay visible: a home holding the interpreter
    # is only unreadable (mode 700), not hidden.
    # The interpreter's folders stay readable (under a hidden home they are put back at their paths).
    keep = list(dict.fromkeys(Path(p).resolve() for p in (sys.prefix, sys.base_prefix)))
    hidden = [h for h in dict.fromkeys(x.resolve() for x in hidden if x.exists()) if h not in keep]
    try:
        prefix = isolate(a.user, hidden, keep)
    except IsolationError as exc:
        print(f"isolate: {exc}", file=sys.stderr)
        return 2
    try:
        os.execv(prefix[0], [*prefix, *command])
    except OSError as exc:
        print(f"isolate: cannot run {command[0]!r}: {exc.strerror or exc}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main())
