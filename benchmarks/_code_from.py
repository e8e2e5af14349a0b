"""``BENCH_CODE_FROM=DIR``: a benchmark imports modylbench from DIR (a git worktree of another commit) instead of
this checkout, so one run can measure today's code and the new side by side. Imported before modylbench."""

from __future__ import annotations

import os
import sys

CODE_FROM = "BENCH_CODE_FROM"
"""Environment variable: import modylbench from this folder (a checkout of another commit) instead."""


def _import_code_from(folder: str) -> None:
    """Point the editable install's finder at ``folder``: every modylbench package then comes from there (this
    process and the agent processes it starts, which inherit the variable)."""
    from pathlib import Path

    here = str(Path(__file__).resolve().parent.parent)
    finders = [m for name, m in sys.modules.items() if name.startswith("__editable__") and "modylbench" in name]
    if not finders or any(name.startswith("modylbench") for name in sys.modules):
        raise SystemExit(f"{CODE_FROM}: modylbench is not an editable install here, or is already imported")
    for finder in finders:
        for table in (finder.MAPPING, finder.NAMESPACES):
            for key, value in table.items():
                if isinstance(value, str):
                    table[key] = value.replace(here, folder, 1)
                else:
                    table[key] = [v.replace(here, folder, 1) for v in value]


if os.environ.get(CODE_FROM):
    _import_code_from(os.environ[CODE_FROM])

