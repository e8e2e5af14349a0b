"""Rebuild the committed data files of the built-in scenarios."""

from __future__ import annotations

import sys
from pathlib import Path

from modylbench.scenarios.builtin import BUILTIN_IDS, data_text, generate


def dump(scenario_id: str) -> str:
    """The committed text of a built-in scenario's data file."""
    return data_text(generate(scenario_id))


def main(argv: list[str]) -> int:
    out_dir = Path(__file__).resolve().parent.parent / "data"
    ids = argv or list(BUILTIN_IDS)
    for sid in ids:
        (out_dir / f"{sid}.json").write_text(dump(sid), encoding="utf-8")
        print(f"wrote {out_dir / (sid + '.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
