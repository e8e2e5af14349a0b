"""Speech recognition of the agent's audio through an OpenAI-compatible ``audio/transcriptions`` endpoint.

``--asr openai/MODEL[@BASE_URL]``: each agent speech segment (a WAV attachment of the record) is sent once it
has closed; the judge's rules apply (one loop for both, ``_openai_call.py``): the same timeout, retries on the same statuses with the same
backoff and Retry-After, a stop after ``OUTAGE_ITEMS`` segments in a row fail on the server's side, and an
on-disk cache of answers keyed by (model, audio hash). A failure is a reason, never a guessed text.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from modylbench.record import ModelSpec, ModelSpecError
from modylbench.scoring._llm import OUTAGE_ITEMS, api_key_for
from modylbench.scoring._openai_call import Unusable, ask_with_retries, bounded_http_client

logger = logging.getLogger(__name__)

ASR_VERSION = "modylbench-asr-v1"
"""Part of the cache key: bump it when what is sent for a segment changes."""
DEFAULT_MODEL = "whisper-1"
MAX_AUDIO_BYTES = 24 * 1024 * 1024
"""Largest segment sent (OpenAI refuses files over 25 MB; 16 kHz mono WAV is 32 kB a second, so ~13 minutes)."""
MAX_TEXT_CHARS = 20_000
"""Longest recognised text accepted; a longer answer is garbage (retried, then the segment is unrecognised)."""
MAX_ANSWER_BYTES = 256 * 1024
"""Largest answer read from the server, error bodies included (a MAX_TEXT_CHARS text is at most ~240 kB of
JSON with every character escaped); past it the connection is dropped unread and the answer is garbage."""


class AsrSpecError(ValueError):
    """``--asr`` names something that cannot recognise speech; the message is one line."""


@dataclass(frozen=True)
class Heard:
    """What recognition made of one segment: the text, or why there is none."""

    text: str | None
    reason: str | None = None


class _Garbage(Unusable):
    """An answer that is not a transcription; retried, then recorded as the reason."""


class SpeechRecogniser:
    """Recognises WAV segments through ``openai/MODEL[@BASE_URL]`` (OpenAI, or a local Whisper server)."""

    def __init__(
        self,
        spec: str,
        *,
        api_key: str | None = None,
        cache_dir: Path | None = None,
        concurrency: int = 4,
        timeout_s: float = 60.0,
        max_attempts: int = 4,
        backoff_s: float = 1.0,
        max_backoff_s: float = 30.0,
        language: str | None = "en",
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ):
        try:
            parsed = ModelSpec.parse(spec)
        except ModelSpecError as exc:
            raise AsrSpecError(f"--asr {exc}") from None
        if parsed.provider != "openai":
            raise AsrSpecError(
                f"--asr {spec!r}: unknown provider {parsed.provider!r} (use openai/MODEL[@BASE_URL])"
            )
        self.name = str(parsed)
        self.model = parsed.model or DEFAULT_MODEL
        self.base_url = parsed.base_url or os.environ.get("OPENAI_BASE_URL") or None
        key = api_key_for(self.base_url, api_key)
        if key is None:
            raise AsrSpecError(f"--asr {spec}: set OPENAI_API_KEY, or give a server as openai/MODEL@BASE_URL")
        self._api_key = key
        self.cache_dir = cache_dir
        self.timeout_s = timeout_s
        self.max_attempts = max(1, max_attempts)
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.language = language
        self._sleep = sleep or asyncio.sleep
        self._concurrency = max(1, concurrency)
        self._sem: asyncio.Semaphore | None = None
        self._client: object | None = None
        self.calls = 0
        """Requests sent (round trips, retries included)."""
        self.failed_in_a_row = 0
        self.last_failure = ""

    # ------------------------------------------------------------------ cache

    def cache_key(self, audio_sha256: str) -> str:
        blob = json.dumps({"model": self.model, "version": ASR_VERSION, "language": self.language,
                           "audio": audio_sha256}, sort_keys=True)  # fmt: skip
        return hashlib.sha256(blob.encode()).hexdigest()

    def _cache_path(self, key: str) -> Path | None:
        return None if self.cache_dir is None else self.cache_dir / key[:2] / f"{key}.json"

    def _cache_get(self, key: str) -> str | None:
        p = self._cache_path(key)
        if p is None:
            return None
        try:
            text = json.loads(p.read_bytes()).get("text")
        except (OSError, ValueError, AttributeError):
            return None
        return text if isinstance(text, str) else None

    def _cache_put(self, key: str, text: str) -> None:
        p = self._cache_path(key)
        if p is None:
            return
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            tmp = p.with_name(f"{p.name}.{secrets.token_hex(4)}.tmp")
            tmp.write_text(json.dumps({"text": text}), encoding="utf-8")
            os.replace(tmp, p)
        except OSError as exc:
            logger.warning("speech recognition cache write failed: %s", exc)

    # ------------------------------------------------------------------ calls

    @property
    def down(self) -> bool:
        """The server failed ``OUTAGE_ITEMS`` segments in a row: stop asking (as the judge does)."""
        return self.failed_in_a_row >= OUTAGE_ITEMS

    async def recognise(self, wav: bytes, audio_sha256: str | None = None) -> Heard:
        """The text of one WAV segment, or the reason there is none. Never raises for the server's faults."""
        sha = audio_sha256 or hashlib.sha256(wav).hexdigest()
        key = self.cache_key(sha)
        cached = self._cache_get(key)
        if cached is not None:
            return Heard(cached)
        if len(wav) > MAX_AUDIO_BYTES:
            return Heard(
                None, f"segment too long to send ({len(wav) // 1024} KiB > {MAX_AUDIO_BYTES // 1024} KiB)"
            )
        if self._sem is None:
            self._sem = asyncio.Semaphore(self._concurrency)
        async with self._sem:
            if self.down:
                return Heard(
                    None,
                    f"recognition unavailable, not asked ({self.failed_in_a_row} segments in a row "
                    f"failed; last: {self.last_failure})",
                )
            heard, server_failed = await self._ask(wav)
        if heard.text is not None:
            self.failed_in_a_row = 0
            self._cache_put(key, heard.text)
        elif server_failed:
            self.failed_in_a_row += 1
            self.last_failure = heard.reason or ""
        return heard

    async def prepare(self) -> None:
        """Import the client and build it now: the import alone holds the GIL for most of a second, which in
        a meeting's recognition thread made persona audio frames late (20 frames, up to 236 ms)."""
        client = self._get_client()
        client.audio.transcriptions  # type: ignore[attr-defined]  # noqa: B018 - the resource is imported on first use

    def _get_client(self) -> object:
        import openai

        if self._client is None:
            self._client = openai.AsyncOpenAI(
                api_key=self._api_key, base_url=self.base_url, max_retries=0, timeout=self.timeout_s,
                http_client=bounded_http_client(MAX_ANSWER_BYTES),  # type: ignore[arg-type]
            )
        return self._client

    async def aclose(self) -> None:
        """Close the HTTP client (on the loop that used it)."""
        client, self._client = self._client, None
        if client is not None:
            await client.close()  # type: ignore[attr-defined]

    async def _ask(self, wav: bytes) -> tuple[Heard, bool]:
        """The text, and whether the last attempt failed on the server's side (an outage sign)."""
        client = self._get_client()

        async def attempt() -> str:
            self.calls += 1
            kwargs = {"language": self.language} if self.language else {}
            result = await client.audio.transcriptions.create(  # type: ignore[attr-defined]
                model=self.model, file=("segment.wav", wav, "audio/wav"), response_format="json", **kwargs
            )
            return _text_of(result)

        got = await ask_with_retries(
            attempt, what=f"speech recognition {self.name}", max_attempts=self.max_attempts,
            timeout_s=self.timeout_s, backoff_s=self.backoff_s, max_backoff_s=self.max_backoff_s, sleep=self._sleep,
        )
        return Heard(got.value, got.failure), got.server_failed


def _text_of(result: object) -> str:
    """The text of a transcription answer; raises _Garbage when it is not one."""
    text = getattr(result, "text", None)
    if isinstance(result, str) or not isinstance(text, str):
        raise _Garbage("answer is not a transcription (no text field)")
    if len(text) > MAX_TEXT_CHARS:
        raise _Garbage(f"answer is {len(text)} characters, more than {MAX_TEXT_CHARS}")
    if "\x00" in text:
        raise _Garbage("answer holds NUL characters")
    return " ".join(text.split())
