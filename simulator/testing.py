"""Test an agent from Python or pytest: run a scenario slice with it and assert on the scorecard, each turn's
dimensions, the facts it stated and the edits it made, with failure messages that say what went wrong.

``run_meeting`` (or ``await run_meeting_async``) runs one meeting through the same runner and scorer as
``modylbench run``; the pytest plugin's ``meeting`` fixture wraps it with pytest's ``tmp_path``
(docs/testing-your-agent.md).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from modylbench.channels import LinkOptions
from modylbench.record import Mutation, ScenarioResponses, TurnResponse, read_record
from modylbench.scenarios import Scenario
from modylbench.scoring import FactEvidence, ProductScore, ScenarioScore, Scorecard, TurnScore, facts_stated
from modylbench.simulator._agentspec import resolve_agent
from modylbench.simulator._cli_common import check_judges, write_report
from modylbench.simulator._cmd_scenarios import load_all, pick
from modylbench.simulator._errors import UserError
from modylbench.simulator._runner import RunSpec, responses_for, run_one, score_session
from modylbench.simulator._session import MeetingOptions, MeetingResult
from modylbench.simulator._sessionkey import MANIFEST_KEY, SessionKey

logger = logging.getLogger(__name__)

__all__ = [
    "Check",
    "Dimensions",
    "MeetingRun",
    "Meetings",
    "TurnResult",
    "UnscoredError",
    "UserError",
    "agent_spec",
    "run_meeting",
    "run_meeting_async",
]

SHOWN_CHARS = 400
"""How much of what the agent said a failure message quotes."""


class UnscoredError(AssertionError):
    """The scorer could not score the item asked about (a judge outage, nothing to score); the reason is in
    the message. An AssertionError, so that a test asserting on the score fails rather than errors."""


@dataclass(frozen=True)
class Check:
    """The outcome of an assertion helper: true or false, with a message that says why.

    ``assert result.turn(0).stated("ev_headline")`` shows the one-line message when it fails (pytest prints
    the repr); ``.expect()`` raises an AssertionError with the message and the full detail.
    """

    ok: bool
    message: str
    """One line: what passed or failed, and the gist of why (pytest shows it)."""
    detail: str = ""
    """The whole story, several lines: every expected fact and what the agent said."""

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return ("passed: " if self.ok else "FAILED: ") + self.message

    def __str__(self) -> str:
        return repr(self) + ("\n" + self.detail if self.detail else "")

    def expect(self) -> Check:
        """Raise AssertionError(message and detail) when the check failed; return the check otherwise."""
        if not self.ok:
            raise AssertionError(self.message + ("\n" + self.detail if self.detail else ""))
        return self


class Dimensions(dict[str, float]):
    """A turn's consensus score per dimension; a missing one raises a KeyError that says why it is missing."""

    def __init__(self, values: dict[str, float], where: str, unscored_reason: str | None):
        super().__init__(values)
        self._where, self._why = where, unscored_reason

    def __missing__(self, key: str) -> float:
        if self._why:
            raise UnscoredError(f"{self._where} has no {key!r}: it was not scored ({self._why})")
        raise KeyError(f"{self._where} has no dimension {key!r}; it has {', '.join(self) or 'none'}")


def _quote(text: str, limit: int = SHOWN_CHARS) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _value(f: FactEvidence) -> str:
    v = f.fact.value
    shown = f"{v:g}" if isinstance(v, float) else str(v)
    return f"{shown} {f.fact.unit}".strip()


def _mark(f: FactEvidence) -> str:
    return f"{f.fact.id} {('✓ hedged' if f.hedged else '✓') if f.stated else '✗'}"


def _fact_line(f: FactEvidence) -> str:
    how = ("stated, hedged" if f.hedged else "stated") if f.stated else "NOT stated"
    given = ", already given by the persona" if f.given else ""
    return f"{f.fact.id} ({f.fact.description}: {_value(f)}): {how}{given}"


@dataclass
class TurnResult:
    """One played turn: what the persona asked, what the agent said and did, and how it scored."""

    index: int
    """The scenario's turn index (0 is the first turn)."""
    human: str
    """What the persona said in this turn (the script's words)."""
    response: TurnResponse | None
    """The agent's response as derived from the record; None when it did nothing in this turn."""
    scored: TurnScore | None
    """The scorecard's item for this turn."""
    facts: list[FactEvidence]
    """Each expected fact of the turn and whether the agent's words stated it (the offline judge's reading)."""
    mutations: list[Mutation]
    """The agent's edits to the shared document during this turn, in order."""
    label: str = ""

    @property
    def said(self) -> str:
        """What the agent said aloud (its speech transcript); empty when it said nothing."""
        return "" if self.response is None else self.response.agent_response

    @property
    def chat(self) -> list[str]:
        """The chat messages the agent posted in this turn."""
        return [] if self.response is None else list(self.response.chat_messages)

    @property
    def text(self) -> str:
        """Speech and chat together: what the judges read."""
        return "\n".join([self.said, *self.chat]).strip()

    @property
    def latency_ms(self) -> float | None:
        """From the end of the persona's speech to the agent's first response; None when it did not respond."""
        return None if self.response is None else self.response.latency_ms

    @property
    def score(self) -> float:
        """The turn's weighted, capped score (1..10); UnscoredError when it has none."""
        if self.scored is None or self.scored.score is None:
            why = self.scored.unscored_reason if self.scored is not None else "no scorecard item"
            raise UnscoredError(f"turn {self.index} has no score ({why})")
        return self.scored.score

    @property
    def dimensions(self) -> Dimensions:
        """Consensus score per dimension: ``context_accuracy``, ``task_progress``, … (1..10)."""
        values = dict(self.scored.dimensions) if self.scored is not None else {}
        why = None
        if self.scored is not None and self.scored.score is None:
            why = self.scored.unscored_reason or "unscored"
        return Dimensions(values, f"turn {self.index}", why)

    @property
    def flags(self) -> list[str]:
        """What the scorer flagged on this turn: no_response, parroting, hard_floor, hedged, …"""
        return [] if self.scored is None else list(self.scored.flags)

    @property
    def expected_facts(self) -> list[str]:
        """The ids of the facts a good answer to this turn states."""
        return [f.fact.id for f in self.facts]

    @property
    def stated_facts(self) -> list[str]:
        """The ids of the expected facts the agent stated (hedged ones included)."""
        return [f.fact.id for f in self.facts if f.stated]

    def fact(self, fact_id: str) -> FactEvidence:
        """The evidence for one expected fact; KeyError naming the turn's facts when it is not one of them."""
        for f in self.facts:
            if f.fact.id == fact_id:
                return f
        raise KeyError(
            f"turn {self.index} expects no fact {fact_id!r}; its facts: "
            f"{', '.join(self.expected_facts) or 'none'}"
        )

    def stated(self, *fact_ids: str, hedged_ok: bool = True) -> Check:
        """Whether the agent stated every one of these expected facts in this turn (all of them when none
        are named). A hedged statement ("maybe 24.6%") counts unless ``hedged_ok=False``."""
        wanted = [self.fact(i) for i in fact_ids] if fact_ids else list(self.facts)
        if not wanted:
            return Check(False, f"turn {self.index} has no expected facts to state")
        missing = [f for f in wanted if not f.stated or (f.hedged and not hedged_ok)]
        lines = [
            f"expected facts of turn {self.index}:",
            *(f"  {_fact_line(f)}" for f in self.facts),
            f"the agent said: {_quote(self.said) if self.said.strip() else '(nothing)'}",
        ]
        if self.chat:
            lines.append(f"chat: {_quote(' | '.join(self.chat))}")
        detail = "\n".join(lines)
        facts = f"{len(self.stated_facts)}/{len(self.facts)} facts stated: {', '.join(_mark(f) for f in self.facts)}"
        if not missing:
            return Check(
                True, f"turn {self.index} stated {', '.join(f.fact.id for f in wanted)} ({facts})", detail
            )
        firmly = " firmly" if not hedged_ok and all(f.stated for f in missing) else ""
        return Check(
            False,
            f"turn {self.index} did not state {', '.join(f.fact.id for f in missing)}{firmly} "
            f"({facts}); said {self._gist()}",
            detail,
        )

    def _gist(self, limit: int = 80) -> str:
        if self.said.strip():
            return _quote(self.said, limit)
        return "nothing" + (f", chat {_quote(' | '.join(self.chat), limit)}" if self.chat else "")

    def __repr__(self) -> str:
        score = (
            "unscored"
            if self.scored is None or self.scored.score is None
            else f"score {self.scored.score:.2f}"
        )
        facts = f", facts {len(self.stated_facts)}/{len(self.facts)}" if self.facts else ""
        flags = f", flags {','.join(self.flags)}" if self.flags else ""
        return f"Turn({self.index}: {score}{facts}{flags}, said {self._gist(60)})"

    def __str__(self) -> str:
        return self.describe()

    def describe(self, label: bool = True) -> str:
        """Several lines: the scores, what the persona said, what the agent said, each fact, the edits."""
        head = f"Turn {self.index}{' of ' + self.label if label and self.label else ''}"
        if self.scored is not None and self.scored.score is not None:
            dims = ", ".join(f"{k} {v:.1f}" for k, v in self.scored.dimensions.items())
            head += f": score {self.scored.score:.2f} ({dims})"
        elif self.scored is not None:
            head += f": unscored ({self.scored.unscored_reason})"
        lines = [head + (f", flags {self.flags}" if self.flags else "")]
        lines.append(f"  persona: {_quote(self.human, 160)}")
        lines.append(f"  said: {_quote(self.said) if self.said.strip() else '(nothing)'}")
        if self.chat:
            lines.append(f"  chat: {_quote(' | '.join(self.chat))}")
        lines += [f"  fact {_fact_line(f)}" for f in self.facts]
        if self.mutations:
            lines.append(
                f"  edits: {len(self.mutations)} ("
                + ", ".join(sorted({f"{m.mutation_type} {m.product_id}" for m in self.mutations}))
                + ")"
            )
        return "\n".join(lines)


@dataclass
class MeetingRun:
    """One meeting run and scored: the scorecard, each turn, the facts stated, the edits, and where it is."""

    folder: Path
    """The session folder: record.jsonl, recording.wav, scorecard.json, report.html, …"""
    agent: str
    """The agent as given (a built-in name, ``py:MODULE:FUNCTION`` or ``cmd:COMMAND``)."""
    transport: str
    meeting: MeetingResult
    """How the meeting ended (termination_reason, turns_played, detail)."""
    scenario: Scenario
    """The scenario as played (the slice, when ``turns`` cut it short)."""
    responses: ScenarioResponses
    """The per-turn responses derived from the record (the public ``responses.jsonl`` line)."""
    scorecard: Scorecard
    errors: list[Any] = field(default_factory=list)
    """The record's ``error`` and ``agent_error`` events (what went wrong, whose fault, tracebacks)."""
    _turns: dict[int, TurnResult] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        by_index = {r.turn_index: r for r in self.responses.turns}
        scored = {t.turn_index: t for t in self.card.turns}
        trajectory = self.mutations
        label = f"{self.scenario.scenario_id} × {self.agent}"
        for t in self.scenario.turns[: self.turns_played]:
            resp = by_index.get(t.turn_index)
            self._turns[t.turn_index] = TurnResult(
                index=t.turn_index,
                human=t.human_utterance,
                response=resp,
                scored=scored.get(t.turn_index),
                facts=facts_stated(self.scenario, t.turn_index, resp),
                mutations=[m for m in trajectory if m.turn_index == t.turn_index],
                label=label,
            )

    @property
    def card(self) -> ScenarioScore:
        """The scorecard's entry for this meeting."""
        return self.scorecard.scenarios[0]

    @property
    def score(self) -> float:
        """The meeting's modylbench_score (1..10; a slice scores its journey alone); UnscoredError when the
        scorer could not give one."""
        if self.card.modylbench_score is None:
            raise UnscoredError(
                f"{self.scenario.scenario_id} × {self.agent} has no score "
                f"({'; '.join(self.card.unscored) or 'unscored'})"
            )
        return self.card.modylbench_score

    @property
    def journey(self) -> float | None:
        return self.card.journey

    @property
    def destination(self) -> float | None:
        """The products' mean score; None for a slice, which is scored on its journey alone."""
        return self.card.destination

    @property
    def tier(self) -> str | None:
        return self.card.tier

    @property
    def termination_reason(self) -> str:
        return self.meeting.termination_reason

    @property
    def turns_played(self) -> int:
        return self.meeting.turns_played

    @property
    def flags(self) -> list[str]:
        """Every flag the scorecard raised, on the meeting, any turn or any product (``where`` says which)."""
        seen: dict[str, None] = {}
        for _, flags in self._flag_sources():
            seen.update(dict.fromkeys(flags))
        return list(seen)

    def where(self, flag: str) -> list[str]:
        """Where the scorecard raised ``flag``: 'meeting', 'turn 2', 'product lbo_model'."""
        return [place for place, flags in self._flag_sources() if flag in flags]

    def _flag_sources(self) -> Iterator[tuple[str, list[str]]]:
        yield "meeting", self.card.flags
        for t in self.card.turns:
            yield f"turn {t.turn_index}", t.flags
        for p in self.card.products:
            yield f"product {p.product_id or p.output_type}", p.flags

    @property
    def mutations(self) -> list[Mutation]:
        """Every edit the agent made to the shared document, in order (the mutation trajectory)."""
        return list(self.responses.mutation_trajectory or [])

    @property
    def products(self) -> dict[str, Any]:
        """The work products at the end of the meeting: product id -> content."""
        return {p.product_id or f"#{i}": p.content for i, p in enumerate(self.responses.work_products)}

    def product(self, product_id: str) -> ProductScore:
        """The scorecard's item for one expected product (none in a slice: deliverables are due at the end)."""
        for p in self.card.products:
            if p.product_id == product_id:
                return p
        raise KeyError(
            f"no scored product {product_id!r}; scored: "
            f"{', '.join(str(p.product_id) for p in self.card.products) or 'none (a slice has none)'}"
        )

    @property
    def agent_errors(self) -> list[Any]:
        """The ``agent_error`` events: the agent could not reach its model, answered nothing, crashed, …"""
        return [e for e in self.errors if getattr(e, "event", "") == "agent_error"]

    @property
    def turns(self) -> list[TurnResult]:
        """The turns the meeting played, in order."""
        return list(self._turns.values())

    def turn(self, index: int) -> TurnResult:
        """One played turn by its scenario index (0 is the first)."""
        hit = self._turns.get(index)
        if hit is None:
            played = f"turns 0–{self.turns_played - 1}" if self.turns_played else "no turns"
            raise IndexError(
                f"turn {index} was not played: the meeting played {played} "
                f"(termination: {self.termination_reason})"
            )
        return hit

    @property
    def report(self) -> Path:
        """The session's HTML report (written unless ``report=False``)."""
        return self.folder / "report.html"

    def _headline(self) -> str:
        card = self.card
        score = "unscored" if card.modylbench_score is None else f"score {card.modylbench_score:.2f}"
        n = len(self.agent_errors)
        errors = f", {n} agent error{'s' if n != 1 else ''}" if n else ""
        return (
            f"{self.scenario.scenario_id} × {self.agent} over {self.transport}: {self.termination_reason} "
            f"after {self.turns_played} turns, {score}{' ' + card.tier if card.tier else ''}{errors}"
        )

    def __repr__(self) -> str:
        return f"MeetingRun({self._headline()})"

    def __str__(self) -> str:
        lines = [self._headline()]
        for place, flags in self._flag_sources():
            if flags:
                lines.append(f"  flags on {place}: {', '.join(flags)}")
        for t in self.turns:
            lines += ["  " + line for line in t.describe(label=False).splitlines()]
        for e in self.errors:
            lines.append(
                f"  {getattr(e, 'event', 'error')} {getattr(e, 'kind', '')}: {getattr(e, 'message', '')}"
            )
        lines.append(f"  folder: {self.folder}")
        if self.report.exists():
            lines.append(f"  report: {self.report}")
        return "\n".join(lines)


def agent_spec(agent: str | Callable[..., Any]) -> str:
    """The ``--agent`` string for an agent given as a string or as an importable ``async def f(client)``."""
    if isinstance(agent, str):
        return agent
    if inspect.iscoroutinefunction(agent):
        module, qualname = getattr(agent, "__module__", None), getattr(agent, "__qualname__", "")
        if module and module != "__main__" and "<locals>" not in qualname:
            return f"py:{module}:{qualname}"
        raise UserError(
            f"agent {qualname or agent!r}: pass a module-level async function (importable as "
            "py:MODULE:FUNCTION), not one defined in __main__ or inside a function"
        )
    raise UserError(
        f"agent {agent!r}: expected a built-in name, 'py:MODULE:FUNCTION', 'cmd:COMMAND' or an "
        "async def FUNCTION(client)"
    )


async def run_meeting_async(
    scenario: str | Scenario,
    agent: str | Callable[..., Any],
    *,
    turns: int | None = None,
    transport: str = "inproc",
    out: Path | str | None = None,
    seed: int = 0,
    judges: Sequence[str] = ("offline",),
    agent_name: str | None = None,
    speech: str = "espeak",
    captions: bool = True,
    speed: float | None = None,
    scenario_files: Sequence[Path | str] = (),
    report: bool = True,
) -> MeetingRun:
    """Run one meeting with ``agent`` and score it, as ``modylbench run`` does; see ``run_meeting``."""
    spec_str = agent_spec(agent)
    if transport not in ("inproc", "webrtc"):
        raise UserError(f"transport {transport!r}: inproc or webrtc")
    if speed is not None and transport != "inproc":
        raise UserError("speed applies to transport='inproc' only (WebRTC runs in real time)")
    resolved = resolve_agent(spec_str, agent_name)
    panel = list(judges)
    check_judges(panel)
    if isinstance(scenario, Scenario):
        played = scenario
        scenarios = {scenario.scenario_id: scenario}
    else:
        scenarios = await asyncio.to_thread(
            load_all, tuple(Path(p) for p in scenario_files), seed, [scenario]
        )
        played = pick(scenarios, scenario)
    base = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="modylbench-test-"))
    key = SessionKey(played.scenario_id, spec_str, resolved.name, transport, turns, seed, 0)
    first = folder = key.folder(base)
    n = 1
    while folder.exists():  # the same meeting twice in one test: a folder each
        n += 1
        folder = first.with_name(f"{first.name}__{n}")
    spec = RunSpec(
        played,
        spec_str,
        folder,
        transport,
        speed=speed,
        speech=speech,
        meeting=MeetingOptions(turns=turns, judges=panel, seed=seed, extra_manifest={MANIFEST_KEY: key.manifest_entry()}),
        link=LinkOptions(captions=captions),
        agent_name=agent_name,
    )
    result = await run_one(spec)
    logger.info(
        "%s × %s: %s after %d turns → %s",
        played.scenario_id,
        spec_str,
        result.termination_reason,
        result.turns_played,
        folder,
    )
    # Scoring reads only the saved record, as replay does; blocking work goes to a thread.
    card = await asyncio.to_thread(score_session, folder, scenarios, panel)
    if report:
        await asyncio.to_thread(write_report, card, folder)
    responses, as_played = await asyncio.to_thread(responses_for, folder, scenarios)
    events = (await asyncio.to_thread(read_record, folder)).events
    errors = [e for e in events if getattr(e, "event", "") in ("error", "agent_error")]
    return MeetingRun(
        folder=folder,
        agent=spec_str,
        transport=transport,
        meeting=result,
        scenario=as_played,
        responses=responses,
        scorecard=card,
        errors=errors,
    )


def run_meeting(scenario: str | Scenario, agent: str | Callable[..., Any], **options: Any) -> MeetingRun:
    """Run one meeting with ``agent`` and score it; the result answers questions about every turn.

    ``scenario``: a built-in id (instance ``seed``), an id from ``scenario_files`` (JSONL), or a Scenario.
    ``agent``: a built-in name (``oracle``, ``null``, …), ``'py:MODULE:FUNCTION'`` (``async def FUNCTION(client)``
    on the SDK; in a process of its own over webrtc, in-process over inproc), ``'cmd:COMMAND'`` (run per
    meeting with MODYLBENCH_URL and MODYLBENCH_TOKEN set; webrtc), or the async function itself. ``turns``:
    play only the first N turns. ``transport``: ``inproc``
    (time-compressed) or ``webrtc`` (real peers in real time). ``out``: where the session folder goes (a new
    temporary folder by default). ``judges``: the panel (offline by default). Options are those of
    ``run_meeting_async``. Mistakes (an unknown scenario or agent) raise ``UserError`` with one clear line.
    From inside a running event loop (an async test), ``await run_meeting_async(...)`` instead.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(run_meeting_async(scenario, agent, **options))
    raise RuntimeError(
        "run_meeting() was called inside a running event loop (an async test?): "
        "use `await run_meeting_async(...)` or `await meeting.arun(...)` there"
    )


class Meetings:
    """Runs meetings into one folder with shared defaults: the pytest ``meeting`` fixture's object."""

    def __init__(self, out: Path, agent: str | Callable[..., Any] | None = None, **defaults: Any):
        self.out = Path(out)
        self.agent = agent
        """The agent used when ``run`` is given none (the fixture takes it from ``--modylbench-agent``)."""
        self.defaults = defaults
        self.runs: list[MeetingRun] = []
        """Every meeting run so far, in order."""

    def _args(
        self, agent: str | Callable[..., Any] | None, options: dict[str, Any]
    ) -> tuple[Any, dict[str, Any]]:
        chosen = agent if agent is not None else self.agent
        if chosen is None:
            raise UserError(
                "no agent: pass agent='py:MODULE:FUNCTION' (or a built-in name, or 'cmd:COMMAND'), "
                "or run pytest with --modylbench-agent SPEC"
            )
        return chosen, {"out": self.out, **self.defaults, **options}

    def run(
        self, scenario: str | Scenario, agent: str | Callable[..., Any] | None = None, **options: Any
    ) -> MeetingRun:
        """``run_meeting`` into this folder; see its options (turns, transport, seed, judges, …)."""
        chosen, opts = self._args(agent, options)
        result = run_meeting(scenario, chosen, **opts)
        self.runs.append(result)
        return result

    async def arun(
        self, scenario: str | Scenario, agent: str | Callable[..., Any] | None = None, **options: Any
    ) -> MeetingRun:
        """``run`` for async tests."""
        chosen, opts = self._args(agent, options)
        result = await run_meeting_async(scenario, chosen, **opts)
        self.runs.append(result)
        return result
