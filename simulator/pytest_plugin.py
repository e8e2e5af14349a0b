"""The pytest plugin (entry point ``pytest11``): a ``meeting`` fixture that runs your agent in a scenario slice
and returns the scored result (docs/testing-your-agent.md).

Registering the plugin costs a pytest session nothing: ModylBench is imported only when a test asks for
the fixture, and nothing here is autouse.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from modylbench.simulator.testing import Meetings

AGENT_OPTION = "--modylbench-agent"
SECTION = "modylbench meetings"
"""The failure report's section that tells what happened in each meeting the test ran with ``meeting``."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("modylbench", "ModylBench agent tests")
    group.addoption(
        AGENT_OPTION,
        dest="modylbench_agent",
        default=None,
        metavar="SPEC",
        help="Agent the `meeting` fixture runs when a test names none: a built-in name, 'py:MODULE:FUNCTION' "
        "or 'cmd:COMMAND' (also the modylbench_agent ini option).",
    )
    parser.addini(
        "modylbench_agent", "Default agent of the `meeting` fixture (see --modylbench-agent).", default=None
    )


@pytest.fixture
def meeting(request: pytest.FixtureRequest, tmp_path: Path) -> Meetings:
    """Runs meetings into this test's ``tmp_path``: ``meeting.run(scenario, agent=..., turns=..., transport=...)``
    (``await meeting.arun(...)`` in async tests) returns a ``MeetingRun``."""
    from modylbench.simulator.testing import Meetings

    agent = request.config.getoption("modylbench_agent") or request.config.getini("modylbench_agent") or None
    return Meetings(tmp_path / "meetings", agent=agent)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    """A failed test that used ``meeting`` shows each of its meetings turn by turn: scores, facts, what was said."""
    outcome = yield
    report = outcome.get_result()
    if not report.failed or "meeting" not in getattr(item, "fixturenames", ()):
        return
    runs = getattr(getattr(item, "funcargs", {}).get("meeting"), "runs", None)
    if runs:
        report.sections.append((SECTION, "\n\n".join(str(run) for run in runs)))
