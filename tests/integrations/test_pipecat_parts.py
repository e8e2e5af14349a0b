"""The Pipecat integration's parts, fast: the meeting tools edit the shared document, chat and read files over
the real protocol (an in-process meeting), and the bot's turn is complete only when its answer is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from pipecat.frames.frames import (
    FunctionCallFromLLM,
    FunctionCallResultFrame,
    FunctionCallResultProperties,
    FunctionCallsStartedFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
)
from pipecat.services.llm_service import FunctionCallParams

from modylbench.agents import FileReceived, join_inprocess
from modylbench.channels import (
    SYNC_STEP1,
    SYNC_UPDATE,
    AgentChat,
    AgentDocMessage,
    AgentEvent,
    InProcessMeeting,
    SharedDocument,
    WallClock,
    sync_message,
)
from modylbench.integrations.pipecat import MeetingParams, MeetingTools, MeetingTransport
from modylbench.integrations.pipecat._transport import _BotTurn

ROOT = Path(__file__).resolve().parents[2]


async def _apply_until_step2(events: AsyncIterator[AgentEvent], shared: SharedDocument) -> None:
    """Apply the agent's doc messages to the meeting's document until the agent answers a step 1."""
    async for ev in events:
        if isinstance(ev, AgentDocMessage):
            shared.handle_message("agent", ev.data)
            if ev.data[1] == 1:  # sync step 2: the agent has handled everything sent before our step 1
                return


async def _call(tools: MeetingTools, tool: str, **args: Any) -> dict[str, Any]:
    out: list[dict[str, Any]] = []

    async def result_callback(result: Any, **_: Any) -> None:
        out.append(result)

    params = FunctionCallParams(
        function_name=tool,
        tool_call_id="t",
        arguments=args,
        llm=None,  # type: ignore[arg-type]
        pipeline_worker=None,  # type: ignore[arg-type]
        context=None,  # type: ignore[arg-type]
        result_callback=result_callback,
    )
    await tools._handle(params)
    return out[0]


async def test_tools_edit_the_document_chat_and_read_files_over_the_protocol() -> None:
    link = InProcessMeeting(WallClock())
    shared = SharedDocument()
    shared.create_product("persona", "model", "kv", "Model", {"ebitda": None, "notes": "x"})
    client = await join_inprocess(link, receive_audio=False)
    transport = MeetingTransport(client, MeetingParams(audio_in_enabled=False))
    tools = MeetingTools(transport)
    events = link.events()
    try:
        await transport.start_reading()
        await link.send_doc(sync_message(SYNC_UPDATE, shared.full_state()))
        await link.send_doc(sync_message(SYNC_STEP1, shared.state_vector()))
        await _apply_until_step2(events, shared)
        assert transport.doc.products()["model"]["content"] == {"ebitda": None, "notes": "x"}

        assert await _call(tools, "set_value", product_id="model", pointer="/ebitda", value_json="2.0") == {
            "ok": "saved"
        }
        assert await _call(tools, "delete_value", product_id="model", pointer="/notes") == {"ok": "saved"}
        content = json.dumps({"sections": [{"title": "Summary", "text": "EBITDA 2.0"}]})
        created = await _call(
            tools,
            "create_product",
            product_id="memo",
            output_type="document",
            title="Memo",
            content_json=content,
        )
        assert created == {"ok": "saved"}
        # Refusals the model can act on, and the document left as it was.
        assert (
            "create_product"
            in (await _call(tools, "set_value", product_id="nope", pointer="/a", value_json="1"))["error"]
        )
        assert (
            "not JSON"
            in (await _call(tools, "set_value", product_id="model", pointer="/a", value_json="{"))["error"]
        )
        assert (
            "create_product"
            in (await _call(tools, "set_value", product_id="model", pointer="", value_json="1"))["error"]
        )
        too_long = await _call(tools, "chat", text="x" * 8001)
        assert "8000" in too_long["error"]
        assert await _call(tools, "chat", text="EBITDA = 2.0") == {"ok": "posted"}
        read = await _call(tools, "read_products", product_id="model")
        assert json.loads(read["ok"]) == {
            "model": {"type": "kv", "title": "Model", "content": {"ebitda": 2.0}}
        }

        # The meeting's own document got every edit, as the agent's, and the chat came through.
        await link.send_doc(sync_message(SYNC_STEP1, shared.state_vector()))
        chats: list[str] = []
        async for ev in events:
            if isinstance(ev, AgentChat):
                chats.append(ev.text)
            elif isinstance(ev, AgentDocMessage):
                shared.handle_message("agent", ev.data)
                if ev.data[1] == 1:
                    break
        assert chats == ["EBITDA = 2.0"]
        assert shared.products()["model"]["content"] == {"ebitda": 2.0}
        assert shared.products()["memo"]["content"]["sections"][0]["text"] == "EBITDA 2.0"

        # A file the persona shares is readable through read_file, from an offset.
        outcome = await link.push_file("inputs.csv", b"revenue,margin\n10,0.2\n", "text/csv")
        assert outcome.ok
        while not isinstance(await transport.next_event(), FileReceived):
            pass
        assert (await _call(tools, "read_file", name="inputs.csv", offset=8))["ok"] == "margin\n10,0.2\n"
        assert "inputs.csv" in (await _call(tools, "read_file", name="other.csv"))["error"]
        assert [name for name, _ in tools.calls][:3] == ["set_value", "delete_value", "create_product"]
    finally:
        await transport.leave()
        await link.close()
        shared.close()


def _calls(*ids: str) -> FunctionCallsStartedFrame:
    return FunctionCallsStartedFrame(
        function_calls=[
            FunctionCallFromLLM(function_name="f", tool_call_id=i, arguments={}, context=None) for i in ids
        ]
    )


def _result(call_id: str, final: bool = True) -> FunctionCallResultFrame:
    return FunctionCallResultFrame(
        function_name="f",
        tool_call_id=call_id,
        arguments={},
        result={"ok": 1},
        properties=FunctionCallResultProperties(is_final=final),
    )


def test_the_bots_turn_is_complete_only_when_its_answer_is() -> None:
    turn = _BotTurn()
    turn.on_frame(LLMFullResponseStartFrame())
    turn.on_frame(LLMFullResponseEndFrame())
    assert not turn.complete  # an answer before the floor is ours does not count
    turn.open_floor(3)
    assert not turn.complete  # nothing answered yet
    turn.on_frame(LLMFullResponseStartFrame())
    turn.on_frame(_calls("a", "b"))  # the LLM service announces its calls before the response ends
    turn.on_frame(LLMFullResponseEndFrame())
    assert turn.answered and not turn.complete
    turn.on_frame(_result("a"))
    turn.on_frame(_result("b", final=False))  # an intermediate result leaves the call pending
    assert not turn.complete
    turn.on_frame(_result("b"))
    turn.run_requested()  # the assistant aggregator asks the LLM to answer the results
    assert not turn.complete
    version = turn.version
    turn.on_frame(LLMFullResponseStartFrame())
    assert turn.version != version and not turn.complete
    turn.on_frame(LLMFullResponseEndFrame())
    assert turn.complete and turn.turn == 3
    turn.close_floor()  # turn_closed, or done sent
    assert not turn.complete


def test_example_needs_the_meeting_in_its_environment() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MODYLBENCH_")}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "pipecat_agent.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert (
        proc.stderr.strip()
        .splitlines()[-1]
        .startswith("pipecat_agent: set MODYLBENCH_URL and MODYLBENCH_TOKEN")
    )
