"""ruff and mypy over the package, as part of the test suite (so CI runs them with the tests)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["scenarios", "record", "channels", "personas", "agents", "integrations", "simulator", "scoring"]


def _tool(name: str) -> str:
    exe = Path(sys.executable).parent / name
    found = str(exe) if exe.exists() else shutil.which(name)
    if not found:
        pytest.fail(f"{name} is not installed: pip install -e '.[test]'")
    return found


def test_ruff() -> None:
    targets = [p for p in [*PACKAGES, "tests", "benchmarks", "examples", "fixtures"] if (ROOT / p).exists()]
    proc = subprocess.run([_tool("ruff"), "check", *targets], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy(tmp_path: Path) -> None:
    # The folders install as modylbench.<folder>; mypy needs to see them under that name.
    ns = tmp_path / "modylbench"
    ns.mkdir()
    for p in PACKAGES:
        if (ROOT / p).exists():
            os.symlink(ROOT / p, ns / p)
    proc = subprocess.run(
        [_tool("mypy"), "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path / "cache"),
         "--follow-imports=silent", "-p", "modylbench"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={**os.environ, "MYPYPATH": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
