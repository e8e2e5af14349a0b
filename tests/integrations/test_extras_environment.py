"""The ``pipecat``, ``livekit`` and ``ray`` extras share one environment (the ``test`` extras hold all three):
every requirement of theirs is met by what is installed, protobuf included (Pipecat needs < 7, LiveKit and Ray
accept 6.x), and both integrations import side by side (docs/integrations.md, "Which extras share an
environment")."""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, distribution, version

from packaging.requirements import Requirement

SHARED = ("pipecat-ai", "livekit-agents", "livekit-plugins-openai", "livekit", "livekit-protocol", "ray")


def _unmet(dist: str) -> list[str]:
    unmet = []
    for text in distribution(dist).requires or []:
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue  # an extra of theirs we do not install
        try:
            installed = version(req.name)
        except PackageNotFoundError:
            unmet.append(f"{dist}: {req} (not installed)")
            continue
        if req.specifier and not req.specifier.contains(installed, prereleases=True):
            unmet.append(f"{dist}: {req} (installed {installed})")
    return unmet


def test_the_extras_requirements_are_all_met_in_one_environment() -> None:
    assert [u for d in SHARED for u in _unmet(d)] == []
    assert int(version("protobuf").split(".")[0]) == 6  # the one version every extra accepts


def test_both_integrations_import_side_by_side() -> None:
    pipecat = importlib.import_module("modylbench.integrations.pipecat")
    livekit = importlib.import_module("modylbench.integrations.livekit")
    assert pipecat.MeetingTools.__mro__[1] is livekit.MeetingTools.__mro__[1]  # one toolbox behind both
