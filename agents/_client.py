"""``MeetingClient``: the agent developer's handle on a meeting, over WebRTC or in-process."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from types import TracebackType

from modylbench.channels import (
    AGENT_REPORTED_ERROR_KINDS,
    AgentSession,
    InProcessMeeting,
    MeetingEvent,
    Playback,
    Synthesize,
    connect_agent,
)

logger = logging.getLogger(__name__)


ErrorHook = Callable[[str, str, "str | None"], None]
"""(kind, message, traceback): where a harness running the agent records its failures."""


class MeetingClient:
    """A joined meeting. Iterate ``events()``; act with ``say``, ``chat``, ``send_file``, ``send_doc``, ``done``.

    Once the meeting is over (it ended, or the connection is gone) the actions do nothing: ``say``, ``chat``,
    ``send_doc`` and ``done`` return quietly (``say`` with a playback already ended), ``send_file`` returns
    False, and ``over`` is True. The event stream is where the end is announced (``MeetingEnded``, then
    ``Disconnected``); an answer still in flight when the meeting ends is not an error of the agent's.
    """

    def __init__(self, session: AgentSession, closer: Callable[[], Awaitable[None]] | None = None) -> None:
        self.session = session
        self._closer = closer
        self._over = False
        self.on_error: ErrorHook | None = None
        """Set by a harness that runs this agent (``run --agent py:…``, the built-in agents): ``report_error``
        records through it. None: failures are only logged."""

    @property
    def over(self) -> bool:
        """True once an action found the meeting over (ended, or the connection gone); actions are no-ops."""
        return self._over

    def _meeting_over(self, action: str, exc: ConnectionError) -> None:
        if not self._over:
            logger.info("%s after the meeting ended (%s): ignored, as is every action from now on", action, exc)
        self._over = True

    def report_error(self, kind: str, message: str, traceback: str | None = None) -> None:
        """Say that the agent failed: ``kind`` is ``model_error`` (a call to its model failed), ``empty_answer``
        (its model answered nothing) or ``crash`` (its own code failed). Run by ModylBench, this is recorded
        as an ``agent_error`` event and the scorecard flags it; otherwise it is logged.

        Recorded once: through ``on_error`` when the harness runs this agent in its own process, else sent to
        the meeting as a control ``error`` message (docs/protocol.md §3), which records it the same way."""
        if self.on_error is not None:
            self.on_error(kind, message, traceback)
            return
        if not self._over:
            try:
                self.session.report_error(kind if kind in AGENT_REPORTED_ERROR_KINDS else "crash", message, traceback)
                return
            except ConnectionError as exc:
                self._meeting_over("report_error", exc)
        logger.warning("agent error (%s): %s", kind, message)

    @property
    def turn_index(self) -> int | None:
        """The turn the persona opened last."""
        return self.session.turn_index

    def events(self) -> AsyncIterator[MeetingEvent]:
        """Everything the meeting sends, in order; ends with ``Disconnected``."""
        return self.session.events()

    async def say(self, text: str, pcm: bytes | None = None) -> Playback:
        """Speak ``text`` (synthesised unless ``pcm``, 48 kHz mono s16, is given) and send its transcript."""
        if not self._over:
            try:
                return await self.session.say(text, pcm)
            except ConnectionError as exc:
                self._meeting_over("say", exc)
                self.session.stop_speaking()  # the audio just queued is never played: end its playback
        loop = asyncio.get_running_loop()
        now = self.session.clock.now()
        started, ended = loop.create_future(), loop.create_future()
        started.set_result(now)
        ended.set_result(now)
        return Playback(duration=0.0, started=started, ended=ended, cut=True)

    def stop_speaking(self) -> None:
        self.session.stop_speaking()

    async def chat(self, text: str) -> None:
        """Post ``text`` in the meeting's chat."""
        if self._over:
            return
        try:
            await self.session.chat(text)
        except ConnectionError as exc:
            self._meeting_over("chat", exc)

    async def send_file(self, name: str, data: bytes, media_type: str = "application/octet-stream") -> bool:
        """Send a file; True once the meeting verified its sha256."""
        if self._over:
            return False
        try:
            ok, reason = await self.session.send_file(name, data, media_type)
        except ConnectionError as exc:
            self._meeting_over("send_file", exc)
            return False
        if not ok:
            logger.warning("file %s not accepted: %s", name, reason)
        return ok

    async def send_doc(self, message: bytes) -> None:
        """Send one raw Yjs sync-protocol message (y-protocols framing) on the doc channel."""
        if self._over:
            return
        try:
            await self.session.send_doc(message)
        except ConnectionError as exc:
            self._meeting_over("send_doc", exc)

    async def done(self, turn_index: int | None = None) -> None:
        """Signal that the answer to the current turn is complete (after the meeting ended: nothing to do)."""
        if self._over:
            return
        try:
            await self.session.done(turn_index)
        except ConnectionError as exc:
            self._meeting_over("done", exc)

    async def leave(self) -> None:
        """Leave the meeting (say goodbye, close the connection); calling it again does nothing."""
        self._over = True
        closer, self._closer = self._closer, None
        await self.session.leave()
        if closer is not None:
            await closer()

    async def __aenter__(self) -> MeetingClient:
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.leave()


async def join_inprocess(
    meeting: InProcessMeeting, synthesize: Synthesize | None = None, receive_audio: bool = True,
    participant_audio: bool = False,
) -> MeetingClient:
    """Join an in-process meeting (headless runs, tests); ``participant_audio`` as for ``join``."""
    return MeetingClient(await meeting.join(synthesize, receive_audio, participant_audio))


async def join(
    url: str,
    token: str,
    synthesize: Synthesize | None = None,
    receive_audio: bool = True,
    timeout: float = 10.0,
    participant_audio: bool = False,
) -> MeetingClient:
    """Join a meeting over WebRTC: ``url`` is the meeting's signaling URL (ws://…/meetings/<id>).

    ``participant_audio``: in a multi-party meeting also receive each person's own track, as ``AudioReceived``
    events with ``participant`` set (the mixed track's have None); off by default: an agent that reads only the
    mixed track gets exactly what it got before. ``receive_audio=False``: no ``AudioReceived`` events, and the
    persona's audio is not even decoded (captions and chat still come)."""
    session, closer = await connect_agent(url, token, synthesize, receive_audio, timeout,
                                          participant_audio=participant_audio)
    return MeetingClient(session, closer)
