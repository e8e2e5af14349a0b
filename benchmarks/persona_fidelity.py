"""The persona answerer's fidelity per built-in scenario (issue 26 item 8): the fuzzer's counts.

    python benchmarks/persona_fidelity.py [--seed N]

k-q / correct: template questions over the labels; own-q / own ok: questions in a person's own words (synonyms,
reordered, indirect, a typo: personas/_fidelity.FREE_FORMS).
"""

from __future__ import annotations

import argparse
import time

from modylbench.personas._fidelity import fuzz
from modylbench.scenarios.builtin import BUILTIN_IDS, build


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"{'scenario':40s} {'asked':>6s} {'answered':>8s} {'k-q':>5s} {'correct':>8s} {'own-q':>6s} {'own ok':>8s} "
          f"{'leaked':>6s} {'contra':>6s}  outcomes")
    for sid in BUILTIN_IDS:
        s = build(sid, args.seed)
        t0 = time.perf_counter()
        f = fuzz(s)
        asked = f.knowledge_questions + f.free_questions + f.output_questions + f.other_questions
        ms = (time.perf_counter() - t0) * 1000 / max(1, asked)
        print(f"{sid:40s} {asked:6d} {f.answered:8d} {f.knowledge_questions:5d} {f.correct_share:8.1%} {f.free_questions:6d} "
              f"{f.free_share:8.1%} {f.leaked:6d} "
              f"{f.contradicted:6d}  {dict(sorted(f.outcomes.items()))}  ({ms:.2f} ms/question)")


if __name__ == "__main__":
    main()
