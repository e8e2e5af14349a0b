"""A person's browser joins a served meeting as the agent: headless Debian Chromium, its own WebRTC stack,
fake microphone, through the whole mini scenario, checked against Chromium's stats and the session record."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from modylbench.record import read_record
from modylbench.record._derive import derive_trajectory

from ._cdp import CHROMIUM, Browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web"
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(CHROMIUM is None, reason="Debian chromium is not installed (apt-get install chromium)")]

STATS_JS = """(async () => {
  const out = {audio_packets: 0, audio_bytes: 0, video_frames: 0, video_width: 0}
  for (const s of (await mb.pc.getStats()).values()) {
    if (s.type !== 'inbound-rtp') continue
    if (s.kind === 'audio') { out.audio_packets += s.packetsReceived || 0; out.audio_bytes += s.bytesReceived || 0 }
    if (s.kind === 'video') { out.video_frames += s.framesDecoded || 0; out.video_width = s.frameWidth || 0 }
  }
  return out
})()"""


def wait_event(pred: str) -> str:
    return f"mb.waitFor(e => {pred}).then(e => JSON.parse(JSON.stringify(e)))"


async def type_into(browser: Browser, selector: str, value: str) -> None:
    """Type a value into an input and commit it, as a person pressing Enter would."""
    await browser.eval(f"""(() => {{ const el = document.querySelector({json.dumps(selector)});
        if (!el) throw new Error('no element ' + {json.dumps(selector)});
        el.focus(); el.value = {json.dumps(value)}; el.dispatchEvent(new Event('change')); el.blur(); }})()""")


async def click(browser: Browser, selector: str) -> None:
    await browser.eval(f"""(() => {{ const el = document.querySelector({json.dumps(selector)});
        if (!el) throw new Error('no element ' + {json.dumps(selector)}); el.click(); }})()""")


async def test_browser_joins_as_agent_end_to_end(tmp_path: Path) -> None:
    folder = tmp_path / "session"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    serve = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "modylbench.simulator.cli", "serve", "mini_fixture", "--scenarios", str(MINI),
        "--web", "--port", "0", "--out", str(folder), "--wait", "60", "--linger", "15",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env, cwd=str(ROOT))  # fmt: skip
    assert serve.stdout is not None and serve.stderr is not None
    # Read serve's stderr all along: a full pipe would block it.
    stderr_task = asyncio.ensure_future(serve.stderr.read())
    browser: Browser | None = None
    try:
        ready: dict[str, Any] = {}
        while not ready:
            line = await asyncio.wait_for(serve.stdout.readline(), 60)
            assert line, (await stderr_task).decode()[-3000:]
            if line.startswith(b"{"):
                ready = json.loads(line)
        assert ready["page_url"].startswith("http://127.0.0.1:") and "#meeting=" in ready["page_url"]
        assert "?" not in ready["page_url"]  # the token rides in the fragment, never in a logged query

        browser = await Browser.launch(tmp_path / "profile")
        await browser.open(ready["page_url"])
        hello = await browser.eval(wait_event("e.kind === 'control' && e.type === 'hello'"), timeout=30)
        assert hello["protocol"] == 1
        # Chromium's fake microphone beeps twice a second; to the harness a beep is real (short) speech,
        # and 1.2 s of quiet after one ends the turn ("silence") before this script has finished its
        # clicks. Muted, the page still sends an audio track (of silence). Agent speech detection is
        # tested with real speech in tests/channels/test_webrtc.py.
        muted = "(() => { const m = document.getElementById('mic'); if (m.checked) m.click(); return !m.checked })()"
        assert await browser.eval(muted)

        # Each turn: the persona speaks (recorded, relayed by the page's feed), the page answers, then "done".
        def spoke(turn: int) -> str:
            return wait_event(f"e.kind === 'recorded' && e.event === 'persona_utterance' && e.turn_index === {turn}")

        # Turn 0 (audio): the persona's voice arrives over the browser's WebRTC stack.
        await browser.eval(spoke(0), 40)
        stats = await browser.eval(STATS_JS)
        assert stats["audio_packets"] > 0 and stats["audio_bytes"] > 0, stats
        await type_into(browser, "#chat-input", "Hello Ana, happy to help compute EBITDA.")
        await browser.eval("document.getElementById('chat-form').requestSubmit()")
        await click(browser, "#done")

        # Turn 1 (chat): the persona's chat reaches the page; build products in the shared document.
        await browser.eval(wait_event("e.kind === 'control' && e.type === 'turn_start' && e.turn_index === 1"), 40)
        chat = await browser.eval(wait_event("e.kind === 'chat' && e.text.includes('revenue')"), 40)
        assert "revenue" in chat["text"]
        # The persona set the product up before turn 0 (and said so in chat): nothing left to create.
        await browser.eval(wait_event("e.kind === 'doc' && e.products.model"))
        announced = await browser.eval(wait_event("e.kind === 'chat' && e.text.includes('deliverables')"))
        assert 'model ("Model", kv)' in announced["text"]
        assert await browser.eval("document.querySelector(\"#suggested button[data-product-id='model']\").disabled")
        await type_into(browser, "[data-key='adder:key']", "ebitda")
        await click(browser, "[data-key='adder:key'] + button")
        await browser.eval(wait_event("e.kind === 'doc' && 'ebitda' in (e.products.model?.content ?? {})"))
        await type_into(browser, "[data-key='model/ebitda']", "2.0")
        await type_into(browser, "#new-id", "lbo")
        await browser.eval("document.getElementById('new-type').value = 'spreadsheet'")
        await click(browser, "#create")
        await browser.eval(wait_event("e.kind === 'doc' && e.products.lbo"))
        await type_into(browser, "[data-key='adder:column in sheet1']", "revenue")
        await click(browser, "[data-key='adder:column in sheet1'] + button")
        await browser.eval(wait_event("e.kind === 'doc' && e.products.lbo?.content?.sheet1?.row1"))
        await type_into(browser, "[data-key='lbo/sheet1/row1/revenue']", "57.5")
        await browser.eval(wait_event("e.kind === 'doc' && e.products.lbo?.content?.sheet1?.row1?.revenue === 57.5"))
        await browser.eval(spoke(1), 40)
        await click(browser, "#done")

        # Turn 2 (screen): the screen share decodes frames in the browser.
        await browser.eval(spoke(2), 40)
        stats = await browser.eval(STATS_JS)
        assert stats["video_frames"] > 0 and stats["video_width"] > 0, stats
        await browser.screenshot(ARTIFACTS / "browser-screen-share.png")
        await click(browser, "#done")

        # Turn 3 (data): the persona's file arrives intact; the page sends one back.
        received = await browser.eval(wait_event("e.kind === 'file_received'"), 40)
        assert received["ok"], received
        reply = await browser.eval("mb.sendFile('browser-notes.txt', new TextEncoder().encode('EBITDA = 2.0'), "
                                   "'text/plain')")  # fmt: skip
        assert reply["type"] == "file_ack", reply
        await browser.eval(spoke(3), 40)
        await click(browser, "#done")

        # The end: the scorecard summary and the report link appear.
        card = await browser.eval(wait_event("e.kind === 'scorecard'"), 90)
        assert card["summary"]["runs"][0]["scenario_id"] == "mini_fixture"
        visible = await browser.eval("!document.getElementById('result').hidden && "
                                     "document.getElementById('scorecard').textContent")  # fmt: skip
        assert visible and "score" in visible
        if card["report"]:
            assert await browser.eval("!!document.getElementById('report-link')")
        await browser.screenshot(ARTIFACTS / "browser-scorecard.png")

        # The observer page (its own token) shows the same meeting read-only, the document included.
        await browser.open(ready["observer_url"])
        seen = await browser.eval(wait_event("e.kind === 'doc' && e.products.lbo?.content?.sheet1?.row1?.revenue === 57.5"))
        assert seen["products"]["model"]["content"] == {"ebitda": 2.0}
        assert await browser.eval("[...document.querySelectorAll('#products input')].every(i => i.readOnly || i.offsetParent === null)")
        assert await browser.eval("getComputedStyle(document.getElementById('chat-form')).display") == "none"
        await browser.eval(wait_event("e.kind === 'scorecard'"))
        assert "session ends: completed" in await browser.eval("document.getElementById('timeline').textContent")
        await browser.screenshot(ARTIFACTS / "browser-observer.png")
        await asyncio.wait_for(serve.wait(), 60)
    finally:
        if browser is not None:
            if browser.console:
                (ARTIFACTS / "browser-console.txt").write_text("\n".join(browser.console))
            await browser.close()
        if serve.returncode is None:
            serve.kill()
            await serve.wait()
    err = (await stderr_task).decode()
    (ARTIFACTS / "serve-stderr.txt").write_text(err)
    assert serve.returncode == 0, err[-3000:]

    events = read_record(folder).events
    files = [e for e in events if e.event == "file_transfer"]
    to_agent = [e for e in files if e.direction == "to_agent"]
    assert to_agent and all(e.ok for e in to_agent)
    assert received["sha256"] == to_agent[0].sha256
    sent = [e for e in files if e.direction == "from_agent"]
    assert sent and sent[0].ok and sent[0].sha256 == hashlib.sha256(b"EBITDA = 2.0").hexdigest()
    chats = [e for e in events if e.event == "chat_message" and e.sender == "agent"]
    assert [c.text for c in chats] == ["Hello Ana, happy to help compute EBITDA."]
    assert any(e.event == "agent_done" for e in events)
    turn_ends = {e.turn_index: e.reason for e in events if e.event == "turn_end"}
    assert turn_ends == {0: "agent_done", 1: "agent_done", 2: "agent_done", 3: "agent_done"}, turn_ends
    mutations, _ = derive_trajectory(events)
    cells = [(m.turn_index, m.product_id, m.mutation_type, m.path, m.new_value) for m in mutations]
    assert (1, "lbo", "update_cell", "/sheet1/row1/revenue", 57.5) in cells
    assert (1, "model", "update_value", "/ebitda", 2.0) in cells
    # The persona's template updates come before turn 0; every edit after them is the page's (the agent's).
    origins = [(e.origin, e.turn_index) for e in events if e.event == "doc_update"]
    assert {o for o, _ in origins} == {"persona", "agent"}
    assert all(t is None for o, t in origins if o == "persona")
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["termination_reason"] == "completed", manifest


async def test_page_shows_a_built_in_scenario(tmp_path: Path) -> None:
    # Built-in scenarios have a structured persona (the mini fixture's is a string): the page's meeting
    # info once failed with HTTP 500 for every one of them.
    scenario = "financial_analyst_lbo_model"
    serve = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "modylbench.simulator.cli", "serve", scenario, "--web", "--port", "0",
        "--out", str(tmp_path / "session"), "--wait", "60", "--linger", "0",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=str(ROOT),
        env=dict(os.environ, PYTHONUNBUFFERED="1"))  # fmt: skip
    assert serve.stdout is not None and serve.stderr is not None
    stderr_task = asyncio.ensure_future(serve.stderr.read())
    browser: Browser | None = None
    try:
        ready: dict[str, Any] = {}
        while not ready:
            line = await asyncio.wait_for(serve.stdout.readline(), 60)
            assert line, (await stderr_task).decode()[-3000:]
            if line.startswith(b"{"):
                ready = json.loads(line)
        browser = await Browser.launch(tmp_path / "profile")
        await browser.open(ready["observer_url"])
        # Resolved once the page has shown the meeting's info or its failure to load it.
        shown = await browser.eval("""new Promise((ok) => {
            const seen = () => {
              const goal = document.getElementById('goal').textContent, buttons = document.querySelectorAll('#suggested button')
              if (!(goal && buttons.length) && !/cannot load/.test(document.body.textContent)) return false
              ok({goal, title: document.getElementById('title').textContent,
                  products: [...buttons].map(b => b.dataset.productId), body: document.body.textContent.slice(0, 2000)})
              return true
            }
            if (!seen()) new MutationObserver((_, obs) => { if (seen()) obs.disconnect() })
              .observe(document.body, {subtree: true, childList: true, characterData: true})
        })""", timeout=30)  # fmt: skip
        await browser.screenshot(ARTIFACTS / "browser-built-in-scenario.png")
    finally:
        if browser is not None:
            await browser.close()
        if serve.returncode is None:
            serve.kill()
            await serve.wait()
        await stderr_task
    assert "cannot load" not in shown["body"], shown["body"]
    assert shown["goal"].startswith("Dana Whitfield, Vice President"), shown
    assert shown["title"] != "ModylBench meeting" and shown["products"], shown
