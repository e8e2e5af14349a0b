"""``modylbench view DIR``: one self-contained index.html over every session and sweep under DIR (leaderboards
with pass^k, filters, links to each report), optionally served read-only on 127.0.0.1."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import logging
import os
import statistics
import threading
import urllib.parse
from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from modylbench.record import CLEAN_NETWORK, RunBasis, SessionFolder
from modylbench.simulator._errors import UserError

logger = logging.getLogger(__name__)

INDEX_FILE = "index.html"
MAX_DEPTH = 6
"""How deep under DIR session folders are looked for (a sweep's cells sit one or two levels down)."""
MAX_SESSIONS = 20_000
"""At most this many sessions are indexed (the page stays usable; the rest are named in a warning)."""
SERVE_IDLE_S = 10.0
"""``view --serve``: a connection that sends nothing for this long is closed."""
SERVE_MAX_CONNECTIONS = 32
"""``view --serve``: connections served at once (a thread each); more are closed at once, unserved."""
SERVE_CSP = ("default-src 'none'; img-src data:; media-src data: blob:; style-src 'unsafe-inline'; "
             "script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
"""The policy ``view --serve`` sends with every answer: no request may leave the pages (the reports' own
policy, which they also carry; the index's tighter one allows only its own script)."""


@dataclass
class Session:
    """One scored session folder, as the index shows it."""

    path: str
    """Relative to DIR, with forward slashes."""
    scenario_id: str
    agent: str
    seed: int
    transport: str
    judges: tuple[str, ...]
    turns: int
    full_turns: int | None
    scenario_hash: str
    score: float | None
    tier: str | None
    passed: bool | None
    termination: str
    report: str | None
    entry: Any = None
    """Its scorecard entry (``modylbench.scoring.ScenarioScore``), for the error bars; None when unreadable."""
    network: str = CLEAN_NETWORK

    @property
    def basis(self) -> RunBasis:
        """What its score is a score of (``modylbench.record.RunBasis``)."""
        whole = self.full_turns is not None and self.turns >= self.full_turns
        scheduled = self.entry.turns_scheduled if self.entry is not None else None
        return RunBasis(self.scenario_id, seed=self.seed, turns=None if whole else (scheduled or self.turns),
                        transport=self.transport, network=self.network, judges=self.judges,
                        scenario_hash=self.scenario_hash or None)

    @property
    def slice(self) -> str:
        """What was played: the whole meeting, or its first N turns (never compared as equals)."""
        return self.basis.slice_text(self.full_turns)

    def group(self) -> RunBasis:
        """Sessions compare as equals only within one group: their bases but for the scenario are equal."""
        return replace(self.basis, scenario_id="")


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def find_sessions(root: Path, full_turns: dict[str, int]) -> tuple[list[Session], list[str], list[str]]:
    """Scored session folders under ``root`` (manifest.json + scorecard.json), the sweep folders holding
    them (with their own scorecard), and a list of problems (unreadable folders, the cap)."""
    sessions: list[Session] = []
    sweeps: list[str] = []
    problems: list[str] = []
    root = root.resolve()
    for here, dirs, files in os.walk(root):
        rel = Path(here).relative_to(root)
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".") and ".crashed-" not in d and not (Path(here) / d).is_symlink()
        )
        if len(rel.parts) >= MAX_DEPTH:
            dirs[:] = []
        names = set(files)
        if SessionFolder.MANIFEST_FILE in names and SessionFolder.SCORECARD_FILE in names:
            dirs[:] = []  # a session's own folders (attachments/) hold no sessions
            if len(sessions) >= MAX_SESSIONS:
                problems.append(f"more than {MAX_SESSIONS} sessions: {rel} and later ones are not indexed")
                break
            found = _session(Path(here), rel, full_turns)
            if isinstance(found, str):
                problems.append(found)
            else:
                sessions.append(found)
        elif SessionFolder.SCORECARD_FILE in names and rel.parts:
            sweeps.append(rel.as_posix())
    return sessions, sweeps, problems


def _session(folder: Path, rel: Path, full_turns: dict[str, int]) -> Session | str:
    files = SessionFolder(folder)
    manifest = files.read_manifest()
    card = _read_json(files.scorecard)
    if manifest is None or not isinstance(card, dict):
        return f"{rel}: unreadable manifest.json or scorecard.json"
    entries = card.get("scenarios") or []
    if not entries or not isinstance(entries[0], dict):
        return f"{rel}: its scorecard scores nothing"
    e = entries[0]
    sid = str(e.get("scenario_id") or manifest.scenario_id or "?")
    score = e.get("modylbench_score")
    return Session(
        path=rel.as_posix() or ".",
        scenario_id=sid,
        agent=str(manifest.agent or e.get("model_id") or "?"),
        seed=manifest.seed,
        transport=str(manifest.transport or "?"),
        judges=tuple(str(j) for j in (card.get("judges") or manifest.judges)),
        turns=len(e.get("turns") or []),
        full_turns=full_turns.get(sid),
        scenario_hash=str(manifest.scenario_hash or ""),
        score=float(score) if isinstance(score, int | float) else None,
        tier=e.get("tier"),
        passed=e.get("passed"),
        termination=str(e.get("termination_reason") or manifest.termination_reason or ""),
        report=(rel / SessionFolder.REPORT_FILE).as_posix() if files.report.is_file() else None,
        entry=_entry(e),
        network=RunBasis.of_session(manifest, turns=None).network or CLEAN_NETWORK,
    )


def _entry(e: dict[str, Any]) -> Any:
    from pydantic import ValidationError

    from modylbench.scoring import ScenarioScore

    try:
        return ScenarioScore.model_validate(e)
    except ValidationError:
        return None  # a card from another version: shown, without an interval


@dataclass
class Row:
    """One leaderboard row: an agent's sessions within one comparison group (and scenario, or overall)."""

    agent: str
    group: RunBasis
    scenarios: list[str]
    sessions: list[Session]
    score: float | None
    passed: int
    pass_k: dict[int, float]
    interval: Any = None
    """95% bootstrap interval of ``score`` (``modylbench.scoring.ConfidenceInterval``), or None."""
    rank: int | None = None
    """Place, shared with the rows above it the sessions cannot separate from it."""


def _entries(agent: str, sessions: list[Session]) -> list[Any]:
    return [s.entry.model_copy(update={"model_id": agent}) for s in sessions if s.entry is not None]


def _row(agent: str, group: RunBasis, sessions: list[Session]) -> Row:
    from modylbench.scoring import mean_interval, pass_hat_k

    scores = [s.score for s in sessions if s.score is not None]
    entries = _entries(agent, sessions)
    # pass^k per scenario over its trials, then the mean over scenarios (as the scorecard's aggregate does).
    by_sc: dict[str, list[Session]] = defaultdict(list)
    for s in sessions:
        by_sc[s.scenario_id].append(s)
    kmax = min(len(v) for v in by_sc.values())
    pass_k = {}
    for k in range(1, kmax + 1):
        pass_k[k] = statistics.fmean(
            pass_hat_k(len(v), sum(1 for s in v if s.passed), k) for v in by_sc.values()
        )
    return Row(
        agent,
        group,
        sorted(by_sc),
        sessions,
        statistics.fmean(scores) if scores else None,
        sum(1 for s in sessions if s.passed),
        pass_k,
        mean_interval(entries, agent) if len(entries) == len(sessions) else None,
    )


def leaderboards(
    sessions: list[Session],
) -> tuple[dict[tuple[str, RunBasis], list[Row]], dict[RunBasis, list[Row]]]:
    """Per (scenario, group) and overall per group: rows per agent, best mean score first."""
    per: dict[tuple[str, RunBasis], dict[str, list[Session]]] = defaultdict(lambda: defaultdict(list))
    overall: dict[RunBasis, dict[str, list[Session]]] = defaultdict(lambda: defaultdict(list))
    for s in sessions:
        per[(s.scenario_id, s.group())][s.agent].append(s)
        overall[s.group()][s.agent].append(s)

    def ranked(by_agent: dict[str, list[Session]], group: RunBasis) -> list[Row]:
        from modylbench.scoring import comparisons, ties

        rows = sorted((_row(a, group, ss) for a, ss in by_agent.items()),
                      key=lambda r: (r.score is None, -(r.score or 0.0), r.agent))
        # Ties as the scorecard makes them: paired over scenario and seed, within this comparison group.
        entries = [e for a, ss in by_agent.items() for e in _entries(a, ss)]
        places = ties([r.agent for r in rows], comparisons(entries, [r.agent for r in rows]))
        for r in rows:
            r.rank = places.get(r.agent)
        return rows

    return (
        {k: ranked(v, k[1]) for k, v in sorted(per.items(), key=lambda kv: (kv[0][0], str(kv[0][1])))},
        {k: ranked(v, k) for k, v in sorted(overall.items(), key=lambda kv: str(kv[0]))},
    )


def _esc(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _href(relative: str) -> str:
    """A link to a file under DIR: every character that could make a scheme (``javascript:``), a query or a
    fragment is percent-encoded, and it starts with ``./``, so it is a relative path whatever a folder is named."""
    return _esc("./" + urllib.parse.quote(relative, safe="/"))


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def _group_text(group: RunBasis, rows: list[Row]) -> str:
    full = {s.full_turns for r in rows for s in r.sessions}
    net = "" if group.network in (None, CLEAN_NETWORK) else f" · network {group.network}"
    return (
        f"{group.slice_text(full.pop() if len(full) == 1 else None)} · seed {group.seed} · {group.transport}{net}"
        f" · judges {', '.join(group.judges) or '—'}" + (f" · scenario {group.scenario_hash[:8]}" if group.scenario_hash else "")
    )


def _attrs(scenario: str, agent: str, group: RunBasis, tier: str | None) -> str:
    return (
        f'data-scenario="{_esc(scenario)}" data-agent="{_esc(agent)}" data-seed="{_esc(group.seed)}" '
        f'data-transport="{_esc(group.transport)}" data-tier="{_esc(tier or "")}"'
    )


def _board(rows: list[Row], scenario: str | None) -> str:
    from modylbench.scoring import format_interval, tier_of

    kmax = max((max(r.pass_k) for r in rows if r.pass_k), default=1)
    head = "".join(f"<th>pass^{k}</th>" for k in range(1, kmax + 1))
    out = [
        f'<table class="board"><tr><th>#</th><th>agent</th><th>score [95% CI]</th><th>tier</th><th>sessions</th>'
        f"<th>passed</th>{'' if scenario else '<th>scenarios</th>'}{head}<th>reports</th></tr>"
    ]
    shared = [r.rank for r in rows]
    for i, r in enumerate(rows, 1):
        tier = tier_of(r.score) if r.score is not None else None
        place = r.rank or i
        rank = f"={place}" if shared.count(place) > 1 else str(place)
        ci = "" if r.interval is None else f' <small class="ci">{_esc(format_interval(r.interval))}</small>'

        pk = "".join(
            f"<td>{r.pass_k[k]:.2f}</td>" if k in r.pass_k else "<td>—</td>" for k in range(1, kmax + 1)
        )
        links = " ".join(
            f'<a href="{_href(s.report)}">{n}</a>' if s.report else f"{n}" for n, s in enumerate(r.sessions, 1)
        )
        scen = "" if scenario else f'<td title="{_esc(", ".join(r.scenarios))}">{len(r.scenarios)}</td>'
        out.append(
            f"<tr {_attrs(scenario or '', r.agent, r.group, tier)}><td>{rank}</td><td>{_esc(r.agent)}</td>"
            f"<td><b>{_fmt(r.score)}</b>{ci}</td><td>{_esc(tier or '—')}</td><td>{len(r.sessions)}</td>"
            f"<td>{r.passed}</td>{scen}{pk}<td>{links}</td></tr>"
        )
    out.append("</table>")
    return "".join(out)


_SCRIPT = """
(function(){
  const sel = Array.from(document.querySelectorAll('select[data-filter]'));
  function apply(){
    const want = {}; sel.forEach(s => { if (s.value) want[s.dataset.filter] = s.value; });
    document.querySelectorAll('tr[data-agent]').forEach(tr => {
      let ok = true;
      for (const k in want) {
        const v = tr.getAttribute('data-' + k);
        // Overall rows hold every scenario: a scenario filter leaves them shown.
        if (k === 'scenario' && v === '') continue;
        if (v !== want[k]) ok = false;
      }
      tr.style.display = ok ? '' : 'none';
    });
    document.querySelectorAll('section.board').forEach(sec => {
      const any = sec.querySelector('tr[data-agent]:not([style*="none"])');
      sec.style.display = any ? '' : 'none';
    });
  }
  sel.forEach(s => s.addEventListener('change', apply));
})();
"""

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;background:#f6f8fa;color:#1f2328}main{max-width:1200px;margin:0 auto;padding:16px}
section{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:8px 16px 12px;margin:12px 0}
table{border-collapse:collapse;font-size:13px}td,th{border-bottom:1px solid #eaeef2;padding:3px 8px;text-align:left}
td{text-align:right}td:nth-child(2){text-align:left}.muted{color:#6e7781}.filters select{margin-right:12px}
.group{color:#57606a;font-size:12px}.warn{border-left:4px solid #ef6c00;background:#fff4e5;padding:4px 12px}
"""


def _script_hash() -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(_SCRIPT.encode("utf-8")).digest()).decode("ascii")


def build_index(root: Path, sessions: list[Session], sweeps: list[str], problems: list[str]) -> str:
    """The index page's HTML: filters, overall and per-scenario leaderboards, sweeps, every session."""
    per, overall = leaderboards(sessions)

    def options(name: str, values: set[str]) -> str:
        opts = "".join(f'<option value="{_esc(v)}">{_esc(v)}</option>' for v in sorted(values))
        return (
            f'<label>{name} <select data-filter="{name}"><option value="">all</option>{opts}</select></label>'
        )

    from modylbench.scoring import tier_of

    tiers = {tier_of(r.score) for rows in overall.values() for r in rows if r.score is not None}
    tiers |= {tier_of(r.score) for rows in per.values() for r in rows if r.score is not None}
    parts = [
        '<!doctype html><html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # Only the index's own script runs (by its hash): no inline handler or javascript: link could.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src '{_script_hash()}'; base-uri 'none'; form-action 'none'\">",
        f"<title>ModylBench results: {_esc(root.name)}</title><style>{_STYLE}</style></head><body><main>",
        f"<h1>ModylBench results: {_esc(root.name)}</h1>",
        f'<p class="muted">{len(sessions)} sessions, {len(sweeps)} sweeps · written '
        f"{datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}. Sessions are compared as equals only within a "
        "group: the same slice of the meeting (whole, or its first N turns), seed, transport, network, judges and "
        "scenario version. pass^k: the chance that k trials drawn from an agent's all reach the scenario's "
        "required tier (mean over scenarios).</p>",
    ]
    if problems:
        parts.append(
            '<div class="warn"><ul>' + "".join(f"<li>{_esc(p)}</li>" for p in problems) + "</ul></div>"
        )
    parts.append(
        '<p class="filters">'
        + options("scenario", {s.scenario_id for s in sessions})
        + options("agent", {s.agent for s in sessions})
        + options("seed", {str(s.seed) for s in sessions})
        + options("transport", {s.transport for s in sessions})
        + options("tier", tiers)
        + "</p>"
    )
    parts.append("<h2>Overall</h2>")
    for group, rows in overall.items():
        parts.append(
            f'<section class="board"><p class="group">{_esc(_group_text(group, rows))}</p>{_board(rows, None)}'
            "</section>"
        )
    parts.append("<h2>Per scenario</h2>")
    for (sid, group), rows in per.items():
        parts.append(
            f'<section class="board"><h3>{_esc(sid)}</h3><p class="group">{_esc(_group_text(group, rows))}</p>'
            f"{_board(rows, sid)}</section>"
        )
    if sweeps:
        parts.append("<h2>Sweeps</h2><ul>")
        for sw in sweeps:
            report = Path(sw) / SessionFolder.REPORT_FILE
            link = f' · <a href="{_href(report.as_posix())}">report</a>' if (root / report).is_file() else ""
            parts.append(f"<li>{_esc(sw)}{link}</li>")
        parts.append("</ul>")
    parts.append(
        "<h2>Sessions</h2><section><table><tr><th>folder</th><th>scenario</th><th>agent</th><th>played</th>"
        "<th>seed</th><th>transport</th><th>score</th><th>tier</th><th>ended</th></tr>"
    )
    for s in sorted(sessions, key=lambda s: s.path):
        name = f'<a href="{_href(s.report)}">{_esc(s.path)}</a>' if s.report else _esc(s.path)
        parts.append(
            f'<tr {_attrs(s.scenario_id, s.agent, s.group(), s.tier)}><td class="t">{name}</td>'
            f"<td>{_esc(s.scenario_id)}</td><td>{_esc(s.agent)}</td><td>{_esc(s.slice)}</td><td>{s.seed}</td>"
            f"<td>{_esc(s.transport)}</td><td>{_fmt(s.score)}</td><td>{_esc(s.tier or '—')}</td>"
            f"<td>{_esc(s.termination)}</td></tr>"
        )
    parts.append(f"</table></section><script>{_SCRIPT}</script></main></body></html>")
    return "".join(parts)


def write_index(root: Path) -> tuple[Path, int]:
    """Find the sessions under ``root`` and write ``root/index.html`` (atomically); returns it and the count."""
    from modylbench.scenarios import resolve_scenarios

    try:
        # Whole-meeting lengths of the built-ins, to tell a slice from a whole meeting (every seed has the same).
        full = {sid: len(sc.turns) for sid, sc in resolve_scenarios(()).items()}
    except Exception:  # noqa: BLE001 - without them every session is labelled by its turns alone
        logger.warning(
            "built-in scenarios unavailable; sessions are labelled by turns played only", exc_info=True
        )
        full = {}
    sessions, sweeps, problems = find_sessions(root, full)
    target = root / INDEX_FILE
    tmp = target.with_name(target.name + ".part")
    tmp.write_text(build_index(root, sessions, sweeps, problems), encoding="utf-8")
    os.replace(tmp, target)
    return target, len(sessions)


def make_server(root: Path, port: int) -> Any:
    """An HTTP server for ``root``, bound to 127.0.0.1, read-only: GET/HEAD of regular files inside it only
    (no listings, no hidden files, no ``..`` or symlink out of it); other methods get 501."""
    import functools
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    base = root.resolve()

    class Handler(SimpleHTTPRequestHandler):
        def send_head(self) -> Any:
            path = Path(self.translate_path(self.path))
            try:
                real = path.resolve(strict=True)
                rel = real.relative_to(base)
            except (OSError, ValueError):
                self.send_error(404)
                return None
            # No listings, no hidden files, nothing a symlink leads to outside the folder.
            if real.is_dir():
                if (real / INDEX_FILE).is_file() and real == base:
                    return super().send_head()
                self.send_error(404)
                return None
            if any(p.startswith(".") for p in rel.parts) or not real.is_file():
                self.send_error(404)
                return None
            return super().send_head()

        def list_directory(self, path: Any) -> Any:
            self.send_error(404)
            return None

        def end_headers(self) -> None:
            # Every answer, errors included: nothing leaves the page, and no file is sniffed into HTML (an
            # agent's log or a file it sent is served as what its name says, never run as a page).
            self.send_header("Content-Security-Policy", SERVE_CSP)
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            super().end_headers()

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            logger.info("%s %s", self.address_string(), format % args)

    Handler.timeout = SERVE_IDLE_S  # an idle connection's socket times out and its thread ends

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        _slots = threading.BoundedSemaphore(SERVE_MAX_CONNECTIONS)

        def process_request(self, request: Any, client_address: Any) -> None:
            if not self._slots.acquire(blocking=False):
                self.shutdown_request(request)  # full: closed, not queued as one more thread
                return
            try:
                super().process_request(request, client_address)
            except BaseException:
                self._slots.release()
                raise

        def process_request_thread(self, request: Any, client_address: Any) -> None:
            try:
                super().process_request_thread(request, client_address)
            finally:
                self._slots.release()

    return Server(("127.0.0.1", port), functools.partial(Handler, directory=str(base)))


def serve(root: Path, port: int) -> None:
    """Serve ``root`` (``make_server``) until interrupted."""
    server = make_server(root, port)
    base = root.resolve()
    click.echo(
        f"serving {base} read-only at http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C to stop)", err=True
    )
    try:
        server.serve_forever()
    finally:
        server.server_close()


@click.command("view", short_help="Write (and --serve) an index with leaderboards over every session in a folder.")
@click.argument("folder", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--serve", "serve_it", is_flag=True, help="Also serve FOLDER read-only on 127.0.0.1 (Ctrl-C to stop)."
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8321,
    show_default=True,
    help="Port for --serve (0: any free one).",
)
def view(folder: Path, serve_it: bool, port: int) -> None:
    """Write FOLDER/index.html: leaderboards (overall and per scenario, with pass^k) over every session and
    sweep under FOLDER, filters by scenario, agent, seed, transport and tier, and links to each report.

    Sessions are found by their folders (manifest.json + scorecard.json). They are ranked against each
    other only within a group of like runs: the same slice (whole meeting or first N turns), seed,
    transport, network, judges and scenario version.
    """
    if not folder.is_dir():
        raise UserError(f"{folder}: no such folder")
    target, n = write_index(folder)
    click.echo(f"wrote {target} ({n} sessions)", err=True)
    if serve_it:
        try:
            serve(folder, port)
        except OSError as exc:
            raise UserError(f"cannot serve on 127.0.0.1:{port}: {exc.strerror or exc}") from None
