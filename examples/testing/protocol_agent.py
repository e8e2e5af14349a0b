"""An agent written from docs/protocol.md alone (no ModylBench import): it joins over WebRTC, asks the persona a
question in each turn and listens for the answer.

It uses aiortc, aioice (the documented loopback recipe, §8), websockets and numpy, nothing of the harness:
signaling (§1), the offer with its audio and video transceivers and four data channels (§2), ``hello`` /
``turn_end`` / ``caption`` on control (§3), a question in chat and the answer's ``reply_to`` (§4 "Asking the
persona"), ``done`` to close its window. It measures, at the agent, when the answer's audio starts.

In a multi-party meeting (§4a) it offers ``person_tracks`` extra receive-only audio transceivers, reads whose track
is whose from ``hello.room.participants[i].track`` (the transceiver's ``mid``), notes when each person's own track
is audible, and answers a line that names it (``hello.room.agent_name``) in chat, naming who asked.

    python examples/testing/protocol_agent.py URL TOKEN "What's the fund's IRR hurdle?|What's the holding period?" ...
    python examples/testing/protocol_agent.py --room   # URL and TOKEN from MODYLBENCH_URL / MODYLBENCH_TOKEN

(one argument per turn, its questions separated by |). ``--room`` prints what it heard, as one JSON line.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import aioice.ice
import numpy as np
import websockets
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import AudioStreamTrack, MediaStreamError

# §8 "Offering a 127.0.0.1 candidate", as written there.
_host_addresses = aioice.ice.get_host_addresses


def _with_loopback(use_ipv4: bool, use_ipv6: bool) -> list[str]:
    addresses = _host_addresses(use_ipv4, use_ipv6)
    return [*addresses, "127.0.0.1"] if use_ipv4 and "127.0.0.1" not in addresses else addresses


aioice.ice.get_host_addresses = _with_loopback

AUDIBLE = 500
"""Peak sample (s16) above which a received frame is speech, not the silence between utterances."""


@dataclass
class Exchange:
    """One question and its answer, as the agent saw them (wall-clock seconds, ``time.time()``)."""

    turn_index: int
    question: str
    sent: float
    answer: str = ""
    reply_to: str = ""
    channel: str = ""
    caption_at: float | None = None
    audio_at: float | None = None
    """When the first audible frame of the persona's audio arrived after the answer's caption."""


@dataclass
class ProtocolAgent:
    url: str
    token: str
    questions: list[list[str]]
    """The questions to ask in each turn, in order (after the persona's turn_end)."""
    exchanges: list[Exchange] = field(default_factory=list)
    turns: int = 0
    closed_reasons: list[str] = field(default_factory=list)
    person_tracks: int = 0
    """Extra receive-only audio transceivers to offer, one per person a multi-party meeting may have (§4a: up to 4)."""
    room: dict[str, Any] | None = None
    """``hello.room``, in a multi-party meeting."""
    heard: dict[str, list[float]] = field(default_factory=dict)
    """mid of a person's own track -> when its frames were audible (``time.time()``)."""
    captions: list[dict[str, Any]] = field(default_factory=list)
    answered: list[str] = field(default_factory=list)
    """What it said in chat to people who named it."""
    _audible: list[float] = field(default_factory=list)

    def heard_from(self) -> dict[str, int]:
        """Audible frames on each person's own track, by name (from ``hello.room``)."""
        people = (self.room or {}).get("participants", [])
        return {p["name"]: len(self.heard.get(p.get("track") or "", [])) for p in people}

    async def run(self) -> None:
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        pc.addTransceiver(AudioStreamTrack(), direction="sendrecv")  # §2: our (silent) voice goes out on it
        pc.addTransceiver("video", direction="recvonly")
        for _ in range(self.person_tracks):  # §4a: each filled with one person's speech in a multi-party meeting
            pc.addTransceiver("audio", direction="recvonly")
        channels = {label: pc.createDataChannel(label) for label in ("control", "chat", "files", "doc")}
        readers: list[asyncio.Task[None]] = []

        @pc.on("track")
        def on_track(track: Any) -> None:
            mid = next(t.mid for t in pc.getTransceivers() if t.receiver.track is track)
            first_audio = next(t for t in pc.getTransceivers() if t.kind == "audio")
            person = mid if track.kind == "audio" and mid != first_audio.mid else None
            readers.append(asyncio.ensure_future(self._listen(track, person)))  # §2: unread tracks grow memory

        answered: asyncio.Queue[tuple[str, str, str, float]] = asyncio.Queue()  # (reply_to, text, channel, seconds)
        control: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

        @channels["control"].on("message")
        def on_control(msg: str | bytes) -> None:
            obj = json.loads(msg)
            if obj.get("type") == "hello":
                self.room = obj.get("room")
            if obj.get("type") == "caption":
                self.captions.append(obj)
            if obj.get("type") == "caption" and obj.get("reply_to"):
                took = float(obj["end"] - obj["start"]) if obj.get("end") is not None and obj.get("start") is not None else 0.0
                answered.put_nowait((obj["reply_to"], obj.get("text", ""), "audio", took))
            control.put_nowait(obj)

        @channels["chat"].on("message")
        def on_chat(msg: str | bytes) -> None:
            obj = json.loads(msg)
            if obj.get("reply_to"):
                answered.put_nowait((obj["reply_to"], obj.get("text", ""), "chat", 0.0))

        await pc.setLocalDescription(await pc.createOffer())  # aiortc gathers every candidate here (non-trickle)
        async with websockets.connect(self.url, additional_headers={"Authorization": f"Bearer {self.token}"},
                                      max_size=262_144) as ws:
            await ws.send(json.dumps({"type": "offer", "sdp": pc.localDescription.sdp}))
            answer = json.loads(await ws.recv())
            if answer.get("type") != "answer":
                raise ConnectionError(f"signaling: {answer}")
            await pc.setRemoteDescription(RTCSessionDescription(answer["sdp"], "answer"))
            try:
                await self._meeting(channels, control, answered)
            finally:
                for t in readers:
                    t.cancel()
                await asyncio.gather(*readers, return_exceptions=True)
                await pc.close()

    async def _meeting(self, channels: dict[str, Any], control: asyncio.Queue[dict[str, Any]],
                       answered: asyncio.Queue[tuple[str, str, str, float]]) -> None:
        while True:
            obj = await control.get()
            kind = obj.get("type")
            if kind == "meeting_end":
                return
            if kind == "turn_closed":
                self.closed_reasons.append(obj.get("reason", ""))
            if kind != "turn_end":
                continue
            ti = int(obj["turn_index"])
            self.turns += 1
            line = self.captions[-1] if self.captions else {}
            me = (self.room or {}).get("agent_name")
            if me and me.lower() in str(line.get("text", "")).lower():  # a line that names us: answer who asked
                reply = f"{str(line.get('speaker', '')).split(' ')[0]}, noted: I'll put it in the model."
                channels["chat"].send(json.dumps({"type": "chat", "text": reply}))
                self.answered.append(reply)
            for q in self.questions[ti] if ti < len(self.questions) else []:
                ex = Exchange(ti, q, time.time())
                self.exchanges.append(ex)
                channels["chat"].send(json.dumps({"type": "chat", "text": q}))
                try:
                    ex.reply_to, ex.answer, ex.channel, took = await asyncio.wait_for(answered.get(), 15.0)
                except TimeoutError:
                    break
                ex.caption_at = time.time()
                if ex.channel == "audio":
                    # The persona pauses 0.8 s before answering (§4): audio before then is its scripted line's tail.
                    ex.audio_at = await self._audio_after(ex.sent + 0.4, 10.0)
                    await asyncio.sleep(took + 0.3)  # let it finish before asking again (the caption's end - start)
            channels["control"].send(json.dumps({"type": "done", "turn_index": ti}))

    async def _listen(self, track: Any, person: str | None) -> None:
        """Read ``track`` to its end; ``person``: the mid of one person's own track (None: the mixed one)."""
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                return
            if track.kind != "audio":
                continue
            samples = frame.to_ndarray()
            if samples.size and int(np.abs(samples.astype(np.int32)).max()) > AUDIBLE:
                if person is not None:
                    self.heard.setdefault(person, []).append(time.time())
                    continue
                self._audible.append(time.time())
                del self._audible[:-200]

    async def _audio_after(self, since: float, timeout: float) -> float | None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            hit = next((t for t in self._audible if t > since), None)
            if hit is not None:
                return hit
            await asyncio.sleep(0.005)
        return None


def main() -> None:
    if sys.argv[1:] == ["--room"]:
        agent = ProtocolAgent(os.environ["MODYLBENCH_URL"], os.environ["MODYLBENCH_TOKEN"], [], person_tracks=4)
        asyncio.run(agent.run())
        print(json.dumps({"room": agent.room, "heard_from": agent.heard_from(), "turns": agent.turns,
                          "answered": agent.answered, "captions": [(c.get("speaker"), c.get("start"), c.get("end"))
                                                                   for c in agent.captions]}))  # fmt: skip
        return
    url, token, *turns = sys.argv[1:]
    agent = ProtocolAgent(url, token, [t.split("|") for t in turns])
    asyncio.run(agent.run())
    for ex in agent.exchanges:
        lat = f"{(ex.audio_at - ex.sent) * 1000:.0f} ms" if ex.audio_at is not None else "-"
        print(f"turn {ex.turn_index}: {ex.question!r} -> {ex.reply_to} {ex.answer!r} (answer audio after {lat})")


if __name__ == "__main__":
    main()
