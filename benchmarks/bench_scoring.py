"""Time the offline judge on the built-in scenarios' reference responses (target: all turns < 2 s).

Run: ``.venv/bin/python benchmarks/bench_scoring.py [--repeat N]``. Prints turns, products, the
median wall time over the repeats and the per-item rate. Fixture lines are built before timing.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from pathlib import Path

from modylbench.record import ScenarioResponses
from modylbench.scenarios import load_builtin
from modylbench.scoring import make_judges, score

logger = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parent.parent


sys.path.insert(0, str(ROOT / "tests" / "support"))  # the test-support package (tests only, not in the wheel)
from modylbench_testsupport import make_fixtures as MAKER  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    scenarios = load_builtin()
    if not scenarios:
        print("no built-in scenario data files; nothing to time")
        return 1
    maker = MAKER
    by_id = {s.scenario_id: s for s in scenarios}
    lines = [ScenarioResponses.model_validate(maker.correct(s)) for s in scenarios]
    n_turns = sum(len(s.turns) for s in scenarios)
    n_products = sum(len(s.expected_outputs) for s in scenarios)
    times: list[float] = []
    for _ in range(max(1, args.repeat)):
        # A fresh judge each time; the process keeps what it worked out per scenario (the texts the
        # agent could copy, the figures a scenario knows) and label similarities, so the first run
        # is the cold one and is reported on its own.
        judges = make_judges(["offline"])
        t0 = time.perf_counter()
        card = score(lines, by_id, judges)
        times.append(time.perf_counter() - t0)
    items = n_turns + n_products
    print(
        f"{len(scenarios)} scenarios, {n_turns} turns, {n_products} products, "
        f"{sum(len(s.expected_mutations) for s in scenarios)} expected mutations"
    )
    best = statistics.median(times)
    print(f"offline scoring, first run (cold caches): {times[0]:.3f} s")
    print(
        f"offline scoring: {best:.3f} s median of {len(times)}  ({items / best:,.0f} items/s, "
        f"{best / items * 1000:.2f} ms/item)"
    )
    for e in card.scenarios:
        print(f"  {e.scenario_id:42s} {e.modylbench_score:.2f} {e.tier}")
    return 0 if times[0] < 2.0 else 1


if __name__ == "__main__":
    sys.exit(main())
