"""The searching adversaries at a large budget (issue 23, items 10-11): per scenario, the best blind line and
its strategy in words, the best partial-knowledge line at p = 0.2/0.5/0.8, the fairness minimum and the
transform behind it, and the graded curve (``partial(sc, p)`` for p = 0, 0.1, ..., 1).

    python benchmarks/adversary_search.py --budget 200 --partial-budget 80 --fair-budget 40 \
        --seeds 1 --fair-seeds 0,1 --scenarios financial_analyst_lbo_model

Scoring one meeting offline takes 0.1-1 s, so a budget of 200 is a few minutes per scenario on one core.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


sys.path.insert(0, str(ROOT / "tests" / "support"))  # the test-support package (tests only, not in the wheel)
from modylbench_testsupport import search as SEARCH  # noqa: E402


def _ints(s: str) -> list[int]:
    return [int(x) for x in s.split(",") if x.strip()]


def main(argv: list[str] | None = None) -> int:
    from modylbench.scenarios.builtin import BUILTIN_IDS, build

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=200, help="blind search: offline scorings per scenario and seed")
    ap.add_argument("--partial-budget", type=int, default=80, help="partial-knowledge search: scorings per p")
    ap.add_argument("--fair-budget", type=int, default=40, help="fairness search: scorings per seed")
    ap.add_argument("--seeds", default="1", help="fresh instances the adversaries are scored on (comma list, >= 1)")
    ap.add_argument("--fair-seeds", default="0,1", help="instances the fairness search runs on")
    ap.add_argument("--levels", default="0.2,0.5,0.8", help="partial-knowledge shares")
    ap.add_argument("--search-seed", type=int, default=0, help="the search's own random seed")
    ap.add_argument("--scenarios", default="", help="comma list of scenario ids (default: all built-ins)")
    ap.add_argument("--skip", default="", help="comma list of parts to skip: blind,partial,fair,curve")
    ap.add_argument("--json", type=Path, default=None, help="also write the results as JSON here")
    args = ap.parse_args(argv)
    S = SEARCH
    sids = [s for s in args.scenarios.split(",") if s] or list(BUILTIN_IDS)
    seeds = _ints(args.seeds)
    if any(s < 1 for s in seeds):
        ap.error("--seeds: the adversaries may use seed 0's export, so they are scored on seeds >= 1")
    levels = [float(x) for x in args.levels.split(",") if x]
    skip = set(args.skip.split(","))
    out: dict[str, Any] = {}
    for sid in sids:
        res: dict[str, Any] = {}
        print(f"== {sid}", flush=True)
        for seed in seeds:
            sc = build(sid, seed)
            if "blind" not in skip:
                t = time.perf_counter()
                r = S.search(sc, budget=args.budget, seed=args.search_seed)
                dt = time.perf_counter() - t
                gate = "ok" if r.score < 6.0 else "FAILS (< 6.0)"
                print(f"  seed {seed} blind   {r.score:5.2f}  {gate}  [{r.evaluations} evals, {dt:.0f} s]")
                print(f"      strategy: {r.description}")
                res[f"blind_seed{seed}"] = {"score": r.score, "genome": r.genome, "description": r.description}
            if "partial" not in skip:
                for p in levels:
                    # What the blind adversary found is known to the partial one too: it starts there.
                    prior = [res[f"blind_seed{seed}"]["genome"]] if f"blind_seed{seed}" in res else []
                    r = S.search(sc, budget=args.partial_budget, seed=args.search_seed, p=p, starts=prior)
                    bound = 1.5 + 9 * p
                    ok = r.score <= bound and (p >= 0.9 or r.score < 9.0)
                    print(f"  seed {seed} p={p:.1f}   {r.score:5.2f}  (bound {bound:.2f}) {'ok' if ok else 'FAILS'}")
                    print(f"      strategy: {r.description}")
                    res[f"partial_seed{seed}_p{p}"] = {"score": r.score, "genome": r.genome, "description": r.description}
        if "fair" not in skip:
            for seed in _ints(args.fair_seeds):
                sc = build(sid, seed)
                r = S.fairness_search(sc, budget=args.fair_budget, seed=args.search_seed)
                print(f"  seed {seed} fairness min {r.score:5.2f}  {'ok' if r.score >= 9.0 else 'FAILS (>= 9.0)'}")
                print(f"      transform: {r.description}")
                res[f"fair_seed{seed}"] = {"score": r.score, "genome": r.genome, "description": r.description}
        if "curve" not in skip:
            for seed in seeds:
                curve = S.graded_curve(build(sid, seed))
                print(f"  seed {seed} graded  " + " ".join(f"{p:.1f}:{s:.2f}" for p, s in curve))
                res[f"curve_seed{seed}"] = curve
        out[sid] = res
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
