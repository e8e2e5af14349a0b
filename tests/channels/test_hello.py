"""The ``hello`` message carries the briefing (docs/protocol.md) over both transports, under the JSON limit."""

from __future__ import annotations

import json
import textwrap
from typing import Any

import pytest

from modylbench.agents import Briefing, Hello, join, join_inprocess
from modylbench.channels import InProcessMeeting, SignalingServer, VirtualClock
from modylbench.channels._protocol import fit_briefing
from modylbench.channels._wire import MAX_JSON
from modylbench.scenarios import briefing, load_builtin

SCENARIOS = {s.scenario_id: s for s in load_builtin()}
LBO = SCENARIOS["financial_analyst_lbo_model"]

pytestmark = pytest.mark.timeout(60)


def _same(typed: Briefing | None, sent: dict[str, Any]) -> None:
    assert typed is not None and not typed.truncated
    assert (typed.scenario_id, typed.title, typed.context, typed.meeting_goal) == (
        sent["scenario_id"], sent["title"], sent["context"], sent["meeting_goal"])
    assert [d.product_id for d in typed.deliverables] == [d["product_id"] for d in sent["deliverables"]]
    for d, raw in zip(typed.deliverables, sent["deliverables"], strict=True):
        assert (d.output_type, d.title, d.description, d.template, d.content) == (
            raw["output_type"], raw["title"], raw["description"], raw["template"], raw["content"])


async def test_hello_carries_the_briefing_in_process() -> None:
    link = InProcessMeeting(VirtualClock())
    link.briefing = briefing(LBO)
    client = await join_inprocess(link)
    first = await anext(aiter(client.events()))
    assert isinstance(first, Hello)
    assert first.data["briefing"] == json.loads(json.dumps(briefing(LBO)))
    _same(first.briefing, briefing(LBO))
    sheets = {s["key"] for s in first.briefing.deliverables[0].template["sheets"]}  # type: ignore[union-attr]
    assert "assumptions" in sheets
    await link.close()


async def test_hello_carries_the_briefing_over_webrtc() -> None:
    async with SignalingServer() as server:
        meeting = server.create_meeting()
        meeting.briefing = briefing(LBO)
        client = await join(meeting.url, meeting.token)
        await meeting.wait_connected()
        first = await anext(aiter(client.events()))
        assert isinstance(first, Hello)
        _same(first.briefing, briefing(LBO))
        await meeting.close()
        await client.leave()


async def test_a_meeting_without_a_briefing_says_so() -> None:
    link = InProcessMeeting(VirtualClock())
    client = await join_inprocess(link)
    first = await anext(aiter(client.events()))
    assert isinstance(first, Hello) and first.briefing is None and "briefing" not in first.data
    await link.close()


@pytest.mark.parametrize("scenario_id", list(SCENARIOS))
def test_every_builtin_hello_fits_whole(scenario_id: str) -> None:
    link = InProcessMeeting(VirtualClock())
    link.briefing = briefing(SCENARIOS[scenario_id])
    raw = link.hello_message()
    # Measured 7-13 kB; a quarter of the limit leaves room for bigger scenarios.
    assert len(raw) < MAX_JSON // 4, len(raw)
    assert json.loads(raw)["briefing"] == json.loads(json.dumps(briefing(SCENARIOS[scenario_id])))


def test_an_oversized_briefing_drops_content_then_templates_then_itself() -> None:
    b = briefing(LBO)
    big_content = {"rows": ["x" * 1000] * 70}
    b["deliverables"][0]["content"] = big_content
    hello = {"type": "hello", "briefing": b}
    fitted = fit_briefing(hello)
    assert len(json.dumps(fitted, separators=(",", ":"))) <= MAX_JSON
    fb = fitted["briefing"]
    assert fb["truncated"] is True and all("content" not in d for d in fb["deliverables"])
    assert all("template" in d for d in fb["deliverables"])
    assert "truncated" not in b and b["deliverables"][0]["content"] is big_content  # the input is left alone
    typed = Briefing.from_json(fb)
    assert typed is not None and typed.truncated and typed.deliverables[0].content is None
    b["deliverables"][0]["template"] = big_content
    fb = fit_briefing(hello)["briefing"]
    assert all("template" not in d and "content" not in d for d in fb["deliverables"])
    b["context"] = "y" * MAX_JSON
    assert "briefing" not in fit_briefing(hello)


def test_the_documented_aiortc_loopback_recipe_offers_127_0_0_1() -> None:
    """docs/protocol.md's aiortc recipe, run as written in a fresh interpreter, puts 127.0.0.1 in the offer."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = doc[doc.index("### Offering a 127.0.0.1 candidate"):]
    recipe = textwrap.dedent(re.search(r"```python\n(.*?)```", section, re.S).group(1))  # type: ignore[union-attr]
    check = recipe + textwrap.dedent("""
        import asyncio

        async def offer() -> str:
            pc.createDataChannel("control")
            await pc.setLocalDescription(await pc.createOffer())
            sdp = pc.localDescription.sdp
            await pc.close()
            return sdp

        print(asyncio.run(offer()))
    """)
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert re.search(r"a=candidate:\S+ 1 udp \d+ 127\.0\.0\.1 \d+ typ host", out.stdout), out.stdout
