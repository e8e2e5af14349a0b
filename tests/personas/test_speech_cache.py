"""The test session's speech cache (tests/conftest.py): a folder of its own, never the user's."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from modylbench.personas import default_cache_dir


def test_speech_is_cached_in_the_sessions_own_temporary_folder() -> None:
    cache = default_cache_dir()
    assert cache.parent == Path(os.environ["MODYLBENCH_CACHE"])
    assert cache.is_relative_to(tempfile.gettempdir())
    assert not cache.is_relative_to(Path.home() / ".cache")
