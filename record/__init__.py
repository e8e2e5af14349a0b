"""Session-record types and storage: typed events, the hash-chained record, the responses shape."""

from modylbench.record._basis import CLEAN_NETWORK, POOLED, SEPARATE, RunBasis, label, labels, separating
from modylbench.record._derive import derive_responses, rebuild_doc
from modylbench.record._doc import MAX_NESTING, new_product, products_json, products_root, to_yjs
from modylbench.record._events import (
    AGENT_ERROR_KINDS,
    EVENT_ADAPTER,
    TERMINATION_REASONS,
    AgentDone,
    AgentError,
    AgentSpeech,
    AgentSpeechRecognised,
    AgentSpeechUnrecognised,
    Attachment,
    ChatMessage,
    Disconnect,
    DocSnapshot,
    DocUpdate,
    DocUpdateRejected,
    ErrorEvent,
    Event,
    FileTransfer,
    Interruption,
    NetworkPath,
    NetworkStats,
    NetworkStream,
    PersonaAnswer,
    PersonaAside,
    PersonaBackchannel,
    PersonaChallenge,
    PersonaUtterance,
    QuestionAsked,
    ScreenFrame,
    SessionEnd,
    SessionStart,
    TurnEnd,
    TurnStart,
    parse_event,
    valid_text,
)
from modylbench.record._folder import MAX_FOLDER_NAME, SessionFolder, fit_name
from modylbench.record._manifest import MANIFEST_VERSION, Manifest
from modylbench.record._modelspec import ModelSpec, ModelSpecError
from modylbench.record._progress import PROGRESS_EVENTS, PROGRESS_MODES, ProgressReporter, record_progress
from modylbench.record._responses import (
    MAX_RUN_TEXT,
    MAX_TURN_CHAT,
    MAX_TURN_TEXT,
    Mutation,
    PersonaChallengeNote,
    PersonaReply,
    ScenarioResponses,
    TurnResponse,
    WorkProduct,
)
from modylbench.record._speech import (
    WORDS_PER_VOICED_SECOND,
    credit_turn,
    heard_share,
    read_recognition,
    write_recognition,
)
from modylbench.record._store import (
    GENESIS,
    MAX_RECORD_LINE,
    RecordIntegrityError,
    RecordLineTooLong,
    RecordRead,
    RecordWriter,
    SessionBusyError,
    SessionLock,
    attachment_path,
    file_sha256,
    read_record,
    verify_media,
)
from modylbench.record._turntaking import (
    BACKCHANNEL_YIELD_WINDOW_S,
    FEW_EVENTS,
    NON_DIRECTED_RESPONSE_WINDOW_S,
    NON_DIRECTED_YIELD_WINDOW_S,
    YIELD_WINDOW_S,
    TurnTaking,
    TurnTakingTurn,
    turn_taking,
)
from modylbench.record._version import package_version

__all__ = [
    "BACKCHANNEL_YIELD_WINDOW_S", "FEW_EVENTS", "NON_DIRECTED_RESPONSE_WINDOW_S", "NON_DIRECTED_YIELD_WINDOW_S",
    "YIELD_WINDOW_S", "TurnTaking", "TurnTakingTurn", "turn_taking",
    "CLEAN_NETWORK", "POOLED", "SEPARATE", "RunBasis", "label", "labels", "separating",
    "GENESIS", "TERMINATION_REASONS", "AGENT_ERROR_KINDS", "AgentDone", "AgentError", "AgentSpeech", "AgentSpeechRecognised", "AgentSpeechUnrecognised", "Attachment", "ChatMessage", "PersonaAnswer", "PersonaAside", "PersonaChallenge", "PersonaBackchannel", "QuestionAsked", "Disconnect",
    "DocSnapshot", "DocUpdate", "DocUpdateRejected", "ErrorEvent", "Event", "FileTransfer", "Interruption", "NetworkPath", "NetworkStats", "NetworkStream", "ModelSpec", "ModelSpecError",
    "MAX_RUN_TEXT", "MAX_TURN_CHAT", "MAX_TURN_TEXT", "Mutation", "PersonaUtterance", "RecordIntegrityError", "RecordLineTooLong", "MAX_RECORD_LINE", "RecordRead", "RecordWriter", "ScenarioResponses",
    "ScreenFrame", "SessionBusyError", "SessionFolder", "MAX_FOLDER_NAME", "fit_name", "SessionEnd", "SessionLock", "SessionStart", "TurnEnd", "TurnResponse", "TurnStart", "WorkProduct", "PersonaReply", "PersonaChallengeNote",
    "attachment_path", "file_sha256", "package_version", "parse_event", "read_record", "verify_media", "valid_text",
    "WORDS_PER_VOICED_SECOND", "credit_turn", "heard_share", "read_recognition", "write_recognition",
    "PROGRESS_EVENTS", "PROGRESS_MODES", "ProgressReporter", "record_progress",
    "MANIFEST_VERSION", "Manifest",
    "EVENT_ADAPTER", "derive_responses", "rebuild_doc", "MAX_NESTING", "new_product", "products_json", "products_root", "to_yjs",
]
