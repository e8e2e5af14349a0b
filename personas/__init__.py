"""modylbench.personas — see DESIGN.md."""
