"""The signaling server against off-spec and hostile clients, over real sockets and real aiortc peers on
127.0.0.1: a second socket with the meeting's token, offers ICE cannot use, and messages that break §1."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import websockets
from aiortc import RTCPeerConnection
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, InvalidStatus

from modylbench.agents import join
from modylbench.channels import AgentDisconnected, LinkOptions, SignalingServer
from modylbench.channels._webrtc import rtc_configuration
from modylbench.channels._wire import CHANNEL_LABELS

pytestmark = pytest.mark.timeout(60)


async def _offer(pc: RTCPeerConnection) -> str:
    """A complete offer as an agent makes it: audio, video, the four data channels, candidates gathered."""
    for label in CHANNEL_LABELS:
        pc.createDataChannel(label)
    pc.addTransceiver("audio")
    pc.addTransceiver("video", direction="recvonly")
    await pc.setLocalDescription(await pc.createOffer())
    return pc.localDescription.sdp


async def _until_closed(ws: ClientConnection, timeout: float = 10) -> list[dict[str, Any]]:
    """Every message the server sends until it closes the socket."""
    got: list[dict[str, Any]] = []
    try:
        while True:
            got.append(json.loads(await asyncio.wait_for(ws.recv(), timeout)))
    except ConnectionClosed:
        pass
    return got


async def test_a_socket_that_offers_after_the_agent_joined_gets_4409_and_changes_nothing() -> None:
    async with SignalingServer() as server:
        meeting = server.create_meeting()
        # A opens with the token before the real agent, then waits.
        early = await websockets.connect(meeting.url + "?token=" + meeting.token)
        client = await join(meeting.url, meeting.token, receive_audio=False)
        await meeting.wait_connected()
        agent_pc = meeting.pc
        intruder = RTCPeerConnection(rtc_configuration())
        try:
            await early.send(json.dumps({"type": "offer", "sdp": await _offer(intruder)}))
            got = await _until_closed(early)
            assert early.close_code == 4409
            assert [m["type"] for m in got] == ["error"] and got[0]["code"] == "already_joined"
            assert meeting.pc is agent_pc and meeting.connected  # the agent's connection was not replaced
            await client.chat("still the agent")
        finally:
            await intruder.close()
        assert meeting.connected  # A going away does not end the meeting
        await meeting.close()
        await client.leave()


async def test_two_offers_at_once_one_answer_and_one_4409() -> None:
    async with SignalingServer() as server:
        meeting = server.create_meeting()
        url = meeting.url + "?token=" + meeting.token
        pcs = [RTCPeerConnection(rtc_configuration()) for _ in range(2)]
        sockets = [await websockets.connect(url) for _ in pcs]
        try:
            offers = [await _offer(pc) for pc in pcs]
            await asyncio.gather(*(ws.send(json.dumps({"type": "offer", "sdp": sdp}))
                                   for ws, sdp in zip(sockets, offers, strict=True)))  # fmt: skip
            first = [json.loads(await asyncio.wait_for(ws.recv(), 10)) for ws in sockets]
            assert sorted(m["type"] for m in first) == ["answer", "error"]
            loser = sockets[[m["type"] for m in first].index("error")]
            await _until_closed(loser)
            assert loser.close_code == 4409
        finally:
            for pc in pcs:
                await pc.close()
            for ws in sockets:
                await ws.close()
        await meeting.close()


async def test_an_offer_with_end_of_candidates_and_none_is_answered_with_candidates_and_fails_fast() -> None:
    async with SignalingServer() as server:
        meeting = server.create_meeting(options=LinkOptions(connect_timeout=30))
        pc = RTCPeerConnection(rtc_configuration())
        try:
            sdp = await _offer(pc)
            assert "a=end-of-candidates" in sdp
            stripped = "\r\n".join(line for line in sdp.split("\r\n") if not line.startswith("a=candidate:"))
            async with websockets.connect(meeting.url + "?token=" + meeting.token) as ws:
                await ws.send(json.dumps({"type": "offer", "sdp": stripped}))
                answer = json.loads(await ws.recv())
                assert answer["type"] == "answer" and "a=candidate:" in answer["sdp"]
                assert " 127.0.0.1 " in answer["sdp"]
                t0 = asyncio.get_running_loop().time()
                with pytest.raises(ConnectionError, match="ICE failed"):
                    await meeting.wait_connected()
                assert asyncio.get_running_loop().time() - t0 < 5  # neither the connect timeout nor ICE's
                got = await _until_closed(ws)
                assert ws.close_code == 4502
                assert got and got[0]["code"] == "ice_failed" and "had 0 candidates" in got[0]["message"]
        finally:
            await pc.close()
        events = [ev async for ev in meeting.events()]
        assert isinstance(events[-1], AgentDisconnected) and "ICE failed" in events[-1].reason
        await meeting.close()


async def test_an_offer_whose_candidates_never_answer_ends_the_join_after_the_ice_timeout() -> None:
    async with SignalingServer() as server:
        meeting = server.create_meeting(options=LinkOptions(connect_timeout=60))
        meeting.ice_timeout = 1.0  # aioice alone gives up after ~60 s
        pc = RTCPeerConnection(rtc_configuration())
        try:
            lines = [line for line in (await _offer(pc)).split("\r\n") if not line.startswith("a=candidate:")]
            # TEST-NET-1 (RFC 5737): nothing answers there.
            lines.insert(lines.index("a=end-of-candidates"), "a=candidate:1 1 udp 2130706431 192.0.2.1 9 typ host")
            async with websockets.connect(meeting.url + "?token=" + meeting.token) as ws:
                await ws.send(json.dumps({"type": "offer", "sdp": "\r\n".join(lines)}))
                assert json.loads(await ws.recv())["type"] == "answer"
                with pytest.raises(ConnectionError, match="not connected 1 s after the answer"):
                    await meeting.wait_connected()
                got = await _until_closed(ws)
                assert ws.close_code == 4502 and got[0]["code"] == "ice_failed"
                assert "had 1 candidate)" in got[0]["message"]
        finally:
            await pc.close()
        await meeting.close()


async def test_an_ordinary_agent_still_connects_with_its_candidates() -> None:
    # Guards the end-of-candidates handling above: an offer with candidates and the marker connects.
    async with SignalingServer() as server:
        meeting = server.create_meeting()
        client = await join(meeting.url, meeting.token, receive_audio=False)
        assert await meeting.wait_connected() < 2.0
        await meeting.close()
        await client.leave()


async def _refusal(url: str, payload: str | bytes) -> tuple[int | None, str | None, list[dict[str, Any]]]:
    async with websockets.connect(url, max_size=None) as ws:
        await ws.send(payload)
        got = await _until_closed(ws)
        return ws.close_code, ws.close_reason, got


async def test_off_spec_messages_are_refused_with_a_code_and_an_error_message() -> None:
    async with SignalingServer() as server:
        meeting = server.create_meeting()
        url = meeting.url + "?token=" + meeting.token
        code, _, got = await _refusal(url, "[" * 100_000 + "]" * 100_000)
        assert code == 4400 and got[0]["code"] == "bad_message" and "nested" in got[0]["message"]
        code, _, got = await _refusal(url, '{"type": "offer", "sdp": ' + "[" * 5000 + "]" * 5000 + "}")
        assert code == 4400 and "nested" in got[0]["message"]
        code, _, got = await _refusal(url, b'{"type": "offer", "sdp": "v=0\xff\xfe"}')
        assert code == 4400 and "not UTF-8" in got[0]["message"] and "codec" not in got[0]["message"]
        code, _, got = await _refusal(url, b'\x00{\x00}')  # json.loads would have guessed UTF-16 here
        assert code == 4400 and "codec" not in got[0]["message"]
        async with websockets.connect(url) as ws:
            await ws.send(b'{"type": "offer", "sdp": "\xff"}', text=True)  # a text frame that is not UTF-8
            got = await _until_closed(ws)
            assert ws.close_code == 4400 and "not UTF-8" in got[0]["message"]
        code, reason, got = await _refusal(url, "x" * 300_000)
        assert code == 1009 and reason == "message_too_large"
        assert got == [{"type": "error", "code": "message_too_large",
                        "message": "message over 262144 bytes"}]  # fmt: skip
        # After all that, the agent still joins; any later socket is told why it is refused.
        client = await join(meeting.url, meeting.token, receive_audio=False)
        await meeting.wait_connected()
        async with websockets.connect(url) as ws:
            got = await _until_closed(ws)
            assert ws.close_code == 4409 and got[0]["code"] == "already_joined"
        await meeting.close()
        await client.leave()
        async with websockets.connect(url) as ws:
            got = await _until_closed(ws)
            assert ws.close_code == 4410 and got[0]["code"] == "meeting_over"
            assert got[0]["message"] == "the meeting is over"


async def test_the_authorization_header_takes_precedence_over_the_query_token() -> None:
    async with SignalingServer() as server:
        meeting = server.create_meeting()
        with pytest.raises(InvalidStatus) as info:
            async with websockets.connect(meeting.url + "?token=" + meeting.token,
                                          additional_headers={"Authorization": "Bearer wrong"}):  # fmt: skip
                pass
        assert info.value.response.status_code == 401
        assert b"Authorization header" in info.value.response.body
        # A right header with a wrong query token is let in: the query is not looked at.
        async with websockets.connect(meeting.url + "?token=wrong",
                                      additional_headers={"Authorization": f"Bearer {meeting.token}"}) as ws:  # fmt: skip
            await ws.send("{}")
            await _until_closed(ws)
            assert ws.close_code == 4400


async def test_the_sdk_join_learns_at_once_that_the_harness_gave_up_on_its_ice() -> None:
    """When the harness ends a join (4502 ice_failed), the SDK's join raises that reason, not its own timeout."""
    async with SignalingServer() as server:
        meeting = server.create_meeting(options=LinkOptions(connect_timeout=60))
        meeting.ice_timeout = 0.0  # the harness gives up right after its answer
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(ConnectionError, match="ice_failed"):
            await join(meeting.url, meeting.token, timeout=20.0)
        assert loop.time() - started < 10.0  # the SDK's own timeout is 20 s
        await meeting.close()


async def test_a_flood_of_bad_joins_keeps_a_bounded_list() -> None:
    from modylbench.channels._signaling import REFUSALS_KEPT

    async with SignalingServer() as server:
        meeting = server.create_meeting()
        for _ in range(REFUSALS_KEPT + 40):
            with pytest.raises(InvalidStatus):
                async with websockets.connect(meeting.url + "?token=wrong"):
                    pass
        assert len(server.refused) == REFUSALS_KEPT
        await meeting.close()
