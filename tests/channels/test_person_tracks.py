"""Each participant of a multi-party meeting as a track of their own over WebRTC (docs/protocol.md §4a), between two
real aiortc peers: the agent maps each track to its person from ``hello.room.participants[i].track`` (the mid), and
each carries only that person's speech; a one-to-one meeting negotiates exactly the tracks it did before."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription

from modylbench.agents import AudioReceived, Hello, join
from modylbench.channels import SignalingServer, room_hello
from modylbench.channels._audio import frame_dbfs
from modylbench.channels._webrtc import sdp_summary
from modylbench.scenarios import MAX_PARTICIPANTS

pytestmark = pytest.mark.timeout(60)

PEOPLE = [("Dana Whitfield", "Partner"), ("Priya Raman", "CFO"), ("Marcus Bell", "Operations")]
VOICED_DB = -40.0
PAUSE = 1.0
LATE = 0.6
"""How late a frame may arrive on this loaded machine (loopback, 2 cores shared): under the pause between lines."""


def _tone(seconds: float, hz: float) -> bytes:
    """A steady tone (speech has pauses inside it that would split a span)."""
    t = np.arange(int(seconds * 48_000)) / 48_000
    return (np.sin(2 * np.pi * hz * t) * 8000).astype("<i2").tobytes()


def _spans(frames: list[AudioReceived]) -> list[tuple[float, float]]:
    """Runs of voiced frames (gaps under 0.3 s bridged), as (first frame time, last frame end)."""
    out: list[tuple[float, float]] = []
    for f in frames:
        if frame_dbfs(f.pcm) <= VOICED_DB:
            continue
        if out and f.time - out[-1][1] < 0.3:
            out[-1] = (out[-1][0], f.time + 0.02)
        else:
            out.append((f.time, f.time + 0.02))
    return out


async def test_each_person_speaks_on_their_own_track_and_the_mixed_one() -> None:
    async with SignalingServer() as server:
        meeting = server.create_meeting()
        meeting.room = room_hello("Alex", PEOPLE, {n for n, _ in PEOPLE})
        client = await join(meeting.url, meeting.token, participant_audio=True)
        await meeting.wait_connected()
        # The agent offered one extra audio transceiver per possible person: the first three carry someone.
        assert len(meeting.person_tracks) == 3
        assert sdp_summary(meeting.pc.localDescription.sdp)["media"].count("audio") == 1 + MAX_PARTICIPANTS
        got: list[AudioReceived] = []
        hello: list[Hello] = []

        async def agent() -> None:
            async for ev in client.events():
                if isinstance(ev, AudioReceived):
                    got.append(ev)
                elif isinstance(ev, Hello):
                    hello.append(ev)

        task = asyncio.create_task(agent())
        base = meeting.clock.base
        lines = [("Dana Whitfield", 1.2), ("Priya Raman", 0.8), ("Dana Whitfield", 0.5)]  # (who, seconds)
        said: list[tuple[str, float, float]] = []  # (who, wall start, wall end) on the mixed track
        for who, seconds in lines:
            pb = await meeting.play(_tone(seconds, 440.0), speaker=who)
            start, end = await pb.started, await pb.ended
            offset = base.now() - meeting.clock.now()
            said.append((who, start + offset, end + offset))
            await asyncio.sleep(PAUSE)  # between lines, so that whose line a span belongs to is clear
        await asyncio.sleep(0.3)
        await meeting.close()
        await asyncio.wait_for(task, 5)
        await client.leave()

    room = hello[0].room
    assert room is not None
    mids = {p.name: p.track for p in room.participants}
    assert all(mids.values()) and len(set(mids.values())) == 3
    assert mids == {p.name: p.mid for p in meeting.person_tracks.values()}
    mixed = _spans([f for f in got if f.participant is None])
    assert len(mixed) == len(lines)
    for name, _ in PEOPLE:
        spans = _spans([f for f in got if f.participant == name])
        theirs = [(s, e) for who, s, e in said if who == name]
        assert len(spans) == len(theirs), (name, spans, theirs)
        for (s, e), (ps, pe) in zip(spans, theirs, strict=True):
            # Energy on a person's track only while they speak on the mixed one (give or take the network).
            assert ps - 0.05 < s < ps + LATE and pe - 0.05 < e < pe + LATE, (name, (s, e), (ps, pe))
        # ... and all of it: each line's every frame, as on the mixed track.
        voiced = sum(1 for f in got if f.participant == name and frame_dbfs(f.pcm) > VOICED_DB)
        assert abs(voiced - sum(round((pe - ps) / 0.02) for ps, pe in theirs)) <= 2 * len(theirs), (name, voiced)
    assert sum(1 for f in got if f.participant is None and frame_dbfs(f.pcm) > VOICED_DB) >= 125


async def test_an_agent_that_takes_one_track_negotiates_what_it_did_before() -> None:
    async with SignalingServer() as server:
        meeting = server.create_meeting()
        meeting.room = room_hello("Alex", PEOPLE, {n for n, _ in PEOPLE})
        client = await join(meeting.url, meeting.token)  # participant_audio off: the default
        await meeting.wait_connected()
        assert meeting.person_tracks == {}
        assert sdp_summary(meeting.pc.localDescription.sdp)["media"] == ["audio", "video", "application"]
        hello = None
        async for ev in client.events():
            if isinstance(ev, Hello):
                hello = ev
                break
        assert hello is not None and hello.room is not None
        assert all(p.track is None for p in hello.room.participants)
        assert all("track" not in p for p in hello.data["room"]["participants"])
        await meeting.close()
        await client.leave()


async def test_extra_audio_in_a_one_to_one_meeting_is_answered_inactive() -> None:
    async with SignalingServer() as server:
        meeting = server.create_meeting()  # no room: one-to-one
        client = await join(meeting.url, meeting.token, participant_audio=True)
        await meeting.wait_connected()
        assert meeting.person_tracks == {}
        answer = meeting.pc.localDescription.sdp
        sections = answer.split("m=")[1:]
        audio = [s for s in sections if s.startswith("audio")]
        assert len(audio) == 1 + MAX_PARTICIPANTS
        assert "a=sendrecv" in audio[0] and all("a=inactive" in s for s in audio[1:])
        await meeting.close()
        await client.leave()


async def test_a_raw_aiortc_offer_with_two_extra_transceivers_gets_the_first_two_people() -> None:
    """From the docs alone: extra recvonly audio transceivers, read back by mid."""
    async with SignalingServer() as server:
        meeting = server.create_meeting()
        meeting.room = room_hello("Alex", PEOPLE, {n for n, _ in PEOPLE})
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        pc.addTransceiver("audio", direction="sendrecv")
        pc.addTransceiver("video", direction="recvonly")
        extra = [pc.addTransceiver("audio", direction="recvonly") for _ in range(2)]
        for label in ("control", "chat", "files", "doc"):
            pc.createDataChannel(label)
        tracks: list[str] = []
        pc.on("track", lambda track: tracks.append(track.kind))
        await pc.setLocalDescription(await pc.createOffer())
        answer = await meeting.accept_offer(pc.localDescription.sdp)
        await pc.setRemoteDescription(RTCSessionDescription(answer, "answer"))
        assert sorted(tracks) == ["audio", "audio", "audio", "video"]  # the mixed one and one per person given
        assert {p.name: p.mid for p in meeting.person_tracks.values()} == {
            "Dana Whitfield": extra[0].mid, "Priya Raman": extra[1].mid}
        people = json.loads(meeting.hello_message())["room"]["participants"]
        assert [p.get("track") for p in people] == [extra[0].mid, extra[1].mid, None]
        await pc.close()
        await meeting.close()


async def test_in_process_each_persons_audio_is_opt_in_and_only_theirs() -> None:
    from modylbench.agents import join_inprocess
    from modylbench.channels import InProcessMeeting, VirtualClock

    clock = VirtualClock()
    link = InProcessMeeting(clock)
    link.room = room_hello("Alex", PEOPLE, {n for n, _ in PEOPLE})
    client = await join_inprocess(link, participant_audio=True)
    got: list[AudioReceived] = []

    async def agent() -> None:
        async for ev in client.events():
            if isinstance(ev, AudioReceived):
                got.append(ev)

    task = asyncio.create_task(agent())
    said = []
    for who, seconds in [("Priya Raman", 0.6), ("Marcus Bell", 0.4)]:
        pb = await link.play(_tone(seconds, 300.0), speaker=who)
        said.append((who, await pb.started, await pb.ended))
        await clock.sleep(0.5)
    await link.close()
    await asyncio.wait_for(task, 5)
    for name, _ in PEOPLE:
        theirs = [(s, e) for who, s, e in said if who == name]
        spans = _spans([f for f in got if f.participant == name])
        assert len(spans) == len(theirs), (name, spans)
        for (s, e), (ps, pe) in zip(spans, theirs, strict=True):
            assert ps <= s <= ps + 0.021 and pe <= e <= pe + 0.041  # the mixed slot or the next one
    assert len(_spans([f for f in got if f.participant is None])) == 2
    # Off by default: the mixed audio only, as before.
    link2 = InProcessMeeting(VirtualClock())
    link2.room = link.room
    await join_inprocess(link2)
    assert link2.person_audio == {}
    await link2.close()


async def test_three_people_and_four_extra_transceivers_give_four_audio_tracks() -> None:
    async with SignalingServer() as server:
        meeting = server.create_meeting()
        meeting.room = room_hello("Alex", PEOPLE, {n for n, _ in PEOPLE})
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        pc.addTransceiver("audio", direction="sendrecv")
        pc.addTransceiver("video", direction="recvonly")
        extra = [pc.addTransceiver("audio", direction="recvonly") for _ in range(MAX_PARTICIPANTS)]
        for label in ("control", "chat", "files", "doc"):
            pc.createDataChannel(label)
        tracks: list[str] = []
        pc.on("track", lambda track: tracks.append(track.kind))
        await pc.setLocalDescription(await pc.createOffer())
        await pc.setRemoteDescription(RTCSessionDescription(await meeting.accept_offer(pc.localDescription.sdp),
                                                            "answer"))  # fmt: skip
        assert tracks.count("audio") == len(PEOPLE) + 1
        assert [p.mid for p in meeting.person_tracks.values()] == [t.mid for t in extra[: len(PEOPLE)]]
        await pc.close()
        await meeting.close()
