"""The report's CSS and JavaScript are package files: read through importlib.resources, shipped in a build."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from importlib import resources
from pathlib import Path

from modylbench.scoring.report import build_report

from .conftest import ROOT

ASSETS = ("report.css", "report.js")


def test_css_and_js_are_package_resources_inlined_in_the_page(scored, scenarios) -> None:  # type: ignore[no-untyped-def]
    card, resp = scored["correct"]
    text = build_report([card], responses=[resp], scenarios=scenarios)
    files = resources.files("modylbench.scoring.report")
    css, js = (files.joinpath(name).read_text(encoding="utf-8") for name in ASSETS)
    assert "details.turn" in css and "data-seek" in js
    assert f"<style>\n{css}</style>" in text and f"<script>\n{js}</script>" in text


def test_a_build_ships_css_and_js(tmp_path: Path) -> None:
    # setuptools' build_py lays out exactly what a wheel holds; a copy of pyproject.toml (and the
    # package folders as links) keeps its egg-info out of the repository.
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "setup.py"):
        shutil.copy(ROOT / name, src / name)
    # Every folder pyproject.toml maps to a package (a new top-level folder is picked up by itself).
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    for folder in set(mapping.values()):
        os.symlink(ROOT / folder, src / folder)
    out = tmp_path / "lib"
    proc = subprocess.run(
        [
            sys.executable,
            "setup.py",
            "-q",
            "build_py",
            "--build-lib",
            str(out),
        ],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    built = out / "modylbench" / "scoring" / "report"
    for name in ASSETS:
        assert (built / name).read_bytes() == (ROOT / "scoring" / "report" / name).read_bytes()
    assert (built / "__init__.py").is_file()
    # Every module and data file of every mapped folder is laid out: nothing is left to a hand-kept list.
    for package, folder in mapping.items():
        for f in (ROOT / folder).rglob("*"):
            rel = f.relative_to(ROOT / folder)
            if f.is_file() and "__pycache__" not in rel.parts and not any(p.startswith(".") for p in rel.parts):
                shipped = out.joinpath(*package.split("."), *rel.parts)
                assert shipped.is_file(), f"a build leaves out {folder}/{rel.as_posix()}"
