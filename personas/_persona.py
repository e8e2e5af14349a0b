"""The scripted persona: plays a scenario's turns on their channels and decides when the agent's turn is over.

It speaks (audio track, with captions), posts chat, switches the screen share, pushes files, then waits
for the agent: its ``done`` signal, or silence for ``silence_gap`` after it has spoken, or the turn's
``wait_for_agent_sec`` budget. Edge-case turns with ``barge_in_after_sec`` cut the agent off. Everything
it does is reported through ``emit`` as session-record events.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from modylbench.channels import (
    Caption,
    Clock,
    LinkOptions,
    MeetingLink,
    TurnClosedMarker,
    TurnEndMarker,
    TurnStartMarker,
)
from modylbench.personas._answerer import (
    ANSWER_PAUSE_S,
    ANSWERED_OUTCOMES,
    MAX_ANSWERS_PER_TURN,
    Answer,
    OfflineAnswerer,
    questions_in,
)
from modylbench.personas._slides import render_slide
from modylbench.personas._speech import CachedEngine, SpeechEngine, wav_bytes
from modylbench.record import (
    Attachment,
    ChatMessage,
    FileTransfer,
    Interruption,
    PersonaAnswer,
    PersonaUtterance,
    QuestionAsked,
    ScreenFrame,
    TurnEnd,
    TurnStart,
)
from modylbench.scenarios import Scenario, Turn

logger = logging.getLogger(__name__)

Emit = Callable[[Any], None]
Attach = Callable[[bytes, str], Attachment]

DELIVERABLES_CHAT = (
    "I've set up the deliverables in the shared document: {items}. The rows, sections and series we need "
    "are in there; fill them in as we go, and add rows or sections of your own if you need them."
)
"""The persona's chat at the start of the meeting naming the products it created ({items}: id, title, type)."""


class Workspace(Protocol):
    """Where the persona creates the deliverables: the meeting's shared document."""

    def create_product(self, origin: str, product_id: str, output_type: str, title: str, content: Any = None) -> None:
        ...


@dataclass
class AgentActivity:
    """What the agent is doing right now, kept current by the session's event pump."""

    turn_index: int | None = None
    speaking_since: float | None = None
    last_voice_end: float | None = None
    onsets: list[float] = field(default_factory=list)
    spoke_this_turn: bool = False
    acted_this_turn: bool = False
    done: asyncio.Event = field(default_factory=asyncio.Event)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    gone: bool = False
    heard: list[tuple[float, str, str]] = field(default_factory=list)
    """What the agent said (its transcripts) and posted, as (meeting time, 'audio' or 'chat', text), in order:
    where the persona finds the agent's questions."""

    def new_turn(self, index: int) -> None:
        """Reset per-turn state when the persona opens a turn."""
        self.turn_index = index
        self.spoke_this_turn = self.acted_this_turn = False
        self.last_voice_end = None
        self.done = asyncio.Event()
        self.poke()

    def poke(self) -> None:
        """Wake anyone waiting for a change."""
        self.changed.set()


@dataclass
class PersonaOptions:
    """Turn-taking knobs."""

    silence_gap: float = 1.2
    """Agent silence (s) after it has spoken that ends its turn."""
    done_grace: float = 1.5
    """After the agent's done signal, how long (s) to wait for its voice to be detected as ended."""
    text_only_after: float = 2.0
    """A spoken question whose voice has not started this long (s) after its transcript is taken as text."""


class ScriptedPersona:
    """Plays one scenario over a ``MeetingLink``."""

    def __init__(
        self,
        scenario: Scenario,
        link: MeetingLink,
        clock: Clock,
        speech: SpeechEngine,
        emit: Emit,
        attach: Attach,
        activity: AgentActivity,
        options: PersonaOptions | None = None,
        on_audio: Callable[[float, bytes], None] | None = None,
        answerer: OfflineAnswerer | None = None,
    ):
        self.scenario = scenario
        self.link = link
        self.clock = clock
        self.speech = speech
        self.emit = emit
        self.attach = attach
        self.activity = activity
        self.options = options or PersonaOptions()
        self.on_audio = on_audio
        self._audio: dict[int, bytes] = {}
        self._audio_att: dict[int, Attachment] = {}
        self._slides: dict[str, tuple[Any, Attachment]] = {}
        self._current_slide: str | None = None
        link_options: LinkOptions = getattr(link, "options", LinkOptions())
        self.screen_size = link_options.screen_size
        self._announce: str | None = None
        self.answerer = answerer
        """Answers the agent's questions (None: the persona plays its script whatever is asked)."""
        self._heard_seen = 0
        self._pending: list[tuple[str, Answer, float, str]] = []  # (question id, answer, heard at, channel)
        self._asked = 0  # questions recorded this turn
        self._answered = 0  # answers given this turn

    def set_up_deliverables(self, doc: Workspace) -> None:
        """Create every product in the shared document from its template, as the persona (before turn 0).

        The edits carry origin ``persona``: they are recorded, but they are not the agent's work. The
        first turn then opens with a chat message naming them.
        """
        for p in self.scenario.products:
            doc.create_product("persona", p.product_id, p.output_type, p.title, p.initial_content)
        if self.scenario.products:
            items = ", ".join(f'{p.product_id} ("{p.title}", {p.output_type})' for p in self.scenario.products)
            self._announce = DELIVERABLES_CHAT.format(items=items)

    def prepare(self, turns: list[Turn]) -> None:
        """Synthesise every utterance and render every slide before the meeting starts.

        Doing it here keeps CPU-heavy work off the event loop while media is being paced (the disk
        cache makes a rerun synthesise nothing).
        """
        for t in turns:
            pcm = self.speech.synthesize(t.human_utterance)
            self._audio[t.turn_index] = pcm
            if self.link.transport == "webrtc":  # sent as Opus: encoded once, ahead (channels/_encoded.py)
                cached = self.speech.encoded(t.human_utterance, pcm) if isinstance(self.speech, CachedEngine) else None
                self.link.prepare_speech(pcm, cached)
            self._audio_att[t.turn_index] = self.attach(wav_bytes(pcm), "audio/wav")
            if t.screen is not None and t.screen.slide_id not in self._slides:
                image = render_slide(t.screen, self.screen_size)
                buf = io.BytesIO()
                image.save(buf, format="PNG")
                self._slides[t.screen.slide_id] = (image, self.attach(buf.getvalue(), "image/png"))
                self.link.prepare_screen(image)

    def _common(self, turn: Turn) -> dict[str, Any]:
        return {"wall_time": self.clock.wall_time(), "meeting_time": self.clock.now(), "turn_index": turn.turn_index}

    async def play_turn(self, turn: Turn) -> str:
        """Play one turn and wait for the agent; returns why the turn ended."""
        self.activity.new_turn(turn.turn_index)
        # Questions from an earlier turn are that turn's: the meeting has moved on.
        self._heard_seen, self._pending, self._asked, self._answered = len(self.activity.heard), [], 0, 0
        self.emit(TurnStart(**self._common(turn), phase=turn.phase, channel=turn.channel))
        await self.link.send_control(TurnStartMarker(turn.turn_index, turn.phase))
        if turn.screen is not None and turn.screen.slide_id != self._current_slide:
            if turn.screen.slide_id not in self._slides:
                self.prepare([turn])
            image, png = self._slides[turn.screen.slide_id]
            await self.link.show(image)
            self._current_slide = turn.screen.slide_id
            self.emit(ScreenFrame(**self._common(turn), slide_id=turn.screen.slide_id, title=turn.screen.title,
                                  image=png))
        if self._announce is not None:
            text, self._announce = self._announce, None
            await self.link.send_chat(text)
            self.emit(ChatMessage(**self._common(turn), sender="persona", text=text))
        if turn.chat_message:
            await self.link.send_chat(turn.chat_message)
            self.emit(ChatMessage(**self._common(turn), sender="persona", text=turn.chat_message))
        await self._speak(turn)
        for name in turn.files:
            await self._push(turn, name)
        # turn_end on the control channel means "the persona has finished; the floor is yours"
        # (docs/protocol.md); the record's TurnEnd below marks when the agent's window closed.
        await self.link.send_control(TurnEndMarker(turn.turn_index, ""))
        reason = await self._wait_for_agent(turn)
        self.emit(TurnEnd(**self._common(turn), reason=reason))  # type: ignore[arg-type]
        if not self.activity.gone:
            # Tell the agent its window closed and why, so it never has to guess from our silence.
            await self.link.send_control(TurnClosedMarker(turn.turn_index, reason))
        return reason

    async def _speak(self, turn: Turn) -> None:
        if turn.turn_index not in self._audio:
            self.prepare([turn])
        pcm = self._audio[turn.turn_index]
        playback = await self.link.play(pcm)
        start = await playback.started
        captioned = await self.link.send_control(
            Caption(turn.human_utterance, f"u{turn.turn_index}", start, start + playback.duration)
        )
        end = await playback.ended
        if self.on_audio is not None:
            played = int(round((end - start) * 48_000)) * 2
            self.on_audio(start, pcm[:played] if playback.cut else pcm)
        if any(start < t < end for t in self.activity.onsets):
            self.emit(Interruption(**self._common(turn), by="agent", kind="overlap"))
        self.emit(PersonaUtterance(**self._common(turn), text=turn.human_utterance, start=start, end=end,
                                   audio=self._audio_att[turn.turn_index], captioned=captioned))

    async def _push(self, turn: Turn, name: str) -> None:
        f = self.scenario.data_file(name)
        if f is None:  # validated at load time; guard anyway
            return
        data = f.content.encode("utf-8")
        outcome = await self.link.push_file(f.name, data, f.media_type)
        self.emit(FileTransfer(
            **self._common(turn), direction="to_agent", file_id=outcome.file_id, name=outcome.name,
            media_type=outcome.media_type, size=outcome.size, sha256=outcome.sha256, ok=outcome.ok,
            reason=outcome.reason, attachment=self.attach(data, f.media_type) if outcome.ok else None,
        ))

    async def _wait_for_agent(self, turn: Turn) -> str:
        act = self.activity
        deadline = self.clock.now() + turn.wait_for_agent_sec
        barge_at: float | None = None
        done_at: float | None = None
        while True:
            now = self.clock.now()
            if act.gone:
                return "meeting_end"
            if self.answerer is not None:
                self._take_questions(turn)
                if self._pending:
                    # The agent asked: the persona answers before the meeting moves on, and the exchange's
                    # time is added to the turn's budget.
                    ready = self._ready_at()
                    if ready is None or now < ready:
                        await self._wait_change(0.02 if ready is None else max(0.02, ready - now))
                        continue
                    spent = await self._answer(turn)
                    deadline += spent + ANSWER_PAUSE_S
                    done_at = None
                    continue
            if act.done.is_set():
                # The agent's last words may still be in flight (voice detection ends a segment a few
                # hundred ms after the last sample): let them land, briefly, before taking the floor.
                if act.speaking_since is None:
                    return "agent_done"
                if done_at is None:
                    done_at = now
                if now >= done_at + self.options.done_grace:
                    return "agent_done"
            barge_at = None  # only while the agent speaks: a stale one made the wait poll every 20 ms
            if turn.barge_in_after_sec is not None and act.speaking_since is not None:
                barge_at = act.speaking_since + turn.barge_in_after_sec
                if now >= barge_at:
                    self.emit(Interruption(**self._common(turn), by="persona", kind="barge_in"))
                    return "barge_in"
            if act.spoke_this_turn and act.speaking_since is None and act.last_voice_end is not None:
                if now >= act.last_voice_end + self.options.silence_gap:
                    return "silence"
            # Before any other wait: an agent that keeps sending (a chat or a malformed message a second) must
            # not keep the turn open past its budget.
            if now >= deadline:
                return "budget"
            if act.acted_this_turn and not act.spoke_this_turn and act.speaking_since is None:
                # A chat- or doc-only answer: once it has been quiet for the gap, move on.
                if deadline - now < self.options.silence_gap:
                    await self._wait_change(max(0.02, deadline - now))
                elif await self._quiet_for(self.options.silence_gap):
                    return "silence"
                continue
            wake = deadline
            if act.spoke_this_turn and act.last_voice_end is not None and act.speaking_since is None:
                wake = min(wake, act.last_voice_end + self.options.silence_gap)
            if barge_at is not None:
                wake = min(wake, barge_at)
            if done_at is not None:
                wake = min(wake, done_at + self.options.done_grace)
            # Never a zero-length wait: on a virtual clock that would spin without time moving.
            await self._wait_change(max(0.02, wake - now))

    # ------------------------------------------------------------------ questions and answers

    def _take_questions(self, turn: Turn) -> None:
        """Record the questions in what the agent said or posted since last time; queue those to answer."""
        assert self.answerer is not None
        act = self.activity
        while self._heard_seen < len(act.heard):
            at, channel, text = act.heard[self._heard_seen]
            self._heard_seen += 1
            for q in questions_in(text):
                self._asked += 1
                qid = f"q{turn.turn_index}.{self._asked}"
                answer = self.answerer.answer(q)
                outcome = answer.outcome
                if outcome in ANSWERED_OUTCOMES and self._answered + len(self._pending) >= MAX_ANSWERS_PER_TURN:
                    outcome = "over_limit"
                self.emit(QuestionAsked(**self._common(turn), question_id=qid, text=q, channel=channel,  # type: ignore[arg-type]
                                        asked_at=at, outcome=outcome))
                if outcome in ANSWERED_OUTCOMES:
                    self._pending.append((qid, answer, at, channel))

    def _ready_at(self) -> float | None:
        """When the floor is free for the first pending answer (None: the agent is still talking)."""
        act = self.activity
        _, _, at, channel = self._pending[0]
        if act.speaking_since is not None:
            return None
        if channel == "chat":
            return at + ANSWER_PAUSE_S
        if act.last_voice_end is not None and act.last_voice_end >= at:
            return act.last_voice_end + ANSWER_PAUSE_S
        if any(t >= at for t in act.onsets):
            return None  # its voice started and has not ended yet
        return at + self.options.text_only_after  # a transcript with no voice (a text-only agent)

    async def _answer(self, turn: Turn) -> float:
        """Give every pending answer, in the turn's channel; returns the meeting seconds it took."""
        act = self.activity
        began = self.clock.now()
        pending, self._pending = self._pending, []
        for qid, answer, _, _ in pending:
            if act.gone:
                break
            self._answered += 1
            common = self._common(turn)
            if turn.channel == "chat":
                sent = await self.link.send_chat(answer.text, reply_to=qid)
                self.emit(PersonaAnswer(**common, question_id=qid, text=answer.text, channel="chat", start=sent,
                                        end=sent, knowledge=list(answer.item_ids), outcome=answer.outcome,  # type: ignore[arg-type]
                                        answerer=answer.answerer))
                continue
            hold = getattr(self.clock, "hold", None)
            with hold() if hold is not None else contextlib.nullcontext():
                pcm = await asyncio.to_thread(self.speech.synthesize, answer.text)
            playback = await self.link.play(pcm)
            start = await playback.started
            await self.link.send_control(Caption(answer.text, qid, start, start + playback.duration, reply_to=qid))
            end = await playback.ended
            if self.on_audio is not None:
                played = int(round((end - start) * 48_000)) * 2
                self.on_audio(start, pcm[:played] if playback.cut else pcm)
            self.emit(PersonaAnswer(**self._common(turn), question_id=qid, text=answer.text, channel="audio",
                                    start=start, end=end, audio=self.attach(wav_bytes(pcm), "audio/wav"),
                                    knowledge=list(answer.item_ids), outcome=answer.outcome,  # type: ignore[arg-type]
                                    answerer=answer.answerer))
        # The floor is the agent's again: its silence counts from the answer's end, and a "done" it sent
        # before the answer no longer closes the turn.
        end_at = self.clock.now()
        if act.spoke_this_turn:
            act.last_voice_end = max(act.last_voice_end or end_at, end_at)
        act.done = asyncio.Event()
        return end_at - began

    async def _wait_change(self, timeout: float) -> None:
        act = self.activity
        act.changed.clear()
        waiter = asyncio.ensure_future(act.changed.wait())
        sleeper = asyncio.ensure_future(self.clock.sleep(timeout))
        try:
            await asyncio.wait({waiter, sleeper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (waiter, sleeper):
                task.cancel()
            await asyncio.gather(waiter, sleeper, return_exceptions=True)

    async def _quiet_for(self, gap: float) -> bool:
        """True when nothing changed for ``gap`` seconds (the agent went quiet after acting)."""
        act = self.activity
        act.changed.clear()
        start = self.clock.now()
        await self._wait_change(gap)
        return not act.changed.is_set() and self.clock.now() >= start + gap and not act.done.is_set()
