"""Other agent ecosystems in a ModylBench meeting, as they are: ``modylbench.integrations.pipecat`` (the
``pipecat`` extra) gives a Pipecat pipeline a transport, tools and an offline voice. See docs/integrations.md."""
