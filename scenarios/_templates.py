"""Deliverable templates: what the agent is told to deliver, and the skeleton the persona puts in the doc.

A template names a product's parts the way a person in the meeting would hand them over: the
sheets, rows (key, label, unit) and columns of a spreadsheet, a document's section headings, a
chart's series and categories, a dashboard's widgets, a kv product's keys. It is derived from the
product's reference content unless the scenario declares one; ``template_content`` is the product
as the persona creates it before the meeting (labels and headings, no values).
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

logger = logging.getLogger(__name__)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Part(_Model):
    """A named part of a product: a row, a column, a widget or a key."""

    key: str = Field(description="Key in the product's content (the JSON pointer token).")
    label: str = Field(default="", description="How a person names it.")
    unit: str = Field(default="", description="Unit its numbers are in: $M, %, x, days ... (empty: none or mixed).")


class SheetTemplate(_Model):
    """One sheet of a spreadsheet: its rows and the columns each row has."""

    key: str = Field(description="Sheet key in the content.")
    label: str = Field(default="", description="Sheet name as a person says it.")
    rows: list[Part] = Field(default_factory=list, description="Rows expected, in order.")
    columns: list[Part] = Field(default_factory=list, description="Columns each row holds.")


class ProductTemplate(_Model):
    """What the agent is asked to deliver in one product (docs/products.md gives the content shapes)."""

    sheets: list[SheetTemplate] = Field(default_factory=list, description="Spreadsheet sheets.")
    sections: list[str] = Field(default_factory=list, description="Document section headings, in order.")
    series: list[str] = Field(default_factory=list, description="Chart series names.")
    categories: list[str] = Field(default_factory=list, description="Chart categories (x axis), in order.")
    chart_type: str = Field(default="", description="Chart type expected (bar, line ...).")
    widgets: list[Part] = Field(default_factory=list, description="Dashboard widgets (key, title).")
    keys: list[Part] = Field(default_factory=list, description="Keys of a kv product.")
    notes: str = Field(default="", description="Anything else the agent should know about the product.")


_WORD_UNITS = (
    ("_pct", "%"), ("_percent", "%"), ("_pp", "pp"), ("_bps", "bps"), ("_usd_m", "$M"), ("_m_usd", "$M"),
    ("_usd", "$"), ("_multiple", "x"), ("_x", "x"), ("_days", "days"), ("_years", "years"),
)
_ABBREV = {"pct": "%", "usd": "US$", "m": "M", "ltm": "LTM", "ebitda": "EBITDA", "irr": "IRR", "moic": "MOIC",
           "npv": "NPV", "tam": "TAM", "sam": "SAM", "som": "SOM", "sql": "SQL", "mql": "MQL", "ci": "CI",
           "sd": "SD", "dc": "DC", "sbp": "SBP", "dbp": "DBP", "da": "D&A", "nwc": "NWC", "fcf": "FCF"}


def humanise(key: str) -> str:
    """A readable label for a content key: ``revenue_growth_pct`` → ``Revenue growth %``, ``year1`` → ``Year 1``."""
    # 'year1' reads 'Year 1'; a code such as 'b2c' stays as it is.
    spaced = [re.sub(r"^([a-z]+)(\d+)$", r"\1 \2", w) for w in key.replace("_", " ").replace("-", " ").split()]
    spaced = " ".join(spaced).split()
    words = [_ABBREV.get(w.lower(), w) for w in spaced]
    if not words:
        return key
    first = words[0]
    words[0] = first[:1].upper() + first[1:] if first not in _ABBREV.values() else first
    return " ".join(words)


@lru_cache(maxsize=65536)
def unit_of_key(key: str) -> str:
    """The unit a key's name implies (``irr_pct`` → ``%``), or ''."""
    k = key.lower()
    for suffix, unit in _WORD_UNITS:
        if k.endswith(suffix):
            return unit
    return ""


def _row_unit(key: str, row: Any) -> str:
    if isinstance(row, dict):
        u = row.get("unit")
        if isinstance(u, str) and u:
            return u
    return unit_of_key(key)


def derive_template(output_type: str, reference: Any) -> ProductTemplate:
    """The template a product's reference content implies (keys, labels from keys, units from names)."""
    ref = reference
    if output_type == "spreadsheet" and isinstance(ref, dict):
        sheets = []
        for skey, sheet in ref.items():
            rows: list[Part] = []
            cols: list[str] = []
            if isinstance(sheet, dict):
                for rkey, row in sheet.items():
                    label = row.get("label") if isinstance(row, dict) and isinstance(row.get("label"), str) else None
                    rows.append(Part(key=str(rkey), label=label or humanise(str(rkey)), unit=_row_unit(str(rkey), row)))
                    if isinstance(row, dict):
                        cols += [str(c) for c in row if str(c) not in cols]
            sheets.append(
                SheetTemplate(
                    key=str(skey),
                    label=humanise(str(skey)),
                    rows=rows,
                    columns=[Part(key=c, label=humanise(c), unit=unit_of_key(c)) for c in cols],
                )
            )
        return ProductTemplate(sheets=sheets)
    if output_type == "document" and isinstance(ref, dict):
        raw_secs = ref.get("sections")
        secs: list[Any] = raw_secs if isinstance(raw_secs, list) else []
        return ProductTemplate(
            sections=[str(s.get("title", "")) for s in secs if isinstance(s, dict) and s.get("title")]
        )
    if output_type == "chart" and isinstance(ref, dict):
        return ProductTemplate(
            chart_type=str(ref.get("chart_type", "")),
            categories=[str(c) for c in ref.get("categories", []) or []],
            series=[str(s.get("name", "")) for s in ref.get("series", []) or [] if isinstance(s, dict)],
        )
    if output_type == "dashboard" and isinstance(ref, dict):
        raw_widgets = ref.get("widgets")
        widgets: dict[str, Any] = raw_widgets if isinstance(raw_widgets, dict) else {}
        return ProductTemplate(
            widgets=[
                Part(key=str(k), label=str(w.get("title", "")) or humanise(str(k)), unit=unit_of_key(str(k)))
                for k, w in widgets.items()
                if isinstance(w, dict)
            ]
        )
    if output_type == "kv" and isinstance(ref, dict):
        return ProductTemplate(keys=[Part(key=str(k), label=humanise(str(k)), unit=unit_of_key(str(k))) for k in ref])
    return ProductTemplate()


def template_content(output_type: str, title: str, template: ProductTemplate, reference: Any = None) -> Any:
    """The product as the persona creates it: every part named, no value filled in.

    Spreadsheet rows hold their ``label`` (and ``unit`` when it has one); documents their section
    headings with empty text; charts their categories and named series with no values; dashboards
    their widgets with a null value; kv products their keys with null.
    """
    t = template
    if output_type == "spreadsheet":
        return {
            s.key: {r.key: {"label": r.label, **({"unit": r.unit} if r.unit else {})} for r in s.rows}
            for s in t.sheets
        }
    if output_type == "document":
        doc_title = reference.get("title", title) if isinstance(reference, dict) else title
        return {"title": doc_title, "sections": [{"title": h, "text": ""} for h in t.sections]}
    if output_type == "chart":
        ref = reference if isinstance(reference, dict) else {}
        return {
            "chart_type": t.chart_type or str(ref.get("chart_type", "")),
            "title": str(ref.get("title", title)),
            "x_label": str(ref.get("x_label", "")),
            "y_label": str(ref.get("y_label", "")),
            "categories": list(t.categories),
            "series": [{"name": n, "values": []} for n in t.series],
        }
    if output_type == "dashboard":
        ref = reference if isinstance(reference, dict) else {}
        raw = ref.get("widgets")
        wmap: dict[str, Any] = raw if isinstance(raw, dict) else {}
        return {
            "title": str(ref.get("title", title)),
            "widgets": {
                w.key: {
                    "type": str((wmap.get(w.key) or {}).get("type", "kpi")),
                    "title": w.label,
                    "value": None,
                }
                for w in t.widgets
            },
        }
    if output_type == "kv":
        return {k.key: None for k in t.keys}
    if output_type == "list":
        return {"items": []}
    return {}
