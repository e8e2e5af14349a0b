"""Encode once, send many (channels/_encoded.py): the cached Opus packets and VP8 frames decode to the same
speech and the same slides as the frame-by-frame path (PacedAudioTrack, ScreenTrack), and every meeting
sends them under its own RTP stream."""

from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest
from aiortc.codecs.opus import OpusDecoder
from aiortc.codecs.vpx import Vp8Decoder, Vp8Encoder
from aiortc.jitterbuffer import JitterFrame
from av import VideoFrame
from PIL import Image, ImageDraw

from modylbench.agents import AudioReceived, ScreenFrameReceived, join
from modylbench.channels import EncodedSpeech, SignalingServer, VirtualClock, encode_speech
from modylbench.channels._audio import AudioSource, fallback_speech, frame_dbfs, frames_of
from modylbench.channels._encoded import (
    SLIDE_MAX_FRAMES,
    EncodedAudioSource,
    PreEncodedAudioTrack,
    PreEncodedScreenTrack,
    cached_speech_packets,
    encode_slide,
    slide_packets,
    speech_packets,
)
from modylbench.channels._webrtc import PacedAudioTrack, ScreenTrack, to_mono_s16

pytestmark = pytest.mark.timeout(60)

SPEECH = "revenue grew four percent while costs stayed flat"


def _decode_pcm(packets: list[bytes]) -> np.ndarray:
    dec = OpusDecoder()
    out = []
    for i, p in enumerate(packets):
        for f in dec.decode(JitterFrame(data=p, timestamp=i * 960)):
            out.append(np.frombuffer(to_mono_s16(f), dtype="<i2"))
    return np.concatenate(out).astype(np.float64)


def _correlation(a: np.ndarray, b: np.ndarray) -> float:
    n = min(len(a), len(b))
    return float(np.corrcoef(a[:n], b[:n])[0, 1])


def _psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    return math.inf if mse == 0 else 10 * math.log10(255.0**2 / mse)


async def _frame_by_frame(pcm: bytes, slots: int) -> tuple[list[bytes], list[float]]:
    """What today's PacedAudioTrack sends for ``pcm`` played after 5 silent slots, and its Playback times."""
    clock = VirtualClock()
    source = AudioSource()
    track = PacedAudioTrack(source, clock)
    out = [bytes(await track.recv()) for _ in range(5)]
    pb = source.play(pcm)
    out += [bytes(await track.recv()) for _ in range(slots - 5)]
    return out, [await pb.started, await pb.ended]


async def _pre_encoded(pcm: bytes, slots: int) -> tuple[list[bytes], list[float], EncodedAudioSource]:
    clock = VirtualClock()
    source = EncodedAudioSource()
    track = PreEncodedAudioTrack(source, clock)
    out = [bytes(await track.recv()) for _ in range(5)]
    pb = source.play(pcm)
    got = [await track.recv() for _ in range(slots - 5)]
    assert [p.pts for p in got] == [i * 960 for i in range(5, slots)]
    out += [bytes(p) for p in got]
    return out, [await pb.started, await pb.ended], source


async def test_cached_speech_is_the_packets_the_frame_by_frame_path_sends() -> None:
    pcm = fallback_speech(SPEECH)
    slots = 5 + len(frames_of(pcm)) + 20
    reference, ref_times = await _frame_by_frame(pcm, slots)
    speech_packets(pcm)  # encoded once, before the meeting
    sent, times, source = await _pre_encoded(pcm, slots)
    assert source.cached_frames == len(frames_of(pcm)) and source.opus.encoded == 0
    assert sent == reference  # the same bytes: the agent decodes the same speech
    assert times == ref_times
    decoded = _decode_pcm(sent)
    original = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    # Opus is lossy: the decoded speech follows the original closely (shifted by the codec's delay)
    best = max(_correlation(decoded[5 * 960 + lag :], original) for lag in range(0, 480, 8))
    assert best > 0.9, best


async def test_speech_not_encoded_ahead_is_encoded_as_it_goes_and_decodes_the_same() -> None:
    pcm = fallback_speech("an answer made up during the meeting")
    slots = 5 + len(frames_of(pcm)) + 10
    reference, ref_times = await _frame_by_frame(pcm, slots)
    sent, times, source = await _pre_encoded(pcm, slots)
    assert source.cached_frames == 0 and source.opus.encoded > 0
    assert times == ref_times
    assert _correlation(_decode_pcm(sent), _decode_pcm(reference)) > 0.999


async def test_silence_costs_one_constant_packet_and_a_cut_stops_at_once() -> None:
    clock = VirtualClock()
    source = EncodedAudioSource()
    track = PreEncodedAudioTrack(source, clock)
    idle = {bytes(await track.recv()) for _ in range(50)}
    assert len(idle) == 1 and source.opus.encoded == 0
    pcm = fallback_speech(SPEECH)
    speech_packets(pcm)
    pb = source.play(pcm)
    for _ in range(10):
        await track.recv()
    source.stop(clock.now())
    assert pb.cut and await pb.ended == clock.now()
    after = [bytes(await track.recv()) for _ in range(5)]
    assert set(after) == idle


async def test_back_to_back_utterances_each_start_on_a_frame() -> None:
    clock = VirtualClock()
    source = EncodedAudioSource()
    track = PreEncodedAudioTrack(source, clock)
    first, second = fallback_speech("first part"), fallback_speech("and the second")
    first = first[: len(first) - 2 * 100]  # ends 100 samples into a frame
    speech_packets(first), speech_packets(second)
    await track.recv()
    a, b = source.play(first), source.play(second)
    for _ in range(len(frames_of(first)) + len(frames_of(second)) + 2):
        await track.recv()
    assert await b.started == pytest.approx(0.02 * (1 + len(frames_of(first))))
    assert await a.ended == pytest.approx(await a.started + len(first) / 2 / 48_000)
    assert source.cached_frames == len(frames_of(first)) + len(frames_of(second))


def test_encoded_speech_round_trips_through_its_file_format() -> None:
    packets = encode_speech(fallback_speech(SPEECH))
    again = EncodedSpeech.from_bytes(packets.to_bytes())
    assert again == packets
    for bad in (b"", b"nonsense" * 10, packets.to_bytes()[:-1], packets.to_bytes() + b"x"):
        with pytest.raises(ValueError):
            EncodedSpeech.from_bytes(bad)
    # packets that belong to other audio are not used for this audio
    other = fallback_speech("something else entirely")
    assert speech_packets(other, packets).key != packets.key
    assert cached_speech_packets(other) is not None


def _slide(i: int, size: tuple[int, int] = (640, 360)) -> Image.Image:
    img = Image.new("RGB", size, (245, 245, 250))
    d = ImageDraw.Draw(img)
    d.rectangle((30, 30, size[0] - 30, 80), fill=(30, 60, 120))
    d.text((40, 45), f"Slide {i}: quarterly review", fill="white")
    for k in range(6):
        d.rectangle((50 + k * 90, 320 - (k * 37 + i * 23) % 200, 110 + k * 90, 320), fill=(200, 80 + k * 20, 60))
    return img


def _luma(frame: VideoFrame) -> np.ndarray:
    return frame.reformat(format="gray").to_ndarray()


def _source_luma(image: Image.Image) -> np.ndarray:
    return _luma(VideoFrame.from_image(image).reformat(format="yuv420p"))


async def test_a_cached_slide_decodes_as_well_as_the_frame_by_frame_screen_share() -> None:
    size = (640, 360)
    previous, image = _slide(1, size), _slide(2, size)
    # today's path: the track's own encoder, the picture shown after another, 12 frames at 2 fps
    clock = VirtualClock()
    old = ScreenTrack(clock, fps=2, size=size)
    old.show(old.convert(previous))
    decoder = Vp8Decoder()
    pictures: list[VideoFrame] = []

    async def step(track: ScreenTrack | PreEncodedScreenTrack) -> None:
        packet = await track.recv()
        pictures.extend(f for f in decoder.decode(JitterFrame(data=bytes(packet), timestamp=packet.pts))
                        if isinstance(f, VideoFrame))  # fmt: skip

    for _ in range(4):
        await step(old)
    old.show(old.convert(image))
    for _ in range(SLIDE_MAX_FRAMES):
        await step(old)
    old_luma = _luma(pictures[-1])
    # the cached frames, decoded by a fresh decoder
    slide = encode_slide(image, size, fps=2)
    assert 1 < len(slide.frames) <= SLIDE_MAX_FRAMES + 1
    fresh = Vp8Decoder()
    decoded = [f for data in slide.frames for f in fresh.decode(JitterFrame(data=data, timestamp=0))]
    new_luma = _luma(decoded[-2])  # a receiver shows the last frame but one until the next picture
    truth = _source_luma(image)
    assert _psnr(new_luma, truth) > 30, _psnr(new_luma, truth)
    assert _psnr(new_luma, truth) >= _psnr(old_luma, truth) - 1.0  # no worse than today's
    assert _psnr(new_luma, old_luma) > 30  # and the same picture as today's
    assert slide.psnr == pytest.approx(_psnr(new_luma, truth), abs=1.5)  # its own luma reading


class _Sender:
    """Stands in for aiortc's RTCRtpSender: a PLI sets this private flag (see test_compat.py)."""

    _RTCRtpSender__force_keyframe = False


async def test_a_static_screen_sends_nothing_after_the_refinement_and_a_pli_gets_the_key_frame() -> None:
    size = (320, 180)
    clock = VirtualClock()
    track = PreEncodedScreenTrack(clock, fps=2, size=size)
    track.keyframe_interval = 30.0
    track.sender = sender = _Sender()
    image = _slide(3, size)
    track.prepare(image)
    slide = slide_packets(image, size, 2.0)
    first = await track.recv()  # the black start screen's key frame
    assert track.keyframes == 1 and Vp8Encoder._packetize(bytes(first), 1)
    await track.show_image(image)
    sent = [bytes(await track.recv()) for _ in range(len(slide.frames))]
    assert sent == list(slide.frames) and track.keyframes == 2
    last = clock.now()
    # a static screen: nothing more until the periodic key frame, 30 s (60 slots) after the last one
    packet = await track.recv()
    assert bytes(packet) == slide.frames[0] and track.keyframes == 3
    assert clock.now() == pytest.approx(last - (len(slide.frames) - 1) * 0.5 + 30.0)
    assert track.stats.frames == 1 + len(slide.frames) + 1  # black key frame, the slide, the periodic key frame
    # a key-frame request (PLI) is answered at the next slot with the cached key frame
    for _ in range(len(slide.frames) - 1):
        await track.recv()
    sender._RTCRtpSender__force_keyframe = True
    before = clock.now()
    packet = await track.recv()
    assert bytes(packet) == slide.frames[0] and track.keyframes == 4
    assert clock.now() == pytest.approx(before + 0.5)
    assert packet.pts == int(round(clock.now() * 90_000)) or abs(packet.pts - clock.now() * 90_000) <= 1
    assert sender._RTCRtpSender__force_keyframe is False
    track.stop()


async def test_two_meetings_send_the_same_cached_media_each_as_its_own_rtp_stream() -> None:
    image = _slide(4, (1280, 720))
    pcm = fallback_speech(SPEECH)
    async with SignalingServer() as server:
        meetings = [server.create_meeting() for _ in range(2)]
        for m in meetings:
            m.prepare_screen(image)
            m.prepare_speech(pcm)
        clients = [await join(m.url, m.token) for m in meetings]
        for m in meetings:
            await m.wait_connected()
            await m.show(image)
            await m.play(pcm)
        heard: list[list[np.ndarray]] = [[], []]
        seen: list[list[Image.Image]] = [[], []]

        async def agent(i: int) -> None:
            async for ev in clients[i].events():
                if isinstance(ev, AudioReceived) and (heard[i] or frame_dbfs(ev.pcm) > -40):
                    heard[i].append(np.frombuffer(ev.pcm, dtype="<i2"))
                elif isinstance(ev, ScreenFrameReceived):
                    seen[i].append(ev.image)
                if len(heard[i]) * 960 >= len(pcm) // 2 and seen[i]:
                    return

        await asyncio.wait_for(asyncio.gather(agent(0), agent(1)), 20)
        ssrcs = []
        for m in meetings:
            assert m.pc is not None
            report = await m.pc.getStats()
            ssrcs.append({s.ssrc for s in report.values() if s.type == "outbound-rtp"})
            assert m.audio.cached_frames > 0 and m.audio.opus.encoded == 0  # type: ignore[attr-defined]
        assert ssrcs[0] and not ssrcs[0] & ssrcs[1]  # every meeting its own SSRCs
        for m in meetings:
            await m.close()
        for c in clients:
            await c.leave()
    original = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    truth = _source_luma(image)
    for i in range(2):
        got = np.concatenate(heard[i]).astype(np.float64)
        best = max(_correlation(got[lag:], original) for lag in range(0, 960, 8))
        assert best > 0.85, (i, best)
        picture = _luma(VideoFrame.from_image(seen[i][-1]).reformat(format="yuv420p"))
        assert _psnr(picture, truth) > 25, _psnr(picture, truth)
