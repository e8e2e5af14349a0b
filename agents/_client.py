"""``MeetingClient``: the agent developer's handle on a meeting, over WebRTC or in-process."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from types import TracebackType

from modylbench.channels import (
    AgentSession,
    InProcessMeeting,
    MeetingEvent,
    Playback,
    Synthesize,
    connect_agent,
)

logger = logging.getLogger(__name__)


class MeetingClient:
    """A joined meeting. Iterate ``events()``; act with ``say``, ``chat``, ``send_file``, ``send_doc``, ``done``."""

    def __init__(self, session: AgentSession, closer: Callable[[], Awaitable[None]] | None = None) -> None:
        self.session = session
        self._closer = closer

    @property
    def turn_index(self) -> int | None:
        """The turn the persona opened last."""
        return self.session.turn_index

    def events(self) -> AsyncIterator[MeetingEvent]:
        """Everything the meeting sends, in order; ends with ``Disconnected``."""
        return self.session.events()

    async def say(self, text: str, pcm: bytes | None = None) -> Playback:
        """Speak ``text`` (synthesised unless ``pcm``, 48 kHz mono s16, is given) and send its transcript."""
        return await self.session.say(text, pcm)

    def stop_speaking(self) -> None:
        self.session.stop_speaking()

    async def chat(self, text: str) -> None:
        await self.session.chat(text)

    async def send_file(self, name: str, data: bytes, media_type: str = "application/octet-stream") -> bool:
        """Send a file; True once the meeting verified its sha256."""
        ok, reason = await self.session.send_file(name, data, media_type)
        if not ok:
            logger.warning("file %s not accepted: %s", name, reason)
        return ok

    async def send_doc(self, message: bytes) -> None:
        """Send one raw Yjs sync-protocol message (y-protocols framing) on the doc channel."""
        await self.session.send_doc(message)

    async def done(self, turn_index: int | None = None) -> None:
        """Signal that the answer to the current turn is complete."""
        await self.session.done(turn_index)

    async def leave(self) -> None:
        await self.session.leave()
        if self._closer is not None:
            await self._closer()

    async def __aenter__(self) -> MeetingClient:
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.leave()


async def join_inprocess(
    meeting: InProcessMeeting, synthesize: Synthesize | None = None, receive_audio: bool = True
) -> MeetingClient:
    """Join an in-process meeting (headless runs, tests)."""
    return MeetingClient(await meeting.join(synthesize, receive_audio))


async def join(
    url: str,
    token: str,
    synthesize: Synthesize | None = None,
    receive_audio: bool = True,
    timeout: float = 10.0,
) -> MeetingClient:
    """Join a meeting over WebRTC: ``url`` is the meeting's signaling URL (ws://…/meetings/<id>)."""
    session, closer = await connect_agent(url, token, synthesize, receive_audio, timeout)
    return MeetingClient(session, closer)
