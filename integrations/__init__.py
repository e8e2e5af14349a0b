"""Other agent ecosystems in a ModylBench meeting, as they are: ``modylbench.integrations.pipecat`` (the
``pipecat`` extra) gives a Pipecat pipeline a transport, tools and an offline voice; ``modylbench.integrations.livekit``
(the ``livekit`` extra) gives a LiveKit Agents ``AgentSession`` the meeting as its input and output and the meeting's
tools. Both share the framework-free tools of ``_toolbox``. See docs/integrations.md."""
