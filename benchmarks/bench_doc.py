"""Shared-document throughput: N agent edits through the doc-channel path, recorded, derived, rebuilt.

Each edit is made by an agent-side pycrdt replica (``AgentDoc``), encoded as a y-protocols sync message,
handled by the meeting's ``SharedDocument`` (shadow-doc guard, attribution) and written to a real
hash-chained record with periodic snapshots, exactly as in a meeting. Then the trajectory is derived
offline from the record, and the document is rebuilt at several moments.

Run: ``python benchmarks/bench_doc.py [--edits 100000] [--repeat 3]``; prints medians.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from pathlib import Path

from modylbench.agents._doc import AgentDoc
from modylbench.channels._shareddoc import SharedDocument
from modylbench.record import read_record
from modylbench.record._derive import derive_trajectory, rebuild_doc
from modylbench.record._doc import products_json
from modylbench.simulator._session import SessionRecorder


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class _BenchClock:
    """A clock the benchmark moves by hand (one edit every 10 ms of meeting time)."""

    t = 0.0

    def now(self) -> float:
        return self.t

    def wall_time(self) -> float:
        return 1.7e9 + self.t


def run_once(n_edits: int, snapshot_every: int, folder: Path) -> dict[str, float]:
    clock = _BenchClock()
    rec = SessionRecorder(folder, clock, snapshot_every)  # type: ignore[arg-type]
    shared = SharedDocument(on_update=rec.doc_update)
    rec.doc = shared
    writer = rec.writer
    agent = AgentDoc()
    for reply in shared.handle_message("agent", agent.hello()).replies:
        agent.receive(reply)
    agent.create_product("model", "spreadsheet", "Model", {})
    for msg in agent.take_outbox():
        shared.handle_message("agent", msg)
    rss0 = _rss_mb()
    t0 = time.perf_counter()
    for i in range(n_edits):
        clock.t = i * 0.01
        rec.turn_index = i * 52 // n_edits
        # A 200-row x 10-column sheet edited over and over: realistic cell writes, growing history.
        agent.set("model", f"/sheet/r{i % 200}/c{(i // 200) % 10}", float(i))
        for msg in agent.take_outbox():
            shared.handle_message("agent", msg)
    live = time.perf_counter() - t0
    writer.close()
    rss1 = _rss_mb()
    t1 = time.perf_counter()
    events = read_record(folder).events
    read_s = time.perf_counter() - t1
    t2 = time.perf_counter()
    mutations, doc = derive_trajectory(events)
    derive = time.perf_counter() - t2
    assert len(mutations) == n_edits + 1, len(mutations)
    assert products_json(doc) == shared.products()
    rebuilds = []
    for frac in (0.1, 0.5, 0.77, 0.999):
        at = frac * n_edits * 0.01
        t3 = time.perf_counter()
        rebuild_doc(events, at=at)
        rebuilds.append(time.perf_counter() - t3)
    return {
        "live_edits_per_s": n_edits / live,
        "record_mb": sum(f.stat().st_size for f in folder.iterdir() if f.is_file()) / 1e6,
        "rss_growth_mb": rss1 - rss0,
        "read_record_s": read_s,
        "derive_edits_per_s": n_edits / derive,
        "rebuild_max_s": max(rebuilds),
        "rebuild_median_s": statistics.median(rebuilds),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edits", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--snapshot-every", type=int, default=500)
    args = ap.parse_args()
    runs = []
    for r in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            runs.append(run_once(args.edits, args.snapshot_every, Path(tmp)))
        print(f"run {r + 1}: " + ", ".join(f"{k}={v:,.3f}" for k, v in runs[-1].items()), flush=True)
    print(f"\nmedians over {args.repeat} runs of {args.edits:,} agent edits (snapshot every {args.snapshot_every}):")
    targets = {"live_edits_per_s": ">= 3,000", "derive_edits_per_s": ">= 2,000", "rebuild_max_s": "< 1 s"}
    for key in runs[0]:
        med = statistics.median(run[key] for run in runs)
        print(f"  {key:<20} {med:>12,.3f}   {targets.get(key, '')}")


if __name__ == "__main__":
    main()
