"""Remote audio decoded on the event loop (channels._webrtc.LoopOpus, issue 30): the same samples as aiortc's
decoder thread, digital silence answered without decoding, and the receive path wired to it."""

from __future__ import annotations

import asyncio

import numpy as np
from aiortc import AudioStreamTrack, RTCPeerConnection, RTCRtpCodecParameters
from aiortc.codecs.opus import OpusDecoder
from aiortc.jitterbuffer import JitterFrame
from aiortc.rtp import RtpPacket

from modylbench.channels import WallClock
from modylbench.channels._audio import SILENCE, fallback_speech, frames_of
from modylbench.channels._compat import jitter_buffer_of, receiver_codec_names
from modylbench.channels._webrtc import (
    LoopOpus,
    OpusFrames,
    discard_audio,
    instrument_audio_receiver,
    to_mono_s16,
)


def _stream() -> list[bytes]:
    """Opus payloads as a sender sends them: silence, an utterance, silence, another utterance, silence."""
    enc = OpusFrames()
    speech = frames_of(fallback_speech("revenue grew four percent"))
    pcm = [SILENCE] * 10 + speech + [SILENCE] * 25 + speech[:30] + [SILENCE] * 10
    return [bytes(enc.packet(f, i * 960)) for i, f in enumerate(pcm)]


def _aiortc_pcm(payloads: list[bytes]) -> list[bytes]:
    """What aiortc's own decoder (its decoder thread's) gives, as mono."""
    dec = OpusDecoder()
    out = []
    for i, data in enumerate(payloads):
        out.append(b"".join(to_mono_s16(f) for f in dec.decode(JitterFrame(data, i * 960))))  # type: ignore[arg-type]
    return out


def test_the_loop_decoder_gives_aiortcs_samples_and_skips_known_silence() -> None:
    payloads = _stream()
    want = _aiortc_pcm(payloads)
    loop = LoopOpus()
    got = [loop.pcm(p) for p in payloads]
    assert [len(g) for g in got] == [len(w) for w in want]
    a = np.frombuffer(b"".join(got), "<i2").astype(np.int32)
    b = np.frombuffer(b"".join(want), "<i2").astype(np.int32)
    assert np.abs(a - b).max() <= 1  # stereo averaged back to mono rounds; otherwise the same samples
    silent = [w.count(0) == len(w) for w in want]
    runs = sum(1 for i, s in enumerate(silent) if s and (i == 0 or not silent[i - 1]))
    assert sum(silent) >= 40 and runs >= 3
    # Silent frames are not decoded, except the first of a run (the speech may ring into it) and the last
    # one skipped before each onset (the decoder's state).
    assert loop.decoded <= len(payloads) - sum(silent) + 2 * runs < len(payloads) - 30
    assert loop.failed == 0


def test_a_payload_that_is_not_silence_after_speech_is_decoded_and_a_bad_one_gives_nothing() -> None:
    loop = LoopOpus()
    enc = OpusFrames()
    speech = frames_of(fallback_speech("costs stayed flat"))
    while speech[-1] == SILENCE:  # the synthetic speech ends with a pause
        speech.pop()
    for i, f in enumerate(speech):
        loop.pcm(bytes(enc.packet(f, i * 960)))
    before = loop.decoded
    tail = loop.pcm(bytes(enc.packet(SILENCE, 0)))  # the speech's tail rings into the first silent frame
    assert loop.decoded == before + 1 and len(tail) == len(SILENCE)
    assert loop.pcm(b"\x03") == b"" and loop.failed == 1  # code 3 with no frame count: corrupt


async def test_the_receive_path_hands_frames_to_the_sink_and_not_to_aiortcs_decoder() -> None:
    pc = RTCPeerConnection()
    try:
        receiver = pc.addTransceiver("audio").receiver
        heard: list[tuple[float, bytes]] = []
        arrivals = instrument_audio_receiver(receiver, WallClock(), lambda t, pcm: heard.append((t, pcm)))
        buffer = jitter_buffer_of(receiver)
        assert buffer is not None and getattr(buffer, "tap", None) is not None
        codecs = receiver._RTCRtpReceiver__codecs  # type: ignore[attr-defined]
        codecs[111] = RTCRtpCodecParameters(mimeType="audio/opus", clockRate=48000, channels=2, payloadType=111)
        assert receiver_codec_names(receiver) == {111: "opus"}
        payloads = _stream()[:20]
        for seq, data in enumerate(payloads):
            packet = RtpPacket(payload_type=111, sequence_number=seq, timestamp=1000 + seq * 960, ssrc=7)
            packet.payload = data
            await receiver._handle_rtp_packet(packet, arrival_time_ms=seq * 20)
        # The jitter buffer holds back its prefetch; every frame it released reached the sink, in order, with
        # the time its packet arrived.
        assert 10 <= len(heard) < len(payloads)
        times = [t for t, _ in heard]
        assert times == sorted(times) and times[0] == arrivals.at_rtp(1000)
        assert b"".join(p for _, p in heard) == b"".join(map(LoopOpus().pcm, payloads[: len(heard)]))
    finally:
        await pc.close()


async def test_a_track_nobody_listens_to_is_dropped_undecoded() -> None:
    pc = RTCPeerConnection()
    try:
        receiver = pc.addTransceiver("audio").receiver
        assert discard_audio(receiver)
        buffer = jitter_buffer_of(receiver)
        assert buffer is not None and buffer.tap is not None  # type: ignore[attr-defined]
        assert buffer.tap(111, JitterFrame(b"\xf8\xff\xfe", 0))  # type: ignore[attr-defined]
    finally:
        await pc.close()


async def test_a_negotiated_receiver_names_its_codecs() -> None:
    """The codec table the loop decoder reads is where aiortc keeps it once an offer and answer are applied."""
    offerer, answerer = RTCPeerConnection(), RTCPeerConnection()
    try:
        offerer.addTransceiver("audio", direction="recvonly")
        await offerer.setLocalDescription(await offerer.createOffer())
        await answerer.setRemoteDescription(offerer.localDescription)
        answerer.getTransceivers()[0].sender.replaceTrack(AudioStreamTrack())
        answerer.getTransceivers()[0].direction = "sendonly"
        await answerer.setLocalDescription(await answerer.createAnswer())
        await offerer.setRemoteDescription(answerer.localDescription)
        (transceiver,) = offerer.getTransceivers()
        for _ in range(200):  # aiortc fills it when the transport connects
            names = receiver_codec_names(transceiver.receiver)
            if names or offerer.connectionState == "failed":
                break
            await asyncio.sleep(0.05)
        assert names is not None and "opus" in names.values(), offerer.connectionState
    finally:
        await offerer.close()
        await answerer.close()
