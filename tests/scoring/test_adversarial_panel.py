"""The adversarial suite with a panel (issue 13, item 9): the offline judge and a lenient LLM judge that rates
everything 9.5 (served by a real local HTTP server) keep the bounds of test_adversarial.py."""

from __future__ import annotations

import pytest

from modylbench_testsupport import adversarial as ADV

from .adversarial_cases import CORRECT_MIN, GAMING_MAX, IDS, PANEL_DEFAULT, check_partial, panel_scores

# --------------------------------------------------------------------------- panel with a lenient LLM


def _check_panel(sid: str) -> None:
    scores = panel_scores(sid)
    low = {n: round(scores[n], 2) for n in ADV.CORRECT_STYLES if scores[n] < CORRECT_MIN}
    high = {n: round(scores[n], 2) for n in ADV.GAMING if scores[n] >= GAMING_MAX}
    assert not low, f"correct styles below {CORRECT_MIN} with the panel: {low}"
    assert not high, f"gaming strategies at or above {GAMING_MAX} with the panel: {high}"
    check_partial(scores)


@pytest.mark.parametrize("sid", PANEL_DEFAULT)
def test_panel_with_lenient_llm(sid: str) -> None:
    """The panel's pessimistic consensus keeps the bounds even when the LLM rates everything 9.5."""
    _check_panel(sid)


@pytest.mark.slow
@pytest.mark.parametrize("sid", [s for s in IDS if s not in PANEL_DEFAULT])
def test_panel_with_lenient_llm_all_scenarios(sid: str) -> None:
    _check_panel(sid)
