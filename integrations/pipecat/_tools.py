"""Function-calling tools for a Pipecat LLM in a ModylBench meeting: the meeting's tools
(``modylbench.integrations._toolbox``: the shared document, the chat, the persona's files) as a Pipecat
``ToolsSchema`` and handlers registered on the LLM service."""

from __future__ import annotations

import logging

from pipecat.adapters.llm.schemas.function_schema import FunctionSchema
from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema
from pipecat.services.llm_service import FunctionCallParams, LLMService

from modylbench.integrations._toolbox import TOOL_SPECS, MeetingToolbox, meeting_instructions
from modylbench.integrations.pipecat._transport import MeetingTransport

logger = logging.getLogger(__name__)

SCHEMAS = [FunctionSchema(t.name, t.description, t.properties, t.required) for t in TOOL_SPECS]

__all__ = ["SCHEMAS", "MeetingTools", "meeting_instructions"]


class MeetingTools(MeetingToolbox):
    """The meeting's tools for a Pipecat LLM service: ``tools.register(llm)``, and ``tools.schema`` in the context.

    Each tool answers with a JSON object: ``{"ok": ...}`` or ``{"error": "..."}`` the LLM can act on; a tool
    never raises into the pipeline. Edits go to the transport's replica of the shared document and are sent
    to the meeting at once, one Yjs update per call.
    """

    def __init__(self, transport: MeetingTransport) -> None:
        super().__init__(transport)
        self.transport = transport
        self.schema = ToolsSchema(standard_tools=SCHEMAS)

    def register(self, llm: LLMService) -> None:
        """Register every tool's handler on ``llm``."""
        for name in self.names:
            llm.register_function(name, self._handle)

    async def _handle(self, params: FunctionCallParams) -> None:
        result = await self.call(params.function_name, dict(params.arguments or {}))
        await params.result_callback(result)
