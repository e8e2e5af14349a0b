"""The hash-chained session record: round trip, tamper detection, and reading a cut record."""

from __future__ import annotations

from pathlib import Path

import pytest

from modylbench.record import (
    ChatMessage,
    RecordIntegrityError,
    RecordWriter,
    SessionEnd,
    SessionStart,
    TurnStart,
    read_record,
)


def _write(folder: Path) -> list[object]:
    events: list[object] = [
        SessionStart(wall_time=1.0, meeting_time=0.0, scenario_id="s", scenario_hash="h", agent="a",
                     transport="inproc", turns_planned=2),
        TurnStart(wall_time=1.1, meeting_time=0.1, turn_index=0, phase="context_setting", channel="audio"),
        ChatMessage(wall_time=1.2, meeting_time=0.2, turn_index=0, sender="agent", text="héllo \"quoted\"\nline"),
        SessionEnd(wall_time=2.0, meeting_time=1.0, termination_reason="completed"),
    ]
    w = RecordWriter(folder)
    for e in events:
        w.append(e)  # type: ignore[arg-type]
    att = w.attach(b"abc", "text/plain")
    assert (folder / "attachments" / att.sha256).read_bytes() == b"abc"
    w.close()
    return events


def test_round_trip(tmp_path: Path) -> None:
    events = _write(tmp_path)
    read = read_record(tmp_path)
    assert read.events == events
    assert not read.truncated


def test_writer_refuses_to_overwrite(tmp_path: Path) -> None:
    _write(tmp_path)
    with pytest.raises(FileExistsError):
        RecordWriter(tmp_path)


def test_any_flipped_byte_is_refused(tmp_path: Path) -> None:
    _write(tmp_path)
    data = (tmp_path / "record.jsonl").read_bytes()
    last_nl = data.rstrip(b"\n").rfind(b"\n")
    for pos in range(0, len(data) - 1, 7):
        if data[pos : pos + 1] == b"\n":
            continue
        flipped = bytearray(data)
        flipped[pos] ^= 0x01
        (tmp_path / "record.jsonl").write_bytes(bytes(flipped))
        with pytest.raises(RecordIntegrityError) as info:
            read_record(tmp_path)
        assert "record.jsonl:" in str(info.value)
    assert last_nl > 0


def test_cut_record_reads_up_to_the_cut(tmp_path: Path) -> None:
    events = _write(tmp_path)
    data = (tmp_path / "record.jsonl").read_bytes()
    ends = [i + 1 for i, b in enumerate(data) if b == 0x0A]
    for cut in range(len(data) + 1):
        (tmp_path / "record.jsonl").write_bytes(data[:cut])
        read = read_record(tmp_path)
        # An entry whose JSON is whole but whose newline was cut still counts.
        complete = sum(1 for e in ends if e <= cut + 1)
        assert read.events == events[:complete], cut
        assert read.truncated == (cut not in ends and cut != 0)
