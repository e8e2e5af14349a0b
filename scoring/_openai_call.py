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
            last = f"connection error ({exc.__class__.__name__})"
            server_failed = True
        except (openai.APIResponseValidationError, ValueError, TypeError, AttributeError, RecursionError) as exc:
            last = f"malformed answer ({exc.__class__.__name__}: {str(exc)[:120]})"
        logger.info("%s attempt %d failed: %s", what, n + 1, last)
        if n + 1 < max_attempts:
            await sleep(retry_delay(n, retry_after, backoff_s, max_backoff_s))
    return Answered(None, f"{last} (after {max_attempts} attempts)", server_failed)
