"""Read responses.jsonl robustly (bad lines reported as ``file:line: reason``) and write scorecards."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from modylbench.record import MAX_RUN_TEXT, MAX_TURN_CHAT, MAX_TURN_TEXT, ScenarioResponses, valid_text
from modylbench.scenarios import MAX_RESPONSES_LINE, bounded_lines
from modylbench.scoring._models import Scorecard

logger = logging.getLogger(__name__)

MAX_LINE_BYTES = MAX_RESPONSES_LINE
MAX_DEPTH = 64
MAX_PROBLEMS_KEPT = 1000


class ResponsesFileError(Exception):
    """The responses file cannot be read at all."""


def _lines(path: Path) -> Iterator[tuple[int, bytes | None]]:
    """(line number, bytes) per line; None for a line longer than MAX_LINE_BYTES (skipped unread)."""
    with path.open("rb") as fh:
        yield from bounded_lines(fh, MAX_LINE_BYTES)


def _depth_ok(value: Any, limit: int = MAX_DEPTH) -> bool:
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if d > limit:
            return False
        if isinstance(v, dict):
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            stack.extend((x, d + 1) for x in v)
    return True


def _valid_strings(value: Any) -> Any:
    """``value`` with every string (keys too) made valid Unicode; called after the depth check."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, dict):
        return {valid_text(k): _valid_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_valid_strings(v) for v in value]
    return value


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class _NumberOutOfRange(ValueError):
    pass


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):  # 1e999 reads as infinity: no JSON number means that
        raise _NumberOutOfRange(f"number {text[:40]} is out of range (JSON numbers here must be finite)")
    return value


def _text_bounds(responses: ScenarioResponses) -> None:
    """Refuse a run whose speech and chat exceed what is scored (MAX_TURN_TEXT, MAX_TURN_CHAT, MAX_RUN_TEXT)."""
    total = 0
    for i, turn in enumerate(responses.turns):
        if len(turn.chat_messages) > MAX_TURN_CHAT:
            raise ValueError(f"turns[{i}].chat_messages: {len(turn.chat_messages):,} messages; at most "
                             f"{MAX_TURN_CHAT:,} a turn are scored")
        chars = len(turn.agent_response) + sum(len(m) for m in turn.chat_messages)
        if chars > MAX_TURN_TEXT:
            raise ValueError(f"turns[{i}]: {chars:,} characters of speech and chat; at most {MAX_TURN_TEXT:,} a "
                             "turn are scored")
        total += chars
    if total > MAX_RUN_TEXT:
        raise ValueError(f"turns: {total:,} characters of speech and chat; at most {MAX_RUN_TEXT:,} a run are scored")


def _validation_reason(exc: ValidationError) -> str:
    errs = exc.errors(include_url=False)
    first = errs[0]
    loc = ""
    for part in first.get("loc", ()):
        loc += f"[{part}]" if isinstance(part, int) else (("." if loc else "") + str(part))
    given = repr(first.get("input"))
    if len(given) > 40:
        given = given[:37] + "..."
    more = f" (+{len(errs) - 1} more)" if len(errs) > 1 else ""
    msg = (
        "required field is missing" if first.get("type") == "missing" else f"{first.get('msg')} (got {given})"
    )
    return f"{loc or 'line'}: {msg}{more}"


def parse_line(raw: bytes, first: bool) -> ScenarioResponses:
    """One line as ScenarioResponses; raises ValueError with a one-line reason."""
    if first and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]  # A BOM from a Windows editor is harmless; accept it.
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"invalid UTF-8 at byte {exc.start}") from None
    try:
        obj = json.loads(text, parse_constant=_no_constants, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
            raise ValueError("truncated JSON (the line ends before the object is complete)") from None
        raise ValueError(f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    except _NumberOutOfRange as exc:
        raise ValueError(str(exc)) from None
    except ValueError as exc:  # an integer of more digits than Python converts (4,300)
        raise ValueError(f"invalid JSON: {str(exc).splitlines()[0][:100]}") from None
    except RecursionError:
        raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels") from None
    if not isinstance(obj, dict):
        raise ValueError(f"a line must hold a JSON object, got {type(obj).__name__}")
    if not _depth_ok(obj):
        raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels")
    if "\\u" in text:
        # Only a \uD800-style escape can put a lone UTF-16 surrogate in decoded UTF-8; such text can be
        # neither hashed nor written, so it is made valid here, where responses enter.
        obj = _valid_strings(obj)
    try:
        responses = ScenarioResponses.model_validate(obj)
    except ValidationError as exc:
        raise ValueError(_validation_reason(exc)) from None
    except RecursionError:
        raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels") from None
    _text_bounds(responses)
    return responses


def read_responses_located(
    path: str | os.PathLike[str],
) -> tuple[list[tuple[int, ScenarioResponses]], list[str]]:
    """Valid lines with their line numbers, and one ``file:line: reason`` per bad line."""
    p = Path(path)
    if not p.is_file():
        raise ResponsesFileError(f"{p}: no such file")
    good: list[tuple[int, ScenarioResponses]] = []
    problems: list[str] = []
    try:
        for lineno, raw in _lines(p):
            where = f"{p.name}:{lineno}"
            if raw is None:
                problems.append(f"{where}: line longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB, skipped")
                continue
            if not raw.strip() or (lineno == 1 and not raw.removeprefix(b"\xef\xbb\xbf").strip()):
                continue
            try:
                resp = parse_line(raw, lineno == 1)
            except ValueError as exc:
                if len(problems) < MAX_PROBLEMS_KEPT:
                    problems.append(f"{where}: {exc}")
                continue
            dup = _duplicate_turn(resp)
            if dup is not None:
                problems.append(f"{where}: turn_index {dup} appears twice")
                continue
            good.append((lineno, resp))
    except OSError as exc:
        raise ResponsesFileError(f"{p}: cannot read ({exc.strerror})") from None
    return good, problems


def _duplicate_turn(resp: ScenarioResponses) -> int | None:
    seen: set[int] = set()
    for t in resp.turns:
        if t.turn_index in seen:
            return t.turn_index
        seen.add(t.turn_index)
    return None


def read_responses(path: str | os.PathLike[str]) -> tuple[list[ScenarioResponses], list[str]]:
    """Parse responses.jsonl: the valid lines, and one ``file:line: reason`` per line skipped."""
    good, problems = read_responses_located(path)
    return [r for _, r in good], problems


def write_scorecard(scorecard: Scorecard, path: str | os.PathLike[str]) -> None:
    """Write scorecard.json (atomically: a temporary file renamed into place)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(scorecard.model_dump_json(indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, p)


def read_scorecard(path: str | os.PathLike[str]) -> Scorecard:
    """Load a scorecard.json written by ``write_scorecard``."""
    return Scorecard.model_validate_json(Path(path).read_bytes())
