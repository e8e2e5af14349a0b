"""``modylbench view``: an index over real recorded sessions (leaderboards by like runs, pass^k, filters, links)
and its read-only server on 127.0.0.1."""

from __future__ import annotations

import http.client
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from modylbench.simulator.cli import exit_code

SCENARIO = "financial_analyst_lbo_model"


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two sweeps of real inproc meetings: oracle and null x 2 trials of a 2-turn slice; oracle on a 3-turn slice."""
    root = tmp_path_factory.mktemp("results")
    common = ["--transport", "inproc", "--progress", "off"]
    assert (
        exit_code(
            [
                "run",
                SCENARIO,
                "--agent",
                "oracle",
                "--agent",
                "null",
                "--trials",
                "2",
                "--turns",
                "2",
                "--out",
                str(root / "two"),
                *common,
            ]
        )
        == 0
    )
    assert (
        exit_code(
            ["run", SCENARIO, "--agent", "oracle", "--turns", "3", "--out", str(root / "three"), *common]
        )
        == 0
    )
    assert exit_code(["view", str(root)]) == 0
    return root


def _boards(text: str) -> list[str]:
    return re.findall(r'<section class="board">(.*?)</section>', text, flags=re.S)


def test_slices_are_ranked_apart_with_pass_k(results: Path) -> None:
    text = (results / "index.html").read_text(encoding="utf-8")
    assert "5 sessions, 2 sweeps" in text
    boards = _boards(text)
    # Overall and per scenario, one board per group of like runs: the 2-turn and the 3-turn slices apart.
    groups = [re.search(r'<p class="group">([^<]*)</p>', b).group(1) for b in boards]  # type: ignore[union-attr]
    assert sum(g.startswith("first 2 of 52 turns · seed 0 · inproc · judges offline") for g in groups) == 2
    assert sum(g.startswith("first 3 of 52 turns") for g in groups) == 2
    two = next(b for b in boards if "first 2 of 52" in b and "<h3>" not in b)
    rows = re.findall(r"<tr data-scenario[^>]*>(.*?)</tr>", two)
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", r) for r in rows]
    assert [c[1] for c in cells] == ["oracle", "null"]  # best first
    assert cells[0][3] == "Consultant" and cells[0][7:9] == ["1.00", "1.00"]  # pass^1, pass^2
    assert cells[1][7:9] == ["0.00", "0.00"]
    assert "<th>pass^2</th>" in two
    # Error bars: an interval by each score; the oracle and the silent agent are far enough apart to rank.
    assert re.search(r'<b>\d\.\d\d</b> <small class="ci">\[\d+\.\d\d, \d+\.\d\d\]</small>', cells[0][2])
    assert [c[0] for c in cells] == ["1", "2"]


def test_agents_the_sessions_cannot_separate_share_a_rank() -> None:
    from modylbench.simulator._view import Session, _board, leaderboards
    from tests.scoring.test_uncertainty import run

    def session(agent: str, trial: int, turns: list[float]) -> Session:
        e = run(agent, SCENARIO, 0, trial, turns)
        return Session(path=f"{agent}{trial}", scenario_id=SCENARIO, agent=agent, seed=0, transport="inproc",
                       judges=("offline",), turns=len(turns), full_turns=52, scenario_hash="h",
                       score=e.modylbench_score, tier=e.tier, passed=e.passed, termination="completed",
                       report=None, entry=e)

    noisy = [[3.0, 9.0, 5.0, 8.0], [4.0, 8.0, 6.0, 9.0]]
    sessions = [session(a, t, [x + (0.1 if a == "b" else 0.0) for x in turns])
                for a in ("a", "b") for t, turns in enumerate(noisy)]
    sessions += [session("c", t, [9.8, 9.9, 9.7, 9.9]) for t in range(2)]
    sessions += [session("d", t, [1.0, 1.2, 1.1, 1.0]) for t in range(2)]
    _, overall = leaderboards(sessions)
    (rows,) = overall.values()
    assert [(r.agent, r.rank) for r in rows] == [("c", 1), ("b", 2), ("a", 2), ("d", 4)]
    html = _board(rows, None)
    assert html.count("<td>=2</td>") == 2 and "<td>4</td>" in html


def test_links_lead_to_each_sessions_report(results: Path) -> None:
    text = (results / "index.html").read_text(encoding="utf-8")
    links = {x.removeprefix("./") for x in re.findall(r'href="([^"]+)"', text)}
    session_reports = {x for x in links if x.endswith("/report.html") and x.count("/") == 2}
    assert len(session_reports) == 5
    assert all((results / x).is_file() for x in links)
    assert "two/report.html" in links  # the sweep's own report


def test_filters_cover_scenario_agent_seed_transport_tier(results: Path) -> None:
    text = (results / "index.html").read_text(encoding="utf-8")
    for name in ("scenario", "agent", "seed", "transport", "tier"):
        assert f'<select data-filter="{name}">' in text
    assert '<option value="Below Peer">' in text and '<option value="null">' in text
    row = re.search(r"<tr (data-scenario=[^>]*)>", text).group(1)  # type: ignore[union-attr]
    for attr in ("data-agent=", "data-seed=", "data-transport=", "data-tier="):
        assert attr in row


def test_a_missing_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert exit_code(["view", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.strip().endswith("no such folder")


@pytest.fixture()
def server(results: Path, tmp_path: Path) -> Iterator[tuple[str, int]]:
    from modylbench.simulator._view import make_server

    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    link = results / "escape.txt"
    if not link.exists():
        link.symlink_to(outside)
    (results / ".hidden").write_text("hidden")
    srv = make_server(results, 0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield srv.server_address[0], srv.server_address[1]
    finally:
        srv.shutdown()
        srv.server_close()


def _get(addr: tuple[str, int], path: str, method: str = "GET") -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(*addr, timeout=10)
    conn.request(method, path)
    resp = conn.getresponse()
    return resp.status, resp.read()


def test_server_is_local_and_read_only(server: tuple[str, int], results: Path) -> None:
    assert server[0] == "127.0.0.1"
    status, body = _get(server, "/")
    assert status == 200 and b"ModylBench results" in body
    report = f"/two/{SCENARIO}__oracle__inproc__turns2__seed0__t0/report.html"
    assert _get(server, report)[0] == 200
    assert _get(server, "/two/")[0] == 404  # no listings
    assert _get(server, "/../../../../etc/passwd")[0] == 404
    assert _get(server, "/%2e%2e/%2e%2e/etc/passwd")[0] == 404
    assert _get(server, "/escape.txt")[0] == 404  # a symlink out of the folder
    assert _get(server, "/.hidden")[0] == 404
    assert _get(server, report, method="POST")[0] == 501
    assert _get(server, report, method="PUT")[0] == 501


def test_a_folder_named_like_a_script_link_is_only_a_relative_path(results: Path, tmp_path: Path) -> None:
    import html
    import shutil

    root = tmp_path / "hostile"
    session = next((results / "two").glob(f"{SCENARIO}__oracle__inproc__turns2__seed0__t0"))
    for name in ("javascript:alert(1)", "data:text,x", "?q#frag"):
        shutil.copytree(session, root / name)
    assert exit_code(["view", str(root)]) == 0
    text = (root / "index.html").read_text(encoding="utf-8")
    links = [html.unescape(x) for x in re.findall(r'href="([^"]+)"', text)]
    assert len(links) >= 6 and all(x.startswith("./") and ":" not in x and "?" not in x and "#" not in x
                                   for x in links), links
    assert "javascript%3Aalert%281%29/report.html" in " ".join(links)
    # Only the index's own script may run: no 'unsafe-inline' for scripts, its hash instead.
    csp = re.search(r'Content-Security-Policy" content="([^"]+)"', text)
    assert csp is not None and "script-src 'sha256-" in csp.group(1) and "'unsafe-inline'\"" not in text
    from modylbench.simulator._view import _script_hash

    assert _script_hash() in csp.group(1)


def test_server_sends_csp_and_nosniff_on_every_answer(server: tuple[str, int]) -> None:
    for path, status in (("/", 200), (f"/two/{SCENARIO}__oracle__inproc__turns2__seed0__t0/report.html", 200), ("/nothing", 404)):
        conn = http.client.HTTPConnection(*server, timeout=10)
        conn.request("GET", path)
        resp = conn.getresponse()
        resp.read()
        assert resp.status == status
        assert resp.getheader("X-Content-Type-Options") == "nosniff"
        assert "default-src 'none'" in (resp.getheader("Content-Security-Policy") or "")


def test_server_bounds_idle_connections(results: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket
    import time

    from modylbench.simulator import _view

    monkeypatch.setattr(_view, "SERVE_IDLE_S", 0.5)
    srv = _view.make_server(results, 0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    before = threading.active_count()
    idle = [socket.create_connection(srv.server_address[:2]) for _ in range(4 * _view.SERVE_MAX_CONNECTIONS)]
    try:
        peak = 0
        deadline = time.monotonic() + 10
        ok = False
        while time.monotonic() < deadline and not ok:
            peak = max(peak, threading.active_count() - before)
            try:
                ok = _get(srv.server_address[:2], "/")[0] == 200  # served once the idle ones time out
            except OSError:
                time.sleep(0.05)
        assert ok, "the server never answered again after idle connections filled it"
        assert peak <= _view.SERVE_MAX_CONNECTIONS + 1  # a thread per served connection, no more
    finally:
        for s in idle:
            s.close()
        srv.shutdown()
        srv.server_close()
