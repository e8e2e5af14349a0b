"""py: agents the plugin's tests run: one that crashes on the first turn, one that answers by chat only."""

from __future__ import annotations

from modylbench.agents import Disconnected, MeetingClient, MeetingEnded, TurnEnded


async def crashes(client: MeetingClient) -> None:
    """Raises as soon as the floor is its own."""
    async for event in client.events():
        if isinstance(event, TurnEnded):
            raise ValueError("model returned nonsense")


async def chats_margin(client: MeetingClient) -> None:
    """Answers every turn in chat only, with the LBO scenario's margin and nothing else."""
    async for event in client.events():
        if isinstance(event, TurnEnded):
            await client.chat("The EBITDA margin is 30%.")
            await client.done(event.turn_index)
        elif isinstance(event, MeetingEnded | Disconnected):
            break


async def hedges_margin(client: MeetingClient) -> None:
    """Answers every turn in chat with the margin, hedged."""
    async for event in client.events():
        if isinstance(event, TurnEnded):
            await client.chat("The EBITDA margin is maybe 30%.")
            await client.done(event.turn_index)
        elif isinstance(event, MeetingEnded | Disconnected):
            break
