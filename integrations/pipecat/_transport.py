"""A Pipecat transport that joins a ModylBench meeting through the protocol (``modylbench.agents.join``).

In: the persona's audio as ``InputAudioRawFrame`` (48 kHz resampled to the pipeline's rate), its captions and
chat as ``TranscriptionFrame``, shared files as notes, screen shares as ``InputImageRawFrame``, the meeting's turn
boundaries as proposed user-turn frames. Out: the bot's audio on the meeting's track with its spoken words as
``transcript``, ``MeetingChatFrame`` as chat, and ``done`` once the bot's answer to a turn is complete.
Written against pipecat-ai 1.14 (BaseTransport, BaseInputTransport, BaseOutputTransport).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from dataclasses import dataclass
from typing import Any

from pipecat.audio.utils import create_stream_resampler
from pipecat.frames.frames import (
    DataFrame,
    EndFrame,
    EndWorkerFrame,
    Frame,
    FunctionCallCancelFrame,
    FunctionCallResultFrame,
    FunctionCallsStartedFrame,
    InputAudioRawFrame,
    InputImageRawFrame,
    InterruptionFrame,
    LLMContextFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    OutputAudioRawFrame,
    ProposedUserStartedSpeakingFrame,
    ProposedUserStoppedSpeakingFrame,
    StartFrame,
    TranscriptionFrame,
    TTSTextFrame,
)
from pipecat.processors.frame_processor import FrameDirection
from pipecat.transports.base_input import BaseInputTransport
from pipecat.transports.base_output import BaseOutputTransport
from pipecat.transports.base_transport import BaseTransport, TransportParams
from pipecat.turns.user_start import ExternalUserTurnStartStrategy
from pipecat.turns.user_stop import ExternalUserTurnStopStrategy
from pipecat.turns.user_turn_strategies import UserTurnStrategies
from pipecat.utils.time import time_now_iso8601

from modylbench.agents import (
    AgentDoc,
    AudioReceived,
    CaptionReceived,
    ChatReceived,
    Disconnected,
    DocMessageReceived,
    FileReceived,
    Hello,
    MeetingClient,
    MeetingEnded,
    MeetingEvent,
    ScreenFrameReceived,
    TurnClosed,
    TurnEnded,
    TurnStarted,
    join,
)
from modylbench.channels import SAMPLE_RATE, ClockTimeout, Playback, TaskOwner, wait_for
from modylbench.integrations._toolbox import chat_note, file_note

logger = logging.getLogger(__name__)

PERSONA = "persona"
"""``user_id`` of the transcription frames the meeting's persona produces."""
MAX_PENDING_EVENTS = 500
"""Meeting events waiting for the pipeline (10 s of persona audio); audio beyond it is dropped, never control."""
SETTLE_SECONDS = 0.3
"""How long the bot must stay complete (after its last audio played) before ``done`` is sent: the assistant
aggregator asks for another LLM run a few milliseconds after the frames that settle a call reach it."""
AUDIO_AHEAD = 3
"""Audio chunks queued on the meeting's track ahead of the one playing: ``write_audio_frame`` waits beyond that,
so the bot's speech is paced by the track itself (real time) and an interruption cuts at most ~120 ms late."""


class MeetingParams(TransportParams):
    """``TransportParams`` with the meeting's defaults: audio both ways, output at the track's 48 kHz."""

    audio_in_enabled: bool = True
    audio_out_enabled: bool = True
    audio_out_sample_rate: int | None = SAMPLE_RATE
    audio_out_end_silence_secs: int = 0
    captions: bool = True
    """Push the meeting's captions as ``TranscriptionFrame``s; turn off when an STT service hears the audio."""
    floor_note: str | None = "(The persona has finished and gives you the floor.)"
    """Pushed as a transcription at a turn's end when nothing else was heard in it (no caption, chat or file),
    so the user aggregator still ends the turn and the LLM answers; None: push nothing."""
    join_timeout: float = 10.0
    """Seconds ``connect`` waits for the signaling answer, and then for the meeting's ``hello``."""


@dataclass
class MeetingChatFrame(DataFrame):
    """A chat message: the persona's (pushed by the input, besides its transcription) or the bot's (sent by the
    output when it reaches it, in order with the speech before it)."""

    text: str
    sender: str = "agent"


def meeting_turn_strategies() -> UserTurnStrategies:
    """User-turn strategies driven by the meeting: its ``turn_start`` opens the user's turn, ``turn_end`` closes it.

    Pass as ``LLMUserAggregatorParams(user_turn_strategies=meeting_turn_strategies())``: the meeting says when
    the persona has the floor, so no VAD or turn model has to guess it.
    """
    return UserTurnStrategies(start=[ExternalUserTurnStartStrategy()], stop=[ExternalUserTurnStopStrategy()])


class _BotTurn:
    """Tells when the bot's answer to a meeting turn is complete, from the frames passing the output transport.

    Complete: the floor is ours (``turn_end`` came and no ``turn_closed``), an LLM response ended since, none is
    running, no function call is pending (from ``FunctionCallsStartedFrame``, which the LLM service sends before
    the response's end, to its final result or cancel) and no LLM run is asked for and not yet started (the
    assistant aggregator asks for one by pushing an ``LLMContextFrame`` upstream through the output, after a
    call's result, and it may defer that until the bot stops speaking). ``version`` changes with every change,
    so a decision taken after a settling pause can tell that nothing happened meanwhile.
    """

    def __init__(self) -> None:
        self.turn: int | None = None
        self.answered = False
        self.responding = False
        self.runs = 0
        self.calls: set[str] = set()
        self.version = 0

    def open_floor(self, turn_index: int) -> None:
        self.turn, self.answered = turn_index, False
        self.version += 1

    def close_floor(self) -> None:
        self.turn = None
        self.version += 1

    def reset(self) -> None:
        """An interruption cancels the response, its pending calls and the runs they asked for."""
        self.responding, self.runs = False, 0
        self.calls.clear()
        self.version += 1

    def run_requested(self) -> None:
        self.runs += 1
        self.version += 1

    def on_frame(self, frame: Frame) -> None:
        if isinstance(frame, LLMFullResponseStartFrame):
            self.responding, self.runs = True, max(0, self.runs - 1)
        elif isinstance(frame, LLMFullResponseEndFrame):
            self.responding = False
            if self.turn is not None:
                self.answered = True
        elif isinstance(frame, FunctionCallsStartedFrame):
            self.calls.update(call.tool_call_id for call in frame.function_calls)
        elif isinstance(frame, FunctionCallCancelFrame):
            self.calls.discard(frame.tool_call_id)
        elif isinstance(frame, FunctionCallResultFrame):
            if frame.properties is None or frame.properties.is_final:
                self.calls.discard(frame.tool_call_id)
        else:
            return
        self.version += 1

    @property
    def complete(self) -> bool:
        return (
            self.turn is not None
            and self.answered
            and not self.responding
            and not self.calls
            and not self.runs
        )


class MeetingTransport(BaseTransport):
    """A ModylBench meeting as a Pipecat transport: ``await MeetingTransport.connect(url, token)``, or
    ``await MeetingTransport.attach(client)`` on a joined ``MeetingClient``.

    ``input()`` goes first in the pipeline, ``output()`` after the TTS (before the assistant aggregator). The
    transport keeps the agent's replica of the shared document (``doc``) in sync and holds the meeting's
    ``hello`` (with the briefing) and the files the persona shared. Event handlers: ``on_turn_started(transport,
    turn_index)``, ``on_meeting_ended(transport, reason)``.
    """

    def __init__(self, client: MeetingClient, params: MeetingParams | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.client = client
        self.params = params or MeetingParams()
        if self.params.audio_out_channels != 1:
            raise ValueError("the meeting's audio track is mono: audio_out_channels must be 1")
        self.doc = AgentDoc()
        self.hello: Hello | None = None
        self.files: dict[str, FileReceived] = {}
        self.gone = False
        self.bot_turn = _BotTurn()
        self._hello_seen = asyncio.Event()
        self._events: asyncio.Queue[MeetingEvent] = asyncio.Queue()
        self._owner = TaskOwner("pipecat-transport", quiet=True)
        self._reader: asyncio.Future[None] | None = None
        self._left = False
        self._input: MeetingInputTransport | None = None
        self._output: MeetingOutputTransport | None = None
        self._register_event_handler("on_turn_started")
        self._register_event_handler("on_meeting_ended")

    @classmethod
    async def connect(
        cls, url: str, token: str, params: MeetingParams | None = None, **kwargs: Any
    ) -> MeetingTransport:
        """Join the meeting at ``url`` (``modylbench.agents.join``) and wait for its ``hello``."""
        params = params or MeetingParams()
        client = await join(url, token, receive_audio=params.audio_in_enabled, timeout=params.join_timeout)
        return await cls.attach(client, params, **kwargs)

    @classmethod
    async def attach(
        cls, client: MeetingClient, params: MeetingParams | None = None, **kwargs: Any
    ) -> MeetingTransport:
        """A transport on a meeting already joined (a ``py:`` agent's client); waits for the ``hello``.

        Raises ConnectionError (after leaving) if no ``hello`` comes within ``params.join_timeout``.
        """
        transport = cls(client, params, **kwargs)
        await transport.start_reading()
        timeout = transport.params.join_timeout
        try:
            await wait_for(client.session.clock, transport._hello_seen.wait(), timeout)
        except ClockTimeout:
            await transport.leave()
            raise ConnectionError(f"the meeting sent no hello within {timeout:g} s") from None
        return transport

    @property
    def briefing(self) -> Any:
        """What the meeting asks the agent to deliver (``modylbench.agents.Briefing``), or None."""
        return self.hello.briefing if self.hello is not None else None

    def input(self) -> MeetingInputTransport:
        if self._input is None:
            self._input = MeetingInputTransport(self, self.params, name=self._input_name)
        return self._input

    def output(self) -> MeetingOutputTransport:
        if self._output is None:
            self._output = MeetingOutputTransport(self, self.params, name=self._output_name)
        return self._output

    async def start_reading(self) -> None:
        """Start reading the meeting (``connect`` does): the document syncs from now on, whatever the pipeline does."""
        if self._reader is None:
            await self.client.send_doc(self.doc.hello())
            self._reader = self._owner.start(self._read(), "meeting-reader")

    async def _read(self) -> None:
        async for ev in self.client.events():
            try:
                await self._route(ev)
            except ConnectionError:
                pass  # the meeting is going away; its Disconnected follows
            except Exception:  # noqa: BLE001 - one bad event must not stop the document syncing or the turns
                logger.exception("handling a %s from the meeting", type(ev).__name__)
            if isinstance(ev, Disconnected):
                break

    async def _route(self, ev: MeetingEvent) -> None:
        if isinstance(ev, DocMessageReceived):
            for reply in self.doc.receive(ev.data):
                await self.client.send_doc(reply)
            return
        if isinstance(ev, Hello):
            self.hello = ev
            self._hello_seen.set()
            return
        if isinstance(ev, FileReceived):
            self.files[ev.name] = ev
        elif isinstance(ev, MeetingEnded | Disconnected):
            self.gone = True
        if isinstance(ev, AudioReceived) and self._events.qsize() >= MAX_PENDING_EVENTS:
            return  # the pipeline is not reading: drop audio, never turns, words or files
        self._events.put_nowait(ev)

    async def next_event(self) -> MeetingEvent:
        """The next meeting event for the pipeline (the input transport's reader)."""
        return await self._events.get()

    async def flush_doc(self) -> None:
        """Send the edits made on ``doc`` since the last flush to the meeting."""
        for message in self.doc.take_outbox():
            await self.client.send_doc(message)

    async def chat(self, text: str) -> None:
        """Post ``text`` in the meeting's chat."""
        await self.client.chat(text)

    async def done(self) -> None:
        """Tell the meeting the bot's answer to the current turn is complete (once per turn)."""
        turn = self.bot_turn.turn
        if turn is None:
            return
        self.bot_turn.close_floor()
        await self.client.done(turn)

    async def on_turn_started(self, turn_index: int) -> None:
        self.bot_turn.close_floor()
        await self._call_event_handler("on_turn_started", turn_index)

    async def on_meeting_ended(self, reason: str) -> None:
        await self._call_event_handler("on_meeting_ended", reason)

    async def leave(self) -> None:
        """Say goodbye and hang up (once); the pipeline's end does it."""
        if self._left:
            return
        self._left = True
        self.gone = True
        try:
            await self.client.leave()
        finally:
            if self._reader is not None:
                self._reader.cancel()
                await asyncio.gather(self._reader, return_exceptions=True)


class MeetingInputTransport(BaseInputTransport):
    """The meeting into the pipeline: persona audio, captions, chat, files, screen and turn boundaries."""

    def __init__(self, transport: MeetingTransport, params: MeetingParams, **kwargs: Any) -> None:
        super().__init__(params, **kwargs)
        self._transport = transport
        self._params: MeetingParams = params
        self._resampler = create_stream_resampler()
        self._task: asyncio.Task[None] | None = None
        self._heard = False

    async def start(self, frame: StartFrame) -> None:
        await super().start(frame)
        await self.set_transport_ready(frame)
        if self._task is None:
            self._task = self.create_task(self._receive(), "meeting-input")

    async def stop(self, frame: EndFrame) -> None:
        await super().stop(frame)
        await self._stop_task()

    async def cancel(self, frame: Any) -> None:
        await super().cancel(frame)
        await self._stop_task()

    async def cleanup(self) -> None:
        await super().cleanup()
        await self._stop_task()
        await self._transport.leave()

    async def _stop_task(self) -> None:
        if self._task is not None:
            await self.cancel_task(self._task)
            self._task = None

    async def _receive(self) -> None:
        while True:
            ev = await self._transport.next_event()
            if isinstance(ev, MeetingEnded | Disconnected):
                reason = ev.reason
                logger.info("meeting over (%s): ending the pipeline", reason)
                await self._transport.on_meeting_ended(reason)
                await self.push_frame(EndWorkerFrame(reason=f"meeting over: {reason}"))
                return
            await self._on_event(ev)

    async def _transcribe(self, text: str, user_id: str = PERSONA) -> None:
        self._heard = True
        await self.push_frame(
            TranscriptionFrame(text=text, user_id=user_id, timestamp=time_now_iso8601(), finalized=True)
        )

    async def _on_event(self, ev: MeetingEvent) -> None:
        if isinstance(ev, AudioReceived):
            if self._params.audio_in_enabled:
                audio = await self._resampler.resample(ev.pcm, SAMPLE_RATE, self.sample_rate)
                if audio:
                    await self.push_audio_frame(
                        InputAudioRawFrame(audio=audio, sample_rate=self.sample_rate, num_channels=1)
                    )
        elif isinstance(ev, CaptionReceived):
            if self._params.captions and ev.final and ev.text.strip():
                # Several people (docs/protocol.md §4a): the participant's name is the pipeline's user id.
                await self._transcribe(ev.text, PERSONA if ev.speaker == "persona" else ev.speaker)
        elif isinstance(ev, ChatReceived):
            # The frame stays the persona's (the output transport posts every non-persona chat frame as the bot's).
            await self.push_frame(MeetingChatFrame(ev.text, sender=PERSONA))
            await self._transcribe(chat_note(ev.text), PERSONA if ev.sender == "persona" else ev.sender)
        elif isinstance(ev, FileReceived):
            await self._transcribe(file_note(ev))
        elif isinstance(ev, ScreenFrameReceived):
            if self._params.video_in_enabled:
                image = ev.image.convert("RGB")
                await self.push_video_frame(
                    InputImageRawFrame(image=image.tobytes(), size=image.size, format="RGB")
                )
        elif isinstance(ev, TurnStarted):
            self._heard = False
            await self._transport.on_turn_started(ev.turn_index)
            # The persona takes the floor: the user aggregator opens the user's turn and interrupts the bot.
            await self.push_frame(ProposedUserStartedSpeakingFrame())
        elif isinstance(ev, TurnEnded):
            if not self._heard and self._params.floor_note:
                await self._transcribe(self._params.floor_note)
            self._transport.bot_turn.open_floor(ev.turn_index)
            # A control frame: it follows this turn's transcriptions in order, so none is left out of the turn.
            await self.push_frame(ProposedUserStoppedSpeakingFrame())
        elif isinstance(ev, TurnClosed):
            self._transport.bot_turn.close_floor()


class MeetingOutputTransport(BaseOutputTransport):
    """The pipeline into the meeting: the bot's audio on the track, its words as ``transcript``, chat, ``done``."""

    def __init__(self, transport: MeetingTransport, params: MeetingParams, **kwargs: Any) -> None:
        super().__init__(params, **kwargs)
        self._transport = transport
        self._resampler = create_stream_resampler()
        self._playing: deque[Playback] = deque()
        self._settling: asyncio.Task[None] | None = None

    async def start(self, frame: StartFrame) -> None:
        await super().start(frame)
        await self.set_transport_ready(frame)

    async def write_audio_frame(self, frame: OutputAudioRawFrame) -> bool:
        if self._transport.gone:
            return False
        pcm = frame.audio
        if frame.sample_rate != SAMPLE_RATE:
            pcm = await self._resampler.resample(pcm, frame.sample_rate, SAMPLE_RATE)
        self._playing.append(self._transport.client.session.audio.play(pcm))
        while len(self._playing) > AUDIO_AHEAD:
            await self._playing.popleft().ended
        return True

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        if isinstance(frame, InterruptionFrame):
            # Stop the meeting's track at once; the base class drops the audio still queued in the pipeline.
            self._transport.client.stop_speaking()
            self._playing.clear()
            self._transport.bot_turn.reset()
        elif isinstance(frame, LLMContextFrame) and direction == FrameDirection.UPSTREAM:
            self._transport.bot_turn.run_requested()
        await super().process_frame(frame, direction)

    async def write_transport_frame(self, frame: Frame) -> None:
        if isinstance(frame, MeetingChatFrame) and frame.sender != PERSONA and not self._transport.gone:
            await self._transport.chat(frame.text)

    async def push_frame(self, frame: Frame, direction: FrameDirection = FrameDirection.DOWNSTREAM) -> None:
        # Every frame leaves the output here in play order: queued ones after the audio before them, timed
        # ones (word timestamps) at their time. So words are declared as they are spoken, and the end of
        # the bot's answer is seen after its last audio was handed to the track.
        if direction == FrameDirection.DOWNSTREAM and not self._transport.gone:
            try:
                await self._observe(frame)
            except ConnectionError:
                pass  # the meeting is going away
        await super().push_frame(frame, direction)

    async def _observe(self, frame: Frame) -> None:
        if isinstance(frame, TTSTextFrame) and frame.text.strip():
            # Declared words only: no audio here (empty PCM), the audio went out through write_audio_frame.
            await self._transport.client.say(frame.text.strip(), b"")
            return
        bot_turn = self._transport.bot_turn
        bot_turn.on_frame(frame)
        if bot_turn.complete and (self._settling is None or self._settling.done()):
            self._settling = self.create_task(self._settle(), "meeting-done")

    async def _settle(self) -> None:
        """Send ``done`` once the bot's last words have played and it stayed complete for ``SETTLE_SECONDS``."""
        bot_turn = self._transport.bot_turn
        version = bot_turn.version
        if self._playing:
            await self._playing[-1].ended  # done once the words are out, not while they are queued
        await self._transport.client.session.clock.sleep(SETTLE_SECONDS)
        if bot_turn.complete and bot_turn.version == version and not self._transport.gone:
            try:
                await self._transport.done()
            except ConnectionError:
                pass
        elif bot_turn.complete:
            self._settling = self.create_task(self._settle(), "meeting-done")  # something moved: wait again

    async def stop(self, frame: EndFrame) -> None:
        await super().stop(frame)
        await self._stop_settling()

    async def cancel(self, frame: Any) -> None:
        await super().cancel(frame)
        await self._stop_settling()

    async def _stop_settling(self) -> None:
        if self._settling is not None:
            await self.cancel_task(self._settling)
            self._settling = None
