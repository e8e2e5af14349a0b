"""What ``--agent`` names, resolved: a built-in agent, a command run per meeting (``cmd:``) or a Python agent
function (``py:``: in a process of its own over WebRTC, in-process over inproc). Resolving reads names only;
running them is ``_runner``'s, ``_external``'s and ``agent_runner``'s."""

from __future__ import annotations

import importlib
import inspect
import logging
import os
import re
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from modylbench.agents import AGENTS, MeetingClient
from modylbench.record import ModelSpec, ModelSpecError
from modylbench.scenarios import MAX_ID_CHARS
from modylbench.simulator._errors import UserError

logger = logging.getLogger(__name__)

AgentKind = Literal["builtin", "cmd", "py"]
PyAgent = Callable[[MeetingClient], Awaitable[None]]
"""The ``py:`` contract: an async function taking the joined ``MeetingClient``, called once per meeting."""

AGENT_FORMS = (
    "NAME (built-in: " + ", ".join(sorted(AGENTS)) + ", llm/MODEL[@BASE_URL], realtime/MODEL[@BASE_URL]); "
    "'cmd:COMMAND' (run through the shell for each meeting with MODYLBENCH_URL and MODYLBENCH_TOKEN set; "
    "webrtc only); 'py:MODULE:FUNCTION' (async def FUNCTION(client) on the SDK; over webrtc in a process of its "
    "own, over inproc in-process)"
)
"""The forms ``--agent`` accepts, in full, for help texts."""


def unknown_agent(spec: str) -> str:
    """The one line for an ``--agent`` that names nothing: the closest built-in, then the forms in brief."""
    import difflib

    plain = [a for a in sorted(AGENTS) if a not in ("llm", "realtime")]  # those two are listed with their model
    close = difflib.get_close_matches(spec, sorted(AGENTS), n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return (f"unknown agent {spec[:60]!r}; {hint}built-in agents: {', '.join(plain)}, llm/MODEL[@URL], "
            "realtime/MODEL[@URL]; or your own: 'cmd:COMMAND' or 'py:MODULE:FUNCTION' (modylbench run --help)")

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class AgentSpec:
    """An ``--agent`` value, resolved. Plain data: it crosses to session worker processes."""

    kind: AgentKind
    """builtin, cmd or py."""
    target: str
    """The built-in name (``llm/MODEL@URL`` included), the shell command, or ``module:function``."""
    name: str
    """The agent's name in the record and the scorecard (``model_id``): ``--agent-name``, else derived."""
    spec: str
    """The ``--agent`` value as given."""


def default_name(kind: AgentKind, target: str) -> str:
    """The agent's name when ``--agent-name`` is not given: the built-in's name, else a slug of the target."""
    if kind == "builtin":
        return target
    slug = _SAFE.sub("-", target.replace(":", ".") if kind == "py" else target).strip("-.")
    return (slug or kind)[:80]


def resolve_agent(spec: str, name: str | None = None, *, check: bool = True) -> AgentSpec:
    """Resolve an ``--agent`` value; a mistake is one ``UserError`` line (exit 2).

    ``cmd:COMMAND`` runs COMMAND through the shell per meeting; ``py:MODULE:FUNCTION`` imports MODULE (the
    current directory is importable, as with ``python -m``) and checks FUNCTION is an async function taking the
    client; anything else is a built-in agent. ``check=False`` skips importing the ``py:`` target.
    """
    spec = spec.strip()
    if name is not None:
        name = name.strip()
        if not name or len(name) > MAX_ID_CHARS:
            raise UserError(f"--agent-name {name[:40]!r}: a name is 1 to {MAX_ID_CHARS} characters")
    if spec.startswith("cmd:"):
        command = spec[4:].strip()
        if not command:
            raise UserError("--agent 'cmd:': no command after 'cmd:' (e.g. --agent 'cmd:python my_agent.py')")
        return AgentSpec("cmd", command, name or default_name("cmd", command), spec)
    if spec.startswith("py:"):
        target = spec[3:].strip()
        if check:
            load_py_agent(target)
        return AgentSpec("py", target, name or default_name("py", target), spec)
    if len(spec) > MAX_ID_CHARS:
        raise UserError(f"--agent {spec[:40]!r}...: an agent name is at most {MAX_ID_CHARS} characters")
    if spec in ("llm", "realtime") or spec.startswith(("llm/", "llm@", "realtime/", "realtime@")):
        try:
            ModelSpec.parse(spec)
        except ModelSpecError as exc:
            raise UserError(f"--agent {exc}") from None
    elif spec not in AGENTS:
        raise UserError(unknown_agent(spec))
    return AgentSpec("builtin", spec, name or spec, spec)


def importable_cwd() -> None:
    """Make the current directory importable for ``py:`` targets (a console script's sys.path lacks it).

    Done before session workers start, so that they (spawned with this sys.path) import the same module.
    """
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)


def load_py_agent(target: str) -> PyAgent:
    """Import ``module:function`` and check it is an async function taking one argument (the client)."""
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise UserError(f"--agent 'py:{target}': expected py:MODULE:FUNCTION (e.g. py:my_agent:run), where "
                        "FUNCTION is `async def run(client)`")
    importable_cwd()
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise UserError(f"--agent 'py:{target}': no module named {exc.name!r} (run from the folder that holds "
                            "it, or install it)") from None
        raise UserError(f"--agent 'py:{target}': importing {module_name} failed: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - the user's module failing at import is theirs to fix
        raise UserError(f"--agent 'py:{target}': importing {module_name} failed: {type(exc).__name__}: {exc}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UserError(f"--agent 'py:{target}': module {module_name} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not inspect.iscoroutinefunction(obj):
        raise UserError(f"--agent 'py:{target}': {attr} is not an async function; a py: agent is "
                        f"`async def {attr.rsplit('.', 1)[-1]}(client)`, called once per meeting with the joined client")
    try:
        inspect.signature(obj).bind(None)
    except TypeError:
        raise UserError(f"--agent 'py:{target}': {attr} must take exactly one argument, the MeetingClient") from None
    except ValueError:
        pass  # no signature to inspect (a builtin): let the call say
    agent: PyAgent = obj
    return agent
