"""The recording and the images a report embeds: Ogg Opus from recording.wav, JPEG thumbnails, data URIs."""

from __future__ import annotations

import base64
import io
import logging
import wave
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

AUDIO_BITRATE = 24_000  # ~4 MB for a 20-minute stereo meeting: small enough to embed
THUMB_WIDTH = 360
MAX_FILE_EMBED = 256 * 1024  # exchanged files up to this size are embedded as downloads


def encode_recording(wav_path: Path, bitrate: int = AUDIO_BITRATE) -> bytes:
    """The recording as Ogg Opus (stereo kept: persona left, agent right)."""
    import av
    import numpy as np

    buf = io.BytesIO()
    with wave.open(str(wav_path), "rb") as w:
        channels, rate, width = w.getnchannels(), w.getframerate(), w.getsampwidth()
        if width != 2:
            raise ValueError(f"{wav_path}: only 16-bit PCM is supported")
        layout = "stereo" if channels == 2 else "mono"
        out = av.open(buf, "w", format="ogg")
        stream: Any = out.add_stream("libopus", rate=rate, layout=layout)
        stream.bit_rate = bitrate
        # Speech at a low bitrate: the voip mode and a lower complexity halve the encoding time.
        stream.codec_context.options = {"application": "voip", "compression_level": "3"}
        pts = 0
        while True:
            raw = w.readframes(rate * 10)
            if not raw:
                break
            samples = np.frombuffer(raw, dtype="<i2").reshape(1, -1)
            frame = av.AudioFrame.from_ndarray(samples, format="s16", layout=layout)
            frame.sample_rate = rate
            frame.pts = pts
            pts += samples.shape[1] // channels
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
        out.close()
    return buf.getvalue()


def thumbnail(data: bytes, width: int = THUMB_WIDTH) -> str | None:
    """A JPEG data URI of an image, scaled down to ``width``; None when it is not an image."""
    from PIL import Image, UnidentifiedImageError

    try:
        opened = Image.open(io.BytesIO(data))
        opened.load()
    except (UnidentifiedImageError, OSError):
        return None
    img = opened.convert("RGB")
    if img.width > width:
        img = img.resize((width, max(1, round(img.height * width / img.width))), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    img.save(out, format="JPEG", quality=72)
    return data_uri("image/jpeg", out.getvalue())


def data_uri(media_type: str, data: bytes) -> str:
    """Bytes as a ``data:`` URI: the report embeds everything, no request may leave the file."""
    return f"data:{media_type};base64," + base64.b64encode(data).decode("ascii")
