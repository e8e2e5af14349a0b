"""One name per session folder, the same from ``run`` and ``sweep``: a re-run reuses only the same configuration
(and says which sessions it reused); another configuration gets a folder of its own, never a reused result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from modylbench.simulator._sessionkey import SessionKey, agent_slug
from modylbench.simulator.cli import exit_code

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl"


def _run(out: Path, *args: str) -> list[str]:
    return ["run", "mini_fixture", "--scenarios", str(MINI), "--transport", "inproc", "--out", str(out),
            "--progress", "off", *args]


def test_the_folder_name_holds_everything_that_makes_two_sessions_different() -> None:
    base = SessionKey("lbo", "oracle", "oracle", "webrtc", None, 0, 0)
    assert base.name == "lbo__oracle__webrtc__all__seed0__t0"
    variants = [
        SessionKey("lbo", "oracle", "oracle", "inproc", None, 0, 0),
        SessionKey("lbo", "oracle", "oracle", "webrtc", 2, 0, 0),
        SessionKey("lbo", "oracle", "oracle", "webrtc", None, 3, 0),
        SessionKey("lbo", "oracle", "oracle", "webrtc", None, 0, 1),
        SessionKey("lbo", "null", "null", "webrtc", None, 0, 0),
        SessionKey("lbo", "oracle", "mine", "webrtc", None, 0, 0),  # --agent-name
        SessionKey("lbo", "cmd:python a.py", "python-a.py", "webrtc", None, 0, 0),
        SessionKey("lbo", "cmd:python  a.py", "python-a.py", "webrtc", None, 0, 0),  # the same slug, another command
        SessionKey("pipeline", "oracle", "oracle", "webrtc", None, 0, 0),
    ]
    names = [base.name, *(v.name for v in variants)]
    assert len(set(names)) == len(names), names
    assert agent_slug("python-a.py", "cmd:python a.py") != agent_slug("python-a.py", "cmd:python  a.py")


def test_a_slice_over_inproc_is_not_taken_for_the_whole_meeting_and_a_rerun_says_what_it_reused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runs"
    assert exit_code(_run(out)) == 0
    capsys.readouterr()
    # Another slice of the same scenario and agent: a session of its own, played, not the whole meeting's result.
    assert exit_code(_run(out, "--turns", "1")) == 0
    captured = capsys.readouterr()
    assert "skip" not in captured.err and "reused" not in captured.out + captured.err
    whole, one = (out / f"mini_fixture__oracle__inproc__{t}__seed0__t0" for t in ("all", "turns1"))
    assert json.loads((one / "responses.jsonl").read_text())["turns_played"] == 1
    assert json.loads((whole / "responses.jsonl").read_text())["turns_played"] == 4
    # The same configuration again: reused, and the summary names it.
    assert exit_code(_run(out, "--turns", "1")) == 0
    captured = capsys.readouterr()
    assert f"reused 1 complete session of the same configuration (not run again; --force runs them again): " \
           f"{one.name}" in captured.out
    assert json.loads((one / "manifest.json").read_text())["session"]["name"] == one.name


def test_a_folder_that_recorded_another_configuration_is_refused_not_reused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runs"
    assert exit_code(_run(out, "--turns", "1")) == 0
    folder = out / "mini_fixture__oracle__inproc__turns1__seed0__t0"
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["scenario_hash"] = "0" * 64  # as if the scenario file had changed since
    (folder / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert exit_code(_run(out, "--turns", "1")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds a complete session of another configuration" in err
    assert "another version of the scenario" in err and "--force replaces it" in err
    assert exit_code(_run(out, "--turns", "1", "--force")) == 0


def test_run_and_sweep_name_the_same_session_alike_and_share_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runs"
    assert exit_code(_run(out, "--turns", "2")) == 0
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(f'scenarios = ["mini_fixture"]\nscenario_files = ["{MINI}"]\nagents = ["oracle"]\n'
                     f'transports = ["inproc"]\nturns = [2]\n')
    capsys.readouterr()
    assert exit_code(["sweep", str(sweep), "--out", str(out), "--dry-run"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "complete mini_fixture__oracle__inproc__turns2__seed0__t0"


def _latencies(report: Path) -> list[str]:
    """The latency cell of each turn row in a report, in order."""
    import re

    rows = re.findall(r'<summary class="trow">(.*?)</summary>', report.read_text(encoding="utf-8"))
    return [re.findall(r"<span>(.*?)</span>", row)[3] for row in rows]  # #, phase, channel, latency


def test_the_summary_report_shows_the_latency_the_session_report_shows(tmp_path: Path) -> None:
    # OUT/report.html is drawn from the combined scorecard; it once had no responses and showed "—".
    out = tmp_path / "runs"
    assert exit_code(_run(out, "--turns", "2")) == 0
    session = out / "mini_fixture__oracle__inproc__turns2__seed0__t0"
    mine = _latencies(session / "report.html")
    assert len(mine) == 2 and any(v.endswith("s") for v in mine), mine
    assert _latencies(out / "report.html") == mine


def test_the_network_is_part_of_the_key_and_a_clean_session_keeps_its_name() -> None:
    from modylbench.channels import parse_profile

    base = SessionKey("lbo", "oracle", "oracle", "webrtc", None, 0, 0)
    assert SessionKey("lbo", "oracle", "oracle", "webrtc", None, 0, 0, network="clean").name == base.name
    mobile = SessionKey("lbo", "oracle", "oracle", "webrtc", None, 0, 0, network="mobile")
    assert mobile.name == "lbo__oracle__webrtc__net-mobile__all__seed0__t0"
    assert mobile.manifest_entry()["network"] == "mobile"
    # A custom profile is named by its canonical spec: two spellings of one network are one session.
    custom = parse_profile("delay=40ms,loss=0.02").key
    assert custom == parse_profile("loss=2%,delay=40ms").key == "loss=2%,delay=40ms"
    assert parse_profile("loss=0").key == parse_profile("clean").key == "clean"
    assert parse_profile("mobile").key == "mobile"
    named = SessionKey("lbo", "oracle", "oracle", "webrtc", None, 0, 0, network=custom).name
    assert named == "lbo__oracle__webrtc__net-loss_2pct_delay_40ms__all__seed0__t0"
    # Long specs are cut and hashed, never merged.
    long_a = parse_profile("down:loss=1%,delay=10ms,jitter=3ms,rate=2mbit;up:loss=2%,delay=20ms,jitter=4ms").key
    long_b = parse_profile("down:loss=1%,delay=10ms,jitter=3ms,rate=2mbit;up:loss=2%,delay=20ms,jitter=5ms").key
    names = {SessionKey("lbo", "oracle", "oracle", "webrtc", None, 0, 0, network=n).name for n in (long_a, long_b)}
    assert len(names) == 2 and all("/" not in n and ";" not in n for n in names)


def test_resume_sees_the_network_and_reads_a_key_recorded_before_it_as_clean() -> None:
    from modylbench.simulator._sessionkey import recorded_difference

    clean = SessionKey("lbo", "oracle", "oracle", "webrtc", None, 0, 0)
    mobile = SessionKey("lbo", "oracle", "oracle", "webrtc", None, 0, 0, network="mobile")
    older = {k: v for k, v in clean.manifest_entry().items() if k != "network"}  # written before networks
    from modylbench.record import Manifest

    assert recorded_difference(Manifest(session=older), clean.manifest_entry(), "h") is None
    assert recorded_difference(Manifest(session=older), mobile.manifest_entry(), "h") == "network 'clean', not 'mobile'"
    assert recorded_difference(Manifest(session=mobile.manifest_entry()), clean.manifest_entry(), "h") == \
        "network 'mobile', not 'clean'"


def _net_sweep(tmp_path: Path, networks: str, transports: str = '["inproc", "webrtc"]') -> Path:
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(f'scenarios = ["mini_fixture"]\nscenario_files = ["{MINI}"]\nagents = ["oracle"]\n'
                     f"transports = {transports}\nnetworks = {networks}\n")
    return sweep


def test_a_sweep_names_its_network_cells_as_run_does_and_plays_inproc_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # loss=0.02 and loss=2% are one network: one cell, named by the canonical spec.
    sweep = _net_sweep(tmp_path, '["clean", "mobile", "loss=0.02", "loss=2%"]')
    assert exit_code(["sweep", str(sweep), "--out", str(tmp_path / "out"), "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "4 cells: 4 todo"
    assert [ln.split()[-1] for ln in lines[:-1]] == [
        "mini_fixture__oracle__inproc__all__seed0__t0",
        "mini_fixture__oracle__webrtc__all__seed0__t0",
        "mini_fixture__oracle__webrtc__net-mobile__all__seed0__t0",
        "mini_fixture__oracle__webrtc__net-loss_2pct__all__seed0__t0",
    ]
    assert [ln.split()[-1] for ln in lines[:-1]][2] == \
        SessionKey("mini_fixture", "oracle", "oracle", "webrtc", None, 0, 0, network="mobile").name


def test_max_cells_counts_the_network_axis(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from modylbench.simulator import _sweep

    monkeypatch.setattr(_sweep, "MAX_CELLS", 3)
    sweep = _net_sweep(tmp_path, '["clean", "mobile", "congested", "lossy-burst"]', '["webrtc"]')
    assert exit_code(["sweep", str(sweep), "--out", str(tmp_path / "out"), "--dry-run"]) == 2
    assert "the sweep has 4 cells; at most 3" in capsys.readouterr().err
    sweep = _net_sweep(tmp_path, '["clean", "mobile", "congested"]', '["webrtc"]')
    assert exit_code(["sweep", str(sweep), "--out", str(tmp_path / "out"), "--dry-run"]) == 0


def test_comparison_labels_name_the_network_when_it_varies() -> None:
    from modylbench.record import Manifest, RunBasis, label

    old_cell = Manifest(sweep_cell={"agent": "oracle", "transport": "webrtc", "turns": None})  # no key, no network
    mobile = Manifest(session=SessionKey("lbo", "oracle", "oracle", "webrtc", None, 0, 0, network="mobile").manifest_entry())
    assert label("oracle", RunBasis.of_session(old_cell, turns=None), {"network"}) == "oracle [network clean]"
    assert label("oracle", RunBasis.of_session(mobile, turns=None), {"network"}) == "oracle [network mobile]"
    assert label("oracle", RunBasis.of_session(mobile, turns=None), set()) == "oracle"
