"""A scripted voice model for integration tests and their benchmark, served by the local OpenAI-compatible server
(tests/scoring/openai_server.py): chat completions that answer the ``mini_fixture`` meeting (speech as text,
edits and chat as tool calls), an eSpeak voice for ``audio/speech``, and a recogniser for
``audio/transcriptions`` that knows the persona's utterances: it matches the audio's energy envelope against
each utterance as the persona's engine speaks it (template matching, as early speech recognisers did) and
answers the best match, or nothing when none fits."""

from __future__ import annotations

import io
import wave
from pathlib import Path
from typing import Any

import numpy as np

from modylbench.personas import EspeakEngine, SpeechEngine, resample_s16
from modylbench.scenarios import Scenario, load_path
from tests.scoring.openai_server import SPEECH_RATE, Answer, Script, tool_call

ROOT = Path(__file__).resolve().parents[2]
MINI = load_path(ROOT / "fixtures" / "scenarios" / "mini_fixture.jsonl")[0]

SPOKEN = {
    0: "Hello Ana. Let's compute EBITDA together.",
    1: "EBITDA is 2.0 million: revenue of 10 at a 20 percent margin.",
    2: "No, EBITDA is 2.0 million, not 3 million.",
    3: "Let me check the file first.",
}
AFTER_TOOLS = {1: "The model holds EBITDA of 2.0 now.", 3: "The model is in the shared document, EBITDA 2.0."}
HOP = 0.01
"""Envelope hop, seconds."""
MIN_MATCH = 0.6
"""Normalised correlation below which the recogniser hears nothing it knows."""


def _text(content: Any) -> str:
    if isinstance(content, list):  # content parts
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content or "")


def brain(body: dict[str, Any], scenario: Scenario = MINI) -> Answer:
    """The model: answers the turn it last heard (the persona's words in the user messages), then confirms after
    its tool results come back."""
    messages = body["messages"]
    heard = " ".join(_text(m["content"]) for m in messages if m["role"] == "user")
    turn = max((t.turn_index for t in scenario.turns if t.human_utterance in heard), default=0)
    if messages[-1]["role"] == "tool":
        return Answer(content=AFTER_TOOLS.get(turn, "Done."))
    calls: list[dict[str, Any]] = []
    if turn == 1:
        calls = [
            tool_call("c1", "set_value", {"product_id": "model", "pointer": "/ebitda", "value_json": "2.0"}),
            tool_call("c2", "chat", {"text": "EBITDA = 10 x 20% = 2.0"}),
        ]
    elif turn == 3:
        calls = [tool_call("c3", "read_file", {"name": "inputs.csv"})]
    return Answer(content=SPOKEN[turn], tool_calls=calls or None)


def espeak_voice(engine: EspeakEngine | None = None) -> Any:
    """``audio/speech``: the text spoken by eSpeak, as OpenAI's 24 kHz mono s16."""
    engine = engine or EspeakEngine("en-us+m3", 185)

    def speak(text: str) -> bytes:
        return resample_s16(engine.synthesize(text), 48_000, SPEECH_RATE)

    return speak


def _envelope(pcm: bytes, rate: int) -> np.ndarray:
    samples = np.frombuffer(pcm[: len(pcm) // 2 * 2], dtype="<i2").astype(np.float64)
    hop = int(rate * HOP)
    n = len(samples) // hop
    frames = samples[: n * hop].reshape(n, hop) if n else np.zeros((0, hop))
    env = np.sqrt(np.mean(frames**2, axis=1)) if n else np.zeros(0)
    voiced = np.nonzero(env > 32768 * 10 ** (-45 / 20))[0]
    return env[voiced[0] : voiced[-1] + 1] if voiced.size else np.zeros(0)


def _wav(data: bytes) -> tuple[bytes, int]:
    with wave.open(io.BytesIO(data), "rb") as w:
        if w.getnchannels() != 1 or w.getsampwidth() != 2:
            raise ValueError("expected mono s16 WAV")
        return w.readframes(w.getnframes()), w.getframerate()


class TemplateRecogniser:
    """``audio/transcriptions`` for the persona's utterances: the utterance whose envelope correlates best with
    the audio's (over every alignment of the shorter in the longer, lengths within 30 %), or "" below
    ``MIN_MATCH``. ``heard`` keeps (text, score) for each request."""

    def __init__(self, persona_speech: SpeechEngine, scenario: Scenario = MINI) -> None:
        self.templates = [
            (t.human_utterance, _envelope(persona_speech.synthesize(t.human_utterance), 48_000))
            for t in scenario.turns
            if t.human_utterance
        ]
        self.heard: list[tuple[str, float]] = []

    def __call__(self, data: bytes) -> str:
        pcm, rate = _wav(data)
        env = _envelope(pcm, rate)
        best, score = "", 0.0
        for text, template in self.templates:
            if not env.size or not template.size or not 0.7 <= env.size / template.size <= 1.3:
                continue
            short, long_ = (env, template) if env.size <= template.size else (template, env)
            for lag in range(long_.size - short.size + 1):
                window = long_[lag : lag + short.size]
                a, b = short - short.mean(), window - window.mean()
                denom = float(np.linalg.norm(a) * np.linalg.norm(b))
                r = float(a @ b) / denom if denom else 0.0
                if r > score:
                    best, score = text, r
        text = best if score >= MIN_MATCH else ""
        self.heard.append((text, score))
        return text


def voice_script(persona_speech: SpeechEngine, scenario: Scenario = MINI) -> tuple[Script, TemplateRecogniser]:
    """The whole scripted voice model: chat completions, speech, recognition."""
    recogniser = TemplateRecogniser(persona_speech, scenario)
    script = Script(reply=lambda body: brain(body, scenario), speak=espeak_voice(), transcribe=recogniser)
    return script, recogniser
