"""The pytest plugin as a developer's project meets it: registered by the installed package's pytest11 entry
point, free for tests that do not use it, and a `meeting` fixture whose failures show the meetings."""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from modylbench.simulator.testing import Meetings, UserError

PLUGIN = "modylbench.simulator.pytest_plugin"


def _pytest(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest in a fresh process in ``folder`` (a project of its own: no ModylBench conftest, no ini)."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_installed_package_registers_the_plugin() -> None:
    found = [ep for ep in importlib.metadata.entry_points(group="pytest11") if ep.value == PLUGIN]
    assert [ep.name for ep in found] == ["modylbench"], "pip install -e . to register the entry point"


def test_the_plugin_imports_nothing_until_a_test_asks_for_a_meeting(tmp_path: Path) -> None:
    # No autouse fixture, no import of the simulator's machinery at start-up: a suite that does not use the
    # fixture runs as it did (the plugin module itself imports only pytest).
    (tmp_path / "test_plain.py").write_text(
        textwrap.dedent(f"""
        import sys

        def test_untouched(request):
            assert request.config.pluginmanager.has_plugin("modylbench")
            assert "{PLUGIN}" in sys.modules
            heavy = [m for m in ("modylbench.simulator.testing", "modylbench.scoring", "modylbench.agents", "aiortc")
                     if m in sys.modules]
            assert heavy == []
            assert "meeting" not in request.fixturenames
    """)
    )
    proc = _pytest(tmp_path)
    assert proc.returncode == 0 and "1 passed" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-2000:]


def test_the_plugin_has_no_autouse_fixture() -> None:
    source = Path(importlib.util.find_spec(PLUGIN).origin).read_text()  # type: ignore[arg-type, union-attr]
    autouse = [
        kw
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        for kw in node.keywords
        if kw.arg == "autouse"
    ]
    assert autouse == []


def test_without_an_agent_the_fixture_says_how_to_name_one(tmp_path: Path) -> None:
    meetings = Meetings(tmp_path)  # what the fixture returns when --modylbench-agent is not given
    with pytest.raises(
        UserError, match=r"no agent: pass agent='py:MODULE:FUNCTION'.*--modylbench-agent SPEC"
    ):
        meetings.run("financial_analyst_lbo_model", turns=1)
    assert meetings.runs == []
