"""``export-dataset`` writes a Hugging Face dataset folder: the real ``datasets`` package loads each config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from modylbench.scenarios.builtin import BUILTIN_IDS
from modylbench.simulator.cli import exit_code

datasets = pytest.importorskip("datasets")  # in the test extra; absent only in a bare install


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dataset")
    assert exit_code(["export-dataset", "--out", str(out)]) == 0
    return out


def _rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize(
    ("config", "rel", "key"),
    [("scenarios", "data/test.jsonl", "scenario_id"), ("edge_cases", "data/test_hard.jsonl", "edge_case_id")],
)
def test_each_config_loads_with_datasets(
    exported: Path, tmp_path: Path, config: str, rel: str, key: str
) -> None:
    ds = datasets.load_dataset(str(exported), config, cache_dir=str(tmp_path / "hf"))
    assert list(ds) == ["test"]  # one split per config: the files' columns differ
    rows = _rows(exported / rel)
    split = ds["test"]
    assert split.num_rows == len(rows) > 0
    assert set(split.column_names) == {k for r in rows for k in r}
    assert split[key] == [r[key] for r in rows]


def test_default_config_is_the_scenarios(exported: Path, tmp_path: Path) -> None:
    ds = datasets.load_dataset(str(exported), split="test", cache_dir=str(tmp_path / "hf"))
    assert "scenario_id" in ds.column_names and "edge_case_id" not in ds.column_names
    assert sorted(set(ds["scenario_id"])) == sorted(BUILTIN_IDS)


def test_card_front_matter_and_columns(exported: Path) -> None:
    text = (exported / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    front = text.split("---\n")[1]
    assert (
        "- config_name: scenarios\n  data_files:\n  - split: test\n    path: data/test.jsonl\n  default: true"
        in front
    )
    assert (
        "- config_name: edge_cases\n  data_files:\n  - split: test\n    path: data/test_hard.jsonl" in front
    )
    for row in (_rows(exported / "data" / "test.jsonl")[0], _rows(exported / "data" / "test_hard.jsonl")[0]):
        for column in row:
            assert f"| `{column}` |" in text, column
