"""One home each: the bounded JSONL reader, the OpenAI call-and-retry loop and background-task ownership are
defined once and used everywhere else (a second copy is a bug waiting to drift)."""

from __future__ import annotations

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
