"""Persona turn-taking on the virtual clock: how the persona waits for the agent and ends its window (done,
silence, budget, a chat-only answer, the agent leaving), barge-in on an agent that talks too long, and the
agent talking over the persona.

The persona reads the agent's state from ``AgentActivity`` (the session's event pump keeps it current from
voice detection and the data channels); here a scripted agent sets it at exact meeting times, and a link
that only keeps time plays the persona's speech for its duration, so every end time is known to the
millisecond.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

import pytest
from PIL import Image

from modylbench.channels import (
    AgentEvent,
    ControlMessage,
    FileOutcome,
    LinkOptions,
    Playback,
    TurnClosedMarker,
    TurnEndMarker,
    VirtualClock,
)
from modylbench.personas import AgentActivity, PersonaOptions, ScriptedPersona
from modylbench.record import Attachment
from modylbench.scenarios import Scenario, Turn, load_path

ROOT = Path(__file__).resolve().parents[2]
MINI: Scenario = load_path(ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl")[0]
SPEECH_SECONDS = 2.0
"""Every persona line lasts this long: its speech ends, and the agent's window opens, at t = 2.0."""
OPTIONS = PersonaOptions()
GAP, GRACE = OPTIONS.silence_gap, OPTIONS.done_grace


class FixedSpeech:
    """A speech engine whose every line is ``SPEECH_SECONDS`` of audio."""

    name = "fixed"
    voice = "test"

    def synthesize(self, text: str) -> bytes:
        return bytes(int(SPEECH_SECONDS * 48_000) * 2)


class TimedLink:
    """A ``MeetingLink`` that only keeps time: speech plays for its duration on the clock, and what the persona
    sends is kept in ``sent``."""

    transport: Literal["webrtc", "inproc"] = "inproc"

    def __init__(self, clock: VirtualClock) -> None:
        self.clock = clock
        self.options = LinkOptions()
        self.briefing: dict[str, Any] | None = None
        self.sent: list[tuple[float, Any]] = []
        self._playing: list[tuple[Playback, asyncio.Task[None]]] = []

    async def wait_connected(self) -> float:
        return 0.0

    async def play(self, pcm: bytes, speaker: str | None = None) -> Playback:
        loop = asyncio.get_running_loop()
        pb = Playback(
            duration=len(pcm) / 2 / 48_000, started=loop.create_future(), ended=loop.create_future()
        )
        pb.started.set_result(self.clock.now())

        async def finish() -> None:
            await self.clock.sleep(pb.duration)
            if not pb.ended.done():
                pb.ended.set_result(self.clock.now())

        self._playing.append((pb, asyncio.ensure_future(finish())))
        return pb

    def stop_playback(self) -> float:
        now = self.clock.now()
        for pb, task in self._playing:
            task.cancel()
            if not pb.ended.done():
                pb.cut = True
                pb.ended.set_result(now)
        return now

    def prepare_screen(self, image: Image.Image) -> None:
        pass

    async def show(self, image: Image.Image) -> float:
        self.sent.append((self.clock.now(), image))
        return self.clock.now()

    async def send_chat(self, text: str) -> float:
        self.sent.append((self.clock.now(), text))
        return self.clock.now()

    async def send_control(self, message: ControlMessage) -> bool:
        self.sent.append((self.clock.now(), message))
        return True

    async def push_file(self, name: str, data: bytes, media_type: str) -> FileOutcome:
        raise AssertionError("no file turns here")

    async def send_doc(self, message: bytes) -> None:
        pass

    async def events(self) -> AsyncIterator[AgentEvent]:
        return
        yield  # an async generator that yields nothing

    async def close(self, reason: str = "completed") -> None:
        for _pb, task in self._playing:
            task.cancel()


Step = Callable[[VirtualClock, AgentActivity], Awaitable[None]]


def speaks(start: float, end: float) -> Step:
    """The agent's voice is detected from ``start`` to ``end`` (what the pump does on onset and offset)."""

    async def step(clock: VirtualClock, act: AgentActivity) -> None:
        await clock.sleep_until(start)
        act.speaking_since = start
        act.spoke_this_turn = True
        act.onsets.append(start)
        act.poke()
        await clock.sleep_until(end)
        act.speaking_since = None
        act.last_voice_end = end
        act.poke()

    return step


def says_done(at: float) -> Step:
    async def step(clock: VirtualClock, act: AgentActivity) -> None:
        await clock.sleep_until(at)
        act.done.set()
        act.poke()

    return step


def acts(at: float) -> Step:
    """A chat message or a document edit, no voice."""

    async def step(clock: VirtualClock, act: AgentActivity) -> None:
        await clock.sleep_until(at)
        act.acted_this_turn = True
        act.poke()

    return step


def leaves(at: float) -> Step:
    async def step(clock: VirtualClock, act: AgentActivity) -> None:
        await clock.sleep_until(at)
        act.gone = True
        act.poke()

    return step


def _attach(data: bytes, media_type: str) -> Attachment:
    return Attachment(sha256=hashlib.sha256(data).hexdigest(), size=len(data), media_type=media_type)


def _turn(**update: Any) -> Turn:
    """The mini scenario's first turn (an audio turn with a 20 s budget), changed as the test needs."""
    turn = MINI.turns[0]
    assert turn.channel == "audio" and turn.chat_message is None and turn.screen is None and not turn.files
    return turn.model_copy(update=update)


class Played:
    def __init__(self, reason: str, events: list[Any], link: TimedLink) -> None:
        self.reason, self.events, self.link = reason, events, link

    def of(self, kind: str) -> list[Any]:
        return [e for e in self.events if e.event == kind]

    @property
    def ended_at(self) -> float:
        (end,) = self.of("turn_end")
        assert end.reason == self.reason
        return float(end.meeting_time)


def play(turn: Turn, *agent: Step) -> Played:
    """Play ``turn`` on a fresh virtual clock while the scripted agent runs; returns how it went."""

    async def main() -> Played:
        clock = VirtualClock()
        link = TimedLink(clock)
        act = AgentActivity()
        events: list[Any] = []
        persona = ScriptedPersona(MINI, link, clock, FixedSpeech(), events.append, _attach, act, OPTIONS)  # type: ignore[arg-type]
        tasks = [asyncio.ensure_future(step(clock, act)) for step in agent]
        try:
            reason = await persona.play_turn(turn)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await link.close()
        return Played(reason, events, link)

    return asyncio.run(main())


def test_the_window_opens_when_the_persona_has_finished_speaking() -> None:
    played = play(_turn(), speaks(2.5, 4.0))
    (utterance,) = played.of("persona_utterance")
    assert (utterance.start, utterance.end) == (0.0, SPEECH_SECONDS)
    ends = [t for t, m in played.link.sent if isinstance(m, TurnEndMarker)]
    assert ends == [SPEECH_SECONDS]


def test_done_ends_the_turn_at_once_when_the_agent_is_quiet() -> None:
    played = play(_turn(), speaks(2.5, 4.0), says_done(4.2))
    assert played.reason == "agent_done"
    assert played.ended_at == pytest.approx(4.2)  # not at 4.0 + the silence gap


def test_done_waits_for_the_last_words_to_land() -> None:
    played = play(_turn(), speaks(2.5, 4.5), says_done(4.0))
    assert played.reason == "agent_done"
    assert played.ended_at == pytest.approx(4.5)


def test_done_waits_no_longer_than_the_grace_for_a_voice_that_goes_on() -> None:
    played = play(_turn(), speaks(2.5, 30.0), says_done(3.0))
    assert played.reason == "agent_done"
    assert played.ended_at == pytest.approx(3.0 + GRACE)


def test_silence_after_speech_ends_the_turn_and_a_shorter_pause_does_not() -> None:
    assert GAP > 0.5
    played = play(_turn(), speaks(2.5, 4.0), speaks(4.5, 5.0))
    assert played.reason == "silence"
    assert played.ended_at == pytest.approx(5.0 + GAP)


def test_an_agent_that_does_nothing_gets_the_whole_budget() -> None:
    played = play(_turn(wait_for_agent_sec=20))
    assert played.reason == "budget"
    assert played.ended_at == pytest.approx(SPEECH_SECONDS + 20)


def test_the_budget_closes_the_window_even_on_an_agent_still_talking() -> None:
    played = play(_turn(wait_for_agent_sec=5), speaks(2.5, 30.0))
    assert played.reason == "budget"
    assert played.ended_at == pytest.approx(SPEECH_SECONDS + 5)


def test_a_chat_only_answer_ends_the_turn_after_a_quiet_gap() -> None:
    played = play(_turn(), acts(3.0), acts(3.8))
    assert played.reason == "silence"
    assert played.ended_at == pytest.approx(3.8 + GAP)


def test_barge_in_cuts_an_agent_that_talks_too_long() -> None:
    played = play(_turn(barge_in_after_sec=3.0), speaks(2.5, 30.0))
    assert played.reason == "barge_in"
    assert played.ended_at == pytest.approx(5.5)
    (cut,) = played.of("interruption")
    assert (cut.by, cut.kind, cut.meeting_time) == ("persona", "barge_in", pytest.approx(5.5))
    closed = [m for _t, m in played.link.sent if isinstance(m, TurnClosedMarker)]
    assert closed == [TurnClosedMarker(MINI.turns[0].turn_index, "barge_in")]


def test_no_barge_in_when_the_agent_stops_in_time() -> None:
    played = play(_turn(barge_in_after_sec=3.0), speaks(2.5, 5.0))
    assert played.reason == "silence"
    assert played.ended_at == pytest.approx(5.0 + GAP)
    assert not played.of("interruption")


def test_a_turn_without_barge_in_lets_the_agent_talk() -> None:
    played = play(_turn(), speaks(2.5, 15.0))
    assert played.reason == "silence"
    assert played.ended_at == pytest.approx(15.0 + GAP)


def test_the_agent_talking_over_the_persona_is_an_overlap() -> None:
    played = play(_turn(), speaks(1.0, 1.5), speaks(2.5, 3.0))
    overlaps = played.of("interruption")
    assert [(e.by, e.kind) for e in overlaps] == [("agent", "overlap")]
    # Recorded once the persona's line has finished, with the utterance it interrupted.
    assert overlaps[0].meeting_time == pytest.approx(SPEECH_SECONDS)
    (utterance,) = played.of("persona_utterance")
    assert utterance.start < 1.0 < utterance.end


def test_speech_after_the_persona_finished_is_no_overlap() -> None:
    played = play(_turn(), speaks(2.0 + 0.02, 3.0))
    assert not played.of("interruption")


def test_the_agent_leaving_ends_the_turn_without_a_closing_marker() -> None:
    played = play(_turn(), speaks(2.5, 3.0), leaves(3.2))
    assert played.reason == "meeting_end"
    assert played.ended_at == pytest.approx(3.2)
    assert not [m for _t, m in played.link.sent if isinstance(m, TurnClosedMarker)]


@pytest.mark.parametrize(
    ("agent", "reason"),
    [((), "budget"), ((speaks(2.5, 3.0),), "silence"), ((speaks(2.5, 3.0), says_done(3.1)), "agent_done")],
)
def test_every_closed_window_is_announced_with_its_reason(agent: tuple[Step, ...], reason: str) -> None:
    played = play(_turn(), *agent)
    assert played.reason == reason
    sent = [(t, m) for t, m in played.link.sent if isinstance(m, TurnEndMarker | TurnClosedMarker)]
    assert [type(m) for _t, m in sent] == [TurnEndMarker, TurnClosedMarker]
    assert sent[1] == (pytest.approx(played.ended_at), TurnClosedMarker(MINI.turns[0].turn_index, reason))


# --------------------------------------------------------------------------- backchannels and asides


def test_a_backchannel_comes_while_the_agent_talks_and_does_not_end_the_turn() -> None:
    from modylbench.scenarios import Backchannel

    played = play(_turn(backchannel=Backchannel(after_sec=1.0)), speaks(2.5, 9.0), says_done(9.2))
    (bc,) = played.of("persona_backchannel")
    assert bc.start == pytest.approx(3.5)  # 1.0 s into the agent's speech
    assert played.reason == "agent_done" and played.ended_at == pytest.approx(9.2)
    captions = [m for _, m in played.link.sent if type(m).__name__ == "Caption"]
    assert len(captions) == 1  # only the turn's line is captioned: a backchannel is not a turn


def test_no_backchannel_for_an_agent_that_stops_before_it_is_due() -> None:
    from modylbench.scenarios import Backchannel

    played = play(_turn(backchannel=Backchannel(after_sec=3.0)), speaks(2.5, 4.0))
    assert played.of("persona_backchannel") == []
    assert played.reason == "silence"


def test_an_aside_opens_the_turn_uncaptioned_then_the_line_follows_its_pause() -> None:
    from modylbench.scenarios import Aside

    played = play(_turn(aside=Aside(text="Sam, the door?", to="a colleague", pause_sec=2.5)), speaks(7.0, 8.0))
    (a,) = played.of("persona_aside")
    (u,) = played.of("persona_utterance")
    assert (a.start, a.end) == (0.0, SPEECH_SECONDS)
    assert u.start == pytest.approx(SPEECH_SECONDS + 2.5)
    captions = [m for _, m in played.link.sent if type(m).__name__ == "Caption"]
    assert [c.text for c in captions] == [u.text]
    ends = [t for t, m in played.link.sent if isinstance(m, TurnEndMarker)]
    assert ends == [pytest.approx(u.end)]  # the floor opens after the line, not after the aside
