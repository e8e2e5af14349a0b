"""The report's view of a session's turn-taking (docs/scoring.md, "Turn-taking"): a line beside the score and a
table per turn, from the scorecard's ``turn_taking`` panel (measured from the record, not part of the score)."""

from __future__ import annotations

import logging
from typing import Any

from modylbench.record import FEW_EVENTS
from modylbench.scoring.report._format import esc

logger = logging.getLogger(__name__)


def _rate(r: Any) -> str:
    if r is None or r.rate is None:
        return "—"
    few = f' <span class="muted" title="fewer than {FEW_EVENTS} events: a rate, not a finding">(few)</span>' \
        if r.events < FEW_EVENTS else ""
    return f"{r.rate:.0%} of {r.events}{few}"


def _s(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f} s"


def turn_taking_line(entry: Any) -> str:
    """One line for the headline: the tau-voice panel's eight figures (L_R, R_R, L_Y, R_Y, I_A, S_BC, S_ND)."""
    p = getattr(entry, "turn_taking", None)
    if p is None:
        return ""
    ia = "—" if p.agent_interruption_rate is None else f"{p.agent_interruptions} ({p.agent_interruption_rate:.2f} per line)"
    return (f'<div data-testid="turn-taking"><b>turn-taking</b> responded {_rate(p.response)}, median '
            f"{_s(p.response_latency.p50_s)}; yielded {_rate(p.yielding)}, median {_s(p.yield_latency.p50_s)}; "
            f"interrupted {ia}; talked through backchannels {_rate(p.backchannel)}; left side speech alone "
            f"{_rate(p.non_directed)} <span class=\"muted\">(measured, not scored)</span></div>")


def _outcome(x: str | None) -> str:
    return {"correct": "✓", "error": "✗"}.get(x or "", "—")


def turn_taking_table(entry: Any) -> str:
    """Per turn: responded and how fast, times talked over and yielded, interruptions, backchannel, aside."""
    p = getattr(entry, "turn_taking", None)
    if p is None or not p.turns:
        return ""
    rows = "".join(
        f"<tr><td>{esc(t.turn_index)}</td><td>{'—' if t.responded is None else ('yes' if t.responded else 'no')}</td>"
        f"<td>{_s(t.response_latency_s)}</td><td>{t.yielded}/{t.talked_over}</td><td>{t.agent_interruptions}</td>"
        f"<td>{_outcome(t.backchannel)}</td><td>{_outcome(t.non_directed)}</td></tr>"
        for t in p.turns
    )
    return ('<h3>Turn-taking per turn</h3><p class="muted">Whether the agent responded after the persona\'s line '
            "(before the persona spoke again) and how fast; how often the persona took the floor while it talked "
            "and it stopped within 2 s; its speech begun over the persona; whether it talked through a "
            "backchannel and left speech meant for someone else alone (docs/scoring.md, Turn-taking).</p>"
            "<table><tr><th>turn</th><th>responded</th><th>latency</th><th>yielded</th><th>interrupted</th>"
            f"<th>backchannel</th><th>aside</th></tr>{rows}</table>")
