"""The session folder's names and manifest, and the one parser of PROVIDER/MODEL@BASE model specs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from modylbench.agents._reference import LLMAgent, make_agent
from modylbench.personas import SpeechError, make_engine
from modylbench.record import ModelSpec, ModelSpecError, SessionFolder
from modylbench.scenarios import load_builtin
from modylbench.scoring import JudgeSpecError, make_judges


def test_manifest_round_trips_and_a_missing_or_bad_one_reads_as_none(tmp_path: Path) -> None:
    files = SessionFolder(tmp_path)
    assert files.read_manifest() is None
    files.write_manifest({"complete": True, "seed": 3})
    assert files.read_manifest() == {"complete": True, "seed": 3}
    assert json.loads(files.manifest.read_text()) == {"complete": True, "seed": 3}
    assert not list(tmp_path.glob("*.part"))  # written through a temporary file renamed into place
    files.manifest.write_text("[1, 2]")
    assert files.read_manifest() is None
    files.manifest.write_text("{not json")
    assert files.read_manifest() is None


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
