"""What a score rests on is checked (issue 25, item 4): replay verifies every attachment and the recording
against their hashes, a record line must be the bytes its hash was computed from, and sweep resume counts a
cell only once it verifies (saying what it refused)."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from modylbench.record import SessionFolder, read_record
from modylbench.scenarios import load_path
from modylbench.simulator import RunSpec, run_one, score_session
from modylbench.simulator._runner import verify_session
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


def _replay(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = exit_code(["replay", str(folder), "--scenarios", str(MINI)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def _copy(session: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "copy"
    shutil.copytree(session, folder)
    return folder


def test_the_sealed_record_holds_the_recordings_hash_and_replay_says_what_it_checked(
        session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    end = read_record(session).events[-1]
    assert end.event == "session_end" and end.recording_sha256 is not None
    code, err = _replay(session, capsys)
    assert code == 0 and "attachments and recording.wav match their hashes" in err


def _attachments(folder: Path) -> list[Path]:
    found = sorted(SessionFolder(folder).attachments.iterdir())
    assert found, "the oracle's session stores attachments (speech, files)"
    return found


@pytest.mark.parametrize("damage", ["swapped", "emptied", "deleted", "symlinked"])
def test_a_damaged_attachment_is_refused(session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         damage: str) -> None:
    folder = _copy(session, tmp_path)
    first, *rest = _attachments(folder)
    if damage == "swapped":
        other = rest[0] if rest else None
        assert other is not None
        a, b = first.read_bytes(), other.read_bytes()
        first.write_bytes(b)
        other.write_bytes(a)
    elif damage == "emptied":
        first.write_bytes(b"")
    elif damage == "deleted":
        first.unlink()
    else:
        outside = tmp_path / "outside"
        outside.write_bytes(first.read_bytes())
        first.unlink()
        first.symlink_to(outside)
    code, err = _replay(folder, capsys)
    assert code == 2 and err.startswith("error: record refused: attachments/"), err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("damage", ["replaced", "deleted"])
def test_a_replaced_or_missing_recording_is_refused(session: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str], damage: str) -> None:
    folder = _copy(session, tmp_path)
    wav = SessionFolder(folder).recording
    if damage == "replaced":
        data = bytearray(wav.read_bytes())
        data[-1] ^= 1
        wav.write_bytes(bytes(data))
    else:
        wav.unlink()
    code, err = _replay(folder, capsys)
    assert code == 2 and err.startswith("error: record refused: recording.wav"), err


@pytest.mark.parametrize("edit", ["duplicate_key", "space"])
def test_a_line_whose_bytes_differ_from_its_hashed_data_is_refused(session: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str],
                                                                   edit: str) -> None:
    folder = _copy(session, tmp_path)
    path = SessionFolder(folder).record
    lines = path.read_bytes().splitlines(keepends=True)
    # A duplicate key parses to the same data (the last value wins), so the hash over the data still matches.
    if edit == "duplicate_key":
        lines[1] = lines[1].replace(b'"data":{', b'"data":{"event":"forged",', 1)
    else:
        lines[1] = lines[1].replace(b'"data":{', b'"data": {', 1)
    path.write_bytes(b"".join(lines))
    code, err = _replay(folder, capsys)
    assert code == 2 and "record.jsonl:2: not the bytes the recorder writes" in err, err


# ------------------------------------------------------------------ sweep resume


def _sweep(tmp_path: Path) -> tuple[Path, Path]:
    path = tmp_path / "sweep.toml"
    out = tmp_path / "out"
    path.write_text(f'scenario_files = ["{MINI}"]\nscenarios = ["mini_fixture"]\nagents = ["oracle", "null"]\n'
                    f'transports = ["inproc"]\nout = "{out}"\n')
    return path, out


def test_sweep_resume_refuses_an_edited_a_planted_and_a_symlinked_cell(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, out = _sweep(tmp_path)
    assert exit_code(["sweep", str(path), "--progress", "off"]) == 0
    oracle, null = (next(out.glob(f"mini_fixture__{a}__*")) for a in ("oracle", "null"))
    scenario = load_path(MINI)[0]
    assert verify_session(null, scenario) is None

    # The null agent's scorecard edited to a perfect score.
    card = json.loads(SessionFolder(null).scorecard.read_text())
    card["modylbench_score"] = 10.0
    SessionFolder(null).scorecard.write_text(json.dumps(card))
    assert "scorecard.json is not what its record scores" in str(verify_session(null, scenario))
    # A planted cell: a copy of the oracle's session under another name.
    planted = out / "mini_fixture__planted__inproc__all__seed0__t0"
    shutil.copytree(oracle, planted)
    # The oracle's cell replaced by a link to a folder whose record fails replay.
    elsewhere = tmp_path / "elsewhere"
    oracle.rename(elsewhere)
    lines = SessionFolder(elsewhere).record.read_bytes().splitlines(keepends=True)
    SessionFolder(elsewhere).record.write_bytes(b"".join(lines[:-1]))
    oracle.symlink_to(elsewhere, target_is_directory=True)

    capsys.readouterr()
    assert exit_code(["sweep", str(path), "--progress", "off", "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert f"refused {null.name}: scorecard.json is not what its record scores" in captured.err
    assert f"refused {oracle.name}: {oracle.name} is a symbolic link" in captured.err
    assert "2 cells: 2 broken" in captured.out

    assert exit_code(["sweep", str(path), "--progress", "off"]) == 0
    err = capsys.readouterr().err
    assert f"refused {planted.name}: its manifest does not name it as a session of its own; left out of the results" in err
    board = json.loads((out / "leaderboard.json").read_text())
    assert board["cells"]["complete"] == 2
    scores = {r["model"]: r["modylbench_score"] for r in board["rows"]} if "modylbench_score" in board["rows"][0] \
        else None
    combined = json.loads((out / "scorecard.json").read_text())
    assert sorted(s["model_id"] for s in combined["scenarios"]) == ["null", "oracle"]
    assert scores is None or scores["null"] < 10.0
    assert elsewhere.exists()  # the link was moved aside, never what it points to
