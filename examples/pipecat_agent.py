"""A Pipecat voice agent in a ModylBench meeting: Pipecat's own OpenAI LLM service with the meeting's tools,
an offline eSpeak voice, the meeting as its transport. Needs ``pip install 'modylbench[pipecat]'``.

Run as an outside agent: ``modylbench run SCENARIO --transport webrtc --agent 'cmd:python examples/pipecat_agent.py'``
(it reads MODYLBENCH_URL and MODYLBENCH_TOKEN), by hand with a meeting from ``modylbench serve``, or in-process
with ``--agent py:pipecat_agent:play`` from this folder.
The model: OPENAI_BASE_URL, OPENAI_API_KEY, MODYLBENCH_AGENT_MODEL (default gpt-4o-mini).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys

from pipecat.observers.base_observer import BaseObserver
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import (
    LLMContextAggregatorPair,
    LLMUserAggregatorParams,
)
from pipecat.services.openai.llm import OpenAILLMService
from pipecat.workers.runner import WorkerRunner
from websockets.exceptions import WebSocketException

from modylbench.agents import MeetingClient
from modylbench.integrations.pipecat import (
    EspeakTTSService,
    MeetingTools,
    MeetingTransport,
    meeting_instructions,
    meeting_turn_strategies,
)

log = logging.getLogger("pipecat_agent")


async def run(
    url: str,
    token: str,
    *,
    model: str | None = None,
    base_url: str | None = None,
    observers: list[BaseObserver] | None = None,
) -> MeetingTools:
    """Join the meeting at ``url`` and take part until it ends; returns the tools (what the LLM called).
    ``observers`` see every frame the pipeline passes (Pipecat's observers: logging, metrics, tests)."""
    transport = await MeetingTransport.connect(url, token)
    return await take_part(transport, model=model, base_url=base_url, observers=observers)


async def play(client: MeetingClient) -> None:
    """The ``py:`` form: ``--agent py:pipecat_agent:play`` (run from examples/) on a client already joined."""
    await take_part(await MeetingTransport.attach(client))


async def take_part(
    transport: MeetingTransport,
    *,
    model: str | None = None,
    base_url: str | None = None,
    observers: list[BaseObserver] | None = None,
) -> MeetingTools:
    """Run the pipeline on ``transport`` until the meeting ends."""
    tools = MeetingTools(transport)
    llm = OpenAILLMService(
        api_key=os.environ.get("OPENAI_API_KEY") or "none",
        base_url=base_url or os.environ.get("OPENAI_BASE_URL"),
        settings=OpenAILLMService.Settings(
            model=model or os.environ.get("MODYLBENCH_AGENT_MODEL", "gpt-4o-mini"),
            system_instruction=meeting_instructions(transport.briefing),
        ),
    )
    tools.register(llm)
    context = LLMContext(tools=tools.schema)
    aggregators = LLMContextAggregatorPair(
        context, user_params=LLMUserAggregatorParams(user_turn_strategies=meeting_turn_strategies())
    )
    pipeline = Pipeline(
        [
            transport.input(),
            aggregators.user(),
            llm,
            EspeakTTSService(voice="en-us+m3", words_per_minute=185),
            transport.output(),
            aggregators.assistant(),
        ]
    )
    worker = PipelineWorker(pipeline, params=PipelineParams(), idle_timeout_secs=None, observers=observers)
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    await runner.run()
    return tools


def main() -> int:
    url, token = os.environ.get("MODYLBENCH_URL"), os.environ.get("MODYLBENCH_TOKEN")
    if not url or not token:
        print(
            "pipecat_agent: set MODYLBENCH_URL and MODYLBENCH_TOKEN (modylbench sets them for --agent 'cmd:...')",
            file=sys.stderr,
        )
        return 2
    logging.basicConfig(level=logging.INFO)
    try:
        asyncio.run(run(url, token))
    except (OSError, TimeoutError, WebSocketException) as exc:  # ConnectionError is an OSError
        print(f"pipecat_agent: meeting connection failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
