"""Results over many sessions: one scorecard and a leaderboard combined from each session folder's own
``scorecard.json``, written atomically. ``run`` and ``sweep`` accumulate their OUT folder this way.

Combining never re-judges: a session is scored once, in its own folder, and the combined scorecard is
rebuilt from those files (cheap enough to redo after every finished session).
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from modylbench.record import Manifest, RunBasis, SessionFolder, labels, package_version

logger = logging.getLogger(__name__)

LEADERBOARD_JSON = "leaderboard.json"
LEADERBOARD_MD = "leaderboard.md"


@dataclass(frozen=True)
class SessionResult:
    """One scored session: its folder, its manifest and its own scorecard."""

    folder: Path
    manifest: Manifest
    card: Any  # modylbench.scoring.Scorecard (scoring is imported lazily: the CLI's help stays light)


def complete_sessions(out: Path) -> list[Path]:
    """The session folders directly under ``out`` that are complete and scored, in name order."""
    from modylbench.simulator._runner import session_complete

    if not out.is_dir():
        return []
    return [d for d in sorted(out.iterdir()) if d.is_dir() and session_complete(d)]


def load_result(folder: Path) -> SessionResult | None:
    """A session's manifest and scorecard; None (logged) when either cannot be read."""
    from modylbench.scoring import read_scorecard

    files = SessionFolder(folder)
    manifest = files.read_manifest()
    try:
        card = read_scorecard(files.scorecard)
    except (OSError, ValueError) as exc:
        logger.warning("%s: unreadable scorecard, left out of the results (%s)", folder, exc)
        return None
    return SessionResult(folder, manifest or Manifest(), card)


def _numbered(label: str | None, card: Any, counter: dict[tuple[str, str], int]) -> list[tuple[Any, str, int]]:
    """A card's entries with the model id and trial number they get in a combined scorecard (``counter`` carries
    the numbering from card to card)."""
    out = []
    for entry in card.scenarios:
        model = label or entry.model_id
        trial = counter.get((model, entry.scenario_id), 0)
        counter[(model, entry.scenario_id)] = trial + 1
        out.append((entry, model, trial))
    return out


def labelled(results: Iterable[SessionResult]) -> list[tuple[str, SessionResult]]:
    """Each session with the model id it aggregates under: its agent's name, and what sets its basis apart
    from the others' (``modylbench.record.labels``: a 2-turn slice and the whole meeting, two transports,
    networks, panels or scenario versions never share a mean)."""
    results = list(results)
    runs = []
    for r in results:
        key = r.manifest.session or r.manifest.sweep_cell or {}
        entry = r.card.scenarios[0] if r.card.scenarios else None
        name = key.get("agent_name") or key.get("agent") or (entry.model_id if entry else r.manifest.agent) or "?"
        basis = RunBasis.of_session(r.manifest, turns=entry.turns_scheduled if entry else key.get("turns"),
                                    scenario_id=entry.scenario_id if entry else None, judges=r.card.judges)
        runs.append((str(name), basis))
    return list(zip(labels(runs), results, strict=True))


def combined_responses(results: Iterable[tuple[str | None, SessionResult]]) -> list[Any]:
    """Each session's own ``responses.jsonl`` renamed and renumbered as ``combine`` renames and renumbers its
    scorecard entries, so that a combined report pairs every entry with its session's responses (latency, words)."""
    from modylbench.scoring import read_responses

    out: list[Any] = []
    counter: dict[tuple[str, str], int] = {}
    for label, result in results:
        path = SessionFolder(result.folder).responses
        try:
            found = read_responses(path)[0] if path.is_file() else []
        except (OSError, ValueError) as exc:
            logger.warning("%s: unreadable responses, left out of the report (%s)", path, exc)
            found = []
        by_key = {(r.scenario_id, r.model_id): r for r in found}
        for entry, model, trial in _numbered(label, result.card, counter):
            resp = by_key.get((entry.scenario_id, entry.model_id))
            if resp is not None:
                out.append(resp.model_copy(update={"model_id": model, "trial": trial}))
    return out


def combine(results: Iterable[tuple[str | None, Any]]) -> Any:
    """One scorecard over many sessions' scorecards: ``(label, card)`` pairs, the label becoming the model id
    (None: the card's own).

    Trials are numbered per (label, scenario) in the order given, so the same scenario played under
    several seeds or trials counts towards pass^k. Judges are the union of the sessions' panels.
    """
    from modylbench.scoring import Scorecard, summarise

    entries: list[Any] = []
    judges: list[str] = []
    skipped: list[dict[str, Any]] = []
    counter: dict[tuple[str, str], int] = {}
    incomplete = False
    for label, card in results:
        judges += [j for j in card.judges if j not in judges]
        skipped += card.skipped
        incomplete = incomplete or card.incomplete
        for entry, model, trial in _numbered(label, card, counter):
            entries.append(entry.model_copy(update={"model_id": model, "trial": trial}))
    agg, found = summarise(entries)
    return Scorecard(
        modylbench_version=package_version(),
        judges=judges,
        scenarios=entries,
        aggregate=agg,
        comparisons=found,
        skipped=skipped,
        incomplete=incomplete,
    )


def leaderboard(card: Any, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The leaderboard of a combined scorecard: one row per model (best mean first), per-scenario columns."""
    per: dict[tuple[str, str], list[float]] = {}
    for s in card.scenarios:
        if s.modylbench_score is not None and not s.missing_verdicts:
            per.setdefault((s.model_id, s.scenario_id), []).append(s.modylbench_score)
    rows = []
    for agg in card.aggregate.values():
        scenarios = {}
        for pk in agg.per_scenario:
            scores = per.get((agg.model_id, pk.scenario_id), [])
            scenarios[pk.scenario_id] = {
                "runs": pk.trials,
                "passes": pk.passes,
                "pass_k": pk.pass_k,
                "mean_score": sum(scores) / len(scores) if scores else None,
                "interval": _bounds(pk.interval),
            }
        rows.append(
            {
                "model": agg.model_id,
                "runs": agg.runs,
                "mean_score": agg.mean_score,
                "interval": _bounds(agg.interval),
                "rank": agg.rank,
                "tier": agg.tier,
                "flaky_turns": None if agg.flakiness is None else {
                    "flaky": agg.flakiness.verdict_flaky, "compared": agg.flakiness.turns_compared,
                    "rate": agg.flakiness.rate,
                },
                "pass_k": agg.pass_k,
                "incomplete_runs": agg.incomplete_runs,
                "scenarios": scenarios,
            }
        )
    rows.sort(key=lambda r: (r["mean_score"] is None, -(r["mean_score"] or 0.0), r["model"]))
    place = {row["model"]: i for i, row in enumerate(rows)}
    # Rank neighbours: whether each row can be told apart from the one below it.
    found = {(c.model_a, c.model_b): c for c in card.comparisons}
    comparisons = []
    for upper, lower in zip(rows, rows[1:], strict=False):
        c = found.get((upper["model"], lower["model"]))
        if c is not None and place[c.model_a] < place[c.model_b]:
            comparisons.append(
                {
                    "a": c.model_a,
                    "b": c.model_b,
                    "difference": c.difference,
                    "interval": _bounds(c.interval),
                    "distinguishable": c.distinguishable,
                    "trials_needed": c.trials_needed,
                    "note": c.note,
                }
            )
    return {
        "updated_wall_time": time.time(),
        "judges": list(card.judges),
        **(extra or {}),
        "rows": rows,
        "comparisons": comparisons,
    }


def _bounds(ci: Any) -> list[float] | None:
    return None if ci is None else [ci.low, ci.high]


def leaderboard_markdown(board: dict[str, Any]) -> str:
    """The leaderboard as a Markdown table a person reads (numbers rounded for display only)."""

    def num(x: float | None) -> str:
        return "—" if x is None else f"{x:.2f}"

    def ci(b: list[float] | None) -> str:
        return "" if b is None else f" [{b[0]:.2f}, {b[1]:.2f}]"

    scenario_ids = sorted({sid for row in board["rows"] for sid in row["scenarios"]})
    head = ["#", "model", "runs", "score [95% CI]", "tier", "pass^1", "pass^k", "flaky turns", *scenario_ids]
    ranks = [row.get("rank") for row in board["rows"]]
    lines = [f"# Leaderboard\n\njudges: {', '.join(board['judges']) or '—'}"]
    if "cells" in board:
        c = board["cells"]
        lines.append(
            f"cells: {c['complete']} complete of {c['planned']} planned"
            + (f", {c['failed']} failed" if c.get("failed") else "")
        )
    lines += ["", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for i, row in enumerate(board["rows"], 1):
        pk = row["pass_k"]
        top = max(pk, key=int) if pk else None
        rank = row.get("rank") or i
        flaky = row.get("flaky_turns")
        cells = [
            # "=2": tied with another row, the runs given cannot separate them.
            f"={rank}" if ranks.count(rank) > 1 else str(rank),
            row["model"],
            str(row["runs"]),
            num(row["mean_score"]) + ci(row.get("interval")),
            "incomplete" if row["incomplete_runs"] else (row["tier"] or "—"),
            num(pk.get("1")),
            f"k={top}: {num(pk[top])}" if top else "—",
            "—" if not flaky or not flaky["compared"] else f"{flaky['flaky']}/{flaky['compared']}",
        ]
        for sid in scenario_ids:
            s = row["scenarios"].get(sid)
            cells.append(
                "—" if s is None else f"{num(s['mean_score'])}{ci(s.get('interval'))} ({s['passes']}/{s['runs']} pass)"
            )
        lines.append("| " + " | ".join(cells) + " |")
    comparisons = board.get("comparisons") or []
    if comparisons:
        lines += ["", "Neighbours compared (paired over scenarios and seeds, 95% bootstrap interval of the gap):", ""]
        for c in comparisons:
            gap = "—" if c["difference"] is None else f"{c['difference']:+.2f}{ci(c['interval'])}"
            verdict = "separated" if c["distinguishable"] else "tied"
            lines.append(f"- {c['a']} vs {c['b']}: {gap}, {verdict}: {c['note']}")
    lines += ["", "Intervals and ties: docs/scoring.md \"Error bars\". Flaky turns: turns whose verdict changed "
              "between trials of the same scenario and seed, of those played in two or more."]
    return "\n".join(lines) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Write a text file so a reader sees the old or the new content, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.part")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_results(out: Path, card: Any, extra: dict[str, Any] | None = None) -> None:
    """``OUT/scorecard.json``, ``OUT/leaderboard.json`` and ``OUT/leaderboard.md``, each written atomically."""
    from modylbench.scoring import write_scorecard

    write_scorecard(card, SessionFolder(out).scorecard)
    board = leaderboard(card, extra)
    write_atomic(out / LEADERBOARD_JSON, json.dumps(board, indent=2) + "\n")
    write_atomic(out / LEADERBOARD_MD, leaderboard_markdown(board))
