"""Replay checks the record against the seal in manifest.json and refuses bad records in one line (issue 14, items 4, 9)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from modylbench.record import GENESIS
from modylbench.scenarios import load_path
from modylbench.simulator import RunSpec, run_one, score_session
from modylbench.simulator.cli import exit_code

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sealed") / "s"
    scenarios = {s.scenario_id: s for s in load_path(MINI)}
    asyncio.run(run_one(RunSpec(scenarios["mini_fixture"], "oracle", folder)))
    score_session(folder, scenarios, ["offline"])
    return folder


def _copy(session: Path, tmp_path: Path, edit: Callable[[Path], None]) -> Path:
    folder = tmp_path / "copy"
    shutil.copytree(session, folder)
    edit(folder)
    return folder


def _replay(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = exit_code(["replay", str(folder), "--scenarios", str(MINI)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def _rechain(folder: Path, change: Callable[[int, dict], str | None]) -> None:
    """Rewrite the record with a recomputed chain; ``change`` may edit an event and return its JSON text."""
    lines = (folder / "record.jsonl").read_text(encoding="utf-8").splitlines()
    prev, out = GENESIS, []
    for i, line in enumerate(lines):
        data = json.loads(line)["data"]
        body = change(i, data) or json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        h = hashlib.sha256((prev + "\n" + body).encode()).hexdigest()
        out.append(f'{{"seq":{i},"prev":"{prev}","hash":"{h}","data":{body}}}')
        prev = h
    (folder / "record.jsonl").write_text("\n".join(out) + "\n", encoding="utf-8")


def test_a_sealed_record_replays_and_says_it_is_sealed(session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _replay(session, capsys)
    assert code == 0
    assert "hash chain intact and sealed" in err and "matches the scorecard the run wrote" in err


def test_lines_cut_off_the_end_of_a_sealed_record_are_detected(session: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    def cut(folder: Path) -> None:
        lines = (folder / "record.jsonl").read_bytes().splitlines(keepends=True)
        (folder / "record.jsonl").write_bytes(b"".join(lines[:-3]))

    code, err = _replay(_copy(session, tmp_path, cut), capsys)
    assert code == 2
    assert err.startswith("error: record refused: manifest.json sealed the record at hash")
    assert "shorter than what was sealed" in err and len(err.strip().splitlines()) == 1


def test_a_rewritten_sealed_record_is_refused(session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def change(i: int, data: dict) -> None:
        if data["event"] == "chat_message":
            data["text"] = "forged"

    code, err = _replay(_copy(session, tmp_path, lambda f: _rechain(f, change)), capsys)
    assert code == 2 and "rewritten after it was sealed" in err


def test_an_unsealed_record_replays_and_says_so(session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def crash(folder: Path) -> None:
        manifest = json.loads((folder / "manifest.json").read_text())
        manifest["complete"] = False
        del manifest["record_last_hash"]
        (folder / "manifest.json").write_text(json.dumps(manifest))
        lines = (folder / "record.jsonl").read_bytes().splitlines(keepends=True)
        (folder / "record.jsonl").write_bytes(b"".join(lines[:-3]))
        (folder / "scorecard.json").unlink()

    code, err = _replay(_copy(session, tmp_path, crash), capsys)
    assert code == 0 and "record NOT sealed" in err


def test_an_empty_record_is_a_one_line_error(session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def killed_at_start(folder: Path) -> None:
        (folder / "record.jsonl").write_bytes(b"")
        manifest = json.loads((folder / "manifest.json").read_text())
        manifest["complete"] = False
        del manifest["record_last_hash"]
        (folder / "manifest.json").write_text(json.dumps(manifest))

    code, err = _replay(_copy(session, tmp_path, killed_at_start), capsys)
    assert code == 2 and err.startswith("error: ") and "record is empty" in err
    assert len(err.strip().splitlines()) == 1


def test_nan_in_event_data_with_a_recomputed_chain_is_refused(session: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    def change(i: int, data: dict) -> str | None:
        if i == 2:
            data["meeting_time"] = float("nan")
            return json.dumps(data, sort_keys=True, separators=(",", ":"))  # writes NaN
        return None

    code, err = _replay(_copy(session, tmp_path, lambda f: _rechain(f, change)), capsys)
    assert code == 2 and err.startswith("error: record refused: record.jsonl:3: NaN is not valid JSON")


@pytest.mark.parametrize("depth", [40, 5_000, 200_000])
def test_a_deeply_nested_appended_line_is_refused(session: Path, tmp_path: Path, depth: int,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    def append(folder: Path) -> None:
        lines = (folder / "record.jsonl").read_text().splitlines()
        last = json.loads(lines[-1])
        nest = "[" * depth + "]" * depth
        with (folder / "record.jsonl").open("a") as fh:
            fh.write(f'{{"seq":{len(lines)},"prev":"{last["hash"]}","hash":"x","data":{{"event":"chat_message",'
                     f'"x":{nest}}}}}\n')

    code, err = _replay(_copy(session, tmp_path, append), capsys)
    assert code == 2 and err.startswith("error: record refused: record.jsonl:")
    assert len(err.strip().splitlines()) == 1


def test_a_record_line_longer_than_the_limit_is_refused_not_taken_for_a_cut(
        session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from modylbench.record import _store

    def grow(folder: Path) -> None:
        lines = (folder / "record.jsonl").read_bytes().splitlines(keepends=True)
        lines[1] = lines[1][:-1] + b" " * 4096 + b"\n"  # whitespace: same JSON, a longer line
        (folder / "record.jsonl").write_bytes(b"".join(lines))

    monkeypatch.setattr(_store, "MAX_RECORD_LINE", 2048)
    code, err = _replay(_copy(session, tmp_path, grow), capsys)
    assert code == 2 and "record.jsonl:2: line longer than" in err


def test_replay_refuses_a_folder_another_process_is_writing(session: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    import subprocess
    import sys

    folder = _copy(session, tmp_path, lambda f: None)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from modylbench.record import SessionLock; "
         "SessionLock(sys.argv[1]).acquire(); print('held', flush=True); sys.stdin.read()", str(folder)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        code, err = _replay(folder, capsys)
        assert code == 2 and f"being written by another process (pid {holder.pid})" in err
    finally:
        holder.communicate("")
    assert _replay(folder, capsys)[0] == 0


def test_the_same_agent_named_twice_is_one_session(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs"
    assert exit_code(["run", "mini_fixture", "--scenarios", str(MINI), "--agent", "oracle", "--agent", "oracle",
                 "--transport", "inproc", "--concurrency", "2", "--out", str(out)]) == 0
    card = json.loads((out / "scorecard.json").read_text())
    assert [e["model_id"] for e in card["scenarios"]] == ["oracle"]


@pytest.mark.parametrize("forgery", ["bad_base64", "negative_turn"])
def test_a_forged_record_with_a_recomputed_chain_and_seal_is_a_one_line_error(
        session: Path, tmp_path: Path, forgery: str, capsys: pytest.CaptureFixture[str]) -> None:
    def change(i: int, data: dict) -> None:
        if forgery == "bad_base64" and data["event"] == "doc_update":
            data["update"] = "!!!notbase64"
        if forgery == "negative_turn" and data.get("turn_index") is not None:
            data["turn_index"] = -3

    def forge(folder: Path) -> None:
        _rechain(folder, change)
        last = json.loads((folder / "record.jsonl").read_text().splitlines()[-1])["hash"]
        manifest = json.loads((folder / "manifest.json").read_text())
        manifest["record_last_hash"] = last
        (folder / "manifest.json").write_text(json.dumps(manifest))

    code, err = _replay(_copy(session, tmp_path, forge), capsys)
    assert code == 2 and "error: record refused:" in err and "its events do not make a meeting" in err
