"""The shared document's product structure on Yjs (pycrdt), and turning its edits into mutations.

Layout (docs/shared-document.md): one root ``Map`` named ``products``; each product is a ``Map``
``{"type": output_type, "title": str, "content": <content>}`` where content is the JSON of
docs/products.md built from Yjs types: objects are ``Map``s, arrays are ``Array``s, scalars are
plain values. ``TrajectoryBuilder`` watches transactions and emits public-format mutations.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from typing import Any

from pycrdt import Array, Doc, Map

from modylbench.record._responses import Mutation
from modylbench.scenarios import make_pointer

logger = logging.getLogger(__name__)

ROOT = "products"
MAX_NESTING = 64
"""Deepest nesting of Yjs maps and arrays in the document, counted from the products root (0): a product
is at 1, its content at 2, a spreadsheet's sheet at 3 and a row at 4. Deeper updates are refused on the
way in (``channels/_docguard.py``) so that no walk over the content (here, the scorer, pydantic, json)
can exhaust the stack; the walks here are bounded by it as well, for records made without that guard."""
TOO_DEEP = f"[nested more than {MAX_NESTING} levels deep: cut here]"
"""What a walk puts in place of a container below ``MAX_NESTING`` (only in records made without the guard)."""


def to_yjs(value: Any) -> Any:
    """Plain JSON → Yjs prelim values (objects → Map, arrays → Array, scalars unchanged)."""
    if isinstance(value, dict):
        return Map({str(k): to_yjs(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return Array([to_yjs(v) for v in value])
    return value


def to_json(value: Any, max_depth: int = MAX_NESTING) -> Any:
    """A value read from the document as plain JSON, walked without recursion.

    Maps and arrays more than ``max_depth`` levels down (``value`` itself is level 1) become ``TOO_DEEP``.
    """
    if not isinstance(value, Map | Array):
        return _leaf(value)
    if max_depth < 1:
        return TOO_DEEP
    out: Any = {} if isinstance(value, Map) else []
    stack: list[tuple[Map | Array, Any, int]] = [(value, out, 1)]
    cut = False
    while stack:
        src, dst, depth = stack.pop()
        for key, child in (src.items() if isinstance(src, Map) else enumerate(src)):
            item: Any
            if isinstance(child, Map | Array):
                if depth >= max_depth:
                    item, cut = TOO_DEEP, True
                else:
                    item = {} if isinstance(child, Map) else []
                    stack.append((child, item, depth + 1))
            else:
                item = _leaf(child)
            if isinstance(dst, dict):
                dst[str(key)] = item
            else:
                dst.append(item)
    if cut:
        logger.warning("document content nested deeper than %d levels was cut", max_depth)
    return out


def _leaf(value: Any) -> Any:
    # Text and XML types read as their text; they hold no maps or arrays that a walk would follow.
    return str(value) if hasattr(value, "to_py") else value


def products_root(doc: Doc) -> Map:
    """The root map of products (created on first use)."""
    return doc.get(ROOT, type=Map)


def new_product(output_type: str, title: str, content: Any) -> Map:
    """A product entry ready to be set under its id."""
    return Map({"type": output_type, "title": title, "content": to_yjs(content if content is not None else {})})


def products_json(doc: Doc) -> dict[str, dict[str, Any]]:
    """Every product as ``{product_id: {"type", "title", "content"}}`` plain JSON."""
    out: dict[str, dict[str, Any]] = {}
    for pid, entry in (to_json(products_root(doc), MAX_NESTING + 1) or {}).items():
        if isinstance(entry, dict):
            out[pid] = {"type": entry.get("type", ""), "title": entry.get("title", ""), "content": entry.get("content")}
    return out


def _classify(output_type: str, tokens: list[str], action: str) -> str:
    """The public mutation type of a change at ``tokens`` (path inside content) of a product."""
    depth = len(tokens)
    head = tokens[0] if tokens else ""
    if output_type == "spreadsheet":
        if depth <= 2:
            return {"add": "add_row", "delete": "delete_row"}.get(action, "update_cell")
        return "delete" if action == "delete" and depth == 3 else "update_cell"
    if output_type == "document":
        if head == "sections" and depth == 2:
            return {"add": "add_section", "delete": "delete_section"}.get(action, "update_section")
        return "update_section" if head == "sections" else ("delete" if action == "delete" else "update_value")
    if output_type == "chart":
        if head == "series" and depth == 2:
            return {"add": "add_chart_series", "delete": "remove_chart_series"}.get(action, "update_chart")
        return "update_chart"
    if output_type == "dashboard":
        if head == "widgets" and depth == 2:
            return {"add": "add_widget", "delete": "remove_widget"}.get(action, "update_widget")
        return "update_widget" if head == "widgets" else ("delete" if action == "delete" else "update_value")
    if output_type == "list":
        if head == "items" and depth == 2:
            return {"add": "add_list_item", "delete": "remove_list_item"}.get(action, "update_value")
        return "update_value"
    # kv and anything unknown
    if depth == 1:
        return {"add": "add_key", "delete": "remove_key"}.get(action, "update_value")
    return "delete" if action == "delete" else "update_value"


def _get(tree: Any, tokens: list[str]) -> Any:
    cur = tree
    for t in tokens:
        if isinstance(cur, dict):
            cur = cur.get(t)
        elif isinstance(cur, list) and t.isdigit() and int(t) < len(cur):
            cur = cur[int(t)]
        else:
            return None
    return cur


def _parent(tree: Any, tokens: list[str]) -> Any:
    """The container holding ``tokens[-1]``, creating missing objects on the way."""
    cur = tree
    for t in tokens[:-1]:
        if isinstance(cur, dict):
            nxt = cur.get(t)
            if not isinstance(nxt, dict | list):
                nxt = cur[t] = {}
            cur = nxt
        elif isinstance(cur, list) and t.isdigit() and int(t) < len(cur):
            cur = cur[int(t)]
        else:
            return None
    return cur


class TrajectoryBuilder:
    """Watches a pycrdt document and turns each transaction into public-format mutations.

    Keeps a plain-JSON mirror of every product so that deletions and updates know their old value.
    ``turn_index`` and ``origin`` are set by the caller before each transaction is applied; only
    transactions whose origin is in ``record_origins`` produce mutations (the mirror follows all).
    """

    def __init__(self, doc: Doc, record_origins: tuple[str, ...] = ("agent",)):
        self.doc = doc
        self.record_origins = record_origins
        self.turn_index = 0
        self.mutations: list[Mutation] = []
        self.on_mutation: Callable[[Mutation], None] | None = None
        self._mirror: dict[str, dict[str, Any]] = {}
        self._root = products_root(doc)
        self._sub = self._root.observe_deep(self._on_events)

    def close(self) -> None:
        """Stop observing."""
        self._root.unobserve(self._sub)

    def _emit_change(self, origin: Any, pid: str, otype: str, tokens: list[str], action: str, old: Any,
                     new: Any) -> None:
        """Emit the mutation(s) for one change, in the product type's own units.

        A whole sheet, section list, series list, widget map or item list written at once is reported
        as one mutation per row / section / series / widget / item, because those are the units a
        person edits and the units expected mutations name.
        """
        unit_parent = {"spreadsheet": 1, "document": 1, "chart": 1, "dashboard": 1, "list": 1}.get(otype)
        containers = {"document": "sections", "chart": "series", "dashboard": "widgets", "list": "items"}
        if unit_parent is not None and len(tokens) == unit_parent and action != "delete":
            head = tokens[0]
            fits = otype == "spreadsheet" or containers.get(otype) == head
            if fits and isinstance(new, dict) and otype in ("spreadsheet", "dashboard"):
                old_map = old if isinstance(old, dict) else {}
                for key, value in new.items():
                    if old_map.get(key) != value:
                        sub = [*tokens, str(key)]
                        self._emit(origin, pid, _classify(otype, sub, "add" if key not in old_map else "update"),
                                   sub, old_map.get(key), value)
                return
            if fits and isinstance(new, list) and otype in ("document", "chart", "list"):
                old_list = old if isinstance(old, list) else []
                for i, value in enumerate(new):
                    prev = old_list[i] if i < len(old_list) else None
                    if prev != value:
                        sub = [*tokens, str(i)]
                        self._emit(origin, pid, _classify(otype, sub, "add" if i >= len(old_list) else "update"),
                                   sub, prev, value)
                return
        self._emit(origin, pid, _classify(otype, tokens, action), tokens, old, new)

    def _emit(self, origin: Any, pid: str, mtype: str, tokens: list[str], old: Any, new: Any) -> None:
        if origin not in self.record_origins:
            return
        m = Mutation.model_construct(
            turn_index=self.turn_index, product_id=pid, mutation_type=mtype,  # type: ignore[arg-type]
            path=make_pointer(list(tokens)), old_value=old, new_value=new,
        )
        self.mutations.append(m)
        if self.on_mutation is not None:
            self.on_mutation(m)

    def _on_events(self, events: list[Any]) -> None:
        for ev in sorted(events, key=lambda e: len(e.path)):
            origin = ev.transaction.origin
            path = [str(p) for p in ev.path]
            if len(path) >= MAX_NESTING:
                # Only in records made without the nesting guard: the mirror stays within the bound.
                logger.warning("edit %d levels deep in the document skipped", len(path))
                continue
            if hasattr(ev, "keys") and not hasattr(ev, "delta"):
                for key, change in ev.keys.items():
                    self._map_change(origin, path, str(key), change)
            else:
                self._array_change(origin, path, ev.delta)

    def _map_change(self, origin: Any, path: list[str], key: str, change: dict[str, Any]) -> None:
        action = change.get("action", "update")
        new = to_json(change.get("newValue"), MAX_NESTING - len(path))
        if not path:  # a product added, replaced or removed
            old = self._mirror.get(key, {}).get("content")
            if action == "delete":
                self._mirror.pop(key, None)
                self._emit(origin, key, "delete", [], old, None)
            else:
                entry = new if isinstance(new, dict) else {}
                self._mirror[key] = {"type": entry.get("type", ""), "content": copy.deepcopy(entry.get("content"))}
                self._emit(origin, key, "create", [], old, entry.get("content"))
            return
        pid = path[0]
        entry = self._mirror.setdefault(pid, {"type": "", "content": {}})
        if len(path) == 1:  # product-level fields
            if key == "content":
                old = entry.get("content")
                entry["content"] = copy.deepcopy(new)
                self._emit(origin, pid, "create", [], old, new)
            elif key == "type":
                entry["type"] = new
            return
        if path[1] != "content":
            return
        tokens = path[2:] + [key]
        content = entry.setdefault("content", {})
        old = copy.deepcopy(_get(content, tokens))
        parent = _parent(content, tokens)
        if isinstance(parent, dict):
            if action == "delete":
                parent.pop(key, None)
            else:
                parent[key] = copy.deepcopy(new)
        if action == "update" and old == new and type(old) is type(new):
            return  # the value it already held: nothing changed, nothing to count
        self._emit_change(origin, pid, str(entry.get("type", "")), tokens, action, old, new)

    def _array_change(self, origin: Any, path: list[str], delta: list[dict[str, Any]]) -> None:
        if len(path) < 2 or path[1] != "content":
            return
        pid = path[0]
        entry = self._mirror.setdefault(pid, {"type": "", "content": {}})
        rest = path[2:]
        target = _get(entry.get("content"), rest)
        if not isinstance(target, list):
            target = []
            parent = _parent(entry.setdefault("content", {}), rest) if rest else None
            if isinstance(parent, dict):
                parent[rest[-1]] = target
        otype = str(entry.get("type", ""))
        # First the element-level changes; a delete and an insert at the same index are one replacement
        # (pycrdt writes ``array[i] = v`` as exactly that pair).
        changes: list[tuple[int, str, Any, Any]] = []
        pos = 0
        for op in delta:
            if "retain" in op:
                pos += int(op["retain"])
            elif "insert" in op:
                for item in op["insert"]:
                    value = to_json(item, MAX_NESTING - len(path))
                    target.insert(pos, copy.deepcopy(value))
                    changes.append((pos, "add", None, value))
                    pos += 1
            elif "delete" in op:
                for _ in range(int(op["delete"])):
                    old = target.pop(pos) if pos < len(target) else None
                    changes.append((pos, "delete", old, None))
        merged: list[tuple[int, str, Any, Any]] = []
        for ch in changes:
            if merged and merged[-1][0] == ch[0] and {merged[-1][1], ch[1]} == {"add", "delete"}:
                prev = merged.pop()
                add, rem = (prev, ch) if prev[1] == "add" else (ch, prev)
                merged.append((ch[0], "update", rem[2], add[3]))
            else:
                merged.append(ch)
        for index, action, old_value, new_value in merged:
            tokens = rest + [str(index)]
            self._emit(origin, pid, _classify(otype, tokens, action), tokens, old_value, new_value)
