"""modylbench.scoring — see DESIGN.md."""
