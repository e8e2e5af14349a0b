"""Hostile updates against the meeting's shared document: corrupt Yjs updates through ``handle_message``.

For each client id, a small document is built, then ``--steps`` corrupted copies of its updates (bit flips,
truncations, huge declared lengths, random bytes) are sent as an agent would. Prints how many were refused
and applied, how often the sandbox child had to be reset or replaced, and that this process survived.

    python benchmarks/fuzz_doc.py --first 1 --last 120 --steps 2000
"""

from __future__ import annotations

import argparse
import random
import time

from pycrdt import Array, Doc, Map

from modylbench.channels._shareddoc import SYNC_UPDATE, DocMessageError, SharedDocument, sync_message


def corrupt(rng: random.Random, base: bytes) -> bytes:
    u = bytearray(base)
    r = rng.random()
    if r < 0.4:
        for _ in range(rng.randint(1, 4)):
            p = rng.randrange(len(u))
            u[p] ^= 1 << rng.randrange(8)
    elif r < 0.6:
        u = u[: rng.randrange(len(u))]
    elif r < 0.8:
        p = rng.randrange(len(u))
        u[p : p + 1] = b"\xff\xff\xff\xff\x0f"
    else:
        u = bytearray(rng.randbytes(rng.randint(1, 64)))
    return bytes(u)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--last", type=int, default=20, help="last client id (exclusive)")
    ap.add_argument("--steps", type=int, default=2000)
    args = ap.parse_args()
    totals = {"sent": 0, "refused": 0, "applied": 0, "resets": 0, "restarts": 0}
    t0 = time.perf_counter()
    for cid in range(args.first, args.last):
        src = Doc(client_id=cid)
        root = src.get("products", type=Map)
        ups: list[bytes] = []
        src.observe(lambda e, ups=ups: ups.append(e.update))
        with src.transaction():
            root["p"] = Map({"type": "kv", "title": "t", "content": Map({"a": 1, "s": "hello", "l": Array([1, 2])})})
        for i in range(30):
            root["p"]["content"]["a"] = i
        shared = SharedDocument(sandbox_timeout=1.0)
        shared.apply_update("agent", ups[0])
        rng = random.Random(cid)
        for _ in range(args.steps):
            totals["sent"] += 1
            try:
                shared.handle_message("agent", sync_message(SYNC_UPDATE, corrupt(rng, rng.choice(ups))))
                totals["applied"] += 1
            except DocMessageError:
                totals["refused"] += 1
        totals["resets"] += shared.sandbox.resets
        totals["restarts"] += shared.sandbox.restarts
        shared.close()
    print(f"client ids {args.first}..{args.last - 1}, {args.steps} corrupt updates each, "
          f"{time.perf_counter() - t0:.1f} s; this process survived")
    for k, v in totals.items():
        print(f"  {k:<9} {v:>9,}")


if __name__ == "__main__":
    main()
