"""A complete ModylBench agent: listens to captions, answers by voice and chat, returns files, says done.

Run: python examples/echo_agent.py ws://127.0.0.1:8765/meetings/<id> <token>
Replace ``answer`` with your model call; everything else is the protocol.
"""

from __future__ import annotations

import asyncio
import logging
import sys

from modylbench.agents import (
    CaptionReceived,
    ChatReceived,
    Disconnected,
    FileReceived,
    MeetingEnded,
    ScreenFrameReceived,
    TurnEnded,
    join,
)

log = logging.getLogger("echo_agent")


def answer(heard: list[str], files: dict[str, bytes]) -> str:
    """Your agent's brain goes here."""
    return f"I heard {len(heard)} remarks and have {len(files)} files; the last was: {heard[-1] if heard else '-'}"


async def main(url: str, token: str) -> None:
    meeting = await join(url, token)  # pass synthesize=<text -> 48 kHz mono s16 PCM> for a real voice
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
            reply = answer(heard, files)
            playback = await meeting.say(reply)  # audio on the track + transcript on control
            await meeting.chat(reply)
            await meeting.send_file("notes.txt", "\n".join(heard).encode(), "text/plain")
            await playback.ended
            await meeting.done(event.turn_index)
        elif isinstance(event, MeetingEnded | Disconnected):
            break
    await meeting.leave()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    asyncio.run(main(sys.argv[1], sys.argv[2]))
