"""Fixtures for the scorer's tests."""

from __future__ import annotations

from types import ModuleType

import pytest

from modylbench.scenarios import Scenario

from .scoring_helpers import load_fixture_maker, synthetic_scenario


@pytest.fixture
def scenario() -> Scenario:
    return synthetic_scenario()


@pytest.fixture
def maker() -> ModuleType:
    return load_fixture_maker()
