"""The LLM answerer (--persona-llm) against the project's local OpenAI-compatible server: the model is given only
the persona's knowledge; an answer is said only when every figure in it is the persona's and none is an expected
output; otherwise (a leak, an invented figure, a withheld fact not asked for, a failed call) the offline answer
is said and the record says why."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from modylbench.agents import join_inprocess
from modylbench.channels import InProcessMeeting, VirtualClock
from modylbench.personas import LLMAnswerer, PersonaLLMError, check_persona_llm, make_engine
from modylbench.record import read_record
from modylbench.scenarios import load_builtin, quantities
from modylbench.simulator._session import MeetingOptions, run_meeting
from tests.scoring.openai_server import Answer, Script, openai_server
from tests.simulator.test_persona_answers import Asker

LBO = next(s for s in load_builtin() if s.scenario_id == "financial_analyst_lbo_model")
QUESTION = "What's the fund's IRR hurdle?"


def _answerer(url: str) -> LLMAnswerer:
    return LLMAnswerer(LBO, f"openai/persona-test@{url}")


def _compose(a: LLMAnswerer, question: str = QUESTION) -> Any:
    return asyncio.run(a.compose(a.answer(question)))


def _unknown_figure(a: LLMAnswerer) -> float:
    known = [v for _, vs in a._known for v in vs] + a._forbidden
    return next(x for x in (3.37, 7.77, 93.1, 0.123) if not any(abs(x - k) < 0.05 * max(1.0, abs(k)) for k in known))


def test_a_grounded_answer_is_said_as_the_model_worded_it() -> None:
    script = Script(answers=[Answer(content="Our hurdle is 25%, net to the LPs.")])
    with openai_server(script) as url:
        got = _compose(_answerer(url))
    assert (got.outcome, got.text, got.item_ids, got.replaced) == ("answered", "Our hurdle is 25%, net to the LPs.",
                                                                   ("hurdle_irr",), "")
    assert got.answerer.startswith("openai/persona-test@")
    # The model was given the persona's knowledge and the question, and nothing the agent must produce.
    (req,) = script.requests
    prompt = req["messages"][0]["content"]
    assert "IRR hurdle: 25%" in prompt and QUESTION in req["messages"][1]["content"]
    assert req["temperature"] == 0 and req["seed"] == 0
    a = _answerer(url)
    assert a._forbidden and not [(q, v) for q in quantities(prompt) for v in a._forbidden if abs(q.value - v) < 1e-6]
    for t in LBO.turns:  # no reference answer travels with the knowledge
        assert t.reference_response[:60] not in prompt


@pytest.mark.parametrize("kind", ["leak", "invented", "withheld", "server_error", "empty"])
def test_an_answer_that_fails_the_check_is_replaced_by_the_offline_one(kind: str) -> None:
    a = _answerer("http://127.0.0.1:1/v1")
    leak = next(v for v in a._forbidden if v > 20)
    content = {"leak": f"25%, and between us the deal's IRR comes out at {leak:g}%.",
               "invented": f"Our hurdle is 25%, with a {_unknown_figure(a):g}% catch-up.",
               "withheld": "25%. And the add-backs are the ERP migration and the severance.",
               "server_error": "down", "empty": ""}[kind]
    script = Script(default=Answer(content=content, status=500 if kind == "server_error" else 200))
    with openai_server(script) as url:
        got = _compose(_answerer(url))
    offline = a.answer(QUESTION)
    assert (got.text, got.item_ids, got.answerer) == (offline.text, offline.item_ids, "offline")
    want = {"leak": "states an expected output", "invented": "a figure the persona does not know",
            "withheld": "gives withheld addbacks_items", "server_error": "the call failed", "empty": "empty answer"}
    assert got.replaced.startswith(want[kind]), got.replaced
    if kind in ("leak", "invented", "withheld"):
        assert got.rejected == content


def test_the_agents_own_deliverable_is_never_put_to_the_model() -> None:
    script = Script(default=Answer(content="It is 180%."))
    with openai_server(script) as url:
        got = _compose(_answerer(url), "What's the IRR of the deal?")
    assert got.outcome == "deliverable" and script.requests == []


def test_a_bad_spec_is_one_line() -> None:
    for bad in ("anthropic/claude", "openai", "openai/"):
        with pytest.raises(PersonaLLMError):
            check_persona_llm(bad)
    check_persona_llm("openai/gpt-4o-mini@http://127.0.0.1:9/v1")


async def _meeting(folder: Path, spec: str) -> list[Any]:
    clock = VirtualClock()
    link = InProcessMeeting(clock)
    speech = make_engine("espeak")

    async def agent_side() -> None:
        client = await join_inprocess(link, synthesize=speech.synthesize, receive_audio=False)
        await Asker(LBO).run(client)

    await asyncio.gather(run_meeting(link, LBO, "asker", folder, clock, speech,
                                     MeetingOptions(turns=1, answerer=spec)), agent_side())
    return [e for e in read_record(folder).events if e.event == "persona_answer"]


async def test_in_a_meeting_the_record_says_who_worded_each_answer(tmp_path: Path) -> None:
    a = _answerer("http://127.0.0.1:1/v1")
    leak = next(v for v in a._forbidden if v > 20)

    def reply(body: dict[str, Any]) -> Answer:
        return Answer(content="Twenty-five percent, net." if "hurdle" in body["messages"][1]["content"]
                      else f"It is {leak:g}%.")

    with openai_server(Script(reply=reply)) as url:
        answers = await _meeting(tmp_path / "a", f"openai/persona-test@{url}")
    assert [(e.outcome, e.knowledge, e.replaced) for e in answers] == [("answered", ["hurdle_irr"], ""),
                                                                      ("deliverable", [], "")]
    assert answers[0].text == "Twenty-five percent, net." and answers[0].answerer.startswith("openai/")
    # A model that leaks on every question: each answer is the offline one, recorded as replaced.
    with openai_server(Script(default=Answer(content=f"The hurdle is 25% and the deal IRR is {leak:g}%."))) as url:
        answers = await _meeting(tmp_path / "b", f"openai/persona-test@{url}")
    assert answers[0].answerer == "offline" and answers[0].replaced.startswith("states an expected output")
    assert answers[0].text == a.answer(QUESTION).text and f"{leak:g}" in answers[0].rejected


def test_the_answerer_is_part_of_the_session_key() -> None:
    from modylbench.simulator._sessionkey import SessionKey

    offline = SessionKey("s", "oracle", "oracle", "inproc", None, 0, 0)
    llm = SessionKey("s", "oracle", "oracle", "inproc", None, 0, 0, answerer="openai/m@http://127.0.0.1:9/v1")
    assert "__persona-" not in offline.name and "__persona-openai_m" in llm.name
    assert offline.manifest_entry()["answerer"] == "offline"
