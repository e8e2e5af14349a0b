"""Running meetings: build sessions from names (``RunSpec``, ``resolve_agent``), run them (``run_one``) and
score their records (``score_session``). Names load lazily, so the CLI's ``--help`` stays light."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from modylbench.simulator._agentspec import AGENT_FORMS, AgentSpec, load_py_agent, resolve_agent
    from modylbench.simulator._errors import UserError
    from modylbench.simulator._runner import RunSpec, run_one, score_session
    from modylbench.simulator._session import MeetingOptions, MeetingResult

_LAZY = {
    "AGENT_FORMS": "_agentspec",
    "AgentSpec": "_agentspec",
    "load_py_agent": "_agentspec",
    "resolve_agent": "_agentspec",
    "UserError": "_errors",
    "RunSpec": "_runner",
    "run_one": "_runner",
    "score_session": "_runner",
    "MeetingOptions": "_session",
    "MeetingResult": "_session",
}

__all__ = [
    "AGENT_FORMS", "AgentSpec", "MeetingOptions", "MeetingResult", "RunSpec", "UserError", "load_py_agent",
    "resolve_agent", "run_one", "score_session",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
