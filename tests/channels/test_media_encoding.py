"""The tracks encode their own media (Opus audio, VP8 screen) so that nothing on the audio path waits for a
worker thread or for aiortc's encoder re-creation; file sends share one budget per event loop."""

from __future__ import annotations

import asyncio
import hashlib

import pytest
from aiortc.codecs.opus import OpusDecoder
from aiortc.codecs.vpx import Vp8Decoder, Vp8Encoder
from aiortc.jitterbuffer import JitterFrame
from av import VideoFrame
from PIL import Image, ImageDraw

from modylbench.channels import VirtualClock, fallback_speech
from modylbench.channels._audio import SILENCE, AudioSource, frame_dbfs, frames_of
from modylbench.channels._webrtc import OpusFrames, PacedAudioTrack, ScreenTrack, to_mono_s16
from modylbench.channels._wire import SharedRate, sha256_hex


def _decode_levels(packets: list[bytes]) -> list[float]:
    dec = OpusDecoder()
    out = []
    for i, p in enumerate(packets):
        for f in dec.decode(JitterFrame(data=p, timestamp=i * 960)):
            out.append(frame_dbfs(to_mono_s16(f)))
    return out


def test_silence_is_one_constant_packet_and_costs_no_encoding() -> None:
    opus = OpusFrames()
    packets = [bytes(opus.packet(SILENCE, i * 960)) for i in range(50)]
    assert len(set(packets)) == 1 and len(packets[0]) <= 8
    assert opus.encoded == 0
    assert all(level == float("-inf") for level in _decode_levels(packets))


def test_speech_round_trips_without_an_onset_ramp() -> None:
    speech = frames_of(fallback_speech("revenue grew four percent"))
    opus = OpusFrames()
    frames = [SILENCE] * 5 + speech + [SILENCE] * 5
    packets = [opus.packet(f, i * 960) for i, f in enumerate(frames)]
    assert [p.pts for p in packets] == [i * 960 for i in range(len(frames))]
    # encoded: every non-silent frame plus the first silent one after each (flushes the look-ahead); the
    # digital silence between words is not encoded
    expected = sum(1 for i, f in enumerate(frames) if f != SILENCE or (i and frames[i - 1] != SILENCE))
    assert opus.encoded == expected < len(speech) + 1
    levels = _decode_levels([bytes(p) for p in packets])
    first = 5
    # A fresh libopus encoder starts ~30 dB low for 3 frames; the warm-up frame removes that.
    assert levels[first] > frame_dbfs(speech[0]) - 6, (levels[first], frame_dbfs(speech[0]))
    # levels survive the round trip (decoded stereo -> mono): a stereo-to-mono bug once saturated them
    for k in range(3, 10):
        assert abs(levels[first + k] - frame_dbfs(speech[k])) < 3, (k, levels[first + k], frame_dbfs(speech[k]))
    voiced = [lv > -40 for lv in levels]
    assert voiced.index(True) == first
    assert all(lv == float("-inf") for lv in levels[first + len(speech) + 1 :])
    # a second utterance after the silence starts cleanly too
    later = [opus.packet(f, 0) for f in speech[:3]]
    assert _decode_levels([bytes(p) for p in later])[0] > -40


async def test_audio_track_paces_packets_on_the_clock() -> None:
    clock = VirtualClock()
    source = AudioSource()
    track = PacedAudioTrack(source, clock)
    source.play(fallback_speech("hello there"))
    got = [await track.recv() for _ in range(60)]
    assert [p.pts for p in got] == [i * 960 for i in range(60)]
    assert abs(clock.now() - 59 * 0.02) < 1e-9
    assert track.stats.frames == 60 and track.stats.late_frames == 0


def _slide(i: int) -> Image.Image:
    img = Image.new("RGB", (320, 180), "white")
    ImageDraw.Draw(img).rectangle((10 + 20 * i, 10, 100 + 20 * i, 100), fill=(200, 30, 30))
    return img


class _Sender:
    """Stands in for aiortc's RTCRtpSender: a PLI sets this private flag."""

    _RTCRtpSender__force_keyframe = False


async def test_screen_track_encodes_vp8_with_keyframes_on_demand() -> None:
    clock = VirtualClock()
    track = ScreenTrack(clock, fps=2, size=(320, 180))
    track.keyframe_interval = 3.0
    sender = _Sender()
    track.sender = sender
    decoder = Vp8Decoder()
    pictures: list[VideoFrame] = []

    async def step() -> bytes:
        packet = await track.recv()
        data = bytes(packet)
        assert Vp8Encoder._packetize(data, 1)  # what aiortc's sender does with a finished packet
        pictures.extend(f for f in decoder.decode(JitterFrame(data=data, timestamp=packet.pts))
                        if isinstance(f, VideoFrame))  # fmt: skip
        return data

    await step()
    assert track.keyframes == 1  # the first frame
    track.prepare(_slide(1))
    frame = track.prepared(_slide(1))
    assert frame is None  # matched by identity, not by content
    img = _slide(2)
    track.prepare(img)
    assert track.prepared(img) is not None
    frame = track.prepared(img)
    assert frame is not None
    track.show(frame)
    for _ in range(3):
        await step()
    assert track.keyframes == 1
    sender._RTCRtpSender__force_keyframe = True
    await step()
    assert track.keyframes == 2 and sender._RTCRtpSender__force_keyframe is False
    for _ in range(6):  # 3 s later: the periodic key frame
        await step()
    assert track.keyframes == 3
    assert pictures and pictures[-1].width == 320
    # the last decoded picture shows the red block of slide 2
    rgb = pictures[-1].to_image().convert("RGB")
    r, g, b = rgb.getpixel((50 + 40, 50))
    assert r > 150 and g < 100 and b < 100, (r, g, b)
    assert track.stats.frames == 11


async def test_shared_rate_splits_one_budget_between_transfers() -> None:
    rate = SharedRate(1_000_000)
    clock = VirtualClock()

    async def transfer(n: int) -> float:
        for _ in range(n):
            await rate.take(clock, 20_000)
        return clock.now()

    ends = await asyncio.gather(transfer(5), transfer(5))
    # 200 kB through a 1 MB/s budget: the last chunk goes at 0.18 s (the first at once), and neither
    # transfer finishes as early as it would alone (0.08 s)
    assert max(ends) == pytest.approx(0.18, abs=1e-6) and min(ends) > 0.1
    t1 = clock.now()
    await clock.sleep(1.0)  # the budget is idle again
    await transfer(5)
    assert clock.now() - t1 - 1.0 == pytest.approx(0.08, abs=1e-6)  # alone, a transfer gets the whole rate


async def test_sha256_hex_matches_hashlib() -> None:
    for size in (0, 10, 70_000, 1_000_000):
        data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
        assert await sha256_hex(data) == hashlib.sha256(data).hexdigest()


async def test_stopped_screen_track_frees_its_encoder_and_pictures() -> None:
    from aiortc.mediastreams import MediaStreamError

    track = ScreenTrack(VirtualClock(), fps=2, size=(320, 180))
    img = _slide(1)
    track.prepare(img)
    await track.recv()
    track.stop()
    assert track._encoder is None and track.prepared(img) is None
    with pytest.raises(MediaStreamError):
        await track.recv()
    with pytest.raises(MediaStreamError):  # a worker thread racing the stop ends the stream, no crash
        track._encode(track._frame, 0, False)


@pytest.mark.parametrize(("fmt", "layout"), [("s16", "stereo"), ("s16p", "stereo"), ("fltp", "stereo"),
                                             ("flt", "stereo"), ("s16", "mono")])
def test_to_mono_keeps_the_level_in_every_sample_format(fmt: str, layout: str) -> None:
    import numpy as np
    from av import AudioFrame

    mono = (np.sin(np.arange(960) / 5) * 8000).astype(np.int16)
    channels = 2 if layout == "stereo" else 1
    planar = fmt.endswith("p")
    samples = np.stack([mono] * channels)  # (channels, n)
    if fmt.startswith("flt"):
        samples = samples.astype(np.float32) / 32767
    array = samples if planar else samples.T.reshape(1, -1)
    frame = AudioFrame.from_ndarray(np.ascontiguousarray(array), format=fmt, layout=layout)
    frame.sample_rate = 48_000
    out = np.frombuffer(to_mono_s16(frame), dtype="<i2")
    assert out.shape == mono.shape
    assert np.abs(out.astype(int) - mono).max() <= 1, (fmt, layout)
