"""Count, per session, how often ``run`` reads a session record, scores, and builds the judge panel.

Usage: python benchmarks/batch_counts.py [SESSIONS]   (default 2: the mini fixture, oracle and polite, inproc,
one worker process so that every read happens in this process). Prints the totals and the figures per session.
It counts by wrapping, in this process, the record reader's line loop (``record._store.bounded_lines`` on a
``record.jsonl``), the scoring entry (``scoring._scorecard.score_async``) and ``scoring.make_judges``.
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"
AGENTS = ("oracle", "polite", "null", "verbose")


def count(sessions: int = 2, out: Path | None = None) -> Counter[str]:
    """Run ``sessions`` meetings with ``run`` in this process and count record reads, scorings and panels."""
    import modylbench.record._store as store
    import modylbench.scoring as scoring
    import modylbench.scoring._scorecard as scorecard
    from modylbench.simulator.cli import exit_code

    seen: Counter[str] = Counter()
    lines, score_async, make_judges = store.bounded_lines, scorecard.score_async, scoring.make_judges

    def counting_lines(fh: Any, limit: int) -> Any:
        if str(getattr(fh, "name", "")).endswith("record.jsonl"):
            seen["record reads"] += 1
        return lines(fh, limit)

    def counting_score(responses: Any, *args: Any, **kwargs: Any) -> Any:
        seen["scorings"] += 1
        seen["responses scored"] += len(responses)
        return score_async(responses, *args, **kwargs)

    def counting_judges(*args: Any, **kwargs: Any) -> Any:
        seen["panels built"] += 1
        return make_judges(*args, **kwargs)

    store.bounded_lines, scorecard.score_async, scoring.make_judges = counting_lines, counting_score, counting_judges
    try:
        with tempfile.TemporaryDirectory() as tmp:
            target = out or Path(tmp) / "runs"
            agents = [a for name in AGENTS[:sessions] for a in ("--agent", name)]
            argv = ["run", "mini_fixture", "--scenarios", str(MINI), *agents, "--transport", "inproc",
                    "--out", str(target), "--progress", "off"]
            # One process: the counts are this process's (an older version has no --workers: it ran inproc here).
            from modylbench.simulator import _cmd_run

            if any(p.name == "workers" for p in _cmd_run.run.params):
                argv += ["--workers", "1"]
            code = exit_code(argv)
            if code != 0:
                raise SystemExit(f"run exited with {code}")
    finally:
        store.bounded_lines, scorecard.score_async, scoring.make_judges = lines, score_async, make_judges
    return seen


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    seen = count(n)
    print(f"{n} sessions (run, inproc, one process):")
    for what in ("record reads", "scorings", "responses scored", "panels built"):
        print(f"  {what:<17} {seen[what]:>3} in all, {seen[what] / n:.1f} per session")


if __name__ == "__main__":
    main()
