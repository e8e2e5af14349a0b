"""The meeting's tools (``modylbench.integrations._toolbox``: the shared document, the chat, the persona's files)
as LiveKit function tools, for ``Agent(tools=...)`` or ``AgentSession(tools=...)``."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from livekit.agents.llm import RawFunctionTool, function_tool

from modylbench.integrations._toolbox import TOOL_SPECS, MeetingSide, MeetingToolbox


class MeetingTools(MeetingToolbox):
    """The meeting's tools for a LiveKit LLM: ``Agent(instructions=..., tools=MeetingTools(meeting).tools)``.

    Each tool answers the LLM with a JSON object, ``{"ok": ...}`` or ``{"error": "..."}`` it can act on; a tool
    never raises into the session. ``calls`` lists every call made.
    """

    def __init__(self, meeting: MeetingSide) -> None:
        super().__init__(meeting)
        self.tools: list[RawFunctionTool[Any, Any]] = [self._tool(spec.name) for spec in TOOL_SPECS]
        """One LiveKit raw-schema function tool per meeting tool, in ``TOOL_SPECS`` order."""

    def _tool(self, name: str) -> RawFunctionTool[Any, Any]:
        spec = next(s for s in TOOL_SPECS if s.name == name)

        async def handle(raw_arguments: dict[str, Any]) -> str:
            return json.dumps(await self.call(name, raw_arguments), ensure_ascii=False)

        handler: Callable[[dict[str, Any]], Awaitable[str]] = handle
        return function_tool(
            handler,
            raw_schema={"name": spec.name, "description": spec.description, "parameters": spec.json_schema()},
        )
