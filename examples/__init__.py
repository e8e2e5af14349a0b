"""Example agents on the SDK, shipped with the package (``python -m modylbench.examples.echo_agent URL TOKEN``)."""
