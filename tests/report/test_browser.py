"""Reports rendered in headless Debian Chromium: what a person sees, with and without JavaScript.

Screenshots are kept under test-artifacts/report/ for people to look at.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from modylbench.scoring.report import build_report, write_report

from .conftest import ROOT

ARTIFACTS = ROOT / "test-artifacts" / "report"


def _cdp() -> Any:
    # The DevTools driver the web tests use (tests/web/_cdp.py), loaded by path: tests/ is not a package.
    spec = importlib.util.spec_from_file_location("_report_cdp", ROOT / "tests" / "web" / "_cdp.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


cdp = _cdp()
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(cdp.CHROMIUM is None, reason="Debian chromium is not installed "
                                 "(scripts/test.sh installs it as root: apt-get install chromium)")]

VISIBLE = """(sel => { const el = document.querySelector(sel); if (!el) return null;
  const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
  return {text: el.innerText, w: r.width, h: r.height, top: r.top, hidden: s.visibility === 'hidden' || s.display === 'none'};
})"""


async def _render(path: Path, shot: str, tmp: Path) -> tuple[Any, dict[str, Any]]:
    browser = await cdp.Browser.launch(tmp / f"profile-{shot}")
    await browser.open(path.as_uri())
    head = await browser.eval(f"{VISIBLE}('.headline, #compare')")
    await browser.screenshot(ARTIFACTS / f"{shot}.png")
    return browser, head


async def test_good_run(scored, scenarios, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    card, resp = scored["correct"]
    path = write_report([card], tmp_path / "good.html", responses=[resp], scenarios=scenarios)
    browser, head = await _render(path, "good-run", tmp_path)
    try:
        entry = card.scenarios[0]
        assert head and head["h"] > 50 and head["top"] < 900 and not head["hidden"]
        assert f"{entry.modylbench_score:.2f}" in head["text"] and str(entry.tier) in head["text"]
        # A turn opens when its timeline bar is followed, and shows the judges' reasons.
        opened = await browser.eval("""(() => { const a = document.querySelector('a.tl-link[href$="-turn-5"]');
            location.hash = a.getAttribute('href'); return new Promise(r => setTimeout(() => {
            const d = document.querySelector(a.getAttribute('href')); r({open: d.open, text: d.innerText}); }, 50)); })()""")
        assert opened["open"] and "Judges" in opened["text"] and "Persona said" in opened["text"]
        sheet = await browser.eval(f"{VISIBLE}('table.sheet')")
        assert sheet and sheet["w"] > 100 and sheet["h"] > 20
    finally:
        await browser.close()


async def test_gaming_run(scored, scenarios, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    card, resp = scored["final_state_dump"]
    path = write_report([card], tmp_path / "gaming.html", responses=[resp], scenarios=scenarios)
    browser, head = await _render(path, "gaming-run", tmp_path)
    try:
        assert "FAILED" in head["text"] and "Below Peer" in head["text"]
        assert "no_trajectory_evidence" in head["text"]
        lost = await browser.eval(f"{VISIBLE}('ul.lost')")
        assert lost and lost["h"] > 40 and "expected edits seen" in lost["text"]
    finally:
        await browser.close()


async def test_run_with_unscored_items(scored, scenarios, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    card, resp = scored["polite_only"]
    entry = card.scenarios[0]
    turns = [t.model_copy(update={"score": None, "capped": False, "dimensions": {},
                                  "unscored_reason": "openai/judge-x: refused to answer"}) if t.turn_index in (1, 4)
             else t for t in entry.turns]
    entry2 = entry.model_copy(update={"turns": turns, "unscored": ["turn 1: openai/judge-x: refused to answer",
                                                                   "turn 4: openai/judge-x: refused to answer"]})
    path = write_report([card.model_copy(update={"scenarios": [entry2]})], tmp_path / "unscored.html",
                        responses=[resp], scenarios=scenarios)
    browser, head = await _render(path, "unscored-run", tmp_path)
    try:
        assert "unscored ×2" in head["text"] and "Not scored" in head["text"]
        assert "refused to answer" in head["text"]
    finally:
        await browser.close()


async def test_comparison(scored, scenarios, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cards = [scored[n][0] for n in ("correct", "final_state_dump", "polite_only")]
    path = tmp_path / "compare.html"
    path.write_text(build_report(cards, scenarios=scenarios), encoding="utf-8")
    browser, head = await _render(path, "comparison", tmp_path)
    try:
        assert head and "Comparison" in head["text"]
        for c in cards:
            assert c.scenarios[0].model_id in head["text"]
        rows = await browser.eval("document.querySelectorAll('#compare table.cmp')[1].rows.length")
        assert rows == 12  # header + the 11 dimensions
        assert await browser.eval("document.querySelectorAll('#compare .delta.down').length") > 5
    finally:
        await browser.close()


async def test_session_recording_seeks_to_a_turn(session_folder: Path, tmp_path: Path) -> None:
    path = session_folder / "report.html"
    browser, head = await _render(path, "session", tmp_path)
    try:
        # The headline shows the tier this run reached (not merely some tier's name: the line also says which
        # tier the scenario needs).
        reached = json.loads((session_folder / "scorecard.json").read_text(encoding="utf-8"))["scenarios"][0]["tier"]
        shown = await browser.eval("document.querySelector('.headline .tier').firstChild.textContent.trim()")
        assert head and reached and shown == reached
        meta = await browser.eval("""(() => { const a = document.querySelector('audio');
            return new Promise(r => { const done = () => r({d: a.duration, err: a.error && a.error.code});
              if (a.readyState >= 1) done(); else { a.addEventListener('loadedmetadata', done);
              a.addEventListener('error', done); } }); })()""")
        assert meta["err"] is None and meta["d"] > 30
        row = await browser.eval("""(() => { const d = document.querySelector('details.turn[data-turn="4"]');
            return parseFloat(d.getAttribute('data-start')); })()""")
        at = await browser.eval("""(() => { const a = document.querySelector('audio');
            const link = document.querySelector('details.turn[data-turn="4"] a.seek');
            return new Promise(r => { a.addEventListener('seeked', () => r(a.currentTime), {once: true});
              link.click(); }); })()""")
        assert abs(at - row) < 0.5
        await browser.screenshot(ARTIFACTS / "session-after-seek.png")
    finally:
        await browser.close()


async def test_headline_and_tables_without_javascript(scored, scenarios, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import asyncio

    card, resp = scored["final_state_dump"]
    path = write_report([card], tmp_path / "nojs.html", responses=[resp], scenarios=scenarios)
    browser = await cdp.Browser.launch(tmp_path / "profile-nojs")
    try:
        await browser.open("about:blank")
        await browser.send("Emulation.setScriptExecutionDisabled", {"value": True})
        browser._loaded = asyncio.get_running_loop().create_future()  # the driver's load-event latch
        await browser.send("Page.navigate", {"url": path.as_uri()})
        await asyncio.wait_for(browser._loaded, 30)
        await browser.screenshot(ARTIFACTS / "no-javascript.png")
        # The page's own script did not run: the seek handler's marker is absent, yet the content is there.
        assert await browser.eval("document.body.dataset.js || 'off'") == "off"
        head = await browser.eval(f"{VISIBLE}('.headline')")
        assert head and head["h"] > 50 and f"{card.scenarios[0].modylbench_score:.2f}" in head["text"]
        checks = await browser.eval(f"{VISIBLE}('table.checks')")
        assert checks and checks["h"] > 100
    finally:
        await browser.close()


CLIP = """(sel => { const el = document.querySelector(sel); if (!el) return null; el.scrollIntoView();
  const r = el.getBoundingClientRect(); return {x: r.left + scrollX, y: r.top + scrollY, width: r.width,
  height: r.height, page: document.documentElement.clientWidth, scroll: el.scrollWidth - el.clientWidth}; })"""


async def _shoot(browser: Any, sel: str, name: str) -> dict[str, Any]:
    """Screenshot of one element (for people to look at); its box, the page width and any overflow."""
    import base64

    box = await browser.eval(f"{CLIP}({sel!r})")
    assert box is not None, f"{sel} is not on the page"
    clip = {k: box[k] for k in ("x", "y", "width", "height")} | {"scale": 1}
    out = await browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip})
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / name).write_bytes(base64.b64decode(out["data"]))
    return box  # type: ignore[no-any-return]


async def test_session_meeting_charts(session_folder: Path, tmp_path: Path) -> None:
    path = session_folder / "report.html"
    browser = await cdp.Browser.launch(tmp_path / "profile-charts")
    try:
        await browser.open(path.as_uri())
        for sel, shot in (("svg.activity", "session-who-spoke-when.png"), ("svg.latency", "session-latency.png"),
                          (".heat-wrap", "session-heatmap.png")):
            box = await _shoot(browser, sel, shot)
            assert 100 < box["width"] <= box["page"] and box["height"] > 60, (sel, box)
        # The heat map's cells carry their value as text and the exact value as a title.
        cell = await browser.eval("""(() => { const td = document.querySelector('table.heat td[title*="context accuracy"]');
            return {text: td.innerText, title: td.title, bg: getComputedStyle(td).backgroundColor}; })()""")
        assert cell["text"].replace(".", "").isdigit() and "context accuracy:" in cell["title"]
        assert cell["bg"] not in ("rgba(0, 0, 0, 0)", "transparent")
        # A speech bar in the timeline plays the recording from where it starts.
        want, got = await browser.eval("""(() => { const a = document.querySelector('audio');
            const bar = document.querySelectorAll('svg.activity a[data-seek]')[3];
            const t = parseFloat(bar.getAttribute('data-seek'));
            return new Promise(r => { a.addEventListener('seeked', () => r([t, a.currentTime]), {once: true});
              bar.querySelector('rect').dispatchEvent(new MouseEvent('click', {bubbles: true})); }); })()""")
        assert want > 1 and abs(got - want) < 0.5
        # Lanes are named in text, not told apart by colour alone.
        lanes = await browser.eval("Array.from(document.querySelectorAll('svg.activity text.dl')).map(t => t.textContent)")
        assert {"persona speaks", "agent speaks", "agent edits"} <= set(lanes)
    finally:
        await browser.close()


async def test_a_52_turn_meeting_stays_a_page_wide(scored, scenarios, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    card, resp = scored["final_state_dump"]
    timed = resp.model_copy(update={"turns": [t.model_copy(update={"latency_ms": 400.0 + 97 * (t.turn_index % 9)})
                                              for t in resp.turns]})
    path = write_report([card], tmp_path / "long.html", responses=[timed], scenarios=scenarios)
    browser = await cdp.Browser.launch(tmp_path / "profile-long")
    try:
        await browser.open(path.as_uri())
        heat = await _shoot(browser, ".heat-wrap", "heatmap-52-turns.png")
        assert heat["scroll"] == 0 and heat["width"] <= heat["page"]  # two blocks of 26 turns, no scrolling
        assert await browser.eval("document.querySelectorAll('table.heat').length") == 2
        lat = await _shoot(browser, "svg.latency", "latency-52-turns.png")
        assert 600 < lat["width"] <= lat["page"] and lat["height"] < 260
        # 52 turns of text: every cell still shows its value (colour is not the only cue).
        empty = await browser.eval("Array.from(document.querySelectorAll('table.heat td')).filter(td => !td.innerText.trim()).length")
        assert empty == 0
    finally:
        await browser.close()
