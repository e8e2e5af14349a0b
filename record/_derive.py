"""Pure functions from a session record to what the scorer reads: responses, trajectory, doc state.

``derive_responses`` is the only road from a meeting to a score, so ``run`` and ``replay`` agree.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pycrdt import Doc

from modylbench.record._doc import TrajectoryBuilder, products_json, products_root
from modylbench.record._events import (
    AgentError,
    AgentSpeech,
    ChatMessage,
    DocSnapshot,
    DocUpdate,
    FileTransfer,
    Interruption,
    PersonaAnswer,
    PersonaChallenge,
    PersonaUtterance,
    QuestionAsked,
    SessionEnd,
    SessionStart,
    TurnEnd,
    TurnStart,
)
from modylbench.record._network import network_measurements
from modylbench.record._responses import (
    PersonaChallengeNote,
    PersonaReply,
    ScenarioResponses,
    TurnResponse,
    WorkProduct,
)
from modylbench.record._speech import (
    WORDS_PER_VOICED_SECOND,
    SpeechTurn,
    credit_turn,
    recognitions,
    speech_summary,
)
from modylbench.record._turntaking import turn_taking

logger = logging.getLogger(__name__)


def rebuild_doc(events: Iterable[Any], at: float | None = None) -> Doc:
    """The shared document as it was at meeting time ``at`` (the end when None).

    Starts from the last full snapshot at or before ``at`` and applies only the updates after it.
    """
    evs = list(events)
    doc_updates = [e for e in evs if isinstance(e, DocUpdate)]
    snapshot: DocSnapshot | None = None
    for e in evs:
        if isinstance(e, DocSnapshot) and (at is None or e.meeting_time <= at):
            snapshot = e
    doc: Doc = Doc()
    products_root(doc)
    start = 0
    if snapshot is not None:
        doc.apply_update(base64.b64decode(snapshot.state))
        start = snapshot.updates_so_far
    for e in doc_updates[start:]:
        if at is not None and e.meeting_time > at:
            break
        doc.apply_update(base64.b64decode(e.update))
    return doc


def derive_trajectory(events: Iterable[Any]) -> tuple[list[Any], Doc]:
    """Replay every doc update with its origin; returns the agent's mutations and the final document."""
    doc: Doc = Doc()
    builder = TrajectoryBuilder(doc)
    for e in events:
        if isinstance(e, DocUpdate):
            builder.turn_index = e.turn_index if e.turn_index is not None else 0
            with doc.transaction(origin=e.origin):
                doc.apply_update(base64.b64decode(e.update))
    builder.close()
    return builder.mutations, doc


@dataclass
class _TurnAcc:
    index: int
    speech_end: float | None = None
    speech: SpeechTurn = field(default_factory=SpeechTurn)
    chat: list[str] = field(default_factory=list)
    first_onset: float | None = None
    first_chat: float | None = None
    first_edit: float | None = None
    first_file: float | None = None
    talk_time: float = 0.0
    replies: list[PersonaReply] = field(default_factory=list)
    challenges: list[PersonaChallengeNote] = field(default_factory=list)
    interruptions: int = 0
    barge_ins: int = 0


def _ms(t: float | None, ref: float | None) -> float | None:
    if t is None or ref is None:
        return None
    return max(0.0, (t - ref) * 1000.0)


def _agent_errors(events: list[Any]) -> list[dict[str, Any]]:
    """The record's ``agent_error`` events as plain entries (turn, kind, message, fatal), in order."""
    return [{"turn_index": e.turn_index, "kind": e.kind, "message": e.message, "fatal": e.fatal}
            for e in events if isinstance(e, AgentError)]


def derive_responses(events: Iterable[Any], model_id: str | None = None, trial: int | None = None,
                     words_per_second: float = WORDS_PER_VOICED_SECOND) -> ScenarioResponses:
    """The public responses line for a recorded session (plus our measurements and termination reason).

    What the agent said in a turn is what speech recognition heard, else its declared transcript up to
    ``words_per_second`` per voiced second (docs/scoring.md "What the agent said"). Recognitions are the
    record's ``agent_speech_recognised``/``agent_speech_unrecognised`` events plus, appended after them, those
    of the ``recognition.jsonl`` sidecar (``replay --asr``).
    """
    evs = list(events)
    heard = recognitions(evs)
    segment = -1
    start = next((e for e in evs if isinstance(e, SessionStart)), None)
    if start is None:
        raise ValueError("record has no session_start event")
    turns: dict[int, _TurnAcc] = {}
    current: int | None = None

    def acc(idx: int | None) -> _TurnAcc | None:
        i = idx if idx is not None else current
        if i is None:
            return None
        return turns.setdefault(i, _TurnAcc(i))

    end_reason: str | None = None
    started: set[int] = set()
    asked: dict[str, str] = {}  # question id -> the agent's words
    for e in evs:
        if isinstance(e, TurnStart) and e.turn_index is not None:
            current = e.turn_index
            started.add(current)
            acc(current)
        elif isinstance(e, PersonaUtterance):
            a = acc(e.turn_index)
            if a is not None:
                a.speech_end = e.end if a.speech_end is None else max(a.speech_end, e.end)
        elif isinstance(e, AgentSpeech):
            segment += 1  # segments are numbered in record order: what a recognition's ``segment`` names
            a = acc(e.turn_index)
            if a is not None:
                a.speech.add(e, heard.get(segment))
                a.talk_time += max(0.0, e.offset - e.onset)
                if a.first_onset is None or e.onset < a.first_onset:
                    a.first_onset = e.onset
        elif isinstance(e, ChatMessage) and e.sender == "agent":
            a = acc(e.turn_index)
            if a is not None:
                a.chat.append(e.text)
                if a.first_chat is None:
                    a.first_chat = e.meeting_time
        elif isinstance(e, DocUpdate) and e.origin == "agent":
            a = acc(e.turn_index)
            if a is not None and a.first_edit is None:
                a.first_edit = e.meeting_time
        elif isinstance(e, FileTransfer) and e.direction == "from_agent" and e.ok:
            a = acc(e.turn_index)
            if a is not None and a.first_file is None:
                a.first_file = e.meeting_time
        elif isinstance(e, Interruption):
            a = acc(e.turn_index)
            if a is not None:
                if e.kind == "barge_in":
                    a.barge_ins += 1
                else:
                    a.interruptions += 1
        elif isinstance(e, QuestionAsked):
            asked[e.question_id] = e.text
        elif isinstance(e, PersonaAnswer):
            a = acc(e.turn_index)
            if a is not None:
                a.replies.append(PersonaReply(question=asked.get(e.question_id, ""), knowledge=list(e.knowledge),
                                              outcome=e.outcome, text=e.text))
        elif isinstance(e, PersonaChallenge):
            a = acc(e.turn_index)
            if a is not None:
                a.challenges.append(PersonaChallengeNote(fact_id=e.fact_id, fact_turn=e.fact_turn, figure=e.figure,
                                                         outcome=e.outcome, text=e.text))
        elif isinstance(e, TurnEnd):
            current = e.turn_index
        elif isinstance(e, SessionEnd):
            end_reason = e.termination_reason

    mutations, doc = derive_trajectory(evs)
    # Products the persona set up as templates are the agent's work only once the agent has edited them.
    edited = {m.product_id for m in mutations}
    products = [
        WorkProduct(output_type=p["type"], content=p["content"], description=p["title"], product_id=pid)
        for pid, p in sorted(products_json(doc).items())
        if pid in edited
    ]
    responses: list[TurnResponse] = []
    per_turn: list[dict[str, Any]] = []
    for idx in sorted(turns):
        a = turns[idx]
        said = credit_turn(a.speech, words_per_second)
        ref = a.speech_end
        lat_speech = _ms(a.first_onset, ref)
        lat_chat = _ms(a.first_chat, ref)
        lat_edit = _ms(a.first_edit, ref)
        lat_file = _ms(a.first_file, ref)
        # docs/protocol.md §7: latency_ms is the agent's first response of any kind; the measurements keep
        # speech apart from its first written act (chat, doc edit or file), and each kind apart.
        actions = [x for x in (lat_chat, lat_edit, lat_file) if x is not None]
        lat_action = min(actions) if actions else None
        firsts = {k: v for k, v in (("speech", lat_speech), ("chat", lat_chat), ("doc", lat_edit),
                                    ("file", lat_file)) if v is not None}
        first = min(firsts, key=lambda k: firsts[k]) if firsts else None
        responses.append(TurnResponse(
            turn_index=idx,
            agent_response=said.text,
            chat_messages=a.chat,
            latency_ms=firsts[first] if first is not None else None,
            persona_replies=a.replies,
            # Only a meeting whose persona challenges wrong figures says which it challenged (none: []).
            persona_challenges=a.challenges if start.persona_challenges else None,
        ))
        per_turn.append({
            "turn_index": idx,
            "latency_ms": firsts[first] if first is not None else None,
            "latency_first": first,
            "latency_speech_ms": lat_speech,
            "latency_action_ms": lat_action,
            "latency_chat_ms": lat_chat,
            "latency_doc_ms": lat_edit,
            "latency_file_ms": lat_file,
            "agent_talk_time_s": a.talk_time,
            "agent_overlaps": a.interruptions,
            "persona_barge_ins": a.barge_ins,
            "speech_source": said.source,
            "speech_words_declared": said.words_declared,
            "speech_words_credited": said.words_credited,
            "speech_recognised_s": a.speech.recognised_s,
            "speech_unrecognised_s": a.speech.unrecognised_s,
            "speech_flags": said.flags,
        })
    return ScenarioResponses(
        scenario_id=start.scenario_id,
        model_id=model_id or start.agent,
        trial=trial,
        turns=responses,
        work_products=products,
        mutation_trajectory=mutations,
        measurements={"turns": per_turn, "doc_updates": sum(1 for e in evs if isinstance(e, DocUpdate)),
                      "speech": speech_summary([turns[i].speech for i in sorted(turns)], bool(heard),
                                               words_per_second),
                      # The agent's failures (agent_error events); present only when there were some.
                      **({"agent_errors": errors} if (errors := _agent_errors(evs)) else {}),
                      # Responding, yielding, interrupting, backchannels, side speech (docs/scoring.md, "Turn-taking").
                      "turn_taking": turn_taking(evs).model_dump(mode="json"),
                      # What the network did (WebRTC meetings, docs/network.md); present only when sampled.
                      **({"network": net} if (net := network_measurements(evs)) is not None else {})},
        termination_reason=end_reason,
        # Turns are played in order from 0, so the turns started are the first len(started) of the script.
        turns_played=len(started),
        # What the meeting was scheduled to be: the denominator, however early the agent left.
        turns_scheduled=start.turns_planned,
        scenario_seed=start.scenario_seed,
    )
