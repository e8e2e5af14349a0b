"""The wheel's contents, found rather than listed: each top-level folder pyproject.toml maps into the
``modylbench`` namespace brings every package under it and every other file in it (data, static assets).

A hand-kept package list once left the six built-in scenario builders out of the wheel; nothing here can.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from setuptools import find_namespace_packages, setup

ROOT = Path(__file__).resolve().parent
SKIPPED_DIRS = {"__pycache__"}


def _mapped() -> dict[str, str]:
    """pyproject.toml's ``[tool.setuptools.package-dir]``: import name -> top-level folder (its one home)."""
    with (ROOT / "pyproject.toml").open("rb") as fh:
        return dict(tomllib.load(fh)["tool"]["setuptools"]["package-dir"])


def _kept(name: str) -> bool:
    return not name.startswith(".") and name not in SKIPPED_DIRS


def discover() -> tuple[list[str], dict[str, list[str]]]:
    """Every folder under the mapped ones is a package (a data folder a namespace package, as setuptools
    wants it), and every file in it that is not Python source is that package's data."""
    packages: list[str] = []
    data: dict[str, list[str]] = {}
    for name, folder in _mapped().items():
        top = ROOT / folder
        subs = [s for s in find_namespace_packages(where=str(top)) if all(_kept(part) for part in s.split("."))]
        for pkg, here in [(name, top)] + [(f"{name}.{s}", top.joinpath(*s.split("."))) for s in subs]:
            packages.append(pkg)
            files = sorted(f.name for f in here.iterdir()
                           if f.is_file() and _kept(f.name) and f.suffix not in (".py", ".pyc", ".pyo"))
            if files:
                data[pkg] = files
    return packages, data


PACKAGES, PACKAGE_DATA = discover()

setup(packages=PACKAGES, package_data=PACKAGE_DATA)
