"""The ``llm`` agent against a real local OpenAI-compatible server that answers with tool calls."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from modylbench.record import read_record
from modylbench.scenarios import load_path
from modylbench.simulator import RunSpec, run_one, score_session

ROOT = Path(__file__).resolve().parents[2]
MINI = load_path(ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl")[0]


def _tool_call(i: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


@contextmanager
def brain_server(requests: list[dict[str, Any]]) -> Iterator[str]:
    """A chat-completions endpoint whose 'model' answers each persona turn from the mini scenario."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            pass

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            requests.append(body)
            heard = body["messages"][-1]["content"]
            turn = next(t for t in MINI.turns if heard.startswith(t.human_utterance))
            calls = [_tool_call(0, "say", {"text": turn.reference_response or "Understood."})]
            if turn.turn_index == 1:
                calls.append(_tool_call(1, "edit_product", {"product_id": "model", "output_type": "kv",
                                                            "pointer": "", "value_json": "{}"}))
                calls.append(_tool_call(2, "edit_product", {"product_id": "model", "pointer": "/ebitda",
                                                            "value_json": "2.0"}))
                calls.append(_tool_call(3, "chat", {"text": "EBITDA = 10 x 20% = 2.0"}))
            reply = {
                "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "tool_calls",
                             "message": {"role": "assistant", "content": None, "tool_calls": calls}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_llm_agent_speaks_chats_and_edits_through_tool_calls(tmp_path: Path) -> None:
    requests: list[dict[str, Any]] = []
    folder = tmp_path / "s"
    with brain_server(requests) as base_url:
        result = asyncio.run(run_one(RunSpec(MINI, f"llm/test-model@{base_url}", folder)))
    assert result.termination_reason == "completed"
    assert len(requests) == len(MINI.turns)
    assert all(r["model"] == "test-model" and r["tools"] for r in requests)
    assert requests[1]["messages"][-1]["content"].startswith(MINI.turns[1].human_utterance)
    assert "[chat] Inputs: revenue 10, margin 20%" in requests[1]["messages"][-1]["content"]
    assert "[file inputs.csv]" in requests[3]["messages"][-1]["content"]
    events = read_record(folder).events
    said = [e.transcript for e in events if e.event == "agent_speech" and e.transcript]
    assert MINI.turns[1].reference_response in said
    assert any(e.event == "chat_message" and e.sender == "agent" and "2.0" in e.text for e in events)
    assert any(e.event == "doc_update" and e.origin == "agent" for e in events)
    card = score_session(folder, {MINI.scenario_id: MINI}, ["offline"])
    entry = card.scenarios[0]
    product = entry.products[0]
    assert product.score is not None and all(c.passed for c in product.checks)
    assert entry.modylbench_score is not None and entry.modylbench_score >= 6.0
