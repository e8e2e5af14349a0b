"""Rebuild the committed data files of the built-in scenarios."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from modylbench.scenarios._public import to_public
from modylbench.scenarios.builtin import available, generate


def dump(scenario_id: str) -> str:
    """The committed text of a built-in scenario's data file."""
    return json.dumps(to_public(generate(scenario_id)), indent=1, ensure_ascii=False, sort_keys=False) + "\n"


def main(argv: list[str]) -> int:
    out_dir = Path(__file__).resolve().parent.parent / "data"
    ids = argv or available()
    for sid in ids:
        (out_dir / f"{sid}.json").write_text(dump(sid), encoding="utf-8")
        print(f"wrote {out_dir / (sid + '.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
