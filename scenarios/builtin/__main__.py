"""Rebuild the committed data files of the built-in scenarios (``python -m modylbench.scenarios.builtin [ID ...]``),
or, with ``--play-scripts DIR``, their play scripts (``DIR/<scenario_id>.md``, committed under docs/scenarios/)."""

from __future__ import annotations

import sys
from pathlib import Path

from modylbench.scenarios.builtin import BUILTIN_IDS, build, data_text, generate


def dump(scenario_id: str) -> str:
    """The committed text of a built-in scenario's data file."""
    return data_text(generate(scenario_id))


def play_script_text(scenario_id: str) -> str:
    """The committed play script of a built-in scenario: its published instance, turn by turn."""
    from modylbench.scenarios import play_script

    return play_script(build(scenario_id, 0))


def main(argv: list[str]) -> int:
    if argv[:1] == ["--play-scripts"]:
        if len(argv) < 2:
            print("usage: python -m modylbench.scenarios.builtin --play-scripts DIR [ID ...]", file=sys.stderr)
            return 2
        out = Path(argv[1])
        out.mkdir(parents=True, exist_ok=True)
        for sid in argv[2:] or list(BUILTIN_IDS):
            (out / f"{sid}.md").write_text(play_script_text(sid), encoding="utf-8")
            print(f"wrote {out / (sid + '.md')}")
        return 0
    out_dir = Path(__file__).resolve().parent.parent / "data"
    ids = argv or list(BUILTIN_IDS)
    for sid in ids:
        (out_dir / f"{sid}.json").write_text(dump(sid), encoding="utf-8")
        print(f"wrote {out_dir / (sid + '.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
