"""A JavaScript Yjs client (the yjs npm package under Node) edits the shared document; edits are attributed."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from modylbench.channels import SharedDocument
from modylbench.record._derive import derive_trajectory

from .test_shareddoc import Recorder

HERE = Path(__file__).resolve().parent
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_yjs_client_under_node_edits_are_recorded_with_attribution() -> None:
    rec = Recorder()
    shared = SharedDocument(on_update=rec)
    shared.create_product("persona", "model", "spreadsheet", "LBO", {"income_statement": {}})
    proc = subprocess.Popen([str(NODE), str(HERE / "yjs_agent.mjs")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None

    def write(line: str) -> None:
        assert proc.stdin is not None
        proc.stdin.write(line + "\n")
        proc.stdin.flush()

    def handle(line: str) -> None:
        result = shared.handle_message("agent", base64.b64decode(line[4:]))
        for reply in result.replies:
            write("MSG " + base64.b64encode(reply).decode())

    try:
        handle(proc.stdout.readline())  # the client's sync step 1 → our step 2
        write("MSG " + base64.b64encode(shared.step1()).decode())
        first = proc.stdout.readline()  # its step 2 (empty: it had nothing we lack)
        assert first.startswith("MSG ")
        handle(first)
        rec.turn = 5
        write("EDIT")
        seen_js = None
        while seen_js is None:
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else ""
            if line.startswith("MSG "):
                handle(line)
            elif line.startswith("EDITED "):
                seen_js = json.loads(line[7:])
        write("QUIT")
        proc.wait(timeout=30)
    finally:
        proc.kill()
    assert shared.products()["model"]["content"] == seen_js["model"]["content"]
    assert [e.origin for e in rec.events] == ["persona", "agent", "agent"]
    mutations, _ = derive_trajectory(rec.events)
    assert [(m.turn_index, m.mutation_type, m.path, m.new_value) for m in mutations] == [
        (5, "add_row", "/income_statement/year1", {"revenue": 57.5}),
        (5, "update_cell", "/income_statement/year1/ebitda", 17.25),
    ]
