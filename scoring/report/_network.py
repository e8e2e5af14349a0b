"""The report's view of a session's network: a line beside the score and a table per turn (docs/network.md),
from the responses' ``measurements.network``."""

from __future__ import annotations

import logging
from typing import Any

from modylbench.scoring.report._format import esc

logger = logging.getLogger(__name__)


def _network(responses: Any) -> dict[str, Any] | None:
    m = getattr(responses, "measurements", None) if responses is not None else None
    net = m.get("network") if isinstance(m, dict) else None
    return net if isinstance(net, dict) else None


def _pct(x: Any) -> str:
    return "—" if not isinstance(x, int | float) else f"{x:.1%}"


def _ms(x: Any) -> str:
    return "—" if not isinstance(x, int | float) else f"{x:.0f} ms"


def network_line(responses: Any) -> str:
    """One line for the headline: the profile and what each direction lost, the RTT, the persona's late frames."""
    net = _network(responses)
    if net is None:
        return ""
    down, up = net.get("to_agent", {}), net.get("from_agent", {})
    return (f"<div><b>network</b> <code>{esc(net.get('profile', '?'))}</code>: to the agent {_pct(down.get('loss'))} "
            f"lost (audio {_pct(down.get('audio_loss'))}), from it {_pct(up.get('loss'))}; RTT "
            f"{_ms(down.get('round_trip_ms'))}, jitter {_ms(down.get('jitter_ms'))}; NACKs {esc(up.get('nacks'))}, "
            f"PLIs {esc(up.get('plis'))}, data-channel retransmissions {esc(down.get('sctp_retransmissions'))}; "
            f"persona late frames {esc(net.get('persona_audio_late_frames'))}</div>")  # fmt: skip


def network_table(responses: Any) -> str:
    """Per turn: audio lost each way, the RTT, the persona's late frames, and what the network destroyed."""
    net = _network(responses)
    if net is None or not net.get("turns"):
        return ""
    notes: dict[Any, list[str]] = {}
    for item in net.get("impaired", []):
        notes.setdefault(item.get("turn_index"), []).append(str(item.get("detail", "")))
    rows = "".join(
        f"<tr><td>{esc(t['turn_index'])}</td><td>{_pct(t.get('to_agent_audio_loss'))}</td>"
        f"<td>{_pct(t.get('from_agent_audio_loss'))}</td><td>{_ms(t.get('round_trip_ms'))}</td>"
        f"<td>{esc(t.get('persona_late_frames'))}</td><td>{esc('; '.join(notes.get(t['turn_index'], [])))}</td></tr>"
        for t in net["turns"]
    )
    return ('<h3>Network per turn</h3><p class="muted">Audio packets lost each way during the turn, the worst '
            "round-trip time, the persona's audio frames sent late, and what the network destroyed (flagged "
            "network_impaired: the network's, not the agent's).</p><table><tr><th>turn</th><th>audio lost to agent"
            "</th><th>audio lost from agent</th><th>RTT</th><th>persona late frames</th><th>network's</th></tr>"
            f"{rows}</table>")  # fmt: skip
