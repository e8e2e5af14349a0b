"""The installed modylbench version, as manifests and scorecards record it."""

from __future__ import annotations

import logging
from importlib import metadata

logger = logging.getLogger(__name__)

UNKNOWN_VERSION = "0+unknown"
"""Recorded when the package is not installed (run from a source tree without metadata)."""


def package_version() -> str:
    """The installed modylbench version, or ``UNKNOWN_VERSION``."""
    try:
        return metadata.version("modylbench")
    except metadata.PackageNotFoundError:
        return UNKNOWN_VERSION
