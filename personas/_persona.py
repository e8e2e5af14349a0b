"""The scripted persona: plays a scenario's turns on their channels and decides when the agent's turn is over.

It speaks (audio track, with captions), posts chat, switches the screen share, pushes files, then waits
for the agent: its ``done`` signal, or silence for ``silence_gap`` after it has spoken, or the turn's
``wait_for_agent_sec`` budget. Edge-case turns with ``barge_in_after_sec`` cut the agent off; turns with a
``backchannel`` murmur "mm-hm" while the agent talks, and turns with an ``aside`` open with words for someone
else (docs/scoring.md, "Turn-taking"). Everything it does is reported through ``emit`` as session-record events.
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
    ActiveSpeaker,
    Caption,
    Clock,
    LinkOptions,
    MeetingLink,
    Playback,
    TaskOwner,
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
from modylbench.personas._challenge import Challenge, challenges_for, outcome
from modylbench.personas._room import RoomPlayer
from modylbench.personas._slides import render_slide
from modylbench.personas._speech import CachedEngine, SpeechEngine, wav_bytes
from modylbench.record import (
    Attachment,
    ChatMessage,
    FileTransfer,
    Interruption,
    PersonaAnswer,
    PersonaAside,
    PersonaBackchannel,
    PersonaChallenge,
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
        challenges: bool | None = None,
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
        self._cue_audio: dict[str, tuple[bytes, Attachment]] = {}  # backchannel and aside text -> (PCM, WAV)
        self._backchannel: tuple[Playback, str] | None = None  # a backchannel playing, not yet recorded
        self._backchannel_given = False  # this turn's backchannel has been said
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
        self.room = RoomPlayer(scenario, speech) if scenario.room is not None else None
        """Who says which line in a multi-party meeting (None: one-to-one)."""
        self.challenges = answerer is not None if challenges is None else challenges
        """Challenge wrong figures of designated facts at the next turn's start (on with an answerer)."""
        self._turn_heard_from = 0  # where this turn's words start in activity.heard
        self._last_turn: int | None = None

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
            pcm = (self.speech if self.room is None else self.room.engine_for(t)).synthesize(t.human_utterance)
            self._audio[t.turn_index] = pcm
            if self.link.transport == "webrtc":  # sent as Opus: encoded once, ahead (channels/_encoded.py)
                cached = self.speech.encoded(t.human_utterance, pcm) if isinstance(self.speech, CachedEngine) else None
                self.link.prepare_speech(pcm, cached)
            self._audio_att[t.turn_index] = self.attach(wav_bytes(pcm), "audio/wav")
            for cue in (t.aside.text if t.aside else None, t.backchannel.text if t.backchannel else None):
                if cue is not None and cue not in self._cue_audio:
                    cue_pcm = (self.speech if self.room is None else self.room.engine_for(t)).synthesize(cue)
                    self._cue_audio[cue] = (cue_pcm, self.attach(wav_bytes(cue_pcm), "audio/wav"))
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
        due = self._challenges_due(turn)
        # Questions from an earlier turn are that turn's: the meeting has moved on.
        self._heard_seen, self._pending, self._asked, self._answered = len(self.activity.heard), [], 0, 0
        for joined in self.room.joining(turn) if self.room is not None else ():
            await self.link.send_control(joined)
        self._turn_heard_from = len(self.activity.heard)
        self._last_turn = turn.turn_index
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
        if turn.aside is not None:
            await self._aside(turn)  # words for someone else open the turn, before a challenge or the line
        raised = [await self._raise(turn, c) for c in due]
        if turn.chat_message:
            speaker = self.room.speaker(turn) if self.room is not None else None
            await self.link.send_chat(turn.chat_message, sender=speaker)
            self.emit(ChatMessage(**self._common(turn), sender="persona", text=turn.chat_message, speaker=speaker))
        await self._speak(turn)
        for name in turn.files:
            await self._push(turn, name)
        # turn_end on the control channel means "the persona has finished; the floor is yours"
        # (docs/protocol.md); the record's TurnEnd below marks when the agent's window closed.
        await self.link.send_control(TurnEndMarker(turn.turn_index, ""))
        reason = await self._wait_for_agent(turn)
        self.emit(TurnEnd(**self._common(turn), reason=reason))  # type: ignore[arg-type]
        self._judge_challenges(turn, raised)
        if not self.activity.gone:
            # Tell the agent its window closed and why, so it never has to guess from our silence.
            await self.link.send_control(TurnClosedMarker(turn.turn_index, reason))
            for left in self.room.leaving(turn) if self.room is not None else ():
                await self.link.send_control(left)
        return reason

    async def _speak(self, turn: Turn) -> None:
        if turn.turn_index not in self._audio:
            self.prepare([turn])
        pcm = self._audio[turn.turn_index]
        speaker = self.room.speaker(turn) if self.room is not None else None
        playback = await self.link.play(pcm, speaker=speaker)
        start = await playback.started
        if speaker is not None:
            await self.link.send_control(ActiveSpeaker(speaker))
        captioned = await self.link.send_control(
            Caption(turn.human_utterance, f"u{turn.turn_index}", start, start + playback.duration,
                    speaker=speaker or "persona")
        )
        end = await playback.ended
        if speaker is not None:
            await self.link.send_control(ActiveSpeaker(None))
        if self.on_audio is not None:
            played = int(round((end - start) * 48_000)) * 2
            self.on_audio(start, pcm[:played] if playback.cut else pcm)
        if any(start < t < end for t in self.activity.onsets):
            self.emit(Interruption(**self._common(turn), by="agent", kind="overlap"))
        self.emit(PersonaUtterance(**self._common(turn), text=turn.human_utterance, start=start, end=end,
                                   audio=self._audio_att[turn.turn_index], captioned=captioned, speaker=speaker,
                                   addressed_to=turn.addressed_to if self.room is not None else None))

    async def _aside(self, turn: Turn) -> None:
        """Words for someone else, before the turn proper: audio only (no caption), then a pause."""
        assert turn.aside is not None
        pcm, att = self._cue(turn.aside.text)
        playback = await self.link.play(pcm, speaker=self.room.speaker(turn) if self.room is not None else None)
        start = await playback.started
        end = await playback.ended
        self._heard_audio(start, end, pcm, playback)
        self.emit(PersonaAside(**self._common(turn), text=turn.aside.text, to=turn.aside.to, start=start, end=end,
                               audio=att))
        if turn.aside.pause_sec > 0:
            await self.clock.sleep(turn.aside.pause_sec)

    def _cue(self, text: str) -> tuple[bytes, Attachment]:
        if text not in self._cue_audio:
            pcm = self.speech.synthesize(text)
            self._cue_audio[text] = (pcm, self.attach(wav_bytes(pcm), "audio/wav"))
        return self._cue_audio[text]

    def _heard_audio(self, start: float, end: float, pcm: bytes, playback: Playback) -> None:
        """Hand what the persona actually played (up to a cut) to the recording."""
        if self.on_audio is not None:
            played = int(round((end - start) * 48_000)) * 2
            self.on_audio(start, pcm[:played] if playback.cut else pcm)

    async def _start_backchannel(self, turn: Turn) -> None:
        """Murmur the turn's backchannel over the agent's speech (audio only: it is not a turn)."""
        assert turn.backchannel is not None
        self._backchannel_given = True
        pcm, _ = self._cue(turn.backchannel.text)
        speaker = self.room.speaker(turn) if self.room is not None else None
        self._backchannel = (await self.link.play(pcm, speaker=speaker), turn.backchannel.text)

    async def _record_backchannel(self, turn: Turn, wait: bool) -> None:
        """Record the backchannel once it has played (``wait``: let it finish first)."""
        if self._backchannel is None:
            return
        playback, text = self._backchannel
        if not wait and not playback.ended.done():
            return
        self._backchannel = None
        start, end = await playback.started, await playback.ended
        pcm, att = self._cue(text)
        self._heard_audio(start, end, pcm, playback)
        self.emit(PersonaBackchannel(**self._common(turn), text=text, start=start, end=end, audio=att))

    # ------------------------------------------------------------------ pushback (personas/_challenge.py)

    def _words_since(self, start: int) -> str:
        return "\n".join(text for _, _, text in self.activity.heard[start:])

    def _challenges_due(self, turn: Turn) -> list[Challenge]:
        """The wrong figures of the turn before ``turn`` (what the agent said and posted in it) to challenge now."""
        if not self.challenges or self._last_turn is None or self._last_turn != turn.turn_index - 1:
            return []
        return challenges_for(self.scenario, self._last_turn, self._words_since(self._turn_heard_from),
                              turn.turn_index)

    async def _raise(self, turn: Turn, c: Challenge) -> tuple[Challenge, str, float, float, Attachment | None]:
        """Say (or, on a chat turn, post) one challenge; returns it with its channel, start, end and audio."""
        if turn.channel == "chat":
            sent = await self.link.send_chat(c.text)
            return c, "chat", sent, sent, None
        hold = getattr(self.clock, "hold", None)
        with hold() if hold is not None else contextlib.nullcontext():
            pcm = await asyncio.to_thread(self.speech.synthesize, c.text)
        # The challenge is the host's, in the host's voice (self.speech).
        playback = await self.link.play(pcm, speaker=self.room.room.host.name if self.room is not None else None)
        start = await playback.started
        await self.link.send_control(Caption(c.text, c.challenge_id, start, start + playback.duration))
        end = await playback.ended
        if self.on_audio is not None:
            played = int(round((end - start) * 48_000)) * 2
            self.on_audio(start, pcm[:played] if playback.cut else pcm)
        return c, "audio", start, end, self.attach(wav_bytes(pcm), "audio/wav")

    def _judge_challenges(self, turn: Turn, raised: list[tuple[Challenge, str, float, float, Attachment | None]]
                          ) -> None:  # fmt: skip
        """Record each challenge raised this turn with how the agent answered it (its words up to the close)."""
        if not raised:
            return
        said = self._words_since(self._turn_heard_from)
        for c, channel, start, end, audio in raised:
            self.emit(PersonaChallenge(**self._common(turn), challenge_id=c.challenge_id, fact_id=c.fact.id,
                                       fact_turn=c.fact_turn, figure=c.figure, text=c.text,
                                       channel=channel, start=start, end=end, audio=audio,  # type: ignore[arg-type]
                                       outcome=outcome(self.scenario, c, said)))

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
        self._backchannel_given = False
        try:
            return await self._wait_loop(turn)
        finally:
            await self._record_backchannel(turn, wait=True)

    async def _wait_loop(self, turn: Turn) -> str:
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
            await self._record_backchannel(turn, wait=False)
            bc_at: float | None = None
            if turn.backchannel is not None and not self._backchannel_given and act.speaking_since is not None:
                bc_at = act.speaking_since + turn.backchannel.after_sec
                if now >= bc_at:
                    await self._start_backchannel(turn)
                    bc_at = None
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
            if bc_at is not None:
                wake = min(wake, bc_at)
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
                # Several people: a question a guest is asked by name is theirs to answer (personas/_room.py).
                guest_answerer, q_for, guest = self.room.answerer_for(q, turn) if self.room else (None, q, None)
                answer = (guest_answerer or self.answerer).answer(q_for)
                if guest is not None and self.room is not None:
                    self.room.answered_by[qid] = guest
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
        for qid, offline, _, _ in pending:
            if act.gone:
                break
            self._answered += 1
            hold = getattr(self.clock, "hold", None)
            with hold() if hold is not None else contextlib.nullcontext():
                # The LLM answerer's call is the persona thinking: on a virtual clock it takes no meeting time.
                answer = await self.answerer.compose(offline) if self.answerer is not None else offline
            said: dict[str, Any] = {"answerer": answer.answerer, "replaced": answer.replaced, "rejected": answer.rejected}
            common = self._common(turn)
            who = (self.room.answered_by.get(qid) or self.room.room.host.name) if self.room is not None else None
            if turn.channel == "chat":
                sent = await self.link.send_chat(answer.text, reply_to=qid, sender=who)
                self.emit(PersonaAnswer(**common, question_id=qid, text=answer.text, channel="chat", start=sent,
                                        end=sent, knowledge=list(answer.item_ids), outcome=answer.outcome,  # type: ignore[arg-type]
                                        **said))
                continue
            with hold() if hold is not None else contextlib.nullcontext():
                engine = self.room.engine_named(who) if self.room is not None and who else self.speech
                pcm = await asyncio.to_thread(engine.synthesize, answer.text)
            playback = await self.link.play(pcm, speaker=who)
            start = await playback.started
            await self.link.send_control(Caption(answer.text, qid, start, start + playback.duration, reply_to=qid,
                                                 speaker=who or "persona"))
            end = await playback.ended
            if self.on_audio is not None:
                played = int(round((end - start) * 48_000)) * 2
                self.on_audio(start, pcm[:played] if playback.cut else pcm)
            self.emit(PersonaAnswer(**self._common(turn), question_id=qid, text=answer.text, channel="audio",
                                    start=start, end=end, audio=self.attach(wav_bytes(pcm), "audio/wav"),
                                    knowledge=list(answer.item_ids), outcome=answer.outcome,  # type: ignore[arg-type]
                                    **said))
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
        race = TaskOwner("wait-change", quiet=True)
        waiter, sleeper = race.start(act.changed.wait(), "changed"), race.start(self.clock.sleep(timeout), "timeout")
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
