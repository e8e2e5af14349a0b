"""The test session's speech cache (tests/conftest.py): a folder of its own, never the user's."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from modylbench.channels import EncodedSpeech, encode_speech, fallback_speech, speech_key
from modylbench.personas import CachedEngine, default_cache_dir


def test_speech_is_cached_in_the_sessions_own_temporary_folder() -> None:
    cache = default_cache_dir()
    assert cache.parent == Path(os.environ["MODYLBENCH_CACHE"])
    assert cache.is_relative_to(tempfile.gettempdir())
    assert not cache.is_relative_to(Path.home() / ".cache")


class _Tone:
    """A speech engine of its own (speech-shaped audio), so the cache is tested without eSpeak."""

    name = "tone"
    voice = "v1"

    def __init__(self) -> None:
        self.calls = 0

    def synthesize(self, text: str) -> bytes:
        self.calls += 1
        return fallback_speech(text)


def test_the_opus_packets_are_kept_next_to_the_speech_and_read_back(tmp_path: Path) -> None:
    engine = CachedEngine(_Tone(), tmp_path)
    text = "the margin fell two points"
    pcm = engine.synthesize(text)
    packets = engine.encoded(text, pcm)
    path = tmp_path / f"{engine.key(text)}.opus"
    assert path.exists() and packets == encode_speech(pcm)
    assert len(packets.packets) == -(-len(pcm) // 1920)
    # a second engine (another run, another process) reads them back instead of encoding
    again = CachedEngine(_Tone(), tmp_path)
    assert again.encoded(text, again.synthesize(text)) == packets
    # an entry that is damaged, or belongs to other audio, is encoded again and replaced
    path.write_bytes(b"garbage")
    assert engine.encoded(text, pcm) == packets
    other = fallback_speech("another utterance")
    replaced = engine.encoded(text, other)
    assert replaced.key == speech_key(other) and EncodedSpeech.from_bytes(path.read_bytes()) == replaced
