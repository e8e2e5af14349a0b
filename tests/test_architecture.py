"""DESIGN.md's dependency direction, checked on the source: scenarios <- record <- channels <- personas <- simulator."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# package -> modylbench sub-packages it may import (besides itself).
ALLOWED: dict[str, set[str]] = {
    "scenarios": set(),
    "record": {"scenarios"},
    "scoring": {"scenarios", "record"},
    "channels": {"scenarios", "record"},
    "personas": {"scenarios", "record", "channels"},
    "agents": {"scenarios", "record", "channels", "personas"},
    "simulator": {"scenarios", "record", "channels", "personas", "agents", "scoring"},
}


_MODULE_STRING = re.compile(r"^modylbench\.([a-z_]+)(?:\.[a-z_]+)*(?::[A-Za-z_]+)?$")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for n in names:
            parts = n.split(".")
            if parts[0] == "modylbench" and len(parts) > 1:
                found.add(parts[1])
    # Lazy imports by string (click command table) count as well.
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            m = _MODULE_STRING.match(node.value)
            if m:
                found.add(m.group(1))
    return found


def test_dependency_direction() -> None:
    problems = []
    for package, allowed in ALLOWED.items():
        folder = ROOT / package
        if not folder.is_dir():
            continue
        for path in folder.rglob("*.py"):
            for dep in _imports(path) - allowed - {package}:
                problems.append(f"{path.relative_to(ROOT)} imports modylbench.{dep}")
    assert not problems, "\n".join(problems)


def test_checker_catches_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "x.py"
    bad.write_text("from modylbench.simulator import cli\nimport modylbench.channels._peer\n")
    assert _imports(bad) == {"simulator", "channels"}
