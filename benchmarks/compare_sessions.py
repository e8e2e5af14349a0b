"""Compare two folders of sessions (``modylbench run ... --out A`` with one code, ``--out B`` with another), session
by session: the record's events (wall-clock fields aside), scorecard, manifest, ``responses.jsonl``,
``recording.wav`` and attachments. What differs between any two runs of the same code is left out: wall-clock
fields, the hash chain over them, the random Yjs client ids inside document updates (and so their sizes), random
file ids, the process; a file transfer's meeting time may differ by the time its hashing thread took (meeting time
flows at the wall rate meanwhile), so it is compared within 50 ms and the largest difference printed.

    modylbench run all --agent oracle --agent polite --transport inproc --out /tmp/before   # with today's code
    modylbench run all --agent oracle --agent polite --transport inproc --out /tmp/after    # with the new code
    python benchmarks/compare_sessions.py /tmp/before /tmp/after
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

WALLISH = ("wall", "elapsed", "duration_s", "generated", "created", "started_at", "ended_at", "timestamp", "cpu")
RANDOM = {"update", "state", "file_id", "record_last_hash", "git_commit", "pid", "hostname"}


def clean(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items() if not any(w in k.lower() for w in WALLISH) and k not in RANDOM}
    if isinstance(x, list):
        return [clean(v) for v in x]
    return x


def diff(a: Any, b: Any, path: str = "") -> list[str]:
    out: list[str] = []
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}.{k}: only in {'after' if k not in a else 'before'}")
            else:
                out += diff(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            out += diff(x, y, f"{path}[{i}]")
    elif a != b:
        out.append(f"{path}: {str(a)[:80]} != {str(b)[:80]}")
    return out


def sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def lines(p: Path) -> list[Any]:
    return [json.loads(line) for line in p.read_text().splitlines()]


def compare(a: Path, b: Path, flows: list[float]) -> tuple[list[str], int, int]:
    """What differs between session folders ``a`` and ``b``; the number of events and attachments."""
    problems: list[str] = []
    ra, rb = [clean(e["data"]) for e in lines(a / "record.jsonl")], [clean(e["data"]) for e in lines(b / "record.jsonl")]
    for x, y in zip(ra, rb, strict=False):
        if "update" in x or x.get("event") == "doc_update":
            x.pop("size", None)  # the random Yjs client id's varint length
            y.pop("size", None)
        if x.get("event") == y.get("event") == "file_transfer" and abs(x["meeting_time"] - y["meeting_time"]) < 0.05:
            flows.append(abs(x["meeting_time"] - y["meeting_time"]))
            y["meeting_time"] = x["meeting_time"]
    if len(ra) != len(rb):
        problems.append(f"record: {len(ra)} != {len(rb)} events")
    problems += ["record" + d for d in diff(ra, rb)][:5]
    for f in ("scorecard.json", "manifest.json"):
        problems += [f + d for d in diff(clean(json.loads((a / f).read_text())), clean(json.loads((b / f).read_text())))]
    problems += ["responses.jsonl" + d for d in diff(clean(lines(a / "responses.jsonl")), clean(lines(b / "responses.jsonl")))][:5]
    if sha(a / "recording.wav") != sha(b / "recording.wav"):
        problems.append("recording.wav differs")
    atta = sorted(sha(p) for p in (a / "attachments").rglob("*") if p.is_file())
    attb = sorted(sha(p) for p in (b / "attachments").rglob("*") if p.is_file())
    if atta != attb:
        problems.append(f"attachments differ ({len(atta)} vs {len(attb)})")
    return problems, len(ra), len(atta)


def main() -> None:
    before, after = Path(sys.argv[1]), Path(sys.argv[2])
    same, compared = 0, 0
    flows: list[float] = []
    for name in sorted(p.name for p in before.iterdir() if (p / "scorecard.json").exists()):
        if not (after / name / "scorecard.json").exists():
            print(f"{name}: not in {after}")
            continue
        compared += 1
        problems, events, attachments = compare(before / name, after / name, flows)
        if problems:
            print(f"{name}: DIFFERENT")
            for p in problems[:12]:
                print("   ", p)
        else:
            same += 1
            print(f"{name}: identical ({events} events, {attachments} attachments)")
    print(f"{same} of {compared} sessions compared identical; file transfers' meeting times compared within 50 ms: "
          f"{len(flows)}, largest difference {max(flows, default=0.0) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
