"""A work product's final state as a person reads it: sheets as tables, documents as text, charts drawn."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from typing import Any

from modylbench.scenarios import ProductTemplate, SheetTemplate
from modylbench.scoring.report._charts import chart_svg
from modylbench.scoring.report._format import as_number, cell, esc

logger = logging.getLogger(__name__)

MAX_TABLE_ROWS = 80


def _natural(key: str) -> tuple[Any, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", key))


def _ordered(keys: Iterable[str], *orders: Iterable[str]) -> list[str]:
    """Keys in the first order that names them (the template's, then the reference solution's: the shared
    document's maps keep none), the rest naturally sorted (exit_9x before exit_10x)."""
    keys = list(keys)
    present = set(keys)
    out = list(dict.fromkeys(k for order in orders for k in order if k in present))
    placed = set(out)
    return out + sorted((k for k in keys if k not in placed), key=_natural)


def _keys(x: Any) -> list[str]:
    """A reference's keys in its order (a dict's), none for anything else."""
    return [str(k) for k in x] if isinstance(x, dict) else []


def _sheet_table(name: str, sheet: Any, reference: Any = None, template: SheetTemplate | None = None) -> str:
    if not isinstance(sheet, dict) or not all(isinstance(r, dict) for r in sheet.values()):
        return f"<h5>{esc(name)}</h5>{_json_block(sheet)}"
    t_rows = [r.key for r in template.rows] if template is not None else []
    t_cols = [c.key for c in template.columns] if template is not None else []
    rows = _ordered(sheet, t_rows, _keys(reference))
    ref_row = (
        next((r for r in reference.values() if isinstance(r, dict)), None)
        if isinstance(reference, dict)
        else None
    )
    cols = _ordered({c for r in sheet.values() for c in r}, t_cols, _keys(ref_row))
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


def render_content(
    output_type: str, content: Any, reference: Any = None, template: ProductTemplate | None = None
) -> str:
    """A product's final state rendered the way a person reads it (docs/products.md shapes).

    ``template`` (what the agent was asked to deliver) and ``reference`` (the scenario's reference content)
    only order sheets, rows, columns, widgets and keys: the template's order first, then the reference's,
    then natural order for keys neither names.
    """
    if content is None:
        return '<p class="muted">Empty.</p>'
    if isinstance(content, str):
        return f'<div class="doc-text">{esc(content)}</div>'
    if output_type == "spreadsheet" and isinstance(content, dict):
        ref = reference if isinstance(reference, dict) else {}
        sheets = {st.key: st for st in template.sheets} if template is not None else {}
        return "".join(
            _sheet_table(name, content[name], ref.get(name), sheets.get(name))
            for name in _ordered(content, sheets, _keys(ref))
        )
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
        raw = content.get("widgets")
        widgets: dict[str, Any] = raw if isinstance(raw, dict) else {}
        ref_widgets = reference.get("widgets") if isinstance(reference, dict) else None
        t_widgets = [w.key for w in template.widgets] if template is not None else []
        for wid in _ordered(widgets, t_widgets, _keys(ref_widgets)):
            wdg = widgets[wid]
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
        t_keys = [k.key for k in template.keys] if template is not None else []
        order = _ordered(content, t_keys, _keys(reference))
        rows = "".join(f"<tr><th>{esc(k)}</th><td>{cell(content[k])}</td></tr>" for k in order)
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
