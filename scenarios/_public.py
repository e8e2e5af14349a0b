"""Convert between Scenario models and the public dataset format (what the JSONL files hold)."""

from __future__ import annotations

import copy
import json
from typing import Any

from modylbench.scenarios._schema import (
    PUBLIC_EDGE_FIELDS,
    PUBLIC_MUTATION_FIELDS,
    PUBLIC_OUTPUT_FIELDS,
    PUBLIC_SCENARIO_FIELDS,
    PUBLIC_TURN_FIELDS,
    HumanPersona,
    Scenario,
)

EXT_KEY = "modylbench"


def _split(item: dict[str, Any], public: tuple[str, ...]) -> tuple[dict[str, Any], dict[str, Any]]:
    pub = {k: v for k, v in item.items() if k in public}
    ext = {k: v for k, v in item.items() if k not in public}
    return pub, ext


def _ext_list(items: list[dict[str, Any]], public: tuple[str, ...]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    pubs, exts = [], {}
    for i, item in enumerate(items):
        pub, ext = _split(item, public)
        pubs.append(pub)
        if ext:
            exts[str(i)] = ext
    return pubs, exts


def persona_text(p: HumanPersona | str) -> str:
    """The persona as one line of text (public files hold a string)."""
    if isinstance(p, str):
        return p
    return f"{p.name}, {p.role}"


def to_public(scenario: Scenario) -> dict[str, Any]:
    """The scenario as a public-format object; our extensions ride in metadata['modylbench']."""
    full = scenario.model_dump(mode="json", exclude_defaults=True)
    # Required-with-default public fields must always be present.
    for key in ("expected_outputs", "edge_cases", "expected_mutations"):
        full.setdefault(key, [])
    ext: dict[str, Any] = {}
    turns, ext_turns = _ext_list(full.pop("turns"), PUBLIC_TURN_FIELDS)
    outputs, ext_outputs = _ext_list(full.pop("expected_outputs"), PUBLIC_OUTPUT_FIELDS)
    edges, ext_edges = _ext_list(full.pop("edge_cases"), PUBLIC_EDGE_FIELDS)
    muts, ext_muts = _ext_list(full.pop("expected_mutations"), PUBLIC_MUTATION_FIELDS)
    for pub in muts:
        pub.setdefault("expected_value", None)
    for pub in outputs:
        pub.setdefault("verification_criteria", [])
    for name, value in (("turns", ext_turns), ("expected_outputs", ext_outputs), ("edge_cases", ext_edges), ("expected_mutations", ext_muts)):
        if value:
            ext[name] = value
    persona = scenario.human_persona
    if isinstance(persona, HumanPersona):
        ext["human_persona"] = persona.model_dump(mode="json")
    for key in list(full):
        if key not in PUBLIC_SCENARIO_FIELDS:
            ext[key] = full.pop(key)
    metadata = dict(scenario.metadata)
    if ext:
        metadata[EXT_KEY] = ext
    out: dict[str, Any] = {
        "scenario_id": scenario.scenario_id,
        "vertical": scenario.vertical,
        "title": scenario.title,
        "human_persona": persona_text(persona),
        "context": scenario.context,
        "meeting_goal": scenario.meeting_goal,
        "turns": turns,
        "expected_outputs": outputs,
        "edge_cases": edges,
        "verification": scenario.verification.model_dump(mode="json"),
        "quality_tier": scenario.quality_tier,
        "timeout_minutes": scenario.timeout_minutes,
        "expected_mutations": muts,
        "metadata": json.dumps(metadata, sort_keys=True, separators=(",", ":")),
    }
    return out


def merge_extensions(raw: dict[str, Any]) -> dict[str, Any]:
    """Fold metadata['modylbench'] back into a raw public object, ready for validation.

    Leaves malformed input alone so that validation reports it with its path.
    """
    meta = raw.get("metadata")
    if isinstance(meta, str):
        try:
            meta = json.loads(meta) if meta.strip() else {}
        except json.JSONDecodeError:
            return raw
    if not isinstance(meta, dict) or not isinstance(meta.get(EXT_KEY), dict):
        return raw
    out = dict(raw)
    meta = dict(meta)
    ext = copy.deepcopy(meta.pop(EXT_KEY))
    out["metadata"] = meta
    for name in ("turns", "expected_outputs", "edge_cases", "expected_mutations"):
        per_item = ext.pop(name, None)
        items = out.get(name)
        if isinstance(per_item, dict) and isinstance(items, list):
            merged = []
            for i, item in enumerate(items):
                extra = per_item.get(str(i))
                if isinstance(item, dict) and isinstance(extra, dict):
                    item = {**item, **extra}
                merged.append(item)
            out[name] = merged
    persona = ext.pop("human_persona", None)
    if persona is not None:
        out["human_persona"] = persona
    for key, value in ext.items():
        out[key] = value
    return out
