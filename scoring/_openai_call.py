"""The one OpenAI call-and-retry loop, shared by the LLM judge (``_llm.py``) and speech recognition (``_asr.py``):
how a failure is classified (the answer unusable, a timeout, a status worth retrying or not, no connection),
the retry schedule (Retry-After, else exponential backoff, both capped), and whether the last attempt failed
on the server's side (an outage sign)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")

RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504}
"""Statuses worth asking again (the server may answer next time); any other is final at once."""


class Unusable(Exception):
    """An answer came but cannot be used (not valid, truncated, refused); retried, then its reason is kept."""


class AnswerTooLarge(Unusable):
    """The server's answer (a success or an error body) passed the size the caller reads; the rest was not read."""


def bounded_http_client(max_bytes: int) -> object:
    """An HTTP client for ``openai.AsyncOpenAI(http_client=...)`` that reads at most ``max_bytes`` of any answer.

    A server's answer is otherwise read whole, error bodies included, and parsed on the reading thread: a
    recognition endpoint answering 120 MB made the meeting's persona audio late (125 frames, 220 ms) and
    took 1.08 GB. Past the bound (declared in Content-Length or counted as it arrives) the connection is
    dropped and ``AnswerTooLarge`` raised. Answers are asked for uncompressed and a compressed one is refused,
    so the bound holds for the bytes parsed, not only for the bytes on the wire.
    """
    import httpx2
    import openai

    class _Bounded(httpx2.AsyncByteStream):
        def __init__(self, inner: httpx2.AsyncByteStream) -> None:
            self.inner, self.read = inner, 0

        async def __aiter__(self):  # type: ignore[no-untyped-def, override]
            async for chunk in self.inner:
                self.read += len(chunk)
                if self.read > max_bytes:
                    raise AnswerTooLarge(f"answer larger than {max_bytes // 1024} KiB (the rest not read)")
                yield chunk

        async def aclose(self) -> None:
            await self.inner.aclose()

    class _Transport(httpx2.AsyncBaseTransport):
        def __init__(self) -> None:
            self.inner = httpx2.AsyncHTTPTransport()

        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            request.headers["accept-encoding"] = "identity"
            response = await self.inner.handle_async_request(request)
            declared = response.headers.get("content-length", "")
            encoding = response.headers.get("content-encoding", "identity").strip().lower()
            refused = None
            if declared.isdigit() and int(declared) > max_bytes:
                refused = f"answer of {int(declared) // 1024} KiB, more than {max_bytes // 1024} KiB (not read)"
            elif encoding not in ("", "identity"):
                refused = f"answer compressed as {encoding[:40]!r} although asked uncompressed (not read)"
            if refused is not None:
                await response.aclose()
                raise AnswerTooLarge(refused)
            assert isinstance(response.stream, httpx2.AsyncByteStream)
            response.stream = _Bounded(response.stream)
            return response

        async def aclose(self) -> None:
            await self.inner.aclose()

    return openai.DefaultAsyncHttpxClient(transport=_Transport())


@dataclass(frozen=True)
class Answered(Generic[T]):
    """What the attempts came to: the value, or why there is none."""

    value: T | None
    failure: str | None = None
    """Why there is no value (None when there is one)."""
    server_failed: bool = False
    """The last attempt failed on the server's side (timeout, connection, a retryable status)."""


def retry_delay(attempt: int, retry_after: float | None, backoff_s: float, max_backoff_s: float) -> float:
    """Seconds before retry ``attempt + 1``: the server's Retry-After, else exponential backoff; both capped."""
    if retry_after is not None:
        return min(max_backoff_s, max(0.0, retry_after))
    return min(max_backoff_s, backoff_s * (2**attempt))


def retry_after_seconds(value: str | None) -> float | None:
    """A Retry-After header in seconds; None when absent or not a number."""
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None


async def ask_with_retries(
    attempt: Callable[[], Awaitable[T]],
    *,
    what: str,
    max_attempts: int,
    timeout_s: float,
    backoff_s: float,
    max_backoff_s: float,
    sleep: Callable[[float], Awaitable[None]],
) -> Answered[T]:
    """Call ``attempt`` until it returns, at most ``max_attempts`` times. Never raises for the server's faults
    or for an unusable answer (``Unusable``, or a malformed one: ValueError, TypeError, AttributeError)."""
    import openai

    last = "no attempt made"
    server_failed = False
    for n in range(max_attempts):
        retry_after: float | None = None
        server_failed = False
        try:
            return Answered(await attempt())
        except Unusable as exc:
            last = str(exc)
        except openai.APITimeoutError:
            last = f"timed out after {timeout_s:g}s"
            server_failed = True
        except openai.APIStatusError as exc:
            last = f"HTTP {exc.status_code}"
            if exc.status_code not in RETRYABLE_STATUS:
                return Answered(None, f"{last}: {exc.message[:200]}")
            server_failed = True
            retry_after = retry_after_seconds(exc.response.headers.get("retry-after"))
        except openai.APIConnectionError as exc:
            if isinstance(exc.__cause__, Unusable):  # raised while the answer was read (bounded_http_client)
                last = str(exc.__cause__)
            else:
                last = f"connection error ({exc.__class__.__name__})"
                server_failed = True
        except (openai.APIResponseValidationError, ValueError, TypeError, AttributeError, RecursionError) as exc:
            last = f"malformed answer ({exc.__class__.__name__}: {str(exc)[:120]})"
        logger.info("%s attempt %d failed: %s", what, n + 1, last)
        if n + 1 < max_attempts:
            await sleep(retry_delay(n, retry_after, backoff_s, max_backoff_s))
    return Answered(None, f"{last} (after {max_attempts} attempts)", server_failed)
