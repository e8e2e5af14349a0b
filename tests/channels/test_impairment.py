"""Network profiles: reading them, the per-packet model, and two real peers whose datagrams the harness's
impairment layer loses, delays and counts (deterministic from the seed)."""

from __future__ import annotations

import asyncio
import statistics

import pytest

from modylbench.agents import AudioReceived, join
from modylbench.channels import (
    PROFILES,
    LinkOptions,
    NetworkProfileError,
    PathImpairment,
    SignalingServer,
    fallback_speech,
    parse_profile,
)
from modylbench.channels._network import PathModel, datagram_kind, direction_seed
from modylbench.channels._signaling import MEETING_END_TIMEOUT, TEARDOWN_TIMEOUT
from modylbench.channels._wire import SEND_BUFFER_HIGH

pytestmark = pytest.mark.timeout(90)


def test_named_and_custom_profiles_are_read_per_direction() -> None:
    assert parse_profile("clean").clean
    assert set(PROFILES) == {"clean", "home-wifi", "mobile", "congested", "lossy-burst"}
    p = parse_profile("loss=2%,burst=3,delay=40ms,jitter=5,rate=2mbit,reorder=0.01,duplicate=1%")
    assert p.to_agent == p.from_agent == PathImpairment(loss=0.02, burst=3, delay=0.04, jitter=0.005, rate=2e6,
                                                         reorder=0.01, duplicate=0.01)  # fmt: skip
    both = parse_profile("delay=30ms;down:loss=5%;up:rate=500kbit")
    assert both.to_agent == PathImpairment(loss=0.05, delay=0.03)  # the shared part, then the side's own
    assert both.from_agent == PathImpairment(delay=0.03, rate=500e3)
    one = parse_profile("down:loss=10%")
    assert one.from_agent.clean and not one.to_agent.clean
    # describe() is the custom syntax again: reading it back gives the same network.
    for name, profile in PROFILES.items():
        again = parse_profile(profile.describe())
        assert (again.to_agent, again.from_agent) == (profile.to_agent, profile.from_agent), name
    for bad in ("nosuch", "loss=120%", "loss=2x", "burst=0.5", "speed=3", "down:loss=1%;down:loss=2%",
                "down:loss=1%;delay=4"):  # fmt: skip
        with pytest.raises(NetworkProfileError):
            parse_profile(bad)


def test_gilbert_elliott_loss_has_the_asked_mean_and_burst_length() -> None:
    model = PathModel(PathImpairment(loss=0.05, burst=4.0), seed=1)
    fates = [model.lost() for _ in range(200_000)]
    assert statistics.mean(fates) == pytest.approx(0.05, abs=0.005)
    bursts, run = [], 0
    for lost in fates:
        if lost:
            run += 1
        elif run:
            bursts.append(run)
            run = 0
    assert statistics.mean(bursts) == pytest.approx(4.0, rel=0.1)
    independent = PathModel(PathImpairment(loss=0.05), seed=1)
    runs = [independent.lost() for _ in range(200_000)]
    assert statistics.mean(runs) == pytest.approx(0.05, abs=0.005)
    # The same seed, the same fates; the directions of one session draw different streams.
    again = PathModel(PathImpairment(loss=0.05, burst=4.0), seed=1)
    assert [again.lost() for _ in range(1000)] == fates[:1000]
    assert direction_seed(3, "to_agent") != direction_seed(3, "from_agent")


def test_a_rate_cap_queues_then_drops_and_jitter_keeps_the_order() -> None:
    model = PathModel(PathImpairment(rate=80_000, queue=0.1), seed=0)  # 10 kB/s: a 1000-byte packet is 0.1 s
    dues = [model.schedule(0.0, 1000) for _ in range(4)]
    assert [d for d, _ in dues[:2]] == [[pytest.approx(0.1)], [pytest.approx(0.2)]]
    assert dues[2] == ([], "queue") and dues[3] == ([], "queue")  # past 0.1 s of backlog: dropped
    jittery = PathModel(PathImpairment(delay=0.05, jitter=0.02), seed=0)
    times = [jittery.schedule(i * 0.02, 100)[0][0] for i in range(500)]
    assert times == sorted(times)
    assert statistics.mean(t - i * 0.02 for i, t in enumerate(times)) == pytest.approx(0.06, abs=0.015)


def test_datagrams_are_told_apart_as_rfc_7983_says() -> None:
    assert datagram_kind(bytes([0x80, 96]) + bytes(10)) == "rtp"
    assert datagram_kind(bytes([0x81, 201]) + bytes(10)) == "rtcp"
    assert datagram_kind(bytes([23, 0xFE, 0xFD])) == "dtls"
    assert datagram_kind(bytes([22, 0xFE, 0xFD])) == "dtls-handshake"


async def _meeting_under(
    network: str, seed: int
) -> tuple[dict[str, object], list[tuple[str, str, int]], int, bool]:
    """Persona speech and a file to a real agent peer under ``network``; the stats, the fates, audio frames
    the agent got, and whether the file arrived."""
    async with SignalingServer() as server:
        meeting = server.create_meeting(
            options=LinkOptions(network=parse_profile(network), network_seed=seed)
        )
        meeting.network.fates = []
        client = await join(meeting.url, meeting.token, receive_audio=True)
        await meeting.wait_connected()
        frames = 0

        async def agent() -> None:
            nonlocal frames
            async for ev in client.events():
                if isinstance(ev, AudioReceived):
                    frames += 1

        task = asyncio.ensure_future(agent())
        playback = await meeting.play(fallback_speech("the margin fell two points in the third quarter"))
        outcome = await meeting.push_file("q3.csv", bytes(range(256)) * 200, "text/csv")
        await playback.ended
        stats = await meeting.network_stats()
        fates = list(meeting.network.fates)
        await meeting.close()
        await client.leave()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    return stats, fates, frames, outcome.ok


async def test_two_real_peers_lose_exactly_the_packets_the_seed_says() -> None:
    stats, fates, frames, file_ok = await _meeting_under("down:loss=20%", seed=11)
    down = stats["to_agent"]
    up = stats["from_agent"]
    assert isinstance(down, dict) and isinstance(up, dict)
    # Only the persona's direction loses; roughly a fifth of what it sent.
    assert up["dropped_loss"] == 0 and down["dropped_loss"] > 0
    assert 0.12 < down["dropped_loss"] / down["datagrams"] < 0.3
    # Deterministic: the k-th impaired datagram's fate is the model's k-th decision for this seed.
    model = PathModel(parse_profile("down:loss=20%").to_agent, direction_seed(11, "to_agent"))
    downs = [copies for d, _, copies in fates if d == "to_agent"]
    assert downs == [len(model.schedule(0.0, 100)[0]) for _ in downs]
    assert down["dropped_loss"] == downs.count(0)
    # The agent's receiver reports the loss (RTCP), SCTP sent the lost file chunks again, the file arrived.
    audio = [s for s in stats["streams"] if s["direction"] == "to_agent" and s["kind"] == "audio"]  # type: ignore[union-attr,index]
    assert audio and audio[0]["packets_lost"] > 0 and audio[0]["packets_sent"] > audio[0]["packets_delivered"]
    assert file_ok and down["sctp_retransmissions"] > 0
    assert frames > 0
    assert stats["profile"] == "down:loss=20%"


async def test_delay_on_both_paths_shows_in_the_measured_round_trip() -> None:
    stats, _, _, file_ok = await _meeting_under("delay=60ms", seed=0)
    assert file_ok
    rtts = [s["round_trip_ms"] for s in stats["streams"] if s["round_trip_ms"] is not None]  # type: ignore[union-attr,index]
    assert rtts and min(rtts) >= 115  # two 60 ms paths (a little under: RTCP's timestamps are 1/65536 s)
    # Only the audio stream's, which sends every 20 ms (a still screen's sender reports are stale).
    assert all(s["kind"] == "audio" for s in stats["streams"] if s["round_trip_ms"] is not None)  # type: ignore[index]
    assert stats["to_agent"]["delay_mean_ms"] >= 59  # type: ignore[index]
    assert stats["to_agent"]["dropped_loss"] == 0  # type: ignore[index]


async def test_close_ends_the_meeting_when_the_network_starves_the_control_channel() -> None:
    """A meeting under ``mobile`` once never ended: close() waited for the control channel's send buffer to
    drain before sending meeting_end, and a starved association never drains it. Here the path toward the
    agent loses everything from the moment the buffer is over its high-water mark; close() must still end."""
    async with SignalingServer() as server:
        meeting = server.create_meeting(options=LinkOptions(network=parse_profile("delay=1ms"), network_seed=0))
        client = await join(meeting.url, meeting.token)
        await meeting.wait_connected()
        starved = parse_profile("down:loss=100%")
        meeting.network.profile = starved
        meeting.network.models["to_agent"] = PathModel(starved.to_agent, 0)
        channel = meeting.pipes["control"].channel  # type: ignore[attr-defined]
        for _ in range(SEND_BUFFER_HIGH // 8192 + 2):
            channel.send("x" * 8192)  # never acknowledged: the buffer stays over the mark
        assert channel.bufferedAmount > SEND_BUFFER_HIGH
        await asyncio.wait_for(meeting.close("completed"), MEETING_END_TIMEOUT + TEARDOWN_TIMEOUT + 5)
        assert not meeting.connected and meeting.pc is not None and meeting.pc.connectionState == "closed"
        assert meeting.network.wire.paths["to_agent"].dropped_loss > 0  # the starvation did happen
        await client.leave()
