"""``manifest.json`` says which code ran the meeting: the commit from a checkout, "unknown" from a copy."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from modylbench.simulator._session import UNKNOWN_COMMIT, git_commit

ROOT = Path(__file__).resolve().parents[2]


def test_a_checkout_reports_its_commit() -> None:
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    assert re.fullmatch(r"[0-9a-f]{40}", git_commit(ROOT / "simulator"))
    assert git_commit(ROOT / "simulator") == head


def test_an_installed_copy_says_unknown_not_some_other_repository(tmp_path: Path) -> None:
    # What `pip install .` leaves: the package's files under site-packages, no commit.
    site = tmp_path / "venv" / "lib" / "site-packages" / "modylbench"
    shutil.copytree(ROOT / "simulator", site / "simulator")
    assert git_commit(site / "simulator") == UNKNOWN_COMMIT
    # The same copy inside someone else's repository (a venv in their project) is still not that commit.
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'theirs'\n")
    (site / "pyproject.toml").write_text("")  # even if a pyproject.toml sits beside the copy
    subprocess.run([*git, "add", "pyproject.toml"], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "theirs"], cwd=tmp_path, check=True)
    assert git_commit(site / "simulator") == UNKNOWN_COMMIT
