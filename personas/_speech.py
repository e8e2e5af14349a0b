"""Speech synthesis for the persona (and the agent SDK): embedded eSpeak NG, OpenAI-compatible TTS, a disk cache.

Every engine returns 48 kHz mono signed 16-bit PCM. The embedded engine drives ``libespeak-ng``
from the ``espeakng-loader`` wheel through ctypes (no system package, no download); it is one global
instance in the library, so calls are serialised with a lock.
"""

from __future__ import annotations

import ctypes
import hashlib
import io
import logging
import os
import threading
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from modylbench.channels import EncodedSpeech, encode_speech, speech_key
from modylbench.record import ModelSpec, ModelSpecError

logger = logging.getLogger(__name__)

SAMPLE_RATE = 48_000


class SpeechError(RuntimeError):
    """Synthesis failed (engine missing, bad voice, service error)."""


class SpeechEngine(Protocol):
    """Turns text into 48 kHz mono s16 PCM."""

    name: str
    voice: str

    def synthesize(self, text: str) -> bytes:
        """PCM for ``text``."""
        ...


def resample_s16(pcm: bytes, rate_in: int, rate_out: int = SAMPLE_RATE) -> bytes:
    """Resample mono s16 PCM with PyAV's resampler (FFmpeg's swresample, bundled in the av wheel)."""
    if rate_in == rate_out or not pcm:
        return pcm
    import av

    samples = np.frombuffer(pcm, dtype=np.int16).reshape(1, -1)
    frame = av.AudioFrame.from_ndarray(samples, format="s16", layout="mono")
    frame.sample_rate = rate_in
    resampler = av.AudioResampler(format="s16", layout="mono", rate=rate_out)
    out = [f.to_ndarray().reshape(-1) for f in resampler.resample(frame)]
    out += [f.to_ndarray().reshape(-1) for f in resampler.resample(None)]
    return np.concatenate(out).astype(np.int16).tobytes() if out else b""


# ---------------------------------------------------------------- eSpeak NG through ctypes

_SYNTH_CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.c_void_p)
_AUDIO_OUTPUT_SYNCHRONOUS = 2
_POS_CHARACTER = 1
_ESPEAK_CHARS_UTF8 = 1
_ESPEAK_RATE = 1


# Names people use that eSpeak NG 1.52 knows under another name (measured: "en-gb" is refused).
_VOICE_ALIASES = {"en-gb": "en-GB-x-rp", "en-uk": "en-GB-x-rp", "en-au": "en-US", "en-sg": "en-GB-x-rp"}


def voice_candidates(voice: str) -> list[str]:
    """The voice as given, then its known alias (keeping a ``+variant`` suffix)."""
    base, plus, variant = voice.partition("+")
    alias = _VOICE_ALIASES.get(base.lower())
    out = [voice]
    if alias:
        out.append(alias + plus + variant)
    return out


class _Espeak:
    """The process-wide libespeak-ng instance."""

    lock = threading.Lock()
    _instance: _Espeak | None = None

    def __init__(self) -> None:
        try:
            import espeakng_loader
        except ImportError as exc:  # pragma: no cover - a declared dependency
            raise SpeechError("espeakng-loader is not installed") from exc
        self.lib = ctypes.CDLL(str(espeakng_loader.get_library_path()))
        self.lib.espeak_Initialize.restype = ctypes.c_int
        self.lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
        rate = self.lib.espeak_Initialize(_AUDIO_OUTPUT_SYNCHRONOUS, 500, str(espeakng_loader.get_data_path()).encode(), 0)
        if rate <= 0:
            raise SpeechError(f"espeak_Initialize failed ({rate})")
        self.rate = rate
        self._chunks: list[bytes] = []

        def _collect(wav: Any, n: int, _events: Any) -> int:
            if n > 0 and wav:
                self._chunks.append(ctypes.string_at(wav, n * 2))
            return 0

        self._cb = _SYNTH_CB(_collect)  # kept alive on the instance
        self.lib.espeak_SetSynthCallback(self._cb)
        self.lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
        self.lib.espeak_SetParameter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
        self.lib.espeak_Synth.argtypes = [
            ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint, ctypes.c_int, ctypes.c_uint, ctypes.c_uint,
            ctypes.c_void_p, ctypes.c_void_p,
        ]

    @classmethod
    def get(cls) -> _Espeak:
        with cls.lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def synth(self, text: str, voice: str, wpm: int) -> tuple[bytes, int]:
        with self.lock:
            if not any(self.lib.espeak_SetVoiceByName(v.encode()) == 0 for v in voice_candidates(voice)):
                raise SpeechError(f"eSpeak NG has no voice {voice!r} (try en-us, en-us+f3, en+m3, en-GB-x-rp)")
            self.lib.espeak_SetParameter(_ESPEAK_RATE, int(wpm), 0)
            self._chunks = []
            data = text.encode("utf-8") + b"\x00"
            buf = ctypes.create_string_buffer(data)
            err = self.lib.espeak_Synth(buf, len(data), 0, _POS_CHARACTER, 0, _ESPEAK_CHARS_UTF8, None, None)
            if err != 0:
                raise SpeechError(f"espeak_Synth failed ({err})")
            self.lib.espeak_Synchronize()
            return b"".join(self._chunks), self.rate


class EspeakEngine:
    """The embedded default: eSpeak NG 1.52 from the espeakng-loader wheel."""

    name = "espeak"

    def __init__(self, voice: str = "en-us", words_per_minute: int = 175):
        self.voice = voice
        self.words_per_minute = words_per_minute

    def synthesize(self, text: str) -> bytes:
        pcm, rate = _Espeak.get().synth(text, self.voice, self.words_per_minute)
        return resample_s16(pcm, rate)


class OpenAISpeechEngine:
    """Any OpenAI-compatible ``audio.speech`` endpoint (``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``)."""

    name = "openai"

    def __init__(self, model: str = "gpt-4o-mini-tts", voice: str = "alloy", base_url: str | None = None,
                 api_key: str | None = None, timeout: float = 60.0):
        self.model = model
        self.voice = voice
        self.base_url = base_url
        self.api_key = api_key
        self.timeout = timeout

    def synthesize(self, text: str) -> bytes:
        import openai

        client = openai.OpenAI(base_url=self.base_url, api_key=self.api_key or os.environ.get("OPENAI_API_KEY") or "none",
                               timeout=self.timeout, max_retries=2)
        try:
            # response_format="pcm" is 24 kHz s16le mono; input is at most 4096 characters.
            resp = client.audio.speech.create(model=self.model, voice=self.voice, input=text[:4096], response_format="pcm")
            raw = resp.read() if hasattr(resp, "read") else resp.content
        except Exception as exc:  # noqa: BLE001 - surface one line
            raise SpeechError(f"OpenAI speech failed: {exc}") from None
        return resample_s16(bytes(raw), 24_000)


class CachedEngine:
    """Wraps an engine with a disk cache keyed by sha256(engine, voice, text): a second run synthesises nothing."""

    def __init__(self, engine: SpeechEngine, cache_dir: str | os.PathLike[str]):
        self.engine = engine
        self.name = engine.name
        self.voice = engine.voice
        self.cache_dir = Path(cache_dir)
        self.hits = 0
        self.misses = 0

    def key(self, text: str) -> str:
        """Cache key of ``text`` for this engine and voice."""
        return hashlib.sha256(f"{self.engine.name}\x00{self.engine.voice}\x00{text}".encode()).hexdigest()

    def synthesize(self, text: str) -> bytes:
        path = self.cache_dir / f"{self.key(text)}.wav"
        if path.exists():
            try:
                pcm = read_wav_mono(path.read_bytes())
                self.hits += 1
                return pcm
            except (ValueError, OSError):
                logger.warning("speech cache entry %s is unreadable; synthesising again", path.name)
        pcm = self.engine.synthesize(text)
        self.misses += 1
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".part")
        tmp.write_bytes(wav_bytes(pcm))
        os.replace(tmp, path)
        return pcm

    def encoded(self, text: str, pcm: bytes) -> EncodedSpeech:
        """The Opus packets of ``pcm`` (the speech of ``text``), kept next to its WAV (``<key>.opus``): encoded
        once, then read back by every later run and process. An entry that does not match ``pcm`` is
        encoded again."""
        path = self.cache_dir / f"{self.key(text)}.opus"
        if path.exists():
            try:
                found = EncodedSpeech.from_bytes(path.read_bytes())
                if found.key == speech_key(pcm):
                    return found
            except (ValueError, OSError):
                pass
            logger.warning("encoded speech %s does not match its audio; encoding again", path.name)
        packets = encode_speech(pcm)
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".opus-part")
        tmp.write_bytes(packets.to_bytes())
        os.replace(tmp, path)
        return packets


def wav_bytes(pcm: bytes, channels: int = 1, rate: int = SAMPLE_RATE) -> bytes:
    """PCM (s16) → WAV bytes, via pydub."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydub warns about ffmpeg/audioop at import; WAV needs neither
        from pydub import AudioSegment

    seg = AudioSegment(data=pcm, sample_width=2, frame_rate=rate, channels=channels)
    buf = io.BytesIO()
    seg.export(buf, format="wav")
    return buf.getvalue()


def read_wav_mono(data: bytes) -> bytes:
    """WAV bytes → 48 kHz mono s16 PCM (refuses other layouts)."""
    import wave

    with wave.open(io.BytesIO(data)) as w:
        if w.getnchannels() != 1 or w.getsampwidth() != 2:
            raise ValueError("not mono s16")
        pcm = w.readframes(w.getnframes())
        rate = w.getframerate()
    return resample_s16(pcm, rate)


def make_engine(spec: str = "espeak", voice: str | None = None, words_per_minute: int = 175,
                cache_dir: str | os.PathLike[str] | None = None) -> SpeechEngine:
    """``espeak`` (default), ``openai`` or ``openai/MODEL`` (optionally ``@BASE_URL``), cached when a folder is given."""
    engine: SpeechEngine
    if spec == "espeak":
        engine = EspeakEngine(voice or "en-us", words_per_minute)
    else:
        try:
            parsed = ModelSpec.parse(spec)
        except ModelSpecError as exc:
            raise SpeechError(f"speech engine {exc}") from None
        if parsed.provider != "openai":
            raise SpeechError(f"unknown speech engine {spec!r} (espeak, openai, openai/MODEL[@BASE_URL])")
        engine = OpenAISpeechEngine(model=parsed.model or "gpt-4o-mini-tts", voice=voice or "alloy",
                                    base_url=parsed.base_url)
    return CachedEngine(engine, cache_dir) if cache_dir is not None else engine


def default_cache_dir() -> Path:
    """Where synthesised speech is cached: $MODYLBENCH_CACHE/speech or ~/.cache/modylbench/speech."""
    base = os.environ.get("MODYLBENCH_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "modylbench")
    return Path(base) / "speech"
