"""The page's meeting-info endpoint on the built-in scenarios (their persona is structured, not a string)."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from pathlib import Path

import pytest

from modylbench.channels import WebServer
from modylbench.scenarios import persona_text, resolve_scenarios
from modylbench.simulator._cmd_serve import _page_info


def _get(url: str, token: str) -> tuple[int, bytes]:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status, resp.read()


async def test_info_endpoint_serves_every_built_in_scenario(tmp_path: Path) -> None:
    scenarios = resolve_scenarios((), seed=0)
    assert len(scenarios) >= 6
    async with WebServer() as server:
        for scenario in scenarios.values():
            meeting = server.create_meeting()
            wm = server.add_web(meeting, tmp_path, _page_info(scenario))
            url = f"http://127.0.0.1:{server.port}/api/{meeting.meeting_id}/info"
            for token in (meeting.token, wm.observer_token):
                status, body = await asyncio.to_thread(_get, url, token)
                info = json.loads(body)
                assert status == 200
                assert info["persona"] == persona_text(scenario.human_persona)
                assert info["scenario_id"] == scenario.scenario_id and info["products"]


async def test_info_that_is_not_json_fails_when_the_page_is_added(tmp_path: Path) -> None:
    async with WebServer() as server:
        with pytest.raises(TypeError):
            server.add_web(server.create_meeting(), tmp_path, {"persona": object()})
