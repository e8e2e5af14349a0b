"""The README's install, checked as a new user meets it: ``pip install .`` (not editable) into a fresh venv,
then, from outside the checkout, every built-in builds a fresh instance, plays a slice and is scored,
``export-dataset --seed 3`` writes all six, and the reports carry their assets.

Opt-in (``--run-install``; ``scripts/test.sh`` passes it): it installs the dependencies into a new venv, which
is quick from pip's cache and needs the package index otherwise. An editable install reads the checkout, so it
cannot show what the wheel leaves out; this test can (a hand-kept package list once left out every builder).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from modylbench.scenarios import builtin_ids

ROOT = Path(__file__).resolve().parent.parent
SEED = 3
# What a copy of the checkout leaves behind: it must build from the project's own files, not from a build/
# folder an earlier in-tree build left (setuptools packs stale files it finds there).
NOT_COPIED = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "runs",
                                    ".pytest_cache", ".mypy_cache", ".ruff_cache", "test-artifacts")

pytestmark = pytest.mark.install


def _mapped() -> dict[str, str]:
    with (ROOT / "pyproject.toml").open("rb") as fh:
        return dict(tomllib.load(fh)["tool"]["setuptools"]["package-dir"])


def _shipped_files() -> list[str]:
    """Every module and data file of the checkout's mapped folders, as paths inside the installed package."""
    out = []
    for name, folder in _mapped().items():
        top = ROOT / folder
        for f in top.rglob("*"):
            rel = f.relative_to(top)
            if f.is_file() and "__pycache__" not in rel.parts and not any(p.startswith(".") for p in rel.parts):
                out.append("/".join([*name.split("."), *rel.parts]))
    return sorted(out)


def _lowest_priority() -> None:
    # test.sh runs this check beside the rest of the suite, whose real-time meetings pace audio every 20 ms:
    # the install and its meetings take the CPU those leave idle, never theirs.
    os.nice(19)


def _sh(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 300) -> str:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          preexec_fn=_lowest_priority)
    assert done.returncode == 0, f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


# Run inside the fresh venv, from a folder outside the checkout: the installed package only.
CHECK = r"""
import json, sys
from pathlib import Path
import modylbench.scenarios as sc
from modylbench.scenarios.builtin import build
site = Path(sc.__file__).parents[2]  # site-packages
assert str(site).startswith(sys.prefix), f"modylbench imported from {site}, not the venv {sys.prefix}"
seed = int(sys.argv[1])
built = {sid: build(sid, seed) for sid in sc.builtin_ids()}
assert all(s.seed == seed for s in built.values()), {k: s.seed for k, s in built.items()}
print(json.dumps({"site": str(site), "built": sorted(built)}))
"""


def test_the_readme_install_holds_the_whole_product(tmp_path: Path) -> None:
    t0 = time.monotonic()
    src, venv, away = tmp_path / "checkout", tmp_path / "venv", tmp_path / "elsewhere"
    shutil.copytree(ROOT, src, ignore=NOT_COPIED)
    away.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    _sh([sys.executable, "-m", "venv", str(venv)], away, env)
    # -v: pip shows the build backend's own output, where setuptools prints its deprecation warnings.
    installed = _sh([str(venv / "bin" / "pip"), "install", "-v", str(src)], away, env)
    assert "SetuptoolsDeprecationWarning" not in installed
    t_install = time.monotonic() - t0
    bin_ = venv / "bin"

    # Every module and data file the checkout has is in the installed package.
    site = Path(json.loads(_sh([str(bin_ / "python"), "-c", CHECK, str(SEED)], away, env).splitlines()[-1])["site"])
    missing = [rel for rel in _shipped_files() if not (site / rel).is_file()]
    assert not missing, f"the wheel leaves out {len(missing)} files of the checkout: {missing[:20]}"

    # An in-process slice of each built-in, instance 3, played and scored by the installed command.
    runs = away / "runs"
    _sh([str(bin_ / "modylbench"), "run", "all", "--agent", "oracle", "--transport", "inproc", "--turns", "1",
         "--seed", str(SEED), "--out", str(runs)], away, env)
    sessions = sorted(p for p in runs.iterdir() if p.is_dir())
    assert [p.name.split("__")[0] for p in sessions] == sorted(builtin_ids()), [p.name for p in sessions]
    css = (ROOT / "scoring" / "report" / "report.css").read_text(encoding="utf-8")
    for folder in [*sessions, runs]:
        card = json.loads((folder / "scorecard.json").read_text(encoding="utf-8"))
        assert card["scenarios"] and all(s["modylbench_score"] is not None for s in card["scenarios"]), folder
        report = (folder / "report.html").read_text(encoding="utf-8")
        assert css.strip()[:200] in report, f"{folder}/report.html lacks the report's stylesheet"
    for folder in sessions:
        assert json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["seed"] == SEED

    # serve's ready-to-paste command runs the installed example agent (python -m modylbench.examples.echo_agent).
    usage = subprocess.run([str(bin_ / "python"), "-m", "modylbench.examples.echo_agent"], cwd=away, env=env,
                           capture_output=True, text=True, timeout=60, preexec_fn=_lowest_priority)
    assert usage.returncode == 1 and "usage: echo_agent.py URL TOKEN" in usage.stderr, usage.stderr[-2000:]

    out = away / "dataset"
    _sh([str(bin_ / "modylbench"), "export-dataset", "--out", str(out), "--seed", str(SEED)], away, env)
    rows = [json.loads(line) for line in (out / "data" / "test.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(r["scenario_id"] for r in rows) == sorted(builtin_ids())
    assert (out / "data" / "test_hard.jsonl").stat().st_size > 0 and (out / "README.md").is_file()
    print(f"fresh-venv check: install {t_install:.0f} s, whole check {time.monotonic() - t0:.0f} s; "
          f"{len(_shipped_files())} files shipped, {len(sessions)} sessions run at seed {SEED}")
