"""A ``cmd:`` agent that first tries to read what an isolated agent must not (the scenario's ground truth, the
session folder, the harness's environment), prints what it could read as one JSON line, then joins the meeting
as the example agent does. ``--check-only``: print and exit (the control, not isolated)."""

from __future__ import annotations

import json
import os
import runpy
import sys
from pathlib import Path


def _readable(path: str) -> bool:
    try:
        p = Path(path)
        if p.is_dir():
            return bool(os.listdir(p))
        return len(p.read_bytes()) > 0
    except OSError:
        return False


def _ancestors_environ(marker: str) -> bool:
    """Whether any ancestor's environment (as /proc shows it) holds ``marker``."""
    pid = os.getppid()
    while pid > 1:
        try:
            if marker.encode() in Path(f"/proc/{pid}/environ").read_bytes():
                return True
        except OSError:
            pass
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False


def main() -> None:
    probe = json.loads(os.environ.get("PROBE", "{}") or "{}")
    seen = {"uid": os.getuid(), "cwd": os.getcwd(),
            "ground_truth": [p for p in probe.get("ground_truth", []) if _readable(p)],
            "session": [p for p in probe.get("session", []) if _readable(p)],
            "home": [p for p in probe.get("home", []) if _readable(p)],
            "harness_env": _ancestors_environ(probe.get("marker", "\0")),
            "own_env_secret": probe.get("marker", "\0").split("=")[0] in os.environ}  # fmt: skip
    print("PROBE " + json.dumps(seen), flush=True)
    if "--check-only" in sys.argv:
        return
    sys.argv = [sys.argv[0]]
    runpy.run_module("modylbench.examples.echo_agent", run_name="__main__")


if __name__ == "__main__":
    main()
