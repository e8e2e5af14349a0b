"""The meeting's tools for an agent framework's LLM, framework-free: read and edit the work products in the shared
document (docs/shared-document.md, docs/products.md), post in the chat, read the files the persona shared; their
JSON schemas; and the system instructions that tell the LLM what the meeting wants delivered. Each integration
(Pipecat, LiveKit Agents) wraps these in its own function-calling types."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from modylbench.agents import AgentDoc, Briefing, FileReceived
from modylbench.channels import MAX_DOC_MESSAGE

logger = logging.getLogger(__name__)

MAX_RESULT_CHARS = 20_000
"""A tool result read back into the LLM's context (products, files) is cut to this many characters."""
MAX_CHAT_CHARS = 8_000
"""The meeting truncates longer agent chat messages (docs/protocol.md §4); the tool says so instead."""


class MeetingSide(Protocol):
    """What the tools need of an integration's meeting: the agent's replica of the shared document, the files the
    persona shared, and a way to send edits and chat."""

    doc: AgentDoc
    files: dict[str, FileReceived]

    async def flush_doc(self) -> None: ...

    async def chat(self, text: str) -> None: ...


@dataclass(frozen=True)
class ToolSpec:
    """One tool as function-calling APIs describe it: a name, a description, JSON-schema properties."""

    name: str
    description: str
    properties: dict[str, Any]
    required: list[str]

    def json_schema(self) -> dict[str, Any]:
        """The tool's parameters as a JSON-schema object."""
        return {"type": "object", "properties": self.properties, "required": self.required}


_TEXT = {"type": "string"}
_PRODUCT = {
    "type": "string",
    "description": "the product's id in the shared document (its key under products)",
}
_POINTER = {
    "type": "string",
    "description": "RFC 6901 pointer into the product's content, e.g. /income/year1/revenue "
    "or /sections/0/text; '-' appends to a list",
}
_JSON = {"type": "string", "description": "the value as JSON text: a number, string, object or list"}

TOOL_SPECS = [
    ToolSpec(
        "read_products",
        "Read the shared document: one product's JSON, or every product's if no id.",
        {"product_id": _PRODUCT},
        [],
    ),
    ToolSpec(
        "set_value",
        "Write a value at a pointer inside a product's content (creating missing objects). "
        "Fill the persona's templates this way, one row, cell, section or series at a time.",
        {"product_id": _PRODUCT, "pointer": _POINTER, "value_json": _JSON},
        ["product_id", "pointer", "value_json"],
    ),
    ToolSpec(
        "delete_value",
        "Remove the value at a pointer inside a product's content (a key or a list item).",
        {"product_id": _PRODUCT, "pointer": _POINTER},
        ["product_id", "pointer"],
    ),
    ToolSpec(
        "create_product",
        "Create a product, or replace one whole (its template is lost).",
        {
            "product_id": _PRODUCT,
            "output_type": {
                "type": "string",
                "description": "spreadsheet, document, chart, dashboard, kv or list",
            },
            "title": _TEXT,
            "content_json": _JSON,
        },
        ["product_id", "output_type", "title", "content_json"],
    ),
    ToolSpec(
        "chat",
        "Post a message in the meeting's chat (figures, tables, links: what reads better than it sounds).",
        {"text": _TEXT},
        ["text"],
    ),
    ToolSpec(
        "read_file",
        "Read a file the persona shared, as text, from a character offset.",
        {"name": _TEXT, "offset": {"type": "integer", "description": "first character (default 0)"}},
        ["name"],
    ),
]
"""The meeting's tools, in the order they are offered."""


def _cut(text: str) -> str:
    if len(text) <= MAX_RESULT_CHARS:
        return text
    return text[:MAX_RESULT_CHARS] + f"\n[cut: {len(text) - MAX_RESULT_CHARS} more characters]"


class MeetingToolbox:
    """The handlers behind ``TOOL_SPECS``: ``await toolbox.call(name, arguments)``.

    Each tool answers with a JSON object: ``{"ok": ...}`` or ``{"error": "..."}`` the LLM can act on; a tool
    never raises into the framework. Edits go to the meeting's replica of the shared document and are sent
    to the meeting at once, one Yjs update per call.
    """

    def __init__(self, meeting: MeetingSide) -> None:
        self.meeting = meeting
        self.calls: list[tuple[str, dict[str, Any]]] = []
        """Every call made, in order (name, arguments)."""
        self._handlers: dict[str, Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]] = {
            "read_products": self.read_products,
            "set_value": self.set_value,
            "delete_value": self.delete_value,
            "create_product": self.create_product,
            "chat": self.chat,
            "read_file": self.read_file,
        }

    @property
    def names(self) -> list[str]:
        return list(self._handlers)

    async def call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run the tool ``name``; a user-fixable failure (bad id, pointer, JSON) is an ``error`` answer."""
        args = dict(args or {})
        self.calls.append((name, args))
        handler = self._handlers.get(name)
        if handler is None:
            return {"error": f"no tool {name!r}; there are: {', '.join(self._handlers)}"}
        try:
            return await handler(args)
        except (KeyError, ValueError, TypeError, IndexError) as exc:
            return {"error": f"{type(exc).__name__}: {exc}"}
        except ConnectionError:
            return {"error": "the meeting is over"}

    async def read_products(self, args: dict[str, Any]) -> dict[str, Any]:
        products = self.meeting.doc.products()
        pid = args.get("product_id")
        if pid:
            if pid not in products:
                return {"error": f"no product {pid!r}; there are: {', '.join(products) or 'none'}"}
            products = {pid: products[pid]}
        return {"ok": _cut(json.dumps(products, ensure_ascii=False, separators=(",", ":")))}

    def _check_product(self, pid: str) -> None:
        if pid not in self.meeting.doc.products():
            raise KeyError(f"no product {pid!r}: create it with create_product")

    async def set_value(self, args: dict[str, Any]) -> dict[str, Any]:
        pid, pointer = str(args["product_id"]), str(args["pointer"])
        value = _parse(args["value_json"])
        self._check_product(pid)
        if pointer == "":
            return {"error": "pointer '' is the whole product: use create_product to replace it"}
        self.meeting.doc.set(pid, pointer, value)
        return await self._send()

    async def delete_value(self, args: dict[str, Any]) -> dict[str, Any]:
        pid, pointer = str(args["product_id"]), str(args["pointer"])
        self._check_product(pid)
        if pointer == "":
            return {"error": "pointer '' is the whole product: deleting it is not an edit of its content"}
        self.meeting.doc.delete(pid, pointer)
        return await self._send()

    async def create_product(self, args: dict[str, Any]) -> dict[str, Any]:
        content = _parse(args["content_json"])
        self.meeting.doc.create_product(
            str(args["product_id"]), str(args["output_type"]), str(args["title"]), content
        )
        return await self._send()

    async def chat(self, args: dict[str, Any]) -> dict[str, Any]:
        text = str(args["text"])
        if len(text) > MAX_CHAT_CHARS:
            return {
                "error": f"a chat message holds at most {MAX_CHAT_CHARS} characters; this one has {len(text)}"
            }
        await self.meeting.chat(text)
        return {"ok": "posted"}

    async def read_file(self, args: dict[str, Any]) -> dict[str, Any]:
        name = str(args["name"])
        file = self.meeting.files.get(name)
        if file is None:
            return {"error": f"no file {name!r}; shared so far: {', '.join(self.meeting.files) or 'none'}"}
        text = file.data.decode("utf-8", "replace")
        offset = max(0, int(args.get("offset") or 0))
        return {"ok": _cut(text[offset:]), "characters": len(text)}

    async def _send(self) -> dict[str, Any]:
        await self.meeting.flush_doc()
        return {"ok": "saved"}


def _parse(text: Any) -> Any:
    if not isinstance(text, str):
        return text  # a model that sent the JSON value itself
    if len(text) > MAX_DOC_MESSAGE - 4096:
        # Checked before the edit: an update the doc channel cannot carry would leave the replica ahead of the
        # meeting, and the meeting would refuse every later edit of ours (docs/shared-document.md).
        raise ValueError(
            f"that value is {len(text)} characters; one edit carries at most about "
            f"{MAX_DOC_MESSAGE - 4096}: write it in parts"
        )
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at character {exc.pos}): {text[:80]!r}") from None


def chat_note(text: str) -> str:
    """How a persona's chat message reads in the LLM's user turn (``meeting_instructions`` explains it)."""
    return f"[chat] {text}"


def file_note(file: FileReceived) -> str:
    """How a shared file reads in the LLM's user turn; its bytes are behind the ``read_file`` tool."""
    return f"[file {file.name} shared: {len(file.data)} bytes, {file.media_type}]"


def meeting_instructions(briefing: Briefing | None, role: str = "a senior analyst") -> str:
    """System instructions for the LLM: the meeting's brief, its deliverables with their templates, the tools."""
    if briefing is None:
        head = f"You are {role} in a live meeting."
        deliverables = "(none named: create what the meeting needs)"
    else:
        head = (
            f"You are {role} in a live meeting: {briefing.title}.\nContext: {briefing.context}\nGoal: "
            f"{briefing.meeting_goal}"
        )
        deliverables = (
            "\n".join(
                f'- {d.product_id} ({d.output_type}) "{d.title}": {d.description}\n  template: '
                + json.dumps(d.template, ensure_ascii=False, separators=(",", ":"))
                for d in briefing.deliverables
            )
            or "(none named: create what the meeting needs)"
        )
    return (
        f"{head}\nThe persona has set up these deliverables in the shared document; fill them in with "
        f"set_value (keep their ids, row keys and section headings; add rows or sections when needed):\n"
        f"{deliverables}\nWhat you write as text is spoken aloud: keep it short and specific, with the figures. "
        "Put tables and long figures in the chat tool. Messages starting [chat] are the persona's chat; "
        "[file NAME ...] means a file you can read with read_file."
    )
