"""RFC 6901 JSON pointers: parse, resolve and set, used by checks, mutations and products."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

_MISSING = object()


class PointerError(ValueError):
    """A JSON pointer is malformed or does not resolve."""


def parse_pointer(pointer: str) -> list[str]:
    """Split an RFC 6901 pointer into unescaped reference tokens ('' is the whole document)."""
    if not isinstance(pointer, str):
        raise PointerError(f"JSON pointer must be a string, got {type(pointer).__name__}")
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PointerError(f"JSON pointer {pointer!r} must be empty or start with '/'")
    tokens = []
    for raw in pointer[1:].split("/"):
        i = 0
        while True:
            i = raw.find("~", i)
            if i < 0:
                break
            if i + 1 >= len(raw) or raw[i + 1] not in "01":
                raise PointerError(f"JSON pointer {pointer!r} has '~' not followed by 0 or 1")
            i += 2
        tokens.append(raw.replace("~1", "/").replace("~0", "~"))
    return tokens


def escape_token(token: str) -> str:
    """Escape one reference token for use in a pointer."""
    return token.replace("~", "~0").replace("/", "~1")


def make_pointer(tokens: Sequence[str | int]) -> str:
    """Join reference tokens into a pointer."""
    return "".join("/" + escape_token(str(t)) for t in tokens)


def resolve(doc: Any, pointer: str, default: Any = _MISSING) -> Any:
    """Value at ``pointer`` in ``doc``; ``default`` (or PointerError) when it does not resolve."""
    cur = doc
    for tok in parse_pointer(pointer):
        if isinstance(cur, dict):
            if tok not in cur:
                if default is _MISSING:
                    raise PointerError(f"{pointer!r}: no key {tok!r}")
                return default
            cur = cur[tok]
        elif isinstance(cur, list):
            if not tok.isdigit() or (len(tok) > 1 and tok.startswith("0")) or int(tok) >= len(cur):
                if default is _MISSING:
                    raise PointerError(f"{pointer!r}: no index {tok!r}")
                return default
            cur = cur[int(tok)]
        else:
            if default is _MISSING:
                raise PointerError(f"{pointer!r}: cannot descend into {type(cur).__name__}")
            return default
    return cur


def set_at(doc: Any, pointer: str, value: Any) -> Any:
    """Set ``value`` at ``pointer`` creating missing dict levels; returns the (possibly new) root.

    A list index equal to the list's length appends; '-' appends too.
    """
    tokens = parse_pointer(pointer)
    if not tokens:
        return value
    cur = doc
    for tok in tokens[:-1]:
        if isinstance(cur, dict):
            cur = cur.setdefault(tok, {})
        elif isinstance(cur, list):
            cur = cur[int(tok)]
        else:
            raise PointerError(f"{pointer!r}: cannot descend into {type(cur).__name__}")
    last = tokens[-1]
    if isinstance(cur, dict):
        cur[last] = value
    elif isinstance(cur, list):
        if last == "-" or int(last) == len(cur):
            cur.append(value)
        else:
            cur[int(last)] = value
    else:
        raise PointerError(f"{pointer!r}: cannot set inside {type(cur).__name__}")
    return doc


def delete_at(doc: Any, pointer: str) -> Any:
    """Remove the value at ``pointer``; returns the root (None when the whole doc is deleted)."""
    tokens = parse_pointer(pointer)
    if not tokens:
        return None
    parent = resolve(doc, make_pointer(list(tokens[:-1])))
    if isinstance(parent, dict):
        parent.pop(tokens[-1], None)
    elif isinstance(parent, list):
        del parent[int(tokens[-1])]
    return doc
