"""Shared pytest set-up: opt-in markers for slow and network tests."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="also run tests marked slow")
    parser.addoption("--run-network", action="store_true", help="also run tests that need an API key or network")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip_slow = pytest.mark.skip(reason="slow: pass --run-slow")
    skip_net = pytest.mark.skip(reason="needs network/API key: pass --run-network")
    for item in items:
        if "slow" in item.keywords and not config.getoption("--run-slow"):
            item.add_marker(skip_slow)
        if "network" in item.keywords and not config.getoption("--run-network"):
            item.add_marker(skip_net)
