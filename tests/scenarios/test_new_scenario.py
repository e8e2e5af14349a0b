"""scripts/new_scenario.py writes a builder skeleton in the one layout that builds, validates and holds what every
built-in holds (tests/scenarios/test_invariants.py), at the published seed and at fresh ones."""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from modylbench.scenarios import (
    Scenario,
    designate_pushback,
    link_withheld,
    parse_scenario,
    play_script,
    to_public,
)
from modylbench.scenarios._kit import identity

from . import test_invariants as invariants

ROOT = Path(__file__).resolve().parents[2]
LAYOUT = {"__init__.py", "identity.toml", "data.py", "instances.py", "solver.py", "wording.py", "products.py",
          "knowledge.py", "script.py"}  # fmt: skip
SHARED = [
    invariants.test_phases_in_order_with_edge_cases_inside_the_work,
    invariants.test_each_edge_case_is_played_once_by_an_edge_turn,
    invariants.test_channel_payloads_waits_and_files,
    invariants.test_every_turn_has_facts_and_a_reference,
    invariants.test_edge_case_references_show_a_good_signal_and_no_bad_one,
    invariants.test_references_are_the_mutations_and_pass_every_criterion,
    invariants.test_an_instance_round_trips_the_public_format,
]
"""Every invariant of the built-ins except those a skeleton is too small for (20 turns with edits, three
products) or that need the committed data file."""


@pytest.fixture(scope="module")
def skeleton(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    root = tmp_path_factory.mktemp("skel")
    (root / "skelpkg").mkdir()
    (root / "skelpkg" / "__init__.py").write_text("")
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "new_scenario.py"), "analyst_unit_economics",
                           "unit_econ", "--into", str(root / "skelpkg")], capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    sys.path.insert(0, str(root))
    try:
        yield root / "skelpkg" / "unit_econ", "skelpkg.unit_econ"
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == "skelpkg" or m.startswith("skelpkg.")]:
            del sys.modules[name]


def _build(package: str, seed: int) -> Scenario:
    # What the registry does with a builder's scenario (modylbench.scenarios.builtin.generate).
    return designate_pushback(link_withheld(importlib.import_module(package).build(seed=seed)))


def test_the_skeleton_has_the_one_layout(skeleton: tuple[Path, str]) -> None:
    folder, _ = skeleton
    assert {f.name for f in folder.iterdir() if f.name != "__pycache__"} == LAYOUT
    for builtin in (ROOT / "scenarios" / "builtin").iterdir():
        if not (builtin / "script.py").is_file():
            continue
        names = {f.name for f in builtin.iterdir()}
        if "data.py" in names:
            assert LAYOUT <= names, builtin.name
        else:
            # A meeting built on another builder (the multi-party ones): its identity and script, and the
            # data, solver and wording of the builder it imports (docs/authoring.md "Several people").
            assert {"__init__.py", "identity.toml", "script.py"} <= names, builtin.name
            assert "from modylbench.scenarios.builtin" in (builtin / "script.py").read_text(), builtin.name


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_the_skeleton_builds_validates_and_holds_the_shared_invariants(skeleton: tuple[Path, str], seed: int) -> None:
    _, package = skeleton
    sc = _build(package, seed)
    assert not identity(package).breaks(sc)
    assert parse_scenario(to_public(sc), sc.scenario_id) == sc
    for check in SHARED:
        check(sc)
    assert "### Turn 7 · deliverable handoff · audio" in play_script(sc)


def test_fresh_seeds_draw_fresh_figures(skeleton: tuple[Path, str]) -> None:
    _, package = skeleton
    assert _build(package, 0).ground_truth != _build(package, 1).ground_truth


def test_the_script_refuses_a_bad_id_or_an_existing_folder(skeleton: tuple[Path, str]) -> None:
    folder, _ = skeleton
    script = str(ROOT / "scripts" / "new_scenario.py")
    for args in (["Not-Snake", "x"], ["fine_id", "unit_econ"]):
        done = subprocess.run([sys.executable, script, *args, "--into", str(folder.parent)], capture_output=True,
                              text=True)  # fmt: skip
        assert done.returncode == 2 and done.stderr.startswith("error: ") and done.stderr.count("\n") == 1
