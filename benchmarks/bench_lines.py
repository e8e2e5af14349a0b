"""How long the adversarial suite takes to write its lines, and a digest of what it wrote.

Every strategy of tests/support/modylbench_testsupport/adversarial.py (correct styles, gaming, partial agents)
is asked for its ``responses.jsonl`` line on every built-in scenario. Prints the time per scenario and in all,
and one SHA-256 over every line (sorted JSON): two commits that print the same digest wrote the same bytes.

    python benchmarks/bench_lines.py                 # all built-in scenarios
    python benchmarks/bench_lines.py financial_analyst_lbo_model
    BENCH_CODE_FROM=/tmp/base python benchmarks/bench_lines.py   # the code of another worktree (_code_from.py)
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path

from _code_from import CODE_FROM  # before modylbench: it may point the imports elsewhere

from modylbench.scenarios import resolve_scenarios

# The test-support package (tests only, not in the wheel), from the same code as modylbench.
ROOT = Path(os.environ.get(CODE_FROM) or Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(ROOT / "tests" / "support"))
from modylbench_testsupport import adversarial as SUITE  # noqa: E402


def main(ids: list[str]) -> None:
    scenarios = resolve_scenarios(ids)
    digest = hashlib.sha256()
    total = 0.0
    lines = 0
    print(f"# {len(SUITE.STRATEGIES)} strategies per scenario")
    for sid in sorted(scenarios):
        t0 = time.process_time()
        for name, fn in SUITE.STRATEGIES.items():
            line = fn(scenarios[sid])
            digest.update(f"{sid}/{name}\n".encode())
            digest.update(json.dumps(line, sort_keys=True).encode())
            lines += 1
        took = time.process_time() - t0
        total += took
        print(f"{sid:<42} {took:7.2f} s CPU")
    print(f"{'all':<42} {total:7.2f} s CPU for {lines} lines")
    print(f"sha256 of every line: {digest.hexdigest()}")


if __name__ == "__main__":
    main(sys.argv[1:])
