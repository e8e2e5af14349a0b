"""Each built-in scenario's play script (docs/scenarios/<id>.md) is what the scenario renders to today, so a
reviewer reading it reads the meeting as it runs; and the script shows every turn's speaker, channel, payload and
expectations."""

from __future__ import annotations

from pathlib import Path

import pytest

from modylbench.scenarios import play_script
from modylbench.scenarios.builtin import BUILTIN_IDS, build
from modylbench.scenarios.builtin.__main__ import play_script_text
from modylbench.simulator.cli import main

DOCS = Path(__file__).resolve().parents[2] / "docs" / "scenarios"
REGENERATE = "python -m modylbench.scenarios.builtin --play-scripts docs/scenarios"


@pytest.mark.parametrize("scenario_id", BUILTIN_IDS)
def test_the_committed_play_script_is_current(scenario_id: str) -> None:
    path = DOCS / f"{scenario_id}.md"
    assert path.is_file(), f"{path} is missing: run {REGENERATE} {scenario_id}"
    assert path.read_text(encoding="utf-8") == play_script_text(scenario_id), (
        f"{path} is stale (the scenario changed): run {REGENERATE} {scenario_id}"
    )


def test_a_changed_scenario_makes_its_committed_script_stale() -> None:
    sid = BUILTIN_IDS[0]
    sc = build(sid, 0)
    turns = list(sc.turns)
    turns[3] = turns[3].model_copy(update={"human_utterance": "Let us skip the model and guess."})
    changed = play_script(sc.model_copy(update={"turns": turns}))
    committed = (DOCS / f"{sid}.md").read_text(encoding="utf-8")
    assert changed != committed and "> Let us skip the model and guess." in changed


def test_every_turn_shows_who_speaks_the_channel_what_is_shown_and_what_is_expected() -> None:
    sc = build("scientist_hypertension_trial", 0)
    text = play_script(sc)
    who = sc.human_persona.name
    assert text.count(f"**{who} says:**") == len(sc.turns)
    for t in sc.turns:
        assert f"### Turn {t.turn_index} · {t.phase.replace('_', ' ')} · {t.channel} · " in text
        assert t.expected_agent_action in text
        assert t.human_utterance.splitlines()[0] in text
        if t.screen is not None:
            assert f"**{t.screen.title}**" in text
        for f in t.files:
            assert f"`{f}`" in text
        for fact in t.expected_facts:
            assert fact.description in text
    for e in sc.edge_cases:
        assert f"### `{e.name}`" in text


def test_the_command_prints_or_writes_a_play_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sid = "optimization_solver_supply_chain"
    main(["play-script", sid])
    printed = capsys.readouterr().out
    assert printed == play_script_text(sid)
    out = tmp_path / "script.md"
    main(["play-script", sid, "--output", str(out)])
    assert out.read_text(encoding="utf-8") == printed
    with pytest.raises(SystemExit) as exit_:
        main(["play-script", "supply"])
    assert exit_.value.code == 2 and "unknown scenario 'supply'" in capsys.readouterr().err
