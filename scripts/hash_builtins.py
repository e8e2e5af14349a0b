"""Hash every built-in scenario as built at several seeds, to show a refactor leaves the builds byte-identical.

    python scripts/hash_builtins.py OUT_DIR [--seeds 0,1,2,3,7,42,108,999]

writes ``OUT_DIR/<scenario_id>.<seed>.json`` (the committed data file's text of that build), the committed
seed-0 file as ``<scenario_id>.committed``, and ``OUT_DIR/HASHES`` (one sha256 a line); run it before and after a
change and ``diff`` the two HASHES files.
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

from modylbench.scenarios.builtin import BUILTIN_IDS, build, data_text, generate


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seeds", default="0,1,2,3,7,42,108,999")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    lines = []
    for sid in BUILTIN_IDS:
        builds = [(str(s), data_text(generate(sid, s))) for s in seeds] + [("committed", data_text(build(sid, 0)))]
        for name, text in builds:
            (args.out / f"{sid}.{name}.json").write_text(text, encoding="utf-8")
            lines.append(f"{hashlib.sha256(text.encode()).hexdigest()}  {sid}.{name}")
    (args.out / "HASHES").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} builds hashed; all: {hashlib.sha256(chr(10).join(lines).encode()).hexdigest()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
