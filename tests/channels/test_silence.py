"""The silence fast path (channels/_audio.py): digital silence is known without numpy, and nothing else is
taken for it, so voice detection decides exactly as the level computation would."""

from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest

from modylbench.channels import VoiceActivity, fallback_speech
from modylbench.channels._audio import SILENCE, AudioSource, frame_dbfs, frames_of, is_digital_silence


def _numpy_dbfs(pcm: bytes) -> float:
    a = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    rms = float(np.sqrt(np.mean(a * a))) if a.size else 0.0
    return 20 * math.log10(rms / 32768.0) if rms > 0 else -math.inf


def test_only_all_zero_samples_are_digital_silence() -> None:
    assert is_digital_silence(SILENCE) and is_digital_silence(bytes(len(SILENCE)))
    assert is_digital_silence(bytes(10)) and is_digital_silence(b"")
    one = bytearray(SILENCE)
    one[-1] = 1  # the high byte of the last sample
    assert not is_digital_silence(bytes(one))
    assert not is_digital_silence(b"\x00" * 9 + b"\x01")
    assert frame_dbfs(SILENCE) == -math.inf and frame_dbfs(bytes(one)) > -math.inf


def test_levels_and_voice_decisions_match_the_numpy_path() -> None:
    speech = fallback_speech("the margin is eleven point two percent")
    frames = [SILENCE] * 20 + frames_of(speech) + [SILENCE] * 30
    quiet = np.zeros(960, dtype="<i2")
    quiet[5] = 3  # a near-silent frame that is not digital silence
    frames.insert(10, quiet.tobytes())
    for f in frames:
        assert math.isclose(frame_dbfs(f), _numpy_dbfs(f), abs_tol=1e-3) or frame_dbfs(f) == _numpy_dbfs(f)
    vad = VoiceActivity()
    got = [ev for i, f in enumerate(frames) for ev in vad.push(i * 0.02, f)]
    assert got and got[0][0] == "onset" and got[-1][0] == "offset"
    assert got[0][1] >= 20 * 0.02  # no onset in the leading silence


def test_an_idle_source_hands_out_the_shared_silent_frame() -> None:
    async def main() -> None:
        src = AudioSource()
        assert src.next_frame(0.0) is SILENCE
        pb = src.play(b"\x01\x00" * 100)  # shorter than a frame: padded with silence
        frame = src.next_frame(0.02)
        assert len(frame) == len(SILENCE) and frame is not SILENCE and not is_digital_silence(frame)
        assert await pb.ended == 0.02 + 100 / 48_000
        assert src.next_frame(0.04) is SILENCE

    asyncio.run(main())


async def test_audio_source_frames_carry_every_sample_and_time_each_playback() -> None:
    """Buffers of lengths around the frame size, back to back: the frames are the buffers' samples in order, padded
    with silence only at the end, and each ``Playback`` starts and ends at the sample it should."""
    from modylbench.channels._interface import FRAME_BYTES, FRAME_SECONDS, SAMPLE_RATE

    source = AudioSource()
    sizes = [FRAME_BYTES * 3, FRAME_BYTES - 2, 2, FRAME_BYTES * 2 + 10, FRAME_BYTES + 2, 4]
    pcms = [bytes([(i * 7 + k) % 251 + 1 for k in range(n)]) for i, n in enumerate(sizes)]
    playbacks = [source.play(p) for p in pcms]
    out, t = b"", 0.0
    while source.playing:
        frame = source.next_frame(t)
        assert len(frame) == FRAME_BYTES
        out += frame
        t += FRAME_SECONDS
    whole = b"".join(pcms)
    assert out[: len(whole)] == whole and out[len(whole):] == bytes(len(out) - len(whole))
    at = 0
    for pb, pcm in zip(playbacks, pcms, strict=True):
        frame, offset = divmod(at, FRAME_BYTES)
        assert pb.started.result() == pytest.approx(frame * FRAME_SECONDS + offset / 2 / SAMPLE_RATE)
        at += len(pcm)
        frame, offset = divmod(at, FRAME_BYTES)
        if offset == 0:
            frame, offset = frame - 1, FRAME_BYTES
        assert pb.ended.result() == pytest.approx(frame * FRAME_SECONDS + offset / 2 / SAMPLE_RATE)
