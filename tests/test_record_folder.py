"""The session folder's names and manifest, and the one parser of PROVIDER/MODEL@BASE model specs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from modylbench.agents import make_agent
from modylbench.agents._reference import LLMAgent
from modylbench.personas import SpeechError, make_engine
from modylbench.record import (
    MANIFEST_VERSION,
    Manifest,
    ModelSpec,
    ModelSpecError,
    RecordIntegrityError,
    SessionFolder,
)
from modylbench.scenarios import load_builtin
from modylbench.scoring import JudgeSpecError, make_judges


def test_manifest_round_trips_and_a_missing_or_bad_one_reads_as_none(tmp_path: Path) -> None:
    files = SessionFolder(tmp_path)
    assert files.read_manifest() is None
    files.write_manifest(Manifest(complete=True, seed=3, record_last_hash="ab" * 32))
    back = files.read_manifest()
    assert back is not None and back.complete and back.seed == 3 and back.manifest_version == MANIFEST_VERSION
    written = json.loads(files.manifest.read_text())
    assert written["complete"] is True and written["seed"] == 3 and written["manifest_version"] == 1
    assert not list(tmp_path.glob("*.part"))  # written through a temporary file renamed into place
    assert files.sealed_hash() == "ab" * 32 and not files.is_scored()  # sealed, not scored yet
    files.manifest.write_text("[1, 2]")
    assert files.read_manifest() is None
    files.manifest.write_text("{not json")
    assert files.read_manifest() is None
    files.manifest.write_text('{"seed": "three"}')
    assert files.read_manifest() is None
    with pytest.raises(ValueError, match="seed"):
        files.read_manifest(strict=True)


def test_an_older_manifest_reads_and_keys_it_does_not_know_are_kept(tmp_path: Path) -> None:
    files = SessionFolder(tmp_path)
    # Written before the manifest had a version, by a later version with a key this one lacks.
    files.manifest.write_text(json.dumps({"complete": False, "scenario_id": "s", "seed": 2, "future_key": [1]}))
    m = files.read_manifest()
    assert m is not None and m.manifest_version == 1 and m.scenario_id == "s" and m.sealed_hash is None
    files.write_manifest(m.model_copy(update={"complete": True}))
    assert json.loads(files.manifest.read_text())["future_key"] == [1]


def test_the_seal_is_checked_on_the_folder(tmp_path: Path) -> None:
    files = SessionFolder(tmp_path)
    with pytest.raises(RecordIntegrityError, match="empty and unsealed"):
        files.check_seal(0, "x", None, False)
    sealed, why = files.check_seal(3, "x", "turn_end", False)
    assert not sealed and "NOT sealed" in why and "missing or unreadable" in why
    files.write_manifest(Manifest(complete=True, record_last_hash="a" * 64))
    assert files.check_seal(5, "a" * 64, "session_end", False)[0]
    with pytest.raises(RecordIntegrityError, match="cut off its end"):
        files.check_seal(4, "b" * 64, "turn_end", False)
    with pytest.raises(RecordIntegrityError, match="rewritten after it was sealed"):
        files.check_seal(5, "b" * 64, "session_end", False)
    with pytest.raises(RecordIntegrityError, match="partial line"):
        files.check_seal(5, "a" * 64, "session_end", True)


def test_folder_paths_are_the_published_names(tmp_path: Path) -> None:
    files = SessionFolder(tmp_path)
    names = {p.name for p in (files.record, files.manifest, files.recording, files.responses, files.scorecard,
                              files.report, files.lock)}
    assert names == {"record.jsonl", "manifest.json", "recording.wav", "responses.jsonl", "scorecard.json",
                     "report.html", "session.lock"}
    assert files.attachment("ab" * 32) == tmp_path / "attachments" / ("ab" * 32)
    assert not files.has_record()


@pytest.mark.parametrize(("text", "provider", "model", "base"), [
    ("openai", "openai", None, None),
    ("openai/gpt-4o", "openai", "gpt-4o", None),
    ("openai/gpt-4o@http://127.0.0.1:8000/v1", "openai", "gpt-4o", "http://127.0.0.1:8000/v1"),
    ("openai/meta-llama/Llama-3@http://u@host/v1", "openai", "meta-llama/Llama-3", "http://u@host/v1"),
    ("llm@http://127.0.0.1:9/v1", "llm", None, "http://127.0.0.1:9/v1"),
])
def test_model_spec_parses_and_prints_back(text: str, provider: str, model: str | None, base: str | None) -> None:
    spec = ModelSpec.parse(text)
    assert (spec.provider, spec.model, spec.base_url) == (provider, model, base)
    assert str(spec) == text


@pytest.mark.parametrize(("text", "why"), [
    ("openai/", "no model name after openai/"),
    ("openai/gpt-4o@", "no base URL after @"),
    ("/gpt-4o", "no provider"),
    ("", "no provider"),
])
def test_a_bad_model_spec_is_one_line_naming_it(text: str, why: str) -> None:
    with pytest.raises(ModelSpecError) as err:
        ModelSpec.parse(text)
    assert why in str(err.value) and repr(text) in str(err.value) and "\n" not in str(err.value)


def test_judges_agents_and_speech_read_specs_alike() -> None:
    (judge,) = make_judges(["openai/judge-model@http://127.0.0.1:9/v1"])
    assert (judge.model, judge.base_url) == ("judge-model", "http://127.0.0.1:9/v1")  # type: ignore[attr-defined]
    judge.close()
    with pytest.raises(JudgeSpecError, match="no base URL after @"):
        make_judges(["openai/judge-model@"])
    with pytest.raises(JudgeSpecError, match="unknown judge"):
        make_judges(["openai"])

    scenario = load_builtin()[0]
    agent = make_agent("llm/agent-model@http://127.0.0.1:9/v1", scenario)
    assert isinstance(agent, LLMAgent)
    assert (agent.model, agent.base_url) == ("agent-model", "http://127.0.0.1:9/v1")
    with pytest.raises(ModelSpecError, match="no model name after llm/"):
        make_agent("llm/", scenario)
    with pytest.raises(KeyError):
        make_agent("llmish", scenario)

    engine = make_engine("openai/tts-model@http://127.0.0.1:9/v1")
    assert (engine.model, engine.base_url) == ("tts-model", "http://127.0.0.1:9/v1")  # type: ignore[attr-defined]
    with pytest.raises(SpeechError, match="no base URL after @"):
        make_engine("openai/tts-model@")
    with pytest.raises(SpeechError, match="unknown speech engine"):
        make_engine("festival")
