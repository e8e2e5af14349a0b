"""docs/architecture.md's rules, checked on the source: the dependency direction (scenarios <- record <- channels
<- personas <- agents <- simulator; scoring reads scenarios and records) and packages talking only through each
other's public names (no import of another package's private ``_module``)."""

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
    "integrations": {"scenarios", "record", "channels", "personas", "agents"},
    # "examples": serve prints a command that runs modylbench.examples.echo_agent; it names it, never imports it.
    "simulator": {"scenarios", "record", "channels", "personas", "agents", "scoring", "examples"},
    # The examples are users of the package: they may use any of it.
    "examples": {"scenarios", "record", "channels", "personas", "agents", "integrations", "simulator", "scoring"},
}


_MODULE_STRING = re.compile(r"^modylbench\.([a-z_]+)(?:\.[a-z_]+)*(?::[A-Za-z_]+)?$")


def _modules(path: Path) -> set[str]:
    """Every ``modylbench.…`` module the file imports, including lazy imports by string (the CLI's table)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _MODULE_STRING.match(node.value):
            names = [node.value.split(":")[0]]
        found.update(n for n in names if n.startswith("modylbench.") and n.count(".") >= 1)
    return found


def _imports(path: Path) -> set[str]:
    """The modylbench sub-packages the file imports."""
    return {m.split(".")[1] for m in _modules(path)}


def _private_reaches(path: Path, package: str) -> set[str]:
    """Modules of another package that the file imports by a private (underscored) module name."""
    return {
        m
        for m in _modules(path)
        if m.split(".")[1] != package and any(part.startswith("_") for part in m.split(".")[2:])
    }


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


def test_packages_use_each_others_public_names() -> None:
    problems = []
    for package in ALLOWED:
        folder = ROOT / package
        if not folder.is_dir():
            continue
        for path in folder.rglob("*.py"):
            for module in sorted(_private_reaches(path, package)):
                problems.append(f"{path.relative_to(ROOT)} imports private {module}")
    assert not problems, "\n".join(problems)


def test_private_reach_checker_catches_one(tmp_path: Path) -> None:
    bad = tmp_path / "x.py"
    bad.write_text(
        "from modylbench.channels import Clock\nfrom modylbench.channels._clock import WallClock\n"
        "from modylbench.simulator._runner import x\nTABLE = {'a': 'modylbench.scoring._cli:evaluate'}\n"
    )
    assert _private_reaches(bad, "simulator") == {"modylbench.channels._clock", "modylbench.scoring._cli"}
