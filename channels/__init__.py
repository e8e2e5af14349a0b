"""modylbench.channels — see DESIGN.md."""
