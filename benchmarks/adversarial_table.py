"""The adversarial suite's offline scores: strategy × scenario table, correct-style mean and min, best gaming.

Run: ``.venv/bin/python benchmarks/adversarial_table.py [--scenarios PATH]``. Prints a markdown
table (one row per strategy of tests/support/modylbench_testsupport/adversarial.py, one column per scenario), then
the realistic-correct mean and minimum (correct styles other than the verbatim reference), the
best gaming score and the partial agents' range. The bounds the tests hold it to: correct >= 9.0,
gaming < 6.0, partial rising with p.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from modylbench.record import ScenarioResponses
from modylbench.scenarios import resolve_scenarios
from modylbench.scenarios.builtin import BUILDERS
from modylbench.scoring import make_judges, score

logger = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parent.parent


sys.path.insert(0, str(ROOT / "tests" / "support"))  # the test-support package (tests only, not in the wheel)
from modylbench_testsupport import adversarial as SUITE  # noqa: E402

_SHORT = BUILDERS  # a scenario's column is its builder's folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--scenarios", action="append", default=[], help="extra scenario file or folder")
    parser.add_argument("--write", type=Path, default=None, metavar="FILE",
                        help="also write every line as responses.jsonl (then time `modylbench evaluate` on it)")
    args = parser.parse_args()
    adv = SUITE
    scenarios = resolve_scenarios(args.scenarios)
    sids = list(scenarios)
    judges = make_judges(["offline"])
    scores: dict[str, dict[str, float]] = {}
    if args.write is not None:
        args.write.write_text("", encoding="utf-8")
    t0 = time.perf_counter()
    for sid in sids:
        sc = scenarios[sid]
        lines = [ScenarioResponses.model_validate(fn(sc)) for fn in adv.STRATEGIES.values()]
        if args.write is not None:
            with args.write.open("a", encoding="utf-8") as fh:
                fh.writelines(line.model_dump_json() + "\n" for line in lines)
        card = score(lines, {sid: sc}, judges)
        for e in card.scenarios:
            scores.setdefault(e.model_id, {})[sid] = e.modylbench_score if e.modylbench_score is not None else float("nan")
    elapsed = time.perf_counter() - t0

    def mark(name: str, v: float) -> str:
        bad = (name in adv.CORRECT_STYLES and v < 9.0) or (name in adv.GAMING and v >= 6.0)
        return f"**{v:.2f}**" if bad else f"{v:.2f}"

    print("| group | strategy | " + " | ".join(_SHORT.get(s, s) for s in sids) + " |")
    print("|---|---|" + "---:|" * len(sids))
    for group, names in (("correct", adv.CORRECT_STYLES), ("gaming", adv.GAMING), ("partial", adv.PARTIAL)):
        for n in names:
            print(f"| {group} | {n} | " + " | ".join(mark(n, scores[n][s]) for s in sids) + " |")
    print()
    print("Bold: outside its bound (correct >= 9.0, gaming < 6.0).")
    realistic = [scores[n][s] for n in adv.CORRECT_STYLES if n != "reference" for s in sids]
    print(f"realistic-correct mean {sum(realistic) / len(realistic):.2f}, min {min(realistic):.2f} "
          f"({sum(v >= 9.0 for v in realistic)}/{len(realistic)} at >= 9.0)")
    best = max((scores[n][s], n, s) for n in adv.GAMING for s in sids)
    print(f"best gaming {best[0]:.2f} ({best[1]} on {_SHORT.get(best[2], best[2])}); "
          f"{sum(scores[n][s] >= 6.0 for n in adv.GAMING for s in sids)}/{len(adv.GAMING) * len(sids)} at >= 6.0")
    mono = sum(
        all(scores[a][s] < scores[b][s] for a, b in zip(adv.PARTIAL, adv.PARTIAL[1:], strict=False)) for s in sids
    )
    print(f"partial agents rising with p in {mono}/{len(sids)} scenarios")
    print(f"scored {len(adv.STRATEGIES) * len(sids)} lines in {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
