"""The turn-taking panel (docs/scoring.md, "Turn-taking") of built-in agents over whole meetings.

Plays each scenario with each agent (in-process by default: the persona's backchannels, asides and cut-ins
happen on the virtual clock exactly as live) and prints, per (scenario, agent), the tau-voice panel from the
scorecard: response rate and median latency, yield rate and median latency, agent interruptions per persona
line, backchannels talked through, asides left alone, each with its event count.

    python benchmarks/turn_taking.py                                   # oracle, verbose, polite; all six
    python benchmarks/turn_taking.py --agent oracle --transport webrtc --turns 13 --scenario financial_analyst_lbo_model
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any


def _rate(r: dict[str, Any]) -> str:
    return "—" if r["rate"] is None else f"{r['rate']:.0%}/{r['events']}"


def _s(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agent", action="append", help="built-in agent (repeatable; default oracle, verbose, polite)")
    ap.add_argument("--scenario", action="append", help="scenario id (repeatable; default all)")
    ap.add_argument("--transport", default="inproc", choices=["inproc", "webrtc"])
    ap.add_argument("--turns", type=int, default=None, help="play only the first N turns")
    ap.add_argument("--concurrency", type=int, default=2)
    args = ap.parse_args()
    agents = args.agent or ["oracle", "verbose", "polite"]
    scenarios = args.scenario or ["all"]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "runs"
        cmd = [sys.executable, "-m", "modylbench.simulator.cli", "run", *scenarios, "--transport", args.transport,
               "--out", str(out), "--concurrency", str(args.concurrency)]
        for a in agents:
            cmd += ["--agent", a]
        if args.turns:
            cmd += ["--turns", str(args.turns)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode not in (0, 1) or not (out / "scorecard.json").exists():
            sys.exit(f"run failed ({done.returncode}): {done.stderr[-2000:]}")
        card = json.loads((out / "scorecard.json").read_text())
    print(f"{'scenario':<38} {'agent':<8} {'score':>5} {'R_R':>8} {'L_R p50':>7} {'R_Y':>7} {'L_Y p50':>7} "
          f"{'I_A':>5} {'S_BC':>7} {'S_ND':>7}")
    for e in sorted(card["scenarios"], key=lambda e: (e["scenario_id"], e["model_id"])):
        p = e.get("turn_taking")
        if p is None:
            print(f"{e['scenario_id']:<38} {e['model_id']:<8} no panel")
            continue
        ia = "—" if p["agent_interruption_rate"] is None else f"{p['agent_interruption_rate']:.2f}"
        score = "—" if e["modylbench_score"] is None else f"{e['modylbench_score']:.2f}"
        print(f"{e['scenario_id']:<38} {e['model_id']:<8} {score:>5} {_rate(p['response']):>8} "
              f"{_s(p['response_latency']['p50_s']):>7} {_rate(p['yielding']):>7} {_s(p['yield_latency']['p50_s']):>7} "
              f"{ia:>5} {_rate(p['backchannel']):>7} {_rate(p['non_directed']):>7}")
    print("rates as share/events; latencies in seconds (median); I_A per persona line; measured, not scored")


if __name__ == "__main__":
    main()
