"""A ModylBench meeting for a LiveKit ``AgentSession``, without a LiveKit room: the session's own input and output
interfaces are the meeting's (``_io``), and the meeting's turns drive the session's manual turn handling (the
persona's ``turn_end`` commits the user's turn; ``turn_start`` interrupts the agent). ``done`` is sent once the
agent's answer (speech, tool calls, the speech after them) is complete. Written against livekit-agents 1.8."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any

from livekit.agents import Agent, AgentSession
from livekit.agents.voice.events import AgentStateChangedEvent, ErrorEvent, SpeechCreatedEvent
from livekit.agents.voice.speech_handle import SpeechHandle

from modylbench.agents import (
    AgentDoc,
    AudioReceived,
    Briefing,
    CaptionReceived,
    ChatReceived,
    Disconnected,
    DocMessageReceived,
    FileReceived,
    Hello,
    MeetingClient,
    MeetingEnded,
    MeetingEvent,
    TurnClosed,
    TurnEnded,
    TurnStarted,
    join,
)
from modylbench.channels import ClockTimeout, TaskOwner, wait_for
from modylbench.integrations._toolbox import chat_note, file_note
from modylbench.integrations.livekit._io import MeetingAudioInput, MeetingAudioOutput, MeetingTextOutput

logger = logging.getLogger(__name__)

SETTLE_SECONDS = 0.3
"""How long the agent must stay idle (its last audio played, no speech scheduled) before ``done`` is sent: a tool
call's reply is scheduled a few milliseconds after the speech that called it ends."""
TAIL_TIMEOUT = 0.5
"""At most this long (seconds) is spent at a turn's end waiting for the persona audio still in flight."""


async def _until_hung_up(coro: Coroutine[Any, Any, None]) -> None:
    """Run ``coro``; the meeting hanging up (ConnectionError) ends it quietly, anything else is the owner's to log."""
    try:
        await coro
    except ConnectionError:
        pass


@dataclass
class MeetingOptions:
    """How the meeting drives the session."""

    captions: bool = False
    """Use the meeting's captions as the persona's words (and ``generate_reply`` at the turn's end) instead of the
    session's speech-to-text hearing the audio: for a session with no STT."""
    floor_note: str | None = "(The persona has finished and gives you the floor.)"
    """Added to the user's turn when the persona said nothing in it (no caption, chat or file: a slide only), so
    the LLM still has something to answer; None: nothing is added."""
    join_timeout: float = 10.0
    """Seconds ``connect`` waits for the signaling answer, and then for the meeting's ``hello``."""
    transcript_timeout: float = 5.0
    """Seconds ``commit_user_turn`` waits for the STT's final transcript of the turn."""


class _AgentTurn:
    """When the agent's answer to a meeting turn is complete: the floor is the agent's (``turn_end`` came, no
    ``turn_closed`` or new ``turn_start``), the reply was asked for (the turn committed), the session created a
    speech since the floor opened, every speech it created is done (a tool call's reply is a speech of its own),
    the session is not thinking or speaking, and the meeting's track has played the last audio."""

    def __init__(self) -> None:
        self.turn: int | None = None
        self.asked = False
        self.spoke = False
        self.speeches: set[SpeechHandle] = set()
        self.state = "initializing"
        self.version = 0

    def open_floor(self, turn_index: int) -> None:
        self.turn, self.asked, self.spoke = turn_index, False, False
        self.version += 1

    def close_floor(self) -> None:
        self.turn = None
        self.version += 1

    def reply_asked(self) -> None:
        self.asked = True
        self.version += 1

    def speech_created(self, handle: SpeechHandle) -> None:
        if self.turn is not None:
            self.spoke = True
        self.speeches.add(handle)
        self.version += 1

    def speech_done(self, handle: SpeechHandle) -> None:
        self.speeches.discard(handle)
        self.version += 1

    def state_changed(self, state: str) -> None:
        self.state = state
        self.version += 1

    def complete(self, playing: bool) -> bool:
        return (
            self.turn is not None
            and self.asked
            and self.spoke
            and not self.speeches
            and self.state not in ("thinking", "speaking")
            and not playing
        )


class Meeting:
    """A ModylBench meeting for a LiveKit ``AgentSession``: ``await Meeting.connect(url, token)``, or
    ``await Meeting.attach(client)`` on a joined ``MeetingClient`` (a ``py:`` agent); then
    ``await meeting.run(session, agent)`` until the meeting ends.

    Holds the agent's replica of the shared document (``doc``, kept in sync from the join), the meeting's
    ``hello`` (``briefing``) and the files the persona shared (``files``), for ``MeetingTools``.
    """

    def __init__(self, client: MeetingClient, options: MeetingOptions | None = None) -> None:
        self.client = client
        self.options = options or MeetingOptions()
        self.doc = AgentDoc()
        self.hello: Hello | None = None
        self.files: dict[str, FileReceived] = {}
        self.audio_input = MeetingAudioInput()
        self.audio_output = MeetingAudioOutput(client, self._spawn)
        self.text_output = MeetingTextOutput(client, self._spawn)
        self.turns_answered: list[int] = []
        """The turns this agent sent ``done`` for, in order."""
        self._turn = _AgentTurn()
        self._events: asyncio.Queue[MeetingEvent] = asyncio.Queue()
        self._hello_seen = asyncio.Event()
        self._tasks = TaskOwner("livekit-meeting")  # the reader and the turns' helpers, cancelled on leave
        self._reader: asyncio.Future[None] | None = None
        self._settling: asyncio.Future[None] | None = None
        self._notes: list[str] = []
        self._heard = False
        self._left = False

    @classmethod
    async def connect(cls, url: str, token: str, options: MeetingOptions | None = None) -> Meeting:
        """Join the meeting at ``url`` over WebRTC (``modylbench.agents.join``) and wait for its ``hello``."""
        options = options or MeetingOptions()
        client = await join(url, token, timeout=options.join_timeout)
        return await cls.attach(client, options)

    @classmethod
    async def attach(cls, client: MeetingClient, options: MeetingOptions | None = None) -> Meeting:
        """The meeting of a client already joined; waits for the ``hello``. Raises ConnectionError (after
        leaving) if none comes within ``options.join_timeout``."""
        meeting = cls(client, options)
        await meeting.start_reading()
        timeout = meeting.options.join_timeout
        try:
            await wait_for(client.session.clock, meeting._hello_seen.wait(), timeout)
        except ClockTimeout:
            await meeting.leave()
            raise ConnectionError(f"the meeting sent no hello within {timeout:g} s") from None
        return meeting

    async def start_reading(self) -> None:
        """Start reading the meeting (``attach`` does): the document syncs from now on, whatever the session does."""
        if self._reader is None:
            await self.client.send_doc(self.doc.hello())
            self._reader = self._tasks.start(_until_hung_up(self._read()), "reader")

    async def next_event(self) -> MeetingEvent:
        """The next meeting event for the session's driver (``run``): turns, captions, chat, files, the end."""
        return await self._events.get()

    @property
    def briefing(self) -> Briefing | None:
        """What the meeting asks the agent to deliver, or None."""
        return self.hello.briefing if self.hello is not None else None

    def _spawn(self, coro: Coroutine[Any, Any, None], name: str) -> asyncio.Future[None]:
        return self._tasks.start(_until_hung_up(coro), name)

    async def _read(self) -> None:
        async for ev in self.client.events():
            try:
                if isinstance(ev, DocMessageReceived):
                    for reply in self.doc.receive(ev.data):
                        await self.client.send_doc(reply)
                elif isinstance(ev, AudioReceived):
                    self.audio_input.push(ev.pcm)
                elif isinstance(ev, Hello):
                    self.hello = ev
                    self._hello_seen.set()
                else:
                    if isinstance(ev, FileReceived):
                        self.files[ev.name] = ev
                    self._events.put_nowait(ev)
            except ConnectionError:
                pass  # the meeting is going away; its Disconnected follows
            except Exception:  # noqa: BLE001 - one bad event must not stop the document syncing or the turns
                logger.exception("handling a %s from the meeting", type(ev).__name__)
            if isinstance(ev, Disconnected):
                break
        self.audio_input.end()

    async def flush_doc(self) -> None:
        """Send the edits made on ``doc`` since the last flush to the meeting."""
        for message in self.doc.take_outbox():
            await self.client.send_doc(message)

    async def chat(self, text: str) -> None:
        """Post ``text`` in the meeting's chat."""
        await self.client.chat(text)

    async def run(self, session: AgentSession, agent: Agent) -> None:
        """Start ``session`` with ``agent`` on the meeting's input and output and take part until the meeting
        ends; then close the session and leave. The session must leave the turns to the meeting
        (``turn_handling={"turn_detection": "manual"}``)."""
        session.input.audio = self.audio_input
        session.output.audio = self.audio_output
        session.output.transcription = self.text_output
        session.on("agent_state_changed", self._on_state)
        session.on("speech_created", self._on_speech)
        session.on("error", self._on_error)
        await session.start(agent, record=False)
        try:
            while True:
                ev = await self.next_event()
                if isinstance(ev, MeetingEnded | Disconnected):
                    logger.info("meeting over (%s): closing the session", ev.reason)
                    break
                await self._on_event(ev, session, agent)
        finally:
            self.audio_input.end()
            await session.aclose()
            await self.leave()

    async def _on_event(self, ev: MeetingEvent, session: AgentSession, agent: Agent) -> None:
        if isinstance(ev, TurnStarted):
            self._turn.close_floor()
            self._notes, self._heard = [], False
            # The persona takes the floor (LiveKit's push-to-talk pattern): the agent stops, what it heard before
            # is not this turn's, and the session listens.
            session.interrupt(force=True)
            session.clear_user_turn()
            session.input.set_audio_enabled(True)
        elif isinstance(ev, CaptionReceived):
            if ev.final and ev.text.strip():
                self._heard = True
                if self.options.captions:
                    self._notes.append(ev.text.strip())
        elif isinstance(ev, ChatReceived):
            self._heard = True
            self._notes.append(chat_note(ev.text))
        elif isinstance(ev, FileReceived):
            self._heard = True
            self._notes.append(file_note(ev))
        elif isinstance(ev, TurnEnded):
            await self._answer(ev.turn_index, session, agent)
        elif isinstance(ev, TurnClosed):
            self._turn.close_floor()

    async def _answer(self, turn_index: int, session: AgentSession, agent: Agent) -> None:
        """The persona gave the floor: the turn's notes go into the chat context, then the session replies."""
        notes = self._notes
        if not self._heard and self.options.floor_note:
            notes.append(self.options.floor_note)
        self._notes = []
        if notes:
            ctx = agent.chat_ctx.copy()
            ctx.add_message(role="user", content="\n".join(notes))
            await agent.update_chat_ctx(ctx)
        self._turn.open_floor(turn_index)
        if self.options.captions:
            self._turn.reply_asked()
            session.generate_reply()
        else:
            # LiveKit's own path: with the audio input detached, commit_user_turn flushes the STT at once (it pushes
            # silence, so the VAD ends the speech without waiting for real silence), the final transcript of the
            # turn becomes the user's message, and the session replies to it (after the notes above).
            try:
                await wait_for(self.client.session.clock, self.audio_input.tail(), TAIL_TIMEOUT)
            except ClockTimeout:
                pass  # no audio is coming (the persona's track is quiet or gone): nothing more to hear
            session.input.set_audio_enabled(False)
            transcript = await session.commit_user_turn(transcript_timeout=self.options.transcript_timeout)
            logger.info("turn %d heard: %r", turn_index, transcript)
            self._turn.reply_asked()  # the session replies once its end-of-turn task has run
        self._check()

    def _on_state(self, ev: AgentStateChangedEvent) -> None:
        self._turn.state_changed(ev.new_state)
        self._check()

    def _on_speech(self, ev: SpeechCreatedEvent) -> None:
        handle = ev.speech_handle
        self._turn.speech_created(handle)

        def finished(h: SpeechHandle) -> None:
            self._turn.speech_done(h)
            self._check()

        handle.add_done_callback(finished)

    def _on_error(self, ev: ErrorEvent) -> None:
        if getattr(ev.error, "recoverable", False):
            return
        kind = "model_error" if type(ev.error).__name__ in ("LLMError", "STTError", "TTSError") else "crash"
        self.client.report_error(kind, f"LiveKit {type(ev.error).__name__}: {getattr(ev.error, 'error', ev.error)}")

    def _check(self) -> None:
        if self._turn.complete(self.audio_output.playing) and (self._settling is None or self._settling.done()):
            self._settling = self._spawn(self._settle(), "livekit-done")

    async def _settle(self) -> None:
        """Send ``done`` once the agent stayed complete for ``SETTLE_SECONDS`` with nothing changing."""
        turn = self._turn
        while turn.complete(self.audio_output.playing):
            version = turn.version
            await self.client.session.clock.sleep(SETTLE_SECONDS)
            if turn.version == version and turn.complete(self.audio_output.playing) and turn.turn is not None:
                index = turn.turn
                turn.close_floor()
                self.turns_answered.append(index)
                await self.client.done(index)
                return

    async def leave(self) -> None:
        """Say goodbye and hang up (once); ``run`` does it when the meeting ends."""
        if self._left:
            return
        self._left = True
        try:
            await self.client.leave()
        finally:
            await self._tasks.aclose()
