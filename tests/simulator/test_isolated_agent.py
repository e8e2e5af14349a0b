"""An untrusted agent run isolated (issue 25, item 5): ``python -m modylbench.simulator.isolate`` runs a ``cmd:``
agent as another user in a mount namespace of its own. It still joins and is scored; it cannot read the
scenario's ground truth, the session folder or the harness's environment. The control shows the same probe,
not isolated, reads all three (so the test can fail)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from modylbench.record import read_record
from modylbench.simulator.isolate import ground_truth_paths

HERE = Path(__file__).resolve().parent
PROBE_AGENT = HERE / "isolation_probe.py"
MARKER = "OPENAI_API_KEY=sk-isolation-marker-7731"


def _probe_env(out: Path) -> str:
    truth = [str(p / "financial_analyst_lbo_model.json") for p in ground_truth_paths() if p.name == "data"]
    truth += [str(p) for p in ground_truth_paths()]
    return json.dumps({"ground_truth": truth, "session": [str(out)], "home": [str(Path.home())], "marker": MARKER})


def _isolation_unavailable() -> str | None:
    if sys.platform != "linux":
        return "isolation needs Linux"
    if os.geteuid() != 0:
        return "isolation needs the harness to run as root (change user, mount namespaces)"
    got = subprocess.run([sys.executable, "-m", "modylbench.simulator.isolate", "--", "true"],
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    return None if got.returncode == 0 else f"isolation is not available here: {got.stderr.strip()}"


def _seen(text: str) -> dict[str, object]:
    line = next(x for x in text.splitlines() if x.startswith("PROBE "))
    return dict(json.loads(line[len("PROBE "):]))


def _probe_under_a_harness(tmp_path: Path, *wrapper: str) -> dict[str, object]:
    """The probe, started by a parent whose environment holds the marker, optionally through ``wrapper``."""
    (tmp_path / "session.txt").write_text("the record")
    os.chmod(tmp_path, 0o755)
    os.chmod(tmp_path.parent, 0o755)
    env = {"PATH": os.environ["PATH"], "PROBE": _probe_env(tmp_path)}
    argv = [*wrapper, sys.executable, str(PROBE_AGENT), "--check-only"]
    parent = f"import subprocess; subprocess.run({argv!r}, env={env!r})"
    name, value = MARKER.split("=", 1)
    got = subprocess.run([sys.executable, "-c", parent], env={**env, name: value}, capture_output=True, text=True,
                         timeout=60)  # fmt: skip
    assert "PROBE " in got.stdout, got.stderr[-2000:]
    return _seen(got.stdout)


def test_the_probe_reads_everything_when_not_isolated(tmp_path: Path) -> None:
    seen = _probe_under_a_harness(tmp_path)
    assert seen["ground_truth"] and seen["session"] == [str(tmp_path)] and seen["home"] == [str(Path.home())]
    assert seen["harness_env"] is True and seen["own_env_secret"] is False


def test_isolated_the_probe_reads_none_of_it(tmp_path: Path) -> None:
    reason = _isolation_unavailable()
    if reason:
        pytest.skip(reason)
    seen = _probe_under_a_harness(tmp_path, sys.executable, "-m", "modylbench.simulator.isolate", "--hide",
                                  str(tmp_path), "--")  # fmt: skip
    assert seen["uid"] == 65534 and seen["cwd"] == "/"
    assert seen["ground_truth"] == [] and seen["session"] == [] and seen["harness_env"] is False
    assert seen["home"] == []  # the harness user's home is hidden (its interpreter, if there, is put back)
    # The harness's own view is untouched (the mounts were the agent's only).
    assert (tmp_path / "session.txt").read_text() == "the record"
    assert all(p.exists() and any(p.iterdir()) for p in ground_truth_paths())


def test_isolation_refuses_root_and_unknown_users() -> None:
    for user, says in (("root", "is root: that isolates nothing"), ("no-such-user-h25", "no such user")):
        got = subprocess.run([sys.executable, "-m", "modylbench.simulator.isolate", "--user", user, "--", "true"],
                             capture_output=True, text=True, timeout=60)  # fmt: skip
        assert got.returncode == 2 and len(got.stderr.strip().splitlines()) == 1
        if os.geteuid() == 0 and sys.platform == "linux":
            assert says in got.stderr, got.stderr


@pytest.mark.slow
def test_an_isolated_agent_joins_is_scored_and_reads_nothing_it_must_not(tmp_path: Path) -> None:
    """One turn over loopback WebRTC in real time (~90 s here)."""
    reason = _isolation_unavailable()
    if reason:
        pytest.skip(reason)
    out = tmp_path / "runs"
    out.mkdir()
    os.chmod(tmp_path, 0o755)  # only the isolation keeps the session folder from the agent, not pytest's mode
    os.chmod(tmp_path.parent, 0o755)
    agent = shlex.join([sys.executable, "-m", "modylbench.simulator.isolate", "--hide", str(out), "--",
                        sys.executable, str(PROBE_AGENT)])  # fmt: skip
    name, value = MARKER.split("=", 1)
    env = {**os.environ, name: value, "PROBE": _probe_env(out)}
    got = subprocess.run([sys.executable, "-m", "modylbench.simulator.cli", "run", "financial_analyst_lbo_model",
                          "--transport", "webrtc", "--turns", "1", "--agent", f"cmd:{agent}", "--agent-env", "PROBE",
                          "--out", str(out)], env=env, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert got.returncode == 0, got.stderr[-3000:]
    (folder,) = [p for p in out.iterdir() if p.is_dir()]
    seen = _seen((folder / "agent.stdout.log").read_text())
    assert seen["uid"] != 0 and seen["cwd"] == "/"
    assert seen["ground_truth"] == [] and seen["session"] == [] and seen["home"] == []
    assert seen["harness_env"] is False and seen["own_env_secret"] is False
    card = json.loads((folder / "scorecard.json").read_text())
    run = card["scenarios"][0]
    assert run["termination_reason"] == "max_turns" and run["turns"][0]["score"] is not None
    events = read_record(folder).events
    kinds = {e.event for e in events}
    assert "agent_speech" in kinds and "agent_error" not in kinds, kinds  # it was heard
