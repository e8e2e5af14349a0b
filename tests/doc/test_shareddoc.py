"""The live shared document: Yjs sync with attribution, refusal of bad input, trajectory, replay."""

from __future__ import annotations

import base64
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from pycrdt import Array, Doc, Map

from modylbench.channels import (
    SYNC_STEP1,
    SYNC_STEP2,
    SYNC_UPDATE,
    DocMessageError,
    SharedDocument,
    parse_message,
    sync_message,
)
from modylbench.record import DocSnapshot, DocUpdate, products_json, rebuild_doc
from modylbench.record._derive import derive_trajectory


class Recorder:
    """Collects (origin, update) like the session recorder does, with a running turn index."""

    def __init__(self) -> None:
        self.turn = 0
        self.events: list[Any] = []
        self.t = 0.0

    def __call__(self, origin: str, update: bytes) -> None:
        self.t += 0.5
        self.events.append(DocUpdate(wall_time=0.0, meeting_time=self.t, turn_index=self.turn, origin=origin,  # type: ignore[arg-type]
                                     update=base64.b64encode(update).decode(), size=len(update)))


class PlainPycrdtAgent:
    """An agent that edits with plain pycrdt and speaks only the Yjs sync protocol (no ModylBench code)."""

    def __init__(self) -> None:
        self.doc = Doc()
        self.root = self.doc.get("products", type=Map)
        self.outbox: list[bytes] = []
        self.doc.observe(lambda e: self.outbox.append(sync_message(SYNC_UPDATE, e.update)))

    def receive(self, msg: bytes) -> None:
        _, sub, payload = parse_message(msg)
        if sub in (SYNC_STEP2, SYNC_UPDATE):
            self.doc.apply_update(payload)


def _sync(shared: SharedDocument, agent: PlainPycrdtAgent) -> None:
    for reply in shared.handle_message("agent", sync_message(SYNC_STEP1, agent.doc.get_state())).replies:
        agent.receive(reply)
    agent.outbox.clear()


def _push(shared: SharedDocument, agent: PlainPycrdtAgent) -> None:
    msgs, agent.outbox = agent.outbox, []
    for m in msgs:
        shared.handle_message("agent", m)


def test_plain_pycrdt_agent_edits_are_recorded_with_attribution() -> None:
    rec = Recorder()
    shared = SharedDocument(on_update=rec)
    shared.create_product("persona", "model", "spreadsheet", "LBO model", {"assumptions": {"base": {"revenue": 50}}})
    agent = PlainPycrdtAgent()
    _sync(shared, agent)
    assert agent.root["model"]["content"]["assumptions"]["base"]["revenue"] == 50
    rec.turn = 3
    content = agent.root["model"]["content"]
    with agent.doc.transaction():
        content["income_statement"] = Map({"year1": Map({"revenue": 57.5})})
    _push(shared, agent)
    rec.turn = 4
    content["income_statement"]["year1"]["ebitda"] = 17.25
    content["income_statement"]["year1"]["revenue"] = 57.6
    _push(shared, agent)
    origins = [e.origin for e in rec.events]
    assert origins == ["persona", "agent", "agent", "agent"]
    assert shared.products()["model"]["content"]["income_statement"]["year1"] == {"revenue": 57.6, "ebitda": 17.25}
    mutations, doc = derive_trajectory(rec.events)
    got = [(m.turn_index, m.mutation_type, m.path, m.old_value, m.new_value) for m in mutations]
    assert got == [
        (3, "add_row", "/income_statement/year1", None, {"revenue": 57.5}),
        (4, "update_cell", "/income_statement/year1/ebitda", None, 17.25),
        (4, "update_cell", "/income_statement/year1/revenue", 57.5, 57.6),
    ]
    assert products_json(doc) == shared.products()


def test_trajectory_types_for_each_product_kind() -> None:
    rec = Recorder()
    shared = SharedDocument(on_update=rec)
    shared.create_product("agent", "memo", "document", "Memo", {"title": "IC memo", "sections": []})
    shared.create_product("agent", "kv", "kv", "Answers", {})
    shared.create_product("agent", "chart", "chart", "Chart", {"chart_type": "bar", "categories": ["a"], "series": []})
    shared.create_product("agent", "dash", "dashboard", "Dash", {"title": "D", "widgets": {}})
    shared.create_product("agent", "todo", "list", "List", {"items": []})
    shared.set_value("agent", "memo", "/sections/0", {"title": "Thesis", "text": "x"})
    shared.set_value("agent", "memo", "/sections/0/text", "better")
    shared.set_value("agent", "kv", "/irr", 0.21)
    shared.set_value("agent", "kv", "/irr", 0.22)
    shared.set_value("agent", "chart", "/series/0", {"name": "s", "values": [1]})
    shared.set_value("agent", "dash", "/widgets/irr", {"type": "kpi", "title": "IRR", "value": 0.2})
    shared.set_value("agent", "dash", "/widgets/irr/value", 0.21)
    shared.set_value("agent", "todo", "/items/0", "call lender")
    with shared.edit("agent") as root:
        del root["kv"]["content"]["irr"]
        del root["memo"]["content"]["sections"][0]
        del root["todo"]["content"]["items"][0]
    mutations, _ = derive_trajectory(rec.events)
    got = [(m.product_id, m.mutation_type, m.path) for m in mutations]
    assert got[:5] == [("memo", "create", ""), ("kv", "create", ""), ("chart", "create", ""),
                       ("dash", "create", ""), ("todo", "create", "")]
    assert got[5:13] == [
        ("memo", "add_section", "/sections/0"),
        ("memo", "update_section", "/sections/0/text"),
        ("kv", "add_key", "/irr"),
        ("kv", "update_value", "/irr"),
        ("chart", "add_chart_series", "/series/0"),
        ("dash", "add_widget", "/widgets/irr"),
        ("dash", "update_widget", "/widgets/irr/value"),
        ("todo", "add_list_item", "/items/0"),
    ]
    assert sorted(got[13:]) == sorted([("kv", "remove_key", "/irr"), ("memo", "delete_section", "/sections/0"),
                                       ("todo", "remove_list_item", "/items/0")])
    removed = {m.path: m.old_value for m in mutations[13:]}
    assert removed["/irr"] == 0.22 and removed["/sections/0"] == {"title": "Thesis", "text": "better"}


def test_persona_edits_are_kept_apart_from_the_agents() -> None:
    rec = Recorder()
    shared = SharedDocument(on_update=rec)
    shared.create_product("persona", "kv", "kv", "Inputs", {"a": 1})
    shared.set_value("persona", "kv", "/b", 2)
    shared.set_value("agent", "kv", "/c", 3)
    mutations, _ = derive_trajectory(rec.events)
    assert [(m.mutation_type, m.path) for m in mutations] == [("add_key", "/c")]


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        (b"", "truncated varuint"),
        (b"\x07\x00\x00", "unknown message type 7"),
        (b"\x00\x09\x00", "unknown sync sub-type 9"),
        (b"\x00\x02\xff\xff\xff\xff\x0f\x01", "declared 4294967295 payload bytes, found 1"),
        (b"\x00\x02\x05ab", "declared 5 payload bytes, found 2"),
        (b"\x00\x02\x04\x01\x02\x03\x04", "does not decode or apply"),
        (b"\x00\x02" + b"\x80" * 8, "varuint too long"),
    ],
)
def test_bad_messages_are_refused_and_change_nothing(message: bytes, reason: str) -> None:
    shared = SharedDocument()
    shared.create_product("persona", "kv", "kv", "Inputs", {"a": 1})
    before = shared.full_state()
    with pytest.raises(DocMessageError, match=reason):
        shared.handle_message("agent", message)
    assert shared.full_state() == before


def test_oversized_message_is_refused() -> None:
    shared = SharedDocument(max_message_bytes=1000)
    with pytest.raises(DocMessageError, match=r"2004 bytes on doc \(limit 1000\)"):
        shared.handle_message("agent", sync_message(SYNC_UPDATE, b"\x00" * 2000))


def test_fuzz_ten_thousand_corrupt_updates_in_a_child_process(tmp_path: Path) -> None:
    """Run in a child with a memory cap: if yrs aborted or ballooned, the child would die, not pytest."""
    script = textwrap.dedent(
        """
        import random, resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (4 * 1024**3, 4 * 1024**3))
        from pycrdt import Doc, Map, Array
        from modylbench.channels._shareddoc import SharedDocument, DocMessageError, sync_message, SYNC_UPDATE
        src = Doc(client_id=int(sys.argv[1])); root = src.get("products", type=Map); ups = []
        src.observe(lambda e: ups.append(e.update))
        with src.transaction():
            root["p"] = Map({"type": "kv", "title": "t", "content": Map({"a": 1, "s": "hello", "l": Array([1, 2])})})
        for i in range(30):
            root["p"]["content"]["a"] = i
        shared = SharedDocument()
        shared.apply_update("agent", ups[0])
        good_state = shared.full_state()
        rng = random.Random(int(sys.argv[1]))
        refused = applied = 0
        for n in range(10000):
            u = bytearray(rng.choice(ups))
            r = rng.random()
            if r < 0.4:
                for _ in range(rng.randint(1, 4)):
                    p = rng.randrange(len(u)); u[p] ^= 1 << rng.randrange(8)
            elif r < 0.6:
                u = u[: rng.randrange(len(u))]
            elif r < 0.8:
                p = rng.randrange(len(u)); u[p:p + 1] = b"\\xff\\xff\\xff\\xff\\x0f"
            else:
                u = bytearray(rng.randbytes(rng.randint(1, 64)))
            before = shared.full_state()
            try:
                shared.handle_message("agent", sync_message(SYNC_UPDATE, bytes(u)))
                applied += 1
            except DocMessageError:
                refused += 1
                assert shared.full_state() == before, "a refused update changed the document"
        print("refused", refused, "applied", applied, "sandbox_restarts", shared.sandbox.restarts)
        """
    )
    # A fixed seed and client id: the corrupt inputs are the same on every run.
    proc = subprocess.run([sys.executable, "-c", script, "1234"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    refused = int(proc.stdout.split()[1])
    assert refused > 5000


def test_rebuild_at_any_moment_uses_snapshots() -> None:
    rec = Recorder()
    shared = SharedDocument(on_update=rec)
    shared.create_product("agent", "kv", "kv", "KV", {})
    states: list[tuple[float, dict[str, Any]]] = []
    events: list[Any] = []
    for i in range(40):
        shared.set_value("agent", "kv", f"/k{i % 7}", i)
        events.extend(rec.events[len(events) - len([e for e in events if isinstance(e, DocSnapshot)]):])
        if i % 10 == 9:
            n_updates = sum(1 for e in events if isinstance(e, DocUpdate))
            events.append(DocSnapshot(wall_time=0.0, meeting_time=rec.t, state=base64.b64encode(shared.full_state()).decode(),
                                      updates_so_far=n_updates))
        states.append((rec.t, shared.products()))
    for t, expected in states:
        assert products_json(rebuild_doc(events, at=t)) == expected
    assert products_json(rebuild_doc(events)) == states[-1][1]


def test_array_element_replace_via_set_value() -> None:
    shared = SharedDocument()
    shared.create_product("agent", "todo", "list", "L", {"items": ["a", "b"]})
    shared.set_value("agent", "todo", "/items/1", "B")
    shared.set_value("agent", "todo", "/items/-", "c")
    assert shared.products()["todo"]["content"]["items"] == ["a", "B", "c"]
    assert isinstance(shared.root["todo"]["content"]["items"], Array)


def test_writing_the_value_a_cell_already_holds_is_no_mutation() -> None:
    rec = Recorder()
    shared = SharedDocument(on_update=rec)
    shared.create_product("agent", "model", "spreadsheet", "Model", {"pl": {"year1": {"ebitda": 2.0}}})
    shared.set_value("agent", "model", "/pl/year1/ebitda", 2.0)
    shared.set_value("agent", "model", "/pl/year1/ebitda", 3.0)
    mutations, _ = derive_trajectory(rec.events)
    got = [(m.mutation_type, m.path, m.old_value, m.new_value) for m in mutations]
    assert got == [("create", "", None, {"pl": {"year1": {"ebitda": 2.0}}}),
                   ("update_cell", "/pl/year1/ebitda", 2.0, 3.0)]
