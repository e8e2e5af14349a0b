"""Load scenarios from JSONL/JSON files or folders with strict, located, one-line error messages."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from modylbench.scenarios._jsonl import MAX_SCENARIO_LINE, bounded_lines
from modylbench.scenarios._public import merge_extensions
from modylbench.scenarios._schema import Scenario

logger = logging.getLogger(__name__)

MAX_LINE_BYTES = MAX_SCENARIO_LINE
MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_PROBLEMS = 20


class ScenarioLoadError(Exception):
    """A scenario file is unreadable or invalid; ``problems`` holds one located line each."""

    def __init__(self, problems: list[str]):
        self.problems = problems[:MAX_PROBLEMS]
        super().__init__(problems[0] if problems else "invalid scenario file")


def _loc_to_path(loc: Iterable[Any]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            continue
        part = str(part)
        # Drop pydantic's union-branch and validator tags (class names, 'function-after[...]').
        if part[:1].isupper() or "[" in part or part in {"str", "int", "float", "bool", "none", "list", "dict"}:
            continue
        out += ("." if out else "") + part
    return out


def _describe(err: Any) -> str:
    typ = err.get("type", "")
    ctx = err.get("ctx") or {}
    given = err.get("input")
    if typ == "literal_error":
        expected = str(ctx.get("expected", "")).replace("'", "").replace(" or ", ", ")
        return f"{given!r} is not one of {expected}"
    if typ == "missing":
        return "required field is missing"
    if typ == "extra_forbidden":
        return "unknown field"
    if typ in ("value_error", "assertion_error"):
        msg = str(err.get("msg", ""))
        return msg.removeprefix("Value error, ").removeprefix("Assertion failed, ")
    shown = repr(given)
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return f"{err.get('msg', 'invalid')} (got {shown})"


def validation_problems(exc: ValidationError) -> list[str]:
    """One 'path: reason' string per distinct problem in a pydantic error."""
    seen: dict[str, str] = {}
    for err in exc.errors(include_url=False):
        path = _loc_to_path(err.get("loc", ()))
        desc = _describe(err)
        if not path and desc.count(": ") >= 1 and "; " in desc:
            for piece in desc.split("; "):
                seen.setdefault(piece, "")
            continue
        if not path:
            seen.setdefault(desc, "")
        elif path not in seen:
            seen[path] = desc
    # A union field (criterion object or text) reports one error per branch; keep the deepest.
    paths = [k for k, v in seen.items() if v]
    shadowed = {p for p in paths if any(q != p and (q.startswith(p + ".") or q.startswith(p + "[")) for q in paths)}
    return [f"{k}: {v}" if v else k for k, v in seen.items() if k not in shadowed]


def parse_scenario(raw: Any, where: str) -> Scenario:
    """Validate one decoded JSON object as a scenario; errors are prefixed by ``where``."""
    if not isinstance(raw, dict):
        raise ScenarioLoadError([f"{where}: a scenario must be a JSON object, got {type(raw).__name__}"])
    try:
        return Scenario.model_validate(merge_extensions(raw))
    except ValidationError as exc:
        raise ScenarioLoadError([f"{where}: {p}" for p in validation_problems(exc)]) from None


def _decode(data: bytes, where: str, cut: bool = False) -> Any:
    if data.startswith(b"\xef\xbb\xbf"):
        raise ScenarioLoadError([f"{where}: starts with a UTF-8 byte-order mark; save the file as UTF-8 without BOM"])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioLoadError([f"{where}: invalid UTF-8 at byte {exc.start}"]) from None

    def _no_constants(name: str) -> Any:
        raise ValueError(f"{name} is not valid JSON")

    try:
        return json.loads(text, parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        if cut or exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated"):
            reason = "truncated JSON (input ends before the object is complete)"
        else:
            reason = f"invalid JSON: {exc.msg} (column {exc.colno})"
        raise ScenarioLoadError([f"{where}: {reason}"]) from None
    except ValueError as exc:
        raise ScenarioLoadError([f"{where}: {exc}"]) from None
    except RecursionError:
        raise ScenarioLoadError([f"{where}: JSON nested too deeply"]) from None


def _iter_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    with path.open("rb") as fh:
        for lineno, line in bounded_lines(fh, MAX_LINE_BYTES):
            if line is None:
                raise ScenarioLoadError(
                    [f"{path.name}:{lineno}: line longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB"]
                )
            yield lineno, line


def load_file(path: str | os.PathLike[str]) -> list[Scenario]:
    """Load every scenario in one .jsonl (one per line) or .json (object or array) file."""
    p = Path(path)
    name = p.name
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise ScenarioLoadError([f"{p}: cannot read ({exc.strerror})"]) from None
    if size > MAX_FILE_BYTES:
        raise ScenarioLoadError([f"{name}: file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB"])
    scenarios: list[Scenario] = []
    if p.suffix == ".jsonl":
        for lineno, line in _iter_lines(p):
            where = f"{name}:{lineno}"
            if lineno == 1 and line.startswith(b"\xef\xbb\xbf"):
                raise ScenarioLoadError([f"{where}: starts with a UTF-8 byte-order mark; save the file as UTF-8 without BOM"])
            if not line.strip():
                continue
            scenarios.append(parse_scenario(_decode(line, where, cut=not line.endswith(b"\n")), where))
    elif p.suffix == ".json":
        raw = _decode(p.read_bytes(), f"{name}:1")
        items = raw if isinstance(raw, list) else [raw]
        for i, item in enumerate(items):
            scenarios.append(parse_scenario(item, f"{name}:1" if not isinstance(raw, list) else f"{name}:[{i}]"))
    else:
        raise ScenarioLoadError([f"{name}: unknown scenario file type (expected .jsonl or .json)"])
    if not scenarios:
        raise ScenarioLoadError([f"{name}: holds no scenarios (empty file)"])
    seen: dict[str, int] = {}
    for i, s in enumerate(scenarios):
        if s.scenario_id in seen:
            raise ScenarioLoadError([f"{name}: scenario_id {s.scenario_id!r} appears twice"])
        seen[s.scenario_id] = i
    return scenarios


def load_path(path: str | os.PathLike[str]) -> list[Scenario]:
    """Load a scenario file, or every .jsonl/.json file in a folder (sorted by name)."""
    p = Path(path)
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.suffix in (".jsonl", ".json") and f.is_file())
        if not files:
            raise ScenarioLoadError([f"{p}: folder holds no .jsonl or .json scenario files"])
        out: list[Scenario] = []
        for f in files:
            out.extend(load_file(f))
        return out
    if not p.exists():
        raise ScenarioLoadError([f"{p}: no such file or folder"])
    return load_file(p)


def builtin_ids() -> list[str]:
    """Ids of the scenarios shipped with the package, in their canonical order."""
    from modylbench.scenarios.builtin import BUILTIN_IDS

    return list(BUILTIN_IDS)


def load_builtin(seed: int = 0, only: Iterable[str] | None = None) -> list[Scenario]:
    """The built-in scenarios: seed 0 from the package's committed data files, another seed built fresh.

    ``only`` limits them to those ids (a fresh instance costs a generator and a solver run each).
    """
    from modylbench.scenarios.builtin import build

    wanted = None if only is None else set(only)
    out = []
    for sid in builtin_ids():
        if wanted is not None and sid not in wanted:
            continue
        out.append(build(sid, seed))
    return out


def resolve_scenarios(extra: Iterable[str | os.PathLike[str]] = (), seed: int = 0,
                      only: Iterable[str] | None = None) -> dict[str, Scenario]:
    """Built-in scenarios (instance ``seed``), then each ``--scenarios`` path adding or replacing by id.

    Scenario files are data: ``seed`` does not change them. A built-in a file replaces is not built;
    ``only`` limits which built-ins are built (files are always loaded in full).
    """
    files = {s.scenario_id: s for path in extra for s in load_path(path)}
    chosen = None if only is None else set(only)
    wanted = [sid for sid in builtin_ids() if sid not in files and (chosen is None or sid in chosen)]
    built = {s.scenario_id: s for s in load_builtin(seed, wanted)}
    out = {sid: files.get(sid) or built[sid] for sid in builtin_ids() if sid in files or sid in built}
    out.update(files)
    return out
