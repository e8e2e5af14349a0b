"""A complete ModylBench agent: listens to captions, answers by voice and chat, returns files, says done.

Run it against a meeting ``modylbench serve`` started:
    python examples/echo_agent.py ws://127.0.0.1:8765/meetings/<id> <token>
or let ``run`` start it for every meeting (the URL and token come in MODYLBENCH_URL and MODYLBENCH_TOKEN):
    modylbench run SCENARIO --agent 'cmd:python examples/echo_agent.py'
or run it in-process, on either transport (from the repository's root):
    modylbench run SCENARIO --agent py:examples.echo_agent:agent
Replace ``answer`` with your model call; everything else is the protocol.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys

from modylbench.agents import (
    CaptionReceived,
    ChatReceived,
    Disconnected,
    FileReceived,
    MeetingClient,
    MeetingEnded,
    ScreenFrameReceived,
    TurnEnded,
    join,
)

log = logging.getLogger("echo_agent")


def answer(heard: list[str], files: dict[str, bytes]) -> str:
    """Your agent's brain goes here."""
    return f"I heard {len(heard)} remarks and have {len(files)} files; the last was: {heard[-1] if heard else '-'}"


async def agent(meeting: MeetingClient) -> None:
    """Take part in one meeting until it ends (the ``py:`` entry point: ``--agent py:examples.echo_agent:agent``)."""
    heard: list[str] = []
    files: dict[str, bytes] = {}
    async for event in meeting.events():
        if isinstance(event, CaptionReceived) and event.final:
            heard.append(event.text)
        elif isinstance(event, ChatReceived):
            heard.append(event.text)
        elif isinstance(event, FileReceived):
            files[event.name] = event.data
        elif isinstance(event, ScreenFrameReceived):
            log.info("screen changed: %s", event.image.size)
        elif isinstance(event, TurnEnded):
            # If the meeting ends while this answer is on its way, the rest of it is dropped quietly
            # (the SDK's actions do nothing once the meeting is over); the loop then sees MeetingEnded.
            reply = answer(heard, files)
            playback = await meeting.say(reply)  # audio on the track + transcript on control
            await meeting.chat(reply)
            await meeting.send_file("notes.txt", "\n".join(heard).encode(), "text/plain")
            await playback.ended
            await meeting.done(event.turn_index)
        elif isinstance(event, MeetingEnded | Disconnected):
            log.info("meeting over: %s", event.reason)
            break


async def main(url: str, token: str) -> None:
    # pass synthesize=<text -> 48 kHz mono s16 PCM> to join() for a real voice
    async with await join(url, token) as meeting:  # leaves the meeting on the way out, whatever happens
        await agent(meeting)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    args = sys.argv[1:] or [os.environ.get("MODYLBENCH_URL", ""), os.environ.get("MODYLBENCH_TOKEN", "")]
    if len(args) != 2 or not all(args):
        sys.exit("usage: echo_agent.py URL TOKEN (or set MODYLBENCH_URL and MODYLBENCH_TOKEN)")
    asyncio.run(main(*args))
