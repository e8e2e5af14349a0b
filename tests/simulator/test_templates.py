"""The agent is told what to deliver: templates in the doc before turn 0 (the persona's, not the agent's),
the persona's chat naming them, turns_played in the responses, and --seed reaching the builders."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from pathlib import Path
from typing import Any

import pytest

from modylbench.record import (
    ChatMessage,
    DocUpdate,
    PersonaUtterance,
    TurnStart,
    derive_responses,
    products_json,
    read_record,
    rebuild_doc,
)
from modylbench.record._derive import derive_trajectory
from modylbench.scenarios import ScenarioLoadError, load_builtin, resolve_scenarios, to_public
from modylbench.scenarios import builtin as builtins
from modylbench.simulator import MeetingOptions, RunSpec, run_one, score_session
from modylbench.simulator.cli import exit_code

SCENARIOS = {s.scenario_id: s for s in load_builtin()}
LBO = SCENARIOS["financial_analyst_lbo_model"]


def _run(agent: str, folder: Path, turns: int | None = None) -> Any:
    asyncio.run(run_one(RunSpec(LBO, agent, folder, meeting=MeetingOptions(turns=turns))))
    return score_session(folder, SCENARIOS, ["offline"]).scenarios[0]


def test_templates_are_the_personas_and_in_the_doc_before_turn_0(tmp_path: Path) -> None:
    folder = tmp_path / "null"
    entry = _run("null", folder, turns=3)
    events = read_record(folder).events
    first_turn = next(i for i, e in enumerate(events) if isinstance(e, TurnStart))
    before = [e for e in events[:first_turn] if isinstance(e, DocUpdate)]
    assert before and all(e.origin == "persona" and e.turn_index is None for e in before)
    doc = products_json(rebuild_doc(events, at=events[first_turn].meeting_time))
    assert {pid: (p["type"], p["title"], p["content"]) for pid, p in doc.items()} == {
        p.product_id: (p.output_type, p.title, json.loads(json.dumps(p.initial_content))) for p in LBO.products}
    # None of it is the agent's: no trajectory, no work products, although the doc holds all three.
    mutations, final = derive_trajectory(events)
    assert mutations == [] and len(products_json(final)) == len(LBO.products)
    responses = json.loads((folder / "responses.jsonl").read_text())
    assert responses["work_products"] == [] and responses["mutation_trajectory"] == []
    assert entry.destination is None or entry.destination < 4.0


def test_persona_names_the_deliverables_in_chat_at_turn_0(tmp_path: Path) -> None:
    folder = tmp_path / "null"
    _run("null", folder, turns=1)
    events = read_record(folder).events
    chats = [e for e in events if isinstance(e, ChatMessage) and e.sender == "persona"]
    assert chats and chats[0].turn_index == 0
    for p in LBO.products:
        assert p.product_id in chats[0].text and p.title in chats[0].text
    # Said before the persona's first utterance, which stays as scripted.
    first_utt = next(e for e in events if isinstance(e, PersonaUtterance))
    assert events.index(chats[0]) < events.index(first_utt)
    assert first_utt.text == LBO.turns[0].human_utterance


def test_oracle_fills_the_templates_and_still_scores_top(tmp_path: Path) -> None:
    folder = tmp_path / "oracle"
    entry = _run("oracle", folder, turns=8)  # through turn 6, where the model is built
    assert entry.modylbench_score is not None and entry.modylbench_score >= 9.9, entry.flags
    events = read_record(folder).events
    responses = derive_responses(events)
    model = next(w for w in responses.work_products if w.product_id == "lbo_model")
    reference = LBO.product("lbo_model").reference  # type: ignore[union-attr]
    assert model.content["assumptions"]["ltm_revenue"] == reference["assumptions"]["ltm_revenue"]
    # Every sheet of the template is still there (the oracle did not replace the product).
    assert set(LBO.product("lbo_model").initial_content) <= set(model.content)  # type: ignore[union-attr]
    assert all(m.mutation_type != "create" for m in responses.mutation_trajectory or [])
    assert responses.turns_played == 8


def test_turns_played_is_written_by_a_turns_slice(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    assert exit_code(["run", LBO.scenario_id, "--transport", "inproc", "--turns", "2", "--out", str(out)]) == 0
    line = json.loads((out / f"{LBO.scenario_id}__oracle__inproc__turns2__seed0__t0" / "responses.jsonl").read_text())
    assert line["turns_played"] == 2


def _seeded() -> str:
    """A built-in whose builder draws fresh instances (all six have ``build(seed)`` by now)."""
    import importlib

    for sid, mod in builtins.BUILDERS.items():
        module = importlib.import_module(f"modylbench.scenarios.builtin.{mod}")
        if "seed" in inspect.signature(module.build).parameters:
            return sid
    pytest.skip("no built-in scenario takes a seed yet")


def test_seed_zero_is_the_committed_data_and_seed_n_a_fresh_instance() -> None:
    sid = _seeded()
    assert builtins.build(sid, 0) == SCENARIOS[sid]
    fresh = resolve_scenarios(seed=7, only=[sid])
    assert list(fresh) == [sid]
    assert fresh[sid].seed == 7 and fresh[sid] != SCENARIOS[sid]
    # The same meeting (script shape, products, templates) on new numbers.
    assert [t.phase for t in fresh[sid].turns] == [t.phase for t in SCENARIOS[sid].turns]
    assert [p.product_id for p in fresh[sid].products] == [p.product_id for p in SCENARIOS[sid].products]


def test_a_builder_without_seeds_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    import importlib

    module = importlib.import_module(f"modylbench.scenarios.builtin.{builtins.BUILDERS[LBO.scenario_id]}")

    def build() -> Any:  # the signature builders had before they took a seed
        return LBO

    monkeypatch.setattr(module, "build", build)
    with pytest.raises(ScenarioLoadError, match="cannot build fresh instances yet"):
        builtins.build(LBO.scenario_id, 3)
    assert builtins.build(LBO.scenario_id, 0) == LBO  # seed 0 still reads the data file
    assert exit_code(["export-dataset", "--out", "/nonexistent-never-written", "--seed", "3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {LBO.scenario_id}: this built-in scenario cannot build fresh instances yet")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_seed_flags_reach_the_builder_and_the_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sid = _seeded()
    out = tmp_path / "runs"
    assert exit_code(["run", sid, "--transport", "inproc", "--turns", "2", "--seed", "5", "--out", str(out)]) == 0
    folder = out / f"{sid}__oracle__inproc__turns2__seed5__t0"
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["seed"] == 5 and manifest["seeds"]["scenario"] == 5
    capsys.readouterr()
    assert exit_code(["replay", str(folder)]) == 0
    assert "matches the scorecard the run wrote" in capsys.readouterr().err
    export = tmp_path / "export"
    assert exit_code(["export-dataset", "--out", str(export), "--seed", "5"]) == 0
    rows = {json.loads(line)["scenario_id"]: json.loads(line)
            for line in (export / "data" / "test.jsonl").read_text().splitlines()}
    assert rows[sid] == json.loads(json.dumps(to_public(builtins.build(sid, 5))))
    ours = json.loads(rows[sid]["metadata"])["modylbench"]
    assert ours["seed"] == 5
    # The export carries what the agent is asked to deliver: every product's template.
    products = ours["products"]
    assert products and all(p.get("template") for p in products)
    for flag_cmd in (["run"], ["serve"], ["export-dataset"], ["replay"]):
        capsys.readouterr()
        exit_code([*flag_cmd, "--help"])
        help_text = capsys.readouterr().out
        # replay takes no --seed option: it reads the manifest's.
        assert bool(re.search(r"^\s+--seed\b", help_text, re.M)) == (flag_cmd != ["replay"]), flag_cmd
