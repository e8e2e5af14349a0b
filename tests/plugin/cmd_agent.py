"""A cmd: agent for the plugin's tests: joins the meeting named by MODYLBENCH_URL and MODYLBENCH_TOKEN and
answers every turn in chat with the LBO scenario's margin."""

from __future__ import annotations

import asyncio
import os

from modylbench.agents import Disconnected, MeetingEnded, TurnEnded, join


async def main() -> None:
    client = await join(os.environ["MODYLBENCH_URL"], os.environ["MODYLBENCH_TOKEN"])
    try:
        async for event in client.events():
            if isinstance(event, TurnEnded):
                await client.chat("The EBITDA margin is 30%.")
                await client.done(event.turn_index)
            elif isinstance(event, MeetingEnded | Disconnected):
                break
    finally:
        await client.leave()


if __name__ == "__main__":
    asyncio.run(main())
