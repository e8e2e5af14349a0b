"""The suite's correct styles (and chosen gaming strategies) played live, through the in-process meeting.

Run: ``.venv/bin/python benchmarks/live_styles.py [--strategies a,b,...]``. Each responses line of
tests/support/modylbench_testsupport/adversarial.py is played by an agent (``live_agent``) that makes its edits in the
shared document, chats and speaks turn by turn; the record is scored as ``run`` scores it. Prints one
line per (scenario, strategy) and the mean and minimum of the correct styles. Takes a few minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

from modylbench.agents._reference import AGENTS
from modylbench.scenarios import load_builtin
from modylbench.simulator._runner import RunSpec, run_one, score_session

ROOT = Path(__file__).resolve().parent.parent


sys.path.insert(0, str(ROOT / "tests" / "support"))  # the test-support package (tests only, not in the wheel)
from modylbench_testsupport import adversarial as SUITE  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--strategies", default="", help="comma-separated strategies (default: every correct style)")
    args = parser.parse_args()
    suite = SUITE
    names = [s for s in args.strategies.split(",") if s] or list(suite.CORRECT_STYLES)
    scenarios = {s.scenario_id: s for s in load_builtin()}
    correct: list[float] = []
    for sid, sc in scenarios.items():
        for name in names:
            AGENTS["styled"] = suite.live_agent(suite.STRATEGIES[name](sc))
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp) / "session"
                asyncio.run(run_one(RunSpec(sc, "styled", folder, transport="inproc")))
                entry = score_session(folder, scenarios, ["offline"]).scenarios[0]
            value = entry.modylbench_score or 0.0
            if name in suite.CORRECT_STYLES:
                correct.append(value)
            print(f"{sid:40s} {name:22s} {value:5.2f} on-time edits {entry.mutation_metrics.on_time}", flush=True)
    if correct:
        print(f"correct styles live: {len(correct)} sessions, mean {statistics.mean(correct):.2f}, "
              f"min {min(correct):.2f}, {sum(v >= 9.0 for v in correct)}/{len(correct)} at >= 9.0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
