"""Shared pytest set-up: opt-in markers for slow and network tests, and a speech cache of the session's own."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

CACHE_ENV = "MODYLBENCH_CACHE"
"""The variable ``modylbench.personas.default_cache_dir`` reads; worker processes inherit it."""

_CACHE = pytest.StashKey[tuple[str, str | None]]()
"""The session's cache folder and the variable's value before the session."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="also run tests marked slow")
    parser.addoption(
        "--run-network", action="store_true", help="also run tests that need an API key or network"
    )
    parser.addoption(
        "--run-install", action="store_true",
        help="also check the README's install (pip install . into a fresh venv; scripts/test.sh passes it)",
    )


def pytest_configure(config: pytest.Config) -> None:
    # Meetings cache synthesised speech. Pointing the cache at a folder of this session's own keeps the
    # user's ~/.cache/modylbench untouched (it grew to 700 MB after a run) and makes the suite's time
    # the same on every machine: every session starts cold, none profits from an earlier one.
    path = tempfile.mkdtemp(prefix="modylbench-test-cache-")
    config.stash[_CACHE] = (path, os.environ.get(CACHE_ENV))
    os.environ[CACHE_ENV] = path


def pytest_unconfigure(config: pytest.Config) -> None:
    if _CACHE not in config.stash:
        return
    path, before = config.stash[_CACHE]
    shutil.rmtree(path, ignore_errors=True)
    if before is None:
        os.environ.pop(CACHE_ENV, None)
    else:
        os.environ[CACHE_ENV] = before


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip_slow = pytest.mark.skip(reason="slow: pass --run-slow")
    skip_net = pytest.mark.skip(reason="needs network/API key: pass --run-network")
    skip_install = pytest.mark.skip(reason="installs into a fresh venv: pass --run-install")
    for item in items:
        if "slow" in item.keywords and not config.getoption("--run-slow"):
            item.add_marker(skip_slow)
        if "network" in item.keywords and not config.getoption("--run-network"):
            item.add_marker(skip_net)
        if "install" in item.keywords and not config.getoption("--run-install"):
            item.add_marker(skip_install)
