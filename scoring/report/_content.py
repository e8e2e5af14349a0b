"""A work product's final state as a person reads it: sheets as tables, documents as text, charts drawn."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from typing import Any

from modylbench.scoring.report._charts import chart_svg
from modylbench.scoring.report._format import as_number, cell, esc

logger = logging.getLogger(__name__)

MAX_TABLE_ROWS = 80


def _natural(key: str) -> tuple[Any, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", key))


def _ordered(keys: Iterable[str], reference: Any) -> list[str]:
    """Keys in the reference solution's order (the shared document's maps keep none), the rest naturally sorted."""
    keys = list(keys)
    ref = [k for k in reference if k in keys] if isinstance(reference, dict) else []
    return ref + sorted((k for k in keys if k not in ref), key=_natural)


def _sheet_table(name: str, sheet: Any, reference: Any = None) -> str:
    if not isinstance(sheet, dict) or not all(isinstance(r, dict) for r in sheet.values()):
        return f"<h5>{esc(name)}</h5>{_json_block(sheet)}"
    rows = _ordered(sheet, reference)
    ref_row = (
        next((r for r in reference.values() if isinstance(r, dict)), None)
        if isinstance(reference, dict)
        else None
    )
    cols = _ordered({c for r in sheet.values() for c in r}, ref_row)
    # Year-per-row sheets read better the way a financial model is laid out: periods across.
    transpose = len(rows) <= 8 < len(cols) or (len(rows) < len(cols) and len(rows) <= 6)
    head, body_keys = (rows, cols) if transpose else (cols, rows)
    out = [f'<h5>{esc(name)}</h5><div class="scroll"><table class="sheet"><thead><tr><th></th>']
    out += [f"<th>{esc(h)}</th>" for h in head]
    out.append("</tr></thead><tbody>")
    for k in body_keys[:MAX_TABLE_ROWS]:
        out.append(f"<tr><th>{esc(k)}</th>")
        for h in head:
            v = sheet[h].get(k, "") if transpose else sheet[k].get(h, "")
            num = as_number(v) is not None or v in ("", None)
            out.append(f"<td>{cell(v)}</td>" if num else f'<td class="t">{cell(v)}</td>')
        out.append("</tr>")
    if len(body_keys) > MAX_TABLE_ROWS:
        out.append(
            f'<tr><td colspan="{len(head) + 1}" class="muted">… {len(body_keys) - MAX_TABLE_ROWS} more</td></tr>'
        )
    out.append("</tbody></table></div>")
    return "".join(out)


def _json_block(x: Any) -> str:
    text = x if isinstance(x, str) else json.dumps(x, indent=1, ensure_ascii=False)
    if len(text) > 20_000:
        text = text[:20_000] + "\n…"
    return f'<pre class="json">{esc(text)}</pre>'


def render_content(output_type: str, content: Any, reference: Any = None) -> str:
    """A product's final state rendered the way a person reads it (docs/products.md shapes).

    ``reference`` (the scenario's reference content) only orders rows and columns.
    """
    if content is None:
        return '<p class="muted">Empty.</p>'
    if isinstance(content, str):
        return f'<div class="doc-text">{esc(content)}</div>'
    if output_type == "spreadsheet" and isinstance(content, dict):
        ref = reference if isinstance(reference, dict) else {}
        return "".join(_sheet_table(name, content[name], ref.get(name)) for name in _ordered(content, ref))
    if output_type == "document" and isinstance(content, dict):
        out = [f"<h5>{esc(content.get('title') or '')}</h5>"]
        for s in content.get("sections") or []:
            if isinstance(s, dict):
                out.append(
                    f'<h6>{esc(s.get("title") or "")}</h6><div class="doc-text">{esc(s.get("text") or "")}</div>'
                )
            else:
                out.append(f'<div class="doc-text">{esc(s)}</div>')
        return "".join(out)
    if output_type == "chart" and isinstance(content, dict):
        return chart_svg(content) + _chart_table(content)
    if output_type == "dashboard" and isinstance(content, dict):
        out = [f'<h5>{esc(content.get("title") or "")}</h5><div class="widgets">']
        for wid, wdg in (content.get("widgets") or {}).items():
            if not isinstance(wdg, dict):
                continue
            kind, value = wdg.get("type"), wdg.get("value")
            if kind == "chart" and isinstance(value, dict):
                body = chart_svg(value)
            elif kind == "kpi":
                body = f'<div class="kpi">{cell(value)}</div>'
            elif kind == "table" and isinstance(value, dict):
                body = _sheet_table("", value)
            elif kind == "text":
                body = f'<div class="doc-text">{esc(value)}</div>'
            else:
                body = _json_block(value)
            out.append(
                f'<div class="widget"><div class="wt">{esc(wdg.get("title") or wid)}</div>{body}</div>'
            )
        out.append("</div>")
        return "".join(out)
    if output_type == "kv" and isinstance(content, dict):
        rows = "".join(f"<tr><th>{esc(k)}</th><td>{cell(v)}</td></tr>" for k, v in content.items())
        return f'<table class="sheet">{rows}</table>'
    if output_type == "list" and isinstance(content, dict) and isinstance(content.get("items"), list):
        return "<ol>" + "".join(f"<li>{cell(i)}</li>" for i in content["items"]) + "</ol>"
    return _json_block(content)


def _chart_table(content: dict[str, Any]) -> str:
    cats = [str(c) for c in content.get("categories") or []]
    rows = []
    for s in content.get("series") or []:
        if isinstance(s, dict):
            cells = "".join(f"<td>{cell(v)}</td>" for v in (s.get("values") or []))
            rows.append(f"<tr><th>{esc(s.get('name'))}</th>{cells}</tr>")
    head = "".join(f"<th>{esc(c)}</th>" for c in cats)
    return f'<div class="scroll"><table class="sheet"><tr><th></th>{head}</tr>{"".join(rows)}</table></div>'
