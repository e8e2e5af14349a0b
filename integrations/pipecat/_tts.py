"""A Pipecat TTS service on the embedded eSpeak NG engine (the persona's own voice): speech with no key, no
download and no network, for offline pipelines and tests. Written against pipecat-ai 1.14."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator
from typing import Any

from pipecat.frames.frames import ErrorFrame, Frame, TTSAudioRawFrame
from pipecat.services.settings import TTSSettings
from pipecat.services.tts_service import TTSService

from modylbench.channels import SAMPLE_RATE
from modylbench.personas import EspeakEngine, SpeechError, resample_s16

logger = logging.getLogger(__name__)

CHUNK_SECONDS = 0.1
"""Synthesised speech goes downstream in 100 ms frames, so an interruption cuts it within one frame."""


class EspeakTTSService(TTSService):
    """Text to speech with eSpeak NG (``modylbench.personas.EspeakEngine``), resampled to the pipeline's rate.

    eSpeak synthesises a sentence in a few milliseconds to a few tens of them; it runs in a worker thread so
    the pipeline's event loop (and the meeting's audio pacing, when they share one) never waits on it.
    """

    def __init__(self, *, voice: str = "en-us", words_per_minute: int = 175, **kwargs: Any) -> None:
        super().__init__(
            push_start_frame=True,
            push_stop_frames=True,
            settings=TTSSettings(model="espeak-ng", voice=voice, language=None),
            **kwargs,
        )
        self._engine = EspeakEngine(voice, words_per_minute)

    def can_generate_metrics(self) -> bool:
        return True

    def _synthesize(self, text: str, rate: int) -> bytes:
        # A whole utterance at once: one resampling pass, no filter state carried from the last utterance.
        return resample_s16(self._engine.synthesize(text), SAMPLE_RATE, rate)

    async def run_tts(self, text: str, context_id: str) -> AsyncGenerator[Frame | None, None]:
        """Synthesise ``text`` and yield it as TTS audio frames at the service's sample rate."""
        await self.start_tts_usage_metrics(text)
        try:
            audio = await asyncio.to_thread(self._synthesize, text, self.sample_rate)
        except SpeechError as exc:
            yield ErrorFrame(error=f"eSpeak: {exc}")
            return
        finally:
            await self.stop_ttfb_metrics()
        step = int(self.sample_rate * CHUNK_SECONDS) * 2
        for i in range(0, len(audio), step):
            yield TTSAudioRawFrame(
                audio=audio[i : i + step], sample_rate=self.sample_rate, num_channels=1, context_id=context_id
            )
