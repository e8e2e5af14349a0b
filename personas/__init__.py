"""The human side of the meeting: the scripted persona, speech synthesis and slide rendering."""

from modylbench.personas._answerer import (
    MAX_ANSWERS_PER_TURN,
    Answer,
    OfflineAnswerer,
    answers_to,
    questions_in,
    render,
    withheld_asks,
)
from modylbench.personas._challenge import Challenge, challenges_for, is_challenge
from modylbench.personas._llm_answerer import (
    DEFAULT_ANSWERER,
    LLMAnswerer,
    PersonaLLMError,
    check_persona_llm,
    make_answerer,
)
from modylbench.personas._persona import AgentActivity, PersonaOptions, ScriptedPersona
from modylbench.personas._room import RoomPlayer, room_hello_of, voice_engine
from modylbench.personas._slides import render_slide
from modylbench.personas._speech import (
    CachedEngine,
    EspeakEngine,
    OpenAISpeechEngine,
    SpeechEngine,
    SpeechError,
    default_cache_dir,
    make_engine,
    read_wav_mono,
    resample_s16,
    wav_bytes,
)

__all__ = [
    "MAX_ANSWERS_PER_TURN", "Answer", "OfflineAnswerer", "questions_in", "render", "answers_to", "withheld_asks",
    "Challenge", "challenges_for", "is_challenge",
    "DEFAULT_ANSWERER", "LLMAnswerer", "PersonaLLMError", "check_persona_llm", "make_answerer",
    "AgentActivity", "CachedEngine", "EspeakEngine", "OpenAISpeechEngine", "PersonaOptions", "ScriptedPersona",
    "SpeechEngine", "SpeechError", "default_cache_dir", "make_engine", "read_wav_mono", "render_slide",
    "resample_s16", "wav_bytes", "RoomPlayer", "room_hello_of", "voice_engine",
]
