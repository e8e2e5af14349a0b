"""The briefing an agent gets when it joins: the brief, the meeting goal and the deliverables with templates."""

from __future__ import annotations

from typing import Any

from modylbench.scenarios._schema import Scenario


def deliverables(scenario: Scenario) -> list[dict[str, Any]]:
    """One entry per product the agent is asked to deliver: id, type, title, what it is, template, initial content."""
    described = {o.product_id: o.description for o in scenario.expected_outputs if o.product_id}
    out = []
    for p in scenario.products:
        assert p.template is not None
        out.append({
            "product_id": p.product_id,
            "output_type": p.output_type,
            "title": p.title,
            "description": described.get(p.product_id, p.title),
            "template": p.template.model_dump(mode="json", exclude_defaults=True),
            "content": p.initial_content,
        })
    return out


def briefing(scenario: Scenario) -> dict[str, Any]:
    """What the ``hello`` message carries as ``briefing`` (docs/protocol.md)."""
    return {
        "scenario_id": scenario.scenario_id,
        "title": scenario.title,
        "context": scenario.context,
        "meeting_goal": scenario.meeting_goal,
        "deliverables": deliverables(scenario),
    }
