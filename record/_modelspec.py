"""``PROVIDER[/MODEL][@BASE_URL]``: the one parser of the model specs that judges, agents and speech take."""

from __future__ import annotations

import logging
from dataclasses import dataclass

logger = logging.getLogger(__name__)


class ModelSpecError(ValueError):
    """A model spec that cannot be read; the message is one line naming the spec and what is wrong."""


@dataclass(frozen=True)
class ModelSpec:
    """A model named on the command line: ``openai/gpt-4o@http://localhost:8000/v1``.

    The model may itself hold slashes (``openai/meta-llama/Llama-3``); it cannot hold ``@``, so the first
    ``@`` starts the base URL (which may hold one: ``http://user@host``).
    """

    provider: str
    """What serves the model (``openai``, ``llm``)."""
    model: str | None = None
    """The model's name; None when the spec names only the provider (the caller's default applies)."""
    base_url: str | None = None
    """The OpenAI-compatible server; None for the provider's default (``OPENAI_BASE_URL``)."""

    @classmethod
    def parse(cls, spec: str) -> ModelSpec:
        """Read ``PROVIDER``, ``PROVIDER/MODEL``, ``PROVIDER@BASE_URL`` or ``PROVIDER/MODEL@BASE_URL``."""
        head, at, base = spec.partition("@")
        provider, slash, model = head.partition("/")
        if not provider:
            raise ModelSpecError(f"{spec!r}: no provider (use PROVIDER[/MODEL][@BASE_URL])")
        if slash and not model:
            raise ModelSpecError(f"{spec!r}: no model name after {provider}/")
        if at and not base:
            raise ModelSpecError(f"{spec!r}: no base URL after @")
        return cls(provider, model or None, base or None)

    def __str__(self) -> str:
        return self.provider + (f"/{self.model}" if self.model else "") + (f"@{self.base_url}" if self.base_url else "")
