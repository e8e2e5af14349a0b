"""A small agent to test from pytest: it listens to the persona's captions and does a deal's napkin maths.

It stands in for your own agent: replace ``think`` with your model call. The rest is the whole SDK side of a
``py:`` agent: ``async def run(client)`` is called once per meeting with the joined ``MeetingClient``.
Run it: ``modylbench run financial_analyst_lbo_model --agent py:napkin_agent:run --transport inproc --turns 3``
(from this folder).
"""

from __future__ import annotations

import re

from modylbench.agents import CaptionReceived, Disconnected, MeetingClient, MeetingEnded, TurnEnded
from modylbench.scenarios import spoken_to_digits

_NUMBER = r"(\d+(?:\.\d+)?)"


def _find(pattern: str, text: str) -> float | None:
    m = re.search(pattern, text, re.IGNORECASE)
    return float(m.group(1)) if m else None


def think(heard: str, notes: dict[str, float]) -> str:
    """Answer what the persona just said; ``notes`` keeps the figures heard so far. Your model goes here."""
    text = spoken_to_digits(heard)  # "fifteen million" -> "15 million"
    for key, pattern in {
        "revenue": _NUMBER + r" million of (?:LTM )?revenue",
        "ebitda": _NUMBER + r" million of (?:adjusted )?EBITDA",
        "multiple": _NUMBER + r" times",
        "senior": r"senior at " + _NUMBER + " turns",
        "mezz": r"mezz\w* at " + _NUMBER + " turns",
    }.items():
        value = _find(pattern, text)
        if value is not None:
            notes[key] = value
    answer = []
    if {"ebitda", "multiple"} <= notes.keys() and "ev" not in notes:
        notes["ev"] = notes["ebitda"] * notes["multiple"]
        answer.append(
            f"At {notes['multiple']:g} times EBITDA of ${notes['ebitda']:g}M the enterprise value "
            f"is ${notes['ev']:g}M."
        )
        if "revenue" in notes:
            answer.append(f"That is a {100 * notes['ebitda'] / notes['revenue']:.1f}% EBITDA margin.")
    if {"senior", "mezz", "ev"} <= notes.keys() and "equity" not in notes:
        senior, mezz = notes["senior"] * notes["ebitda"], notes["mezz"] * notes["ebitda"]
        notes["equity"] = notes["ev"] - senior - mezz
        answer.append(
            f"Senior debt is ${senior:g}M and the mezzanine ${mezz:g}M, so the sponsor equity cheque "
            f"is ${notes['equity']:g}M, {100 * notes['equity'] / notes['ev']:.1f}% of the enterprise value."
        )
    return " ".join(answer) or "Noted. Go on."


async def run(client: MeetingClient) -> None:
    """Take part in one meeting: listen to each turn, answer aloud when the floor is ours, say done."""
    heard: list[str] = []
    notes: dict[str, float] = {}
    async for event in client.events():
        if isinstance(event, CaptionReceived) and event.final:
            heard.append(event.text)
        elif isinstance(event, TurnEnded):  # the persona has finished: the floor is ours
            reply = think(" ".join(heard), notes)
            heard.clear()
            playback = await client.say(reply)
            await playback.ended
            await client.done(event.turn_index)
        elif isinstance(event, MeetingEnded | Disconnected):
            break
